package scheduler

import (
	"math"
)

// SlurmSched are the SchedulerParameters of Slurm's sched/backfill that
// the slurm-backfill policy follows (Config.SlurmSched; nil: Slurm 22.05's
// defaults).
type SlurmSched struct {
	BfInterval      float64 // s between backfill passes (bf_interval; default 30)
	BfMaxJobTest    int     // jobs a pass tests, in queue order (bf_max_job_test; default 500)
	BfWindow        float64 // s ahead a pass plans (bf_window; default 1 day)
	BfResolution    float64 // s; the plan's times round up to it (bf_resolution; default 60)
	BfPartCountResv int     // reservations per partition and pass (bf_job_part_count_reserve; 0 = every tested job)
	BatchDelay      float64 // s; submits run the main scheduler at most once per this (batch_sched_delay; default 3)
	SchedInterval   float64 // s between full main-scheduler runs (sched_interval; 0 = 60, Slurm's default)
}

var defaultSlurmSched = SlurmSched{BfInterval: 30, BfMaxJobTest: 500, BfWindow: 86400, BfResolution: 60, BatchDelay: 3, SchedInterval: 60}

// SlurmBackfill schedules the way Slurm's sched/backfill does, in two
// parts:
//
//   - The main scheduler runs at every instant something happens (a submit
//     or an end, as Slurm's runs on those events and every sched_interval):
//     it starts jobs in queue (priority) order while they fit and stops at
//     the first that does not.
//   - A backfill pass runs at the ticks t = k·bf_interval (on the grid of
//     absolute time), and only if a job was queued, started or ended since
//     the previous pass (Slurm's _more_work). It tests at most
//     bf_max_job_test waiting jobs in queue order against a plan of free
//     processors over time, built from the running jobs' estimated ends
//     (start + requested time, rounded up to bf_resolution) over
//     bf_window: a job whose earliest start in the plan is now starts now;
//     otherwise, while fewer than bf_job_part_count_reserve jobs have been
//     reserved in this pass (no limit at 0), it is reserved at its earliest
//     start in the window, which takes its processors out of the plan for
//     its estimate (rounded up to bf_resolution). With
//     bf_job_part_count_reserve=1 that is EASY with a window; with 0 it is
//     conservative backfilling over the tested jobs.
//
// On a partitioned machine each partition has its own queue and plan, as
// in Slurm, and bf_max_job_test counts per partition (Slurm's counts over
// the whole queue). On a machine file's partitions the plan is one of
// specific nodes, their cores and, on a shared-core partition with GPUs,
// their GPUs, as Slurm's (slurmbf_nodes.go). The power limit is not
// planned for: a job
// that fits the plan still needs View.Fits to start.
type SlurmBackfill struct {
	plan     bfPlan
	nodes    nodePlan // partitions of whole nodes (slurmbf_nodes.go)
	lastPass float64  // the tick of the last backfill pass
	pending  bool     // a job was queued, started or ended since it
	tests    []bfTest // the jobs the current pass tests
	// exhaustive tests every job of the list, with no early end: the
	// reference TestSlurmBackfillEarlyEnd compares against.
	exhaustive bool
	// byRecord reads every tested job's processors and estimate from its
	// record (View.Job), never from the wait queue's arrays: the
	// reference TestSlurmBackfillQueueArrays compares against.
	byRecord bool
}

// slurmMain is the main scheduler's timing, shared by the partitions'
// policy instances as Slurm's one main scheduler covers every partition.
//
// slurmctld's background thread wakes once a second; on a wake-up at
// whole second s it runs the main scheduler over the whole queue if
// sched_interval has passed since its last full run, or else, if a job was
// submitted since its last run, once batch_sched_delay has passed since
// its last run (a run on a job's end does not count: that one is called
// directly from the end's RPC and runs at once). Here the wake-ups are the
// whole seconds from the run's first instant t0, which counts as a full
// run (slurmctld has just started), so full runs fall on t0 + k·SI.
type slurmMain struct {
	t0      float64 // the run's first instant
	lastSub float64 // the last run for submits
	pending bool    // a job was submitted since the last run on a wake-up
	seen    bool    // t0 is set
	endAt   float64 // the last instant a job ended or was evicted (set by the engine)
	// The decision of instant at (run), made on the first partition's pass
	// and kept for the others, and the engine's counts it was made from.
	at                  float64
	run                 bool
	submitted, finished int
	evicted             int
}

