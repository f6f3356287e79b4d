package scheduler

import (
	"cmp"
	"slices"

	"drsim/cluster"
)

// Malleable jobs change their processor count while they run. The engine
// support is one operation, resize, built on the exact re-timing of
// jobs.go (sync, change the duration, retimeTo):
//
//   - A job's work j.run is "seconds at the top level on its current
//     size". Resizing from n to n' multiplies the work and the estimate by
//     f = t(n')/t(n), the runtime ratio of the two sizes, so the job
//     continues with (1 − α) of its work at the new size's runtime: the
//     remaining time becomes (1 − α)·f·D.
//   - A reconfiguration pause of p seconds (the job holds its processors
//     at its current power and makes no progress) is charged as lost
//     progress: α falls by p/D', so the job ends exactly p seconds later
//     than without the pause if its level does not change during the
//     pause (a level change during the pause stretches the pause by the
//     level's scale, as it would stretch work).
//   - Shrinking releases the job's highest processors (its last ranges
//     first); growing allocates more through the Allocator's placement.
//     The engine's view of the job (power, processors, estimated end) is
//     updated at once; the meter sees the power and processor changes.
//   - A job evicted after a resize restarts at its current size and work
//     (molded), and its jobs.csv row records its size at the end.
//
// Resizing is not supported together with a network model (the
// communication fraction was computed for the old placement).

// resize changes running slot's processor count to n (see above). It
// reports false, changing nothing, when n < 1, when growing needs more
// processors than are free, or with a network model.
func (e *Engine) resize(slot int32, n int, f, pause float64) bool {
	j := &e.jobs[slot]
	if j.state != stRunning || n < 1 || !(f > 0) || pause < 0 || e.cfg.Network != nil {
		return false
	}
	if n == j.procs && pause == 0 && f == 1 {
		return true
	}
	if n > j.procs && e.alloc.Free() < n-j.procs {
		return false
	}
	e.sync(j)
	oldM := j.multiplier(e.scale(j))
	switch {
	case n > j.procs:
		var ok bool
		if j.alloc, ok = e.alloc.Alloc(n-j.procs, j.alloc); !ok {
			return false // cannot happen: Free was checked
		}
		j.alloc = normRanges(j.alloc)
	case n < j.procs:
		var rel []cluster.Range
		j.alloc, rel = splitRanges(j.alloc, n)
		e.alloc.Release(rel)
	}
	per := 0.0
	if e.hasPower {
		per = e.cfg.Apps[j.app].Levels[j.level].Power
	}
	newPower := float64(n) * per
	e.meter.Change(newPower-j.power, n-j.procs)
	j.procs, j.power = n, newPower
	e.refreshRunning(slot)
	j.run *= f
	j.est *= f
	m := j.multiplier(e.scale(j))
	if pause > 0 {
		j.alpha -= pause / (j.run * m)
	}
	e.retimeTo(slot, oldM/f)
	if pause > 0 && j.estEnd > e.now {
		e.removeRunning(slot)
		j.estEnd += pause
		e.insertRunning(slot)
	}
	e.dirty, e.changed = true, true
	if e.cfg.Check {
		if busy := e.alloc.Total() - e.alloc.Free(); busy > e.cfg.Procs {
			e.violate("%d processors in use on a %d-processor machine after resizing job %d", busy, e.cfg.Procs, j.id)
		}
		if got := rangesLen(j.alloc); got != n {
			e.violate("job %d resized to %d processors holds %d", j.id, n, got)
		}
	}
	return true
}

// splitRanges keeps the first n processors of rs (in order) and returns
// them and the rest. The kept slice reuses rs's array; rest is new.
func splitRanges(rs []cluster.Range, n int) (keep, rest []cluster.Range) {
	left := int32(n)
	for i, r := range rs {
		if left >= r.Len() {
			left -= r.Len()
			continue
		}
		if left == 0 {
			rest = append(rest, rs[i:]...)
			return rs[:i], rest
		}
		rest = append(rest, cluster.Range{Lo: r.Lo + left, Hi: r.Hi})
		rest = append(rest, rs[i+1:]...)
		rs[i].Hi = r.Lo + left
		return rs[:i+1], rest
	}
	return rs, nil
}

func rangesLen(rs []cluster.Range) int { return cluster.Count(rs) }

