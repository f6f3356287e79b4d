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
// Under a power-aware governor with a limit in force the profile also
// tracks power headroom under the limit in force now: running jobs release
// their power above idle at their estimated ends, and each reservation
// takes the job's power at its lowest level (QueuedJob.Power) for its
// duration, so a reservation is processor- and power-feasible. A job that
// cannot fit under the current limit even on an empty machine gets no
// reservation (it is deferred until the limit changes) and holds nothing
// back. Without a limit the headroom is +Inf and the rule is the
// processor-only one.
//
// Once no processor is free now, no later job can start in this pass, so
// the scan stops: the remaining reservations would only be recomputed at
// the next pass anyway.
type Conservative struct {
	p profile
	// valid says p holds the reservation of every queued job as of the
	// last pass. If nothing has changed since (View.Changed), those
	// reservations stand and only jobs queued since need one.
	valid bool
}

var _ Policy = (*Conservative)(nil)

func (*Conservative) Name() string { return "conservative" }

func (c *Conservative) Schedule(v *View) {
	p := &c.p
	from := 0
	if !v.Changed() && c.valid {
		p.advance(v.Now)
		from = v.NewFrom()
	} else {
		p.reset(v.Now, v.Free(), v.PowerHeadroom())
		for i := 0; i < v.Running(); i++ {
			r := v.RunningJob(i) // in estimated-end order, so appends stay sorted
			p.release(math.Max(v.Now, r.EstEnd), r.Procs, r.Power)
		}
	}
	c.valid = true
	for i := v.Next(from, v.Total); i >= 0; i = v.Next(i+1, v.Total) {
		if v.Free() == 0 {
			c.valid = false // later jobs keep no reservation in p
			break
		}
		q := v.Job(i)
		t := p.earliest(q.Procs, q.Power, q.Est)
		if math.IsInf(t, 1) {
			continue // deferred: does not fit under the current limit
		}
		if t == v.Now {
			if !v.Fits(i) {
				c.valid = false // reserved now but not started: recompute next time
			} else {
				v.Start(i)
			}
		}
		v.Reserve(i, t)
		p.reserve(t, t+q.Est, q.Procs, q.Power)
	}
}

// advance drops the part of the profile before now, keeping the step in
// force at now.
func (p *profile) advance(now float64) {
	k, found := slices.BinarySearch(p.t, now)
	if !found {
		k-- // the step in force at now starts before it
	}
	if k <= 0 {
		p.t[0] = now
		return
	}
	p.t = append(p.t[:0], p.t[k:]...)
	p.free = append(p.free[:0], p.free[k:]...)
	p.room = append(p.room[:0], p.room[k:]...)
	p.t[0] = now
}

// profile is a step function of free processors and power headroom over
// time: free[k] processors and room[k] W from t[k] until t[k+1] (the last
// step lasts forever).
type profile struct {
	t    []float64
	free []int
	room []float64
}

func (p *profile) reset(now float64, free int, room float64) {
	p.t = append(p.t[:0], now)
	p.free = append(p.free[:0], free)
	p.room = append(p.room[:0], room)
}

// release adds procs and w watts of headroom from time at on; at must be ≥
// the last step's time.
func (p *profile) release(at float64, procs int, w float64) {
	n := len(p.t)
	if p.t[n-1] == at {
		p.free[n-1] += procs
		p.room[n-1] += w
		return
	}
	p.t = append(p.t, at)
	p.free = append(p.free, p.free[n-1]+procs)
	p.room = append(p.room, p.room[n-1]+w)
}

// fits reports whether step k has procs processors and w watts free.
func (p *profile) fits(k, procs int, w float64) bool {
	return p.free[k] >= procs && powerOK(w, p.room[k])
}

// earliest returns the earliest step start from which procs processors and
// w watts are free for dur seconds, or +Inf if there is none.
func (p *profile) earliest(procs int, w, dur float64) float64 {
	for k := 0; k < len(p.t); {
		if !p.fits(k, procs, w) {
			k++
			continue
		}
		start, end := p.t[k], p.t[k]+dur
		m := k + 1
		for m < len(p.t) && p.t[m] < end && p.fits(m, procs, w) {
			m++
		}
		if m == len(p.t) || p.t[m] >= end {
			return start
		}
		k = m + 1 // step m is too full; no start before it can work
	}
	return math.Inf(1) // only when the power does not fit even on an empty machine
}

// reserve takes procs processors and w watts over [from, to).
func (p *profile) reserve(from, to float64, procs int, w float64) {
	i := p.split(from)
	j := p.split(to)
	for k := i; k < j; k++ {
		p.free[k] -= procs
		p.room[k] -= w
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
	p.room = slices.Insert(p.room, k, p.room[k-1])
	return k
}
