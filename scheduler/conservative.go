package scheduler

import (
	"math"
	"slices"
)

// Conservative is conservative backfilling: every queued job, in queue
// order, gets the earliest reservation that delays no earlier
// reservation, computed on an availability profile in which running jobs
// release their processors at their estimated ends. Jobs whose reservation
// is now start now. Reservations are recomputed from scratch at every pass,
// so they only ever move earlier when jobs end before their estimates.
//
// Once no processor is free now, no later job can start in this pass, so
// the scan stops: the remaining reservations would only be recomputed at
// the next pass anyway.
type Conservative struct {
	p profile
}

var _ Policy = (*Conservative)(nil)

func (*Conservative) Name() string { return "conservative" }

func (c *Conservative) Schedule(v *View) {
	p := &c.p
	p.reset(v.Now, v.Free())
	for i := 0; i < v.Running(); i++ {
		r := v.RunningJob(i) // in estimated-end order, so appends stay sorted
		p.release(math.Max(v.Now, r.EstEnd), r.Procs)
	}
	for i := 0; i < v.Len() && v.Free() > 0; i++ {
		q := v.Job(i)
		t := p.earliest(q.Procs, q.Est)
		if t == v.Now && v.Fits(i) {
			v.Start(i)
		}
		v.Reserve(i, t)
		p.reserve(t, t+q.Est, q.Procs)
	}
}

// profile is a step function of free processors over time: free[k]
// processors from t[k] until t[k+1] (the last step lasts forever).
type profile struct {
	t    []float64
	free []int
}

func (p *profile) reset(now float64, free int) {
	p.t = append(p.t[:0], now)
	p.free = append(p.free[:0], free)
}

// release adds procs from time at on; at must be ≥ the last step's time.
func (p *profile) release(at float64, procs int) {
	n := len(p.t)
	if p.t[n-1] == at {
		p.free[n-1] += procs
		return
	}
	p.t = append(p.t, at)
	p.free = append(p.free, p.free[n-1]+procs)
}

// earliest returns the earliest step start from which procs processors are
// free for dur seconds.
func (p *profile) earliest(procs int, dur float64) float64 {
	for k := 0; k < len(p.t); {
		if p.free[k] < procs {
			k++
			continue
		}
		start, end := p.t[k], p.t[k]+dur
		m := k + 1
		for m < len(p.t) && p.t[m] < end && p.free[m] >= procs {
			m++
		}
		if m == len(p.t) || p.t[m] >= end {
			return start
		}
		k = m + 1 // step m is too full; no start before it can work
	}
	return math.Inf(1) // unreachable: the last step has the whole machine
}

// reserve takes procs processors over [from, to).
func (p *profile) reserve(from, to float64, procs int) {
	i := p.split(from)
	j := p.split(to)
	for k := i; k < j; k++ {
		p.free[k] -= procs
	}
}

// split makes sure a step starts at t and returns its index.
func (p *profile) split(t float64) int {
	k, found := slices.BinarySearch(p.t, t)
	if found {
		return k
	}
	// k > 0: t is after the first step (reservations never start before now).
	p.t = slices.Insert(p.t, k, t)
	p.free = slices.Insert(p.free, k, p.free[k-1])
	return k
}
