package scheduler

import (
	"math"
	"slices"
)

// Early end of passes on the power profile.
//
// Under a limit the profile also tracks power headroom (profile), and a
// pass used to place every queued job: on RICC under --dvfs dr, 12,919
// such passes made 14.3 M placements of which 13,513 started a job. As on
// the processor-only profile (lastCandidate, deferred), a pass now ends
// at the first group of the queue after the last job that could still
// start now, and defers the rest: a later pass that keeps the profile
// places them first, each segment from its own pass's time, exactly as
// the deferring pass would have; one that rebuilds drops them.
//
// A job can start now only if its processors and power are free on every
// step of the profile from now until now plus its estimate (earliestFrom
// from now). The profile only loses processors and headroom at now within
// a pass, so a job ruled out stays ruled out. The test reads lower bounds
// (the wait queue's processors, estimates and powers), so it only ever
// keeps too many candidates.
//
// Deferring needs the jobs' QueuedJob to be the same when the later pass
// places them: their start level known in advance or set by the limit
// alone (the limit did not change, or that pass would rebuild), and no
// state-dependent part (node power saving's boot allowance, node loads'
// admission power): powerEnd.

// powerEnd reports whether a pass on the power profile may end early.
func (c *Conservative) powerEnd(v *View) bool {
	return !c.fast && v.estExact() && v.e.nl == nil
}

// lastCandidatePower is lastCandidate on the power profile: the last
// queue position from i to cand whose job may start now, i-1 if none.
// cand itself is checked on the profile directly; if it fails, the
// running minimums of processors and headroom from now (c.pfront) answer
// for the positions below it.
func (c *Conservative) lastCandidatePower(v *View, i, cand int) int {
	w := &v.e.wq
	mp := int32(min(v.Total, math.MaxInt32-1))
	p := &c.p
	for ; cand >= i; cand-- {
		if w.procs[cand] <= mp {
			break
		}
	}
	if cand < i {
		return cand
	}
	if p.fitsNow(int(w.procs[cand]), w.pw[cand], w.est[cand]) {
		return cand
	}
	f := c.pfront.build(p)
	for cand--; cand >= i; cand-- {
		if pr := w.procs[cand]; pr <= mp && f.fits(p.t[0], int(pr), w.pw[cand], w.est[cand]) {
			return cand
		}
	}
	return cand
}

// fitsNow reports whether procs processors and w watts are free on every
// step of the profile that starts before its first step's time plus dur:
// whether earliestFrom(procs, w, dur, t[0]) is t[0].
func (p *profile) fitsNow(procs int, w, dur float64) bool {
	end := p.t[0] + dur
	if !p.fits(0, procs, w) {
		return false
	}
	for m := 1; m < len(p.t) && p.t[m] < end; m++ {
		if !p.fits(m, procs, w) {
			return false
		}
	}
	return true
}

// powerFront is the running minimum of a power profile's free processors
// and headroom from its first step: free[k] and room[k] are the minimums
// over steps 0..k, t[k] step k's start.
type powerFront struct {
	t    []float64
	free []int
	room []float64
}

// build makes f the running minimum of p and returns f.
func (f *powerFront) build(p *profile) *powerFront {
	n := len(p.t)
	f.t = append(f.t[:0], p.t...)
	f.free = slices.Grow(f.free[:0], n)[:n]
	f.room = slices.Grow(f.room[:0], n)[:n]
	fr, rm := p.free[0], p.room[0]
	for k := range n {
		fr = min(fr, p.free[k])
		rm = min(rm, p.room[k]) // NaN stays NaN: powerOK fails on it, as on the step
		f.free[k], f.room[k] = fr, rm
	}
	return f
}

// fits is profile.fitsNow read from the running minimums (at is the
// profile's first step's time): the steps it checks are 0..k, k the last
// step that starts before at+dur (step 0 always), and powerOK only grows
// with the headroom, so all of them fit iff their minimums do.
func (f *powerFront) fits(at float64, procs int, w, dur float64) bool {
	k, _ := slices.BinarySearch(f.t, at+dur) // the first step at or after the end
	k = max(k-1, 0)
	return procs <= f.free[k] && powerOK(w, f.room[k])
}

// placeDeferredPower places the live queue entries from position pos up
// to end on the power profile from at, as the deferring pass's loop would
// have (none of them could start at at).
func (c *Conservative) placeDeferredPower(v *View, pos, end int, at float64) {
	for i := v.Next(pos, v.Total); i >= 0 && i < end; i = v.Next(i+1, v.Total) {
		t := c.place(at, v.Job(i))
		if math.IsInf(t, 1) {
			continue // does not fit under the current limit
		}
		v.Reserve(i, t)
	}
}
