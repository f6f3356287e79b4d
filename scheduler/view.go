package scheduler

import "math"

// QueuedJob is a waiting job as policies see it.
type QueuedJob struct {
	Slot   int32   // engine handle
	Procs  int     // processors requested
	Est    float64 // estimated runtime if started now (s)
	Submit float64 // submit time (s); evicted jobs keep their original one
	Seq    int64   // trace order, unique
	Power  float64 // power the job adds if started now at its lowest level (W)
	Prio   float64 // multifactor priority (priority.go); 0 under other orders

	started bool
}

// RunningJob is a running job as policies see it: only what a real
// scheduler knows, never the true runtime.
type RunningJob struct {
	Procs  int
	EstEnd float64 // start + estimate, re-timed when the job's speed changes
	Power  float64 // W the cluster draws less when the job ends: its power above idle (0 without a power model)
}

// View is what a policy sees at one scheduling instant. Queue positions
// are indices into the engine's wait queue, which may contain gaps left by
// started jobs: policies walk it with Next, which also skips jobs too large
// for a given number of processors. Entries are filled lazily, so a policy
// pays only for the jobs it looks at. Everything is valid only during
// Schedule.
type View struct {
	Now   float64
	Total int // processors in the machine

	e     *Engine
	q     []QueuedJob
	stamp []uint32 // q[i] is filled for this pass when stamp[i] == pass
	pass  uint32
	// backfill is set once the policy reserved a job in this pass: later
	// starts are backfill decisions (the multifactor --check, priority.go).
	backfill bool
	gres     gresState // EASY's nodes at the shadow time of a GPU head on shared cores (gres.go)
}

func (v *View) reset(e *Engine) {
	v.e, v.Now, v.Total = e, e.now, e.total
	v.pass++
	v.backfill = false
	v.gres.on = false
	if n := len(e.wq.slots); cap(v.q) < n {
		v.q = make([]QueuedJob, n, 2*n)
		v.stamp = make([]uint32, n, 2*n)
	} else {
		v.q, v.stamp = v.q[:n], v.stamp[:n]
	}
}

// Next returns the first queue position ≥ i holding a waiting job that
// needs at most maxProcs processors, or -1. Next(0, v.Total) is the head.
func (v *View) Next(i, maxProcs int) int {
	if i < 0 {
		return -1
	}
	return v.e.wq.next(i, maxProcs)
}

// Changed reports whether anything that can make a waiting job startable
// happened since the previous pass: a finish, a power-limit change, a
// re-timed or evicted job, or a job queued out of order. When it is false,
// every job at a position before NewFrom was blocked at the previous pass
// and still is, so a policy need only look at positions from NewFrom on.
func (v *View) Changed() bool { return v.e.changed }

// NewFrom returns the first queue position added since the previous pass.
func (v *View) NewFrom() int { return v.e.newFrom }

// EstLow returns a lower bound of Job(i).Est that needs no lookup: the
// exact estimate when the job's start level is known in advance (no power
// model, a fixed level or a static governor), otherwise the top-level
// estimate times the smallest runtime scale of any level.
func (v *View) EstLow(i int) float64 { return v.e.wq.est[i] }

// estExact reports whether EstLow(i) is exactly Job(i).Est for every
// queued job and Job(i).Power is never NaN: no power model, or a static
// governor (the start level is known at enqueue) or one whose start level
// is set by the limit in force (estByLimit: the engine re-reads the
// estimates at every limit change), and finite lowest-level powers. Under
// node power saving only for a bootEstPolicy, whose queue's estimates
// hold the boot allowance (estLow, syncBootEst); the powers do not hold
// its power allowance.
func (v *View) estExact() bool {
	e := v.e
	return e.estKnown() && (!e.hasPower || e.finitePower)
}

// estKnown reports whether the wait queue's estimates are every queued
// job's Est exactly (View.estExact without its test of the powers): no
// power model or a start level known in advance or set by the limit in
// force, and without node power saving or with the queue's estimates
// following its boot allowance (bootEstPolicy, estLow).
func (e *Engine) estKnown() bool {
	return (e.np == nil || e.np.queueEst) && (!e.hasPower || e.govKind != govOther || e.estByLimit)
}

// Procs returns Job(i).Procs without filling the entry.
func (v *View) Procs(i int) int { return int(v.e.wq.procs[i]) }