// lastFull returns the last full run at or before now.
func (m *slurmMain) lastFull(now, si float64) float64 {
	return m.t0 + math.Floor((now-m.t0)/si)*si
}

var _ Policy = (*SlurmBackfill)(nil)

func (*SlurmBackfill) Name() string { return "slurm-backfill" }

func (p *SlurmBackfill) Schedule(v *View) {
	ps := v.e.cfg.SlurmSched
	if ps == nil {
		ps = &defaultSlurmSched
	}
	if v.Changed() || v.NewFrom() < len(v.e.wq.slots) {
		p.pending = true
	}
	if p.mainScheduler(v, ps) {
		for i := v.Next(0, v.Total); i >= 0 && v.Fits(i); i = v.Next(i+1, v.Total) {
			v.Start(i)
			p.pending = true
		}
	}
	if v.Next(0, v.Total) < 0 {
		return
	}
	m, si := &v.e.slurmMain, mainInterval(ps)
	v.WakeAt(m.lastFull(v.Now, si) + si) // the next full run, while jobs wait
	tick := math.Floor(v.Now/ps.BfInterval) * ps.BfInterval
	if tick == v.Now && tick != p.lastPass && p.pending {
		p.lastPass, p.pending = tick, false
		p.backfill(v, ps)
	}
	if v.Next(0, v.Total) >= 0 {
		v.WakeAt((math.Floor(v.Now/ps.BfInterval) + 1) * ps.BfInterval)
	}
}

func mainInterval(ps *SlurmSched) float64 {
	if ps.SchedInterval > 0 {
		return ps.SchedInterval
	}
	return 60
}

// mainScheduler reports whether the main scheduler runs now (slurmMain):
// at once after an end, on a whole-second wake-up every sched_interval,
// and on the first wake-up batch_sched_delay after its last wake-up run
// when jobs were submitted since; it arms the wake-up a deferred submit
// needs.
func (p *SlurmBackfill) mainScheduler(v *View, ps *SlurmSched) bool {
	m, st := &v.e.slurmMain, &v.e.stats
	now, si := v.Now, mainInterval(ps)
	if m.seen && now == m.at {
		p.armSubmit(v, ps)
		return m.run
	}
	// A run on an end happens at the end's instant: one the engine skipped
	// (nothing could start then) does not make a later pass a run.
	ended := (st.Finished != m.finished || st.Evictions != m.evicted) && m.endAt == now
	if !m.seen {
		// The engine's first pass: Slurm has just run its main scheduler
		// at start-up (a full run before the first submit), so the first
		// submits wait for batch_sched_delay too.
		m.seen, m.t0, m.lastSub = true, now, now
	}
	if m.pending {
		// The engine skips the policy when nothing can start: a wake-up
		// run due since the last pass happened then, starting nothing.
		if t, full := m.due(m.at, ps); t < now {
			m.pending = false
			if !full {
				m.lastSub = t
			}
		}
	}
	if st.Submitted != m.submitted {
		m.pending = true
	}
	m.at, m.submitted, m.finished, m.evicted = now, st.Submitted, st.Finished, st.Evictions
	run := ended
	if off := now - m.t0; off == math.Floor(off) { // a wake-up of slurmctld's background thread
		full := m.lastFull(now, si)
		switch {
		case full == now && now > m.t0:
			run, m.pending = true, false
		case m.pending && now-max(m.lastSub, full) >= ps.BatchDelay:
			run, m.pending, m.lastSub = true, false, now
		}
	}
	m.run = run
	p.armSubmit(v, ps)
	return run
}

