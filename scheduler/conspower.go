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
//
// Not under node power saving, whose power allowance (View.Job) the queue's
// powers do not hold.
func (c *Conservative) powerEnd(v *View) bool {
	return !c.fast && v.estExact() && v.e.nl == nil && v.e.np == nil
}

// lastCandidatePower is lastCandidate on the power profile: the last
// queue position from i to cand whose job may start now, i-1 if none.
func (c *Conservative) lastCandidatePower(v *View, i, cand int) int {
	return c.lastCandidatePowerAt(v, i, cand, v.Now)
}

// lastCandidatePowerAt is lastCandidatePower for starts at at (≥ the
// profile's first step). cand itself is checked on the profile directly;
// if it fails, the running minimums of processors and headroom from at
// (c.pfront) answer for the positions below it.
func (c *Conservative) lastCandidatePowerAt(v *View, i, cand int, at float64) int {
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
	k0 := p.stepAt(at)
	if p.fitsFrom(k0, at, int(w.procs[cand]), w.pw[cand], w.est[cand]) {
		return cand
	}
	f := c.pfront.build(p, k0)
	for cand--; cand >= i; cand-- {
		if pr := w.procs[cand]; pr <= mp && f.fits(at, int(pr), w.pw[cand], w.est[cand]) {
			return cand
		}
	}
	return cand
}

// stepAt returns the step in force at at (≥ the first step's time).
func (p *profile) stepAt(at float64) int {
	k, found := slices.BinarySearch(p.t, at)
	if !found {
		k = max(0, k-1)
	}
	return k
}

// fitsFrom reports whether procs processors and w watts are free on step
// k0, in force at at, and on every later step that starts before at+dur:
// whether earliestFrom(procs, w, dur, at) is at, for at a step's start or
// the profile's first step's time (then the profile advanced to at has
// the same steps from at).
func (p *profile) fitsFrom(k0 int, at float64, procs int, w, dur float64) bool {
	end := at + dur
	if !p.fits(k0, procs, w) {
		return false
	}
	for m := k0 + 1; m < len(p.t) && p.t[m] < end; m++ {
		if !p.fits(m, procs, w) {
			return false
		}
	}
	return true
}

// powerFront is the running minimum of a power profile's free processors
// and headroom from one of its steps: free[k] and room[k] are the
// minimums over the steps from that one to the k-th after it, t[k] the
// k-th's start (t[0] not read).
type powerFront struct {
	t    []float64
	free []int
	room []float64
	// end and k are fits's last window end and the index it found for
	// it (NaN: none since build): runs of identical jobs ask the same.
	end float64
	k   int
}

// build makes f the running minimum of p from step k0 and returns f.
func (f *powerFront) build(p *profile, k0 int) *powerFront {
	n := len(p.t) - k0
	f.end = math.NaN()
	f.t = append(f.t[:0], p.t[k0:]...)
	f.free = slices.Grow(f.free[:0], n)[:n]
	f.room = slices.Grow(f.room[:0], n)[:n]
	fr, rm := p.free[k0], p.room[k0]
	for k := range n {
		fr = min(fr, p.free[k0+k])
		rm = min(rm, p.room[k0+k]) // NaN stays NaN: powerOK fails on it, as on the step
		f.free[k], f.room[k] = fr, rm
	}
	return f
}

// fits is profile.fitsFrom read from the running minimums (at in force
// on f's first step): the steps it checks are the first and those after
// it that start before at+dur, and powerOK only grows with the headroom,
// so all of them fit iff their minimums do.
func (f *powerFront) fits(at float64, procs int, w, dur float64) bool {
	if end := at + dur; end != f.end {
		f.end = end
		f.k, _ = slices.BinarySearch(f.t[1:], end) // the steps after the first that start before the end
	}
	return procs <= f.free[f.k] && powerOK(w, f.room[f.k])
}

// powerDeferrable reports whether an arrival pass on the power profile
// may add its jobs to the deferral (extendDeferral): its passes end early
// (powerEnd), and the deferred reservations only take processors and
// power (deferredTake), so without them the profile has at least the
// room it would have with them.
func (c *Conservative) powerDeferrable(v *View) bool {
	return c.powerEnd(v) && c.deferredTake(v)
}

// deferredTake reports whether no deferred job's reservation gives power
// back: the power lower bounds (exact here, powerEnd) of the live queue
// entries before the jobs queued since are ≥ 0. (All of them: the queue
// may have been compacted since the segments were recorded.)
func (c *Conservative) deferredTake(v *View) bool {
	w := &v.e.wq
	for k := range min(v.NewFrom(), len(w.slots)) {
		if w.slots[k] >= 0 && !(w.pw[k] >= 0) {
			return false
		}
	}
	return true
}

// placeDeferredPower places the live queue entries from position pos up
// to end on the power profile from at, as the deferring pass's loop would
// have (none of them could start at at).
func (c *Conservative) placeDeferredPower(v *View, pos, end int, at float64) {
	arrays := c.powerEnd(v) // the queue's arrays are exact (queueJob)
	for i := v.Next(pos, v.Total); i >= 0 && i < end; i = v.Next(i+1, v.Total) {
		var t float64
		if arrays {
			procs, est, pw := queueJob(v, i)
			t = c.placeJob(at, procs, est, pw)
		} else {
			t = c.place(at, v.Job(i))
		}
		if math.IsInf(t, 1) {
			continue // does not fit under the current limit
		}
		v.Reserve(i, t)
	}
}

// powerMemo remembers the answers of the last searches of a pass on the
// power profile (at most powerMemoSize, the oldest replaced first). While
// reservations only take processors and headroom, a search that found a
// (procs, w, dur) job's earliest start at `at` ruled out every earlier
// time: each window [x, x+dur) with x < at holds a step short of procs
// processors or of w watts of headroom, and that step is still as short
// later in the pass, and within the longer window of any job of at least
// procs processors, w watts and dur seconds. So such a job's search can
// start from at (earliestFrom's lb). A reservation that gives headroom
// back (negative or NaN power) clears the memo, as does a new pass or
// deferred segment. conservative-full leaves it out (tests compare).
type powerMemo struct {
	n, next int
	e       [powerMemoSize]powerMemoEntry
}

const powerMemoSize = 16

type powerMemoEntry struct {
	procs  int
	w, dur float64
	at     float64
}

func (m *powerMemo) reset() { m.n, m.next = 0, 0 }

// lower returns the latest remembered start of a search that a job of
// procs processors, w watts and dur seconds dominates (−Inf: none).
//
// Without a branch on the data (the tests mispredicted, a tenth of RICC
// conservative under dvfs dr): each entry's start is taken as its
// order-preserving integer key (floatKey: starts are never NaN) masked
// to 0, below every key, unless the entry dominates, and the largest
// key is the answer.
func (m *powerMemo) lower(procs int, w, dur float64) float64 {
	best := floatKey(math.Inf(-1))
	for i := range m.n {
		e := &m.e[i]
		ok := b2u(e.procs <= procs) & b2u(e.w <= w) & b2u(e.dur <= dur)
		best = max(best, floatKey(e.at)&-ok)
	}
	return keyFloat(best)
}

// b2u is 1 if b, else 0 (SETcc).
func b2u(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

// put remembers a search's answer.
func (m *powerMemo) put(procs int, w, dur, at float64) {
	m.e[m.next] = powerMemoEntry{procs, w, dur, at}
	m.next = (m.next + 1) % powerMemoSize
	m.n = min(m.n+1, powerMemoSize)
}