// NextBackfill returns the first queue position ≥ i holding a waiting job
// that needs at most Free() processors and either at most extra processors
// or could end (by EstLow) no later than shadow; -1 if none. It is Next
// with EASY's backfill condition folded into the skip, so scans over long
// queues stay cheap. Candidates still need Fits and the exact estimate.
func (v *View) NextBackfill(i, extra int, shadow float64) int {
	if i < 0 {
		return -1
	}
	// The window is a little generous so that rounding in Now+Est ≤ shadow
	// never hides a candidate; Fits and the exact test follow.
	window := (shadow-v.Now)*(1+1e-12) + 1e-6
	room := v.PowerHeadroom()*(1+1e-12) + 1e-9 // PowerFits's tolerance: an entry above it does not fit
	w := &v.e.wq
	k := w.nextBackfill(i, v.Free(), extra, window, room)
	if v.e.cfg.Check {
		// the bounds and staircases skipped no entry the condition takes
		end := k
		if k < 0 {
			end = len(w.slots)
		}
		for j := max(i, w.head); j < end; j++ {
			if p := int(w.procs[j]); w.slots[j] >= 0 && p <= v.Free() && (p <= extra || w.est[j] <= window) && !(w.pw[j] > room) {
				v.e.violate("backfill scan from queue position %d skipped position %d (job %d: %d processors, estimate %v) for %d", i, j, v.e.jobs[w.slots[j]].id, p, w.est[j], k)
				break
			}
		}
	}
	return k
}

// Job returns the job at queue position i (from Next).
func (v *View) Job(i int) *QueuedJob {
	if v.stamp[i] != v.pass {
		v.e.fillQueued(&v.q[i], v.e.wq.slots[i])
		if v.e.np != nil {
			v.e.bootAllowance(&v.q[i]) // nodepower.go
		}
		if w := &v.e.wq; v.e.cfg.Check && (w.est[i] > v.q[i].Est || w.pw[i] > v.q[i].Power) {
			v.e.violate("queued job %d: wait-queue bounds (estimate %v, power %v) above its estimate %v and power %v",
				v.e.jobs[w.slots[i]].id, w.est[i], w.pw[i], v.q[i].Est, v.q[i].Power)
		}
		v.stamp[i] = v.pass
	}
	return &v.q[i]
}

// Free returns the processors free now (after this pass's starts).
func (v *View) Free() int { return v.e.alloc.Free() }

// Running returns the number of running jobs, including those started in
// this pass.
func (v *View) Running() int { return v.e.runs.Len() }

// RunningJob returns the i-th running job in order of estimated end (ties
// in start order).
func (v *View) RunningJob(i int) RunningJob {
	r := v.e.runs.at(i)
	return RunningJob{Procs: int(r.procs), EstEnd: r.estEnd, Power: r.power}
}

// Fits reports whether Job(i) can start now: not started yet, enough free
// processors (for a GPU job on a shared-core partition, enough nodes with
// its cores and GPUs free: gres.go) and, under a power-aware governor,
// power headroom under the limit in force.
func (v *View) Fits(i int) bool {
	q := v.Job(i)
	if q.started || q.Procs > v.Free() {
		return false
	}
	if e := v.e; e.parts != nil {
		if j := &e.jobs[q.Slot]; j.gresNodes > 0 && !e.gresFits(j) {
			return false
		}
	}
	return v.PowerFits(q.Power)
}

// PowerFits reports whether w more watts fit under the limit now. It is
// always true unless the governor is power-aware and a limit is in force.
func (v *View) PowerFits(w float64) bool {
	return w <= v.PowerHeadroom()*(1+1e-12)+1e-9
}

// PowerHeadroom returns the limit minus the current power (+Inf without a
// limit or a power-aware governor).
func (v *View) PowerHeadroom() float64 {
	e := v.e
	if !e.powerAware || math.IsInf(e.lim.Limit, 1) {
		return math.Inf(1)
	}
	return e.lim.Limit - e.lim.Power()
}

// Start starts Job(i) now and returns its estimated end. It panics if the
// job does not fit: a policy must check Fits first (that is a bug in the
// policy, not bad input).
func (v *View) Start(i int) float64 {
	if !v.Fits(i) {
		panic("scheduler: policy started a job that does not fit")
	}
	q := v.Job(i)
	if v.e.checkFCFS && v.e.wq.next(0, math.MaxInt32) != i {
		v.e.violate("fcfs started queue position %d before an earlier waiting job", i)
	}
	if v.e.checkPrio && !v.backfill {
		v.e.checkPriorityStart(i) // priority.go
	}
	q.started = true
	v.e.wq.remove(i)
	return v.e.start(q.Slot, v.Now)
}

// Started reports whether Job(i) was started in this pass.
func (v *View) Started(i int) bool { return v.Job(i).started }

// Reserve records that the policy reserved Job(i) to start at t. The
// engine keeps each job's first reservation so --check can verify that
// EASY's head never starts later than promised.
func (v *View) Reserve(i int, t float64) {
	v.backfill = true
	if v.e.checkRes { // only EASY's --check reads reservations
		v.e.reserve(v.e.wq.slots[i], t)
	}
}

// WakeAt asks the engine to run the policy again at t (> Now) even if no
// job event happens then (the slurm-backfill policy's ticks). A wake
// already armed for t or earlier covers it.
func (v *View) WakeAt(t float64) {
	e := v.e
	if !(t > v.Now) || (e.wake > v.Now && e.wake <= t) {
		return
	}
	e.wake = t
	e.q.Push(Event{T: t, Kind: KindWake, Job: -1})
}

// woken handles a KindWake event: the policy runs at this instant.
func (e *Engine) woken(t float64) {
	if t == e.wake {
		e.wake = 0
	}
	e.dirty = true
}