// normRanges sorts rs by processor and merges touching ranges, in place.
func normRanges(rs []cluster.Range) []cluster.Range {
	slices.SortFunc(rs, func(a, b cluster.Range) int { return cmp.Compare(a.Lo, b.Lo) })
	out := rs[:0]
	for _, r := range rs {
		if n := len(out); n > 0 && out[n-1].Hi == r.Lo {
			out[n-1].Hi = r.Hi
			continue
		}
		out = append(out, r)
	}
	return out
}

// Resize changes running slot s to n processors: its work and estimate
// scale by f = t(n)/t(current size), and it pauses for pause seconds
// (reconfiguration); see malleable.go. It reports false, changing
// nothing, when it cannot (growing beyond the free processors, n < 1, a
// network model).
func (c *Control) Resize(s int32, n int, f, pause float64) bool { return c.e.resize(s, n, f, pause) }

// JobKey returns running slot s's trace job ID and its unique sequence
// number (trace order), which identify it across slot reuse.
func (c *Control) JobKey(s int32) (id, seq int64) { return c.e.jobs[s].id, c.e.jobs[s].seq }

// StartedSince appends to dst the running slots whose run started after
// start sequence number seq (the engine's count of starts), in start
// order. It reads the running list's entries only.
//
// Start sequence numbers are unique, so while they fit in 32 bits (four
// billion starts) each (seq, slot) pair is sorted as one uint64, seq<<32 |
// slot, which orders exactly as by seq alone and sorts without a
// comparison callback; past that the pairs are sorted by seq.
func (c *Control) StartedSince(seq uint64, dst []int32) []int32 {
	if c.e.startSeq < 1<<32 {
		keys := c.keys[:0]
		for _, b := range c.e.runs.blocks {
			for i := range b {
				if b[i].seq > seq {
					keys = append(keys, b[i].seq<<32|uint64(uint32(b[i].slot)))
				}
			}
		}
		slices.Sort(keys)
		for _, k := range keys {
			dst = append(dst, int32(uint32(k)))
		}
		c.keys = keys
		return dst
	}
	c.pairs = c.pairs[:0]
	for _, b := range c.e.runs.blocks {
		for i := range b {
			if b[i].seq > seq {
				c.pairs = append(c.pairs, seqSlot{b[i].seq, b[i].slot})
			}
		}
	}
	slices.SortFunc(c.pairs, func(a, b seqSlot) int { return cmp.Compare(a.seq, b.seq) })
	for _, p := range c.pairs {
		dst = append(dst, p.slot)
	}
	return dst
}

// IsRunning reports whether slot s holds a running (or booting) job.
func (c *Control) IsRunning(s int32) bool {
	st := c.e.jobs[s].state
	return st == stRunning || st == stBooting
}

// Started returns the time running slot s started its current run.
func (c *Control) Started(s int32) float64 { return c.e.jobs[s].start }

// FreeProcs returns the number of free processors now.
func (c *Control) FreeProcs() int { return c.e.alloc.Free() }

// Procs returns the machine's processor count.
func (c *Control) Procs() int { return c.e.cfg.Procs }

// SyncLeft synchronises running slot s to now and returns its estimated
// remaining work at the top level, max(0, est − min(1, α)·work): the
// max(0, Estimate − Done) of Job(s), without the rest of Job.
func (c *Control) SyncLeft(s int32) float64 {
	j := &c.e.jobs[s]
	c.e.sync(j)
	return max(0, j.est-float64(min(1, j.alpha)*j.run))
}

// RunState is what DR-Scale reads of a running job at every instant of a
// DR event (SyncState).
type RunState struct {
	Left  float64 // estimated remaining work at the top level (SyncLeft)
	Start float64 // the start of its current run (Started)
	Seq   int64   // its unique sequence number (JobKey)
	Procs int     // JobProcs
	App   int
	Level int
	Fixed bool
}

// SyncState synchronises running slot s to now, as SyncLeft, and fills st
// with its fields: one call and one read of the job for what SyncLeft,
// Started, JobKey, JobProcs, App, Level and Fixed return.
func (c *Control) SyncState(s int32, st *RunState) {
	e := c.e
	j := &e.jobs[s]
	if e.cfg.Check {
		e.sync(j)
	} else {
		e.progress(j) // sync without its check, inlined
	}
	// SyncLeft's max(0, est − min(1, α)·run), NaN and signed zeros
	// included, without the builtins' extra tests.
	a := j.alpha
	if a > 1 {
		a = 1
	}
	left := j.est - float64(a*j.run)
	if left <= 0 {
		left = 0
	}
	st.Left = left
	st.Start, st.Seq, st.Procs, st.App, st.Level, st.Fixed = j.start, j.seq, j.procs, j.app, j.level, j.fixed >= 0
}