// armSubmit wakes the policy when jobs submitted since the last wake-up
// run are next due a run.
func (p *SlurmBackfill) armSubmit(v *View, ps *SlurmSched) {
	m := &v.e.slurmMain
	if m.pending {
		t, _ := m.due(v.Now, ps)
		v.WakeAt(t)
	}
}

// due returns the first whole-second wake-up after from (or at it, if from
// is one) whose run serves submits pending at from, and whether it is a
// full run: the next full run, or the first wake-up batch_sched_delay
// after the last wake-up run if that comes first.
func (m *slurmMain) due(from float64, ps *SlurmSched) (t float64, full bool) {
	si := mainInterval(ps)
	last := m.lastFull(from, si)
	t = max(m.lastSub, last) + ps.BatchDelay
	t = m.t0 + math.Ceil(max(t, from)-m.t0) // on a whole second
	if next := last + si; next <= t && next > from {
		return next, true
	}
	return t, false
}

// bfRound rounds a plan's times up to bf_resolution.
type bfRound struct{ res float64 }

func (r bfRound) up(t float64) float64 {
	if r.res <= 1 {
		return math.Ceil(t)
	}
	return math.Ceil(t/r.res) * r.res
}

// backfill is one backfill pass.
func (p *SlurmBackfill) backfill(v *View, ps *SlurmSched) {
	v.backfill = true // every start from here on is a backfill decision (--check)
	if v.e.usesNodes() {
		p.backfillNodes(v, ps) // slurmbf_nodes.go
		return
	}
	rnd := bfRound{ps.BfResolution}
	now, horizon := v.Now, v.Now+ps.BfWindow
	pl := &p.plan
	pl.reset(now, v.Free())
	// The plan ends at the window's end, as Slurm's does: what runs past
	// it does not constrain a job that starts within it.
	rest := v.Total - v.Free()
	for k := range v.Running() {
		r := v.RunningJob(k)
		end := max(rnd.up(r.EstEnd), now)
		if end >= horizon {
			break
		}
		pl.release(end, r.Procs)
		rest -= r.Procs
	}
	pl.release(horizon, rest)
	pl.end = horizon
	reserved := 0
	// The jobs this pass tests: the first bf_max_job_test in queue order
	// that are not larger than the most processors free anywhere in the
	// window. Jobs larger than that can neither start nor be reserved: the
	// queue's bounds skip them (they do not count as tested). Reservations
	// only lower the plan, so the bound holds for the whole pass.
	most := pl.most()
	tests := p.tests[:0]
	for i := v.Next(0, most); i >= 0 && len(tests) < ps.BfMaxJobTest; i = v.Next(i+1, most) {
		tests = append(tests, bfTest{pos: int32(i), procs: v.e.wq.procs[i]})
	}
	p.tests = tests
	// A pass shows only in the jobs it starts (its reservations live in
	// its own plan), and the plan only loses processors, so once no job
	// left to test could start now by the plan, the rest of the pass is
	// moot. last is the last test that still could (by its processors and
	// its estimate's lower bound, rounded up to bf_resolution): it only
	// moves back. After a take, only the steps the take lowered can rule it
	// out.
	last := len(tests) - 1
	durLow := func(k int) float64 { return rnd.up(v.EstLow(int(tests[k].pos))) }
	var taken bool // last must be checked again after a take
	// take takes procs over [from, to) out of the plan and reports whether
	// that may have ruled last out.
	take := func(from, to float64, procs int) bool {
		if last < 0 { // (an exhaustive pass goes on)
			pl.take(from, to, procs)
			return false
		}
		return pl.takeLow(from, to, procs, now+durLow(last)) < int(tests[last].procs)
	}
	for c := 0; c < len(tests); c++ {
		if c == 0 || taken {
			st := pl.stairs()
			for ; last >= c; last-- {
				procs := int(tests[last].procs)
				if procs <= st.free[0] && st.fitsNow(procs, durLow(last)) {
					break
				}
			}
			taken = false
		}
		if last < c && !p.exhaustive {
			break
		}
		i := int(tests[c].pos)
		procs, est := p.job(v, i)
		dur := rnd.up(est)
		var t float64
		if ps.BfPartCountResv > 0 && reserved >= ps.BfPartCountResv {
			// No reservation left: only whether it starts now matters.
			t = math.Inf(1)
			if pl.fitsNow(procs, dur) {
				t = now
			}
		} else {
			t = pl.earliest(procs, dur)
		}
		switch {
		case t == now && v.Fits(i):
			v.Start(i)
			taken = take(now, now+dur, procs)
		case t >= horizon:
			// Beyond the window: neither started nor reserved.
		case ps.BfPartCountResv == 0 || reserved < ps.BfPartCountResv:
			reserved++
			v.Reserve(i, t)
			taken = take(t, t+dur, procs)
		}
	}
}

