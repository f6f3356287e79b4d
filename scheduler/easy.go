package scheduler

import "math"

// EASY is EASY backfilling (Lifka 1995; Mu'alem and Feitelson 2001):
//
//  1. Start jobs in queue order while they fit.
//  2. The first job that does not fit (the head) is reserved at the shadow
//     time: the earliest time enough processors are free if running jobs
//     release at their estimated ends (start + estimate; the true runtime
//     is never seen). The processors left over at the shadow time beyond
//     the head's are the extra processors.
//  3. Every later job, in queue order, starts now if it fits now and either
//     ends (now + estimate) no later than the shadow time or uses no more
//     than the extra processors; a backfilled job that outlasts the shadow
//     uses up extra processors.
//
// Only the head is reserved, and there is no depth limit.
//
// Under a power-aware governor a job also needs power headroom to start
// (View.Fits). The head's reservation is computed on processors only: if
// power, not processors, is what blocks the head, the reservation is the
// current time, backfilling is restricted to jobs that end by then (none
// with positive runtime), and the head is deferred until the limit lifts or
// running jobs finish. This keeps the head from starving behind backfilled
// jobs during a DR event.
type EASY struct{}

var _ Policy = (*EASY)(nil)

func (*EASY) Name() string { return "easy" }

func (*EASY) Schedule(v *View) {
	n := v.Len()
	head := 0
	for ; head < n && v.Fits(head); head++ {
		v.Start(head)
	}
	if head >= n {
		return
	}
	shadow, extra := shadowTime(v, v.Job(head).Procs)
	v.Reserve(head, shadow)
	for i := head + 1; i < n && v.Free() > 0; i++ {
		if !v.Fits(i) {
			continue
		}
		q := v.Job(i)
		switch {
		case v.Now+q.Est <= shadow:
			v.Start(i)
		case q.Procs <= extra:
			v.Start(i)
			extra -= q.Procs
		}
	}
}

// shadowTime returns the earliest time at which need processors are free,
// releasing running jobs at their estimated ends, and the processors free
// then beyond need. Running jobs are visited in estimated-end order.
func shadowTime(v *View, need int) (shadow float64, extra int) {
	avail := v.Free()
	shadow = v.Now
	i := 0
	for ; avail < need && i < v.Running(); i++ {
		r := v.RunningJob(i)
		avail += r.Procs
		shadow = math.Max(v.Now, r.EstEnd)
	}
	// Jobs estimated to end at the shadow time itself release too.
	for ; i < v.Running(); i++ {
		r := v.RunningJob(i)
		if math.Max(v.Now, r.EstEnd) > shadow {
			break
		}
		avail += r.Procs
	}
	if avail < need { // cannot happen: jobs larger than the machine are dropped
		return math.Inf(1), 0
	}
	return shadow, avail - need
}
