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

	started bool
}

// RunningJob is a running job as policies see it: only what a real
// scheduler knows, never the true runtime.
type RunningJob struct {
	Procs  int
	EstEnd float64 // start + estimate, re-timed when the job's speed changes
}

// View is what a policy sees at one scheduling instant. Queue entries are
// filled lazily, so a policy that stops early (FCFS, or EASY on a full
// machine) pays only for what it reads. Everything is valid only during
// Schedule.
type View struct {
	Now   float64
	Total int // processors in the machine

	e      *Engine
	q      []QueuedJob
	filled int
	nStart int
}

func (v *View) reset(e *Engine) {
	v.e, v.Now, v.Total = e, e.now, e.cfg.Procs
	v.filled, v.nStart = 0, 0
	if cap(v.q) < len(e.queue) {
		v.q = make([]QueuedJob, len(e.queue), 2*len(e.queue))
	}
	v.q = v.q[:len(e.queue)]
}

// Len returns the number of queued jobs at the start of the pass.
func (v *View) Len() int { return len(v.q) }

// Job returns the i-th queued job in queue order.
func (v *View) Job(i int) *QueuedJob {
	for v.filled <= i {
		v.e.fillQueued(&v.q[v.filled], v.e.queue[v.filled])
		v.filled++
	}
	return &v.q[i]
}

// Free returns the processors free now (after this pass's starts).
func (v *View) Free() int { return v.e.alloc.Free() }

// Running returns the number of running jobs, including those started in
// this pass.
func (v *View) Running() int { return len(v.e.running) }

// RunningJob returns the i-th running job in order of estimated end (ties
// in start order).
func (v *View) RunningJob(i int) RunningJob {
	j := &v.e.jobs[v.e.running[i]]
	return RunningJob{Procs: j.procs, EstEnd: j.estEnd}
}

// Fits reports whether Job(i) can start now: not started yet, enough free
// processors and, under a power-aware governor, power headroom under the
// limit in force.
func (v *View) Fits(i int) bool {
	q := v.Job(i)
	if q.started || q.Procs > v.Free() {
		return false
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
	if !e.powerAware || math.IsInf(e.meter.Limit, 1) {
		return math.Inf(1)
	}
	return e.meter.Limit - e.meter.Power()
}

// Start starts Job(i) now and returns its estimated end. It panics if the
// job does not fit: a policy must check Fits first (that is a bug in the
// policy, not bad input).
func (v *View) Start(i int) float64 {
	if !v.Fits(i) {
		panic("scheduler: policy started a job that does not fit")
	}
	q := v.Job(i)
	if v.e.checkFCFS && i != v.nStart {
		v.e.violate("fcfs started queue position %d before position %d", i, v.nStart)
	}
	q.started = true
	v.nStart++
	return v.e.start(q.Slot, v.Now)
}

// Started reports whether Job(i) was started in this pass.
func (v *View) Started(i int) bool { return v.Job(i).started }

// Reserve records that the policy reserved Job(i) to start at t. The
// engine keeps each job's first reservation so --check can verify that
// EASY's head never starts later than promised.
func (v *View) Reserve(i int, t float64) { v.e.reserve(v.Job(i).Slot, t) }