// bfTest is one job a backfill pass tests: its queue position and its
// processors.
type bfTest struct {
	pos, procs int32
}

// job returns waiting job i's processors and estimate (View.Job's Procs
// and Est), from the queue's own arrays when they hold exactly that
// (Engine.estKnown), which spares a pass that tests hundreds of jobs a
// visit to each job's record.
func (p *SlurmBackfill) job(v *View, i int) (procs int, est float64) {
	e := v.e
	if e.estKnown() && !p.byRecord {
		return int(e.wq.procs[i]), e.wq.est[i]
	}
	q := v.Job(i)
	return q.Procs, q.Est
}

// bfPlan is a step function of free processors over time: free[k]
// processors from at[k] until at[k+1] (the last step lasts for ever).
//
// Within a pass the plan only loses processors (takes), so an earliest
// start found for (procs, dur) is a lower bound of the earliest start of
// any later query needing at least as many processors for at least as
// long; seen keeps a few such answers to start later scans from.
type bfPlan struct {
	at        []float64
	free      []int
	end       float64 // the window's end: takes stop there (+Inf: no window)
	seen      [bfSeen]bfAnswer
	nseen, rr int
	stair     bfStairs // stairs' buffers
}

// bfStairs is a plan's running minimum from its first step: at least
// free[k] processors stay free from at[0] until at[k+1] (the levels only
// fall), which answers bfPlan.fitsNow with a few comparisons.
type bfStairs struct {
	at   []float64
	free []int
}

// stairs returns the plan's running minimum (valid until the next take).
func (pl *bfPlan) stairs() *bfStairs {
	st := &pl.stair
	st.at, st.free = append(st.at[:0], pl.at[0]), append(st.free[:0], pl.free[0])
	low := pl.free[0]
	for k, f := range pl.free[:len(pl.at)] {
		if f < low {
			low = f
			st.at, st.free = append(st.at, pl.at[k]), append(st.free, f)
		}
	}
	return st
}

// fitsNow is bfPlan.fitsNow on the plan st was taken from.
func (st *bfStairs) fitsNow(procs int, dur float64) bool {
	for k, f := range st.free {
		if f < procs {
			return st.at[k] >= st.at[0]+dur
		}
	}
	return true
}

// bfAnswer is one earliest answer of the current pass.
type bfAnswer struct {
	procs int
	dur   float64
	t     float64
}

const bfSeen = 8

func (pl *bfPlan) reset(now float64, free int) {
	pl.at, pl.free, pl.end = append(pl.at[:0], now), append(pl.free[:0], free), math.Inf(1)
	pl.nseen, pl.rr = 0, 0
}

// release adds procs from t on; t is never before the last step (running
// jobs come in estimated-end order).
func (pl *bfPlan) release(t float64, procs int) {
	n := len(pl.at)
	if pl.at[n-1] == t {
		pl.free[n-1] += procs
		return
	}
	pl.at = append(pl.at, t)
	pl.free = append(pl.free, pl.free[n-1]+procs)
}

