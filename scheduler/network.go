package scheduler

import "drsim/cluster"

// A Network adds communication time to jobs. A job's duration is
//
//	run × [(1 − c)·scale + c·ratio]
//
// where scale is its level's t(x)/t(xmax), c its communication fraction
// (measured on a compact placement) and ratio the communication time on its
// actual placement, under current contention, over that on a compact
// placement without contention. The engine re-times jobs whose ratio
// changes, exactly, like a frequency change.
type Network interface {
	// Started is called when slot starts on alloc and returns its
	// communication fraction and ratio.
	Started(slot int32, app, procs int, alloc []cluster.Range) (c, ratio float64)
	// Finished is called when slot stops running (finish or eviction).
	Finished(slot int32)
	// Changed appends to dst the running jobs whose ratio changed since the
	// last call (interference), with their new ratios.
	Changed(dst []RatioChange) []RatioChange
}

// RatioChange is a new communication ratio for a running job.
type RatioChange struct {
	Slot  int32
	Ratio float64
}

// multiplier returns the job's duration multiplier at level scale.
func (j *job) multiplier(scale float64) float64 {
	return (1-j.comm)*scale + j.comm*j.ratio
}

// applyNetwork re-times the jobs whose communication ratio changed.
func (e *Engine) applyNetwork() {
	if e.cfg.Network == nil {
		return
	}
	e.netBuf = e.cfg.Network.Changed(e.netBuf[:0])
	for _, ch := range e.netBuf {
		j := &e.jobs[ch.Slot]
		if j.state != stRunning || j.ratio == ch.Ratio {
			continue
		}
		e.sync(j)
		oldM := j.multiplier(e.scale(j))
		j.ratio = ch.Ratio
		e.retimeTo(ch.Slot, oldM)
	}
}
