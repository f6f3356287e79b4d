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
// Only the head is reserved, and there is no depth limit. On a shared-core
// partition with GPUs a head that needs GPUs is reserved, and jobs are
// backfilled past it, over its nodes' free cores and GPUs (gres.go).
//
// Under a power-aware governor with a limit in force a job also needs power
// headroom to start (View.Fits: the running jobs' power, the idle
// processors' power and the new job's power at its lowest level stay under
// the limit), and backfilled jobs pass the same test. The head's
// reservation is power-feasible too: the shadow time is the earliest
// estimated end at which both enough processors are free and, under the
// limit in force now, the power released by the jobs ended by then (their
// draw above idle, RunningJob.Power) leaves room for the head at its lowest
// level. Backfilled jobs that outlast the shadow must fit in both the extra
// processors and the extra power left at the shadow time. If the head
// cannot fit under the current limit even on an empty machine, its
// reservation is deferred (none is recorded, and every job that fits may
// backfill) until the limit changes. Future limit changes are not
// anticipated: the policy knows only the limit in force. Without a limit
// PowerHeadroom is +Inf and the rule is exactly the processor-only one.
type EASY struct{}

var _ Policy = (*EASY)(nil)

func (*EASY) Name() string { return "easy" }

func (*EASY) Schedule(v *View) {
	head := v.Next(0, v.Total)
	from := head + 1
	if !v.Changed() && head >= 0 && head < v.NewFrom() {
		// The head and all jobs before NewFrom were blocked at the last
		// pass, and nothing has freed processors or power since: the same
		// shadow holds and only new arrivals can be backfilled.
		from = v.NewFrom()
	} else {
		for ; head >= 0 && v.Fits(head); head = v.Next(head+1, v.Total) {
			v.Start(head)
		}
		if head < 0 {
			return
		}
		from = head + 1
	}
	h := v.Job(head)
	var shadow, extraW float64
	var extra int
	if v.gresHead(head) { // GPUs on shared cores count per node: gres.go
		shadow, extra, extraW = v.gresShadow(head, h.Power)
	} else {
		shadow, extra, extraW = shadowTime(v, h.Procs, h.Power)
	}
	if !math.IsInf(shadow, 1) {
		v.Reserve(head, shadow)
	}
	for i := v.NextBackfill(from, extra, shadow); i >= 0; i = v.NextBackfill(i+1, extra, shadow) {
		if !v.Fits(i) {
			continue
		}
		q := v.Job(i)
		switch {
		case v.Now+q.Est <= shadow:
			v.Start(i)
		case q.Procs <= extra && powerOK(q.Power, extraW) && v.gresKeeps(i):
			v.Start(i)
			extra -= q.Procs
			extraW -= q.Power
		}
	}
}

// shadowTime returns the earliest time at which need processors are free
// and needW watts fit under the limit in force, releasing running jobs (and
// their power above idle) at their estimated ends, with the processors and
// watts left then beyond the need. Running jobs are visited in
// estimated-end order. It returns +Inf when the need never fits.
func shadowTime(v *View, need int, needW float64) (shadow float64, extra int, extraW float64) {
	room := v.PowerHeadroom()
	// Without a limit in force the headroom is +Inf and, with finite
	// powers, stays +Inf whatever is released: only processors count.
	procsOnly := math.IsInf(room, 1) && (!v.e.hasPower || v.e.allFinite)
	return shadowWalk(&v.e.runs, v.Now, v.Free(), room, procsOnly, need, needW)
}

// shadowWalk is shadowTime's walk over the running list rl from now, with
// avail processors free and room watts of headroom; procsOnly: the
// headroom is +Inf and stays so (then power is not summed).
func shadowWalk(rl *runList, now float64, avail int, room float64, procsOnly bool, need int, needW float64) (shadow float64, extra int, extraW float64) {
	shadow = now
	short := avail < need || !powerOK(needW, room)
	// Walk the engine's running list directly (same package): entries in
	// estimated-end order, with their processors and power inline.
walk:
	for bi, b := range rl.blocks {
		// A block passed whole releases every entry in it, in order: the
		// processors by the block's sum, the power entry by entry (the
		// same float sums as the loop below), and no entry decides
		// anything on the way.
		if short && avail+rl.procs[bi] < need {
			// Still short of processors after the whole block, whatever
			// the power: the shadow is later.
			avail += rl.procs[bi]
			if !procsOnly {
				for i := range b {
					room += b[i].power
				}
			}
			continue
		}
		if !short && max(b[len(b)-1].estEnd, now) <= shadow {
			avail += rl.procs[bi] // the whole block ends by the shadow time
			if !procsOnly {
				for i := range b {
					room += b[i].power
				}
			}
			continue
		}
		for i := range b {
			r := &b[i]
			end := r.estEnd
			if end < now {
				end = now
			}
			if !short && end > shadow {
				break walk // jobs estimated to end at the shadow time itself release too
			}
			avail += int(r.procs)
			room += r.power
			if short {
				shadow = end
				short = avail < need || !powerOK(needW, room)
			}
		}
	}
	if avail < need || !powerOK(needW, room) { // processors: cannot happen (jobs larger than the machine are dropped)
		return math.Inf(1), 0, 0
	}
	return shadow, avail - need, room - needW
}

// powerOK reports whether w watts fit in room watts of headroom, with the
// tolerance of View.PowerFits.
func powerOK(w, room float64) bool { return w <= room*(1+1e-12)+1e-9 }