// earliest returns the first step start from which procs processors stay
// free for dur seconds (+Inf if never).
func (pl *bfPlan) earliest(procs int, dur float64) float64 {
	lb := pl.at[0]
	for _, a := range pl.seen[:pl.nseen] {
		if a.procs <= procs && a.dur <= dur && a.t > lb {
			lb = a.t
		}
	}
	if math.IsInf(lb, 1) {
		return lb
	}
	t := pl.scan(procs, dur, lb)
	if pl.nseen < bfSeen {
		pl.nseen++
	}
	pl.seen[pl.rr] = bfAnswer{procs, dur, t}
	pl.rr = (pl.rr + 1) % bfSeen
	return t
}

// scan returns the first step start at or after from (a step start) from
// which procs processors stay free for dur seconds (+Inf if never).
func (pl *bfPlan) scan(procs int, dur float64, from float64) float64 {
	n := len(pl.at)
	k0 := 0
	if from > pl.at[0] {
		k0 = searchSteps(pl.at, from)
	}
	at, free := pl.at[:n], pl.free[:n]
	for k := k0; k < n; k++ {
		if free[k] < procs {
			continue
		}
		t := at[k]
		end, m := t+dur, k+1
		for m < n && at[m] < end && free[m] >= procs {
			m++
		}
		if m == n || at[m] >= end {
			return t
		}
		k = m // free[m] < procs: no start before step m can work
	}
	return math.Inf(1)
}

// fitsNow reports whether procs processors stay free from the first step
// for dur seconds.
func (pl *bfPlan) fitsNow(procs int, dur float64) bool {
	end := pl.at[0] + dur
	for k := 0; k < len(pl.at) && pl.at[k] < end; k++ {
		if pl.free[k] < procs {
			return false
		}
	}
	return true
}

// most returns the most processors free in any step before the window's
// end.
func (pl *bfPlan) most() int {
	m := 0
	for k, f := range pl.free {
		if pl.at[k] >= pl.end {
			break
		}
		m = max(m, f)
	}
	return m
}

// take removes procs over [from, to).
func (pl *bfPlan) take(from, to float64, procs int) {
	pl.takeLow(from, to, procs, from)
}

// takeLow is take, and returns the fewest processors left free at a step
// it lowered that starts before until (math.MaxInt if none).
func (pl *bfPlan) takeLow(from, to float64, procs int, until float64) int {
	to = max(min(to, pl.end), from) // nothing is planned past the window's end
	k := pl.split(from)
	at, free := pl.at, pl.free[:len(pl.at)]
	low := math.MaxInt
	for ; k < len(at) && at[k] < to; k++ {
		free[k] -= procs
		if at[k] < until {
			low = min(low, free[k])
		}
	}
	if k < len(at) && at[k] == to || to == from {
		return low
	}
	// to falls inside step k-1: a new step at to keeps that step's level
	// from before the take.
	pl.insert(k, to, free[k-1]+procs)
	return low
}

// split makes t a step boundary and returns its index.
func (pl *bfPlan) split(t float64) int {
	k := searchSteps(pl.at, t) // first step at or after t
	if k < len(pl.at) && pl.at[k] == t {
		return k
	}
	// k-1 is the step holding t: copy its level into a new step at t.
	pl.insert(k, t, pl.free[k-1])
	return k
}

// insert makes a step at index k starting at t with free processors.
func (pl *bfPlan) insert(k int, t float64, free int) {
	pl.at = append(pl.at, 0)
	pl.free = append(pl.free, 0)
	copy(pl.at[k+1:], pl.at[k:])
	copy(pl.free[k+1:], pl.free[k:])
	pl.at[k], pl.free[k] = t, free
}

// searchSteps returns the index of the first of the ascending step times
// at starting at or after t (slices.BinarySearch without its NaN-aware
// comparisons: no NaN reaches a plan). Both backfill plans use it.
func searchSteps(at []float64, t float64) int {
	lo, hi := 0, len(at)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if at[m] < t {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo
}
