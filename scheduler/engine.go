package scheduler

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"

	"drsim/cluster"
	"drsim/powercap"
	"drsim/results"
	"drsim/workloads"
)

// Pass says when the policy runs.
type Pass uint8

const (
	PassInstant Pass = iota // once per instant, after all of its events (default)
	PassEvent               // after every single event
)

// Overrun says what happens to a job that runs longer than it requested.
type Overrun uint8

const (
	OverrunKill   Overrun = iota // killed at its requested time (walltime reached), as a resource manager does
	OverrunExtend                // runs to its recorded end
)

// LimitStep says that from time T on the cluster power limit is W watts
// (+Inf: no limit).
type LimitStep struct{ T, W float64 }

// Source yields jobs in non-decreasing submit order; io.EOF ends it.
type Source interface {
	Next() (workloads.Job, error)
}

// SliceSource serves jobs from a slice.
type SliceSource struct {
	Jobs []workloads.Job
	i    int
}

func (s *SliceSource) Next() (workloads.Job, error) {
	if s.i >= len(s.Jobs) {
		return workloads.Job{}, io.EOF
	}
	s.i++
	return s.Jobs[s.i-1], nil
}

// PowerObserver receives the cluster's state after every instant at which
// power, limit or occupancy changed.
type PowerObserver interface {
	Power(t, watts, limit float64, busyProcs, runningJobs int) error
}

// Config configures an Engine. Its zero value is usable except for Procs.
type Config struct {
	Procs        int     // processors in the machine (required)
	ProcsPerNode int     // 0 means 1
	Policy       string  // "" means "easy"
	Order        string  // "" means "submit"
	Placement    string  // "" means "contiguous"
	Pass         Pass    // zero: one pass per instant
	Overrun      Overrun // zero: kill at the requested time
	Seed         uint64  // for randomised placements and governors
	Check        bool    // check invariants online (always on in tests)
	Workload     string  // workload_name column of jobs.csv

	// Power. With Apps nil there is no power model and energies are -1.
	Apps     []powercap.Table         // one level table per application
	AppOf    func(*workloads.Job) int // index into Apps; nil means 0
	IdleW    float64                  // draw of an idle processor (W)
	Governor Governor                 // nil means Performance
	Limits   []LimitStep              // power limit over time, sorted by T

	// JobLevel, when set, fixes a job's level for its whole run (e.g. the
	// frequency of an accepted DR contract); -1 leaves it to the governor.
	JobLevel func(*workloads.Job) int
	// Network, when set, adds communication time that depends on placement
	// and contention.
	Network Network
	// Topology locates machine nodes on switches and groups for the
	// "topology" placement; zero: one switch.
	Topology cluster.NodeTopology

	Recorder results.Recorder // receives every finished job
	Power    PowerObserver    // optional power time series

	// Node power states (nodepower.go), like Slurm's power saving.
	SuspendAfter float64 // s a node's processors must all be free before it powers off; 0 = never
	ResumeTime   float64 // s a node takes to boot; 0 = at once
	BootW        float64 // draw of a booting node (W)
	OffW         float64 // draw of an off node (W)

	// Partitions (partition.go, from a machine file): disjoint blocks of
	// processors, each with its own queue, placement and running list.
	// PartOf returns a job's partition (an index into Parts; -1: none of
	// them, dropped). Nil Parts: one pool of Procs processors.
	Parts  []Part
	PartOf func(*workloads.Job) int
	// LimitPart names the partition the power limits apply to (its nodes'
	// power only; governors then govern its jobs only); "" = the whole
	// machine.
	LimitPart string
	// GPUShare (gpu.go), per application (nil rows: CPU applications), per
	// level: the part of Levels[lv].Power drawn by GPUs (W per processor).
	GPUShare [][]float64

	// Priority, with Order "multifactor", is Slurm's multifactor priority
	// (priority.go); nil otherwise.
	Priority *Priority
	// SlurmSched configures the slurm-backfill policy (slurmbf.go); nil:
	// Slurm's defaults.
	SlurmSched *SlurmSched

	// Per-node variability (variability.go): each processor's node's time
	// and power factors, len Procs; nil: none (every factor 1).
	ProcVar  []cluster.NodeVar
	Pace     Pace        // how a job's nodes' time factors combine; zero: slowest
	JobNoise float64     // sd of a seeded per-run noise on the pace; 0: none
	Drift    []DriftStep // nodes slowing from a time on, sorted by T
	// Per-node idle power (nodeload.go): nodes drawing other than their
	// type's power; nil: none.
	IdleOffsets []IdleOffset
}

// Stats are the engine's own counters.
type Stats struct {
	Submitted, Finished, Dropped, Events, Passes, Evictions int
	DroppedBy                                               [nDropReasons]int // Dropped by reason (DropReason)
	Boots, Suspends                                         int               // node power states (nodepower.go)
	Violations                                              []string          // first few invariant violations (with Check)
	NViolations                                             int
}

const (
	stQueued uint8 = iota + 1
	stRunning
)

// job is the engine's state for one admitted job, kept in a slab indexed
// by slot and reused after the job finishes.
type job struct {
	id, seq   int64
	submit    float64
	run       float64 // work, in seconds at the top level
	est       float64 // estimate at the top level
	reqTime   float64
	procs     int
	app       int
	killed    bool
	state     uint8
	gen       uint32
	level     int
	start     float64
	startSeq  uint64
	alpha     float64 // fraction of the work done, as of last
	dur       float64 // duration of the whole work at the current level
	last      float64
	power     float64 // W drawn by the whole job now
	energy    float64 // J of the current run
	wasted    float64 // J of evicted runs
	evictions int
	estEnd    float64
	// While running: the time of the job's live finish event (evT) and
	// its finish time now (endT ≥ evT). A re-time to a later end moves
	// endT only; the event is pushed on to endT when it comes up (lateEnd).
	evT, endT   float64
	res         float64 // first reservation; NaN if none
	startedInDR bool
	fixed       int     // level fixed by Config.JobLevel, or -1
	comm, ratio float64 // communication fraction and ratio (Network)
	alloc       []cluster.Range
	// Partitions only (partition.go): the job's partition, its
	// processors' idle draw above Config.IdleW, its busy GPUs' draw above
	// idle, and their sum, which its power carries on top of procs × level.
	part                   int32
	idleAdjW, gpuW, extraW float64
	// A GPU job on a shared-core partition (gres.go): its nodes, and the
	// cores and GPUs it holds on each; gresNodes 0 for every other job.
	gresNodes, gresCores, gresGPUs int32
	// GPUs (gpu.go): the draw of its GPUs now, their energy in the
	// current run and in evicted runs; gpuMod: its levels carry GPU power.
	gpuPow, gpuJ, gpuWasted float64
	gpuMod                  bool
	pr                      jobPrio // multifactor priority (priority.go)
	// Variability (variability.go): the time factor of the job's pace and
	// its processors' mean power factor; 1 without.
	slow, pf float64
}

// Engine replays jobs through a policy on a cluster. Build it with New and
// call Run once.
type Engine struct {
	cfg        Config
	policy     Policy
	order      Order
	gov        Governor
	alloc      cluster.Allocator
	meter      *cluster.Meter
	powerAware bool
	hasPower   bool

	now      float64
	q        eventQueue
	jobs     []job
	freeSlot []int32
	wq       waitQueue // wait queue, in queue order
	// changed is set by anything that can make a waiting job startable
	// (a finish, a limit change, a re-time, an eviction, an out-of-order
	// enqueue); newFrom is the first wait-queue position added since the
	// last pass. Together they let policies skip re-checking jobs that were
	// blocked at the last pass and still are.
	changed  bool
	newFrom  int
	minScale float64 // smallest runtime scale of any level, for cheap bounds
	// estByLimit: the governor's start level depends only on the job and
	// the limit in force, so the wait queue's estimates are exact (jobs.go).
	estByLimit bool
	// finitePower: every application's lowest level and the idle power are
	// finite, so no QueuedJob.Power is NaN (View.estExact).
	finitePower bool
	// allFinite: every level's power and the idle power are finite, so
	// every running entry's power is finite too (shadowTime's fast walk).
	allFinite bool
	runs      runList // running (and booting) jobs by estimated end
	startSeq  uint64
	// estGen counts the changes that may change the wait queues'
	// estimates: limit changes (setLimit; the estimates set by the limit,
	// estByLimit, are those of the last one) and, under node power saving,
	// the boot allowance turning on or off (syncBootEst).
	estGen uint64

	src      Source
	next     workloads.Job
	haveNext bool
	lastSub  float64

	view    View
	qa, qb  QueuedJob // scratch for enqueue
	govKind int       // govTop, govBottom or govOther
	ctl     Control
	rec     results.Record
	dirty   bool
	stats   Stats

	netBuf    []RatioChange
	lastPow   [4]float64
	checkFCFS bool
	checkRes  bool
	checkPrio bool       // with Check under the multifactor order (priority.go)
	np        *nodePower // nil without power saving (Config.SuspendAfter 0)

	// With Check (check.go): the ownership map every allocation goes
	// through, Σ of the jobs' own energies, and whether a test forced the
	// checks on.
	checked     *checkedAlloc
	jobJ        float64
	forcedCheck bool

	// Partitions (partition.go): nil without; the bound partition; the
	// bound pool's processors (View.Total).
	parts []partState
	cur   int
	total int
	// The meter the power limit applies to: meter itself, or with
	// Config.LimitPart a meter of that partition (scope) alone; govAware
	// is the governor's PowerAware, which bind turns off elsewhere.
	lim      *cluster.Meter
	scope    int
	govAware bool

	// GPUs (gpu.go): per-device accounting is on (a partition has GPUs);
	// Σ running jobs' GPU draw, its integral, and (Check) Σ jobs' own.
	gpuOn                 bool
	gpuNow, gpuJ, jobGPUJ float64
	gpuLim, lastGPU       float64    // the limited partition's (Config.LimitPart); last reported
	prio                  *prioState // multifactor priority (priority.go); nil without
	wake                  float64    // earliest KindWake armed (View.WakeAt); 0 = none
	// slurmMain is the slurm-backfill main scheduler's timing, one for all
	// partitions (slurmbf.go).
	slurmMain slurmMain
	// Variability (variability.go): on, and the largest power factor.
	vary        bool
	pfMax       float64
	vSlow, vPow []float64 // per processor: time factor (drifting); prefix sums of the power factors
	sPre, bMax  []float64 // prefix sums of vSlow; its maxima per block of vBlock
	driftIdx    int       // next Config.Drift step
	slowViews   []slowView
	factorRdrs  []cluster.FactorReader // allocators told when drift changes the factors
	nl          *nodeLoad              // node-level power (nodeload.go); nil without
}

// New validates cfg and builds an engine.
func New(cfg Config) (*Engine, error) {
	if cfg.Procs <= 0 {
		return nil, fmt.Errorf("scheduler: machine has %d processors; need at least 1", cfg.Procs)
	}
	e := &Engine{cfg: cfg}
	if !cfg.Check && testChecks.Load() {
		e.cfg.Check, e.forcedCheck = true, true
	}
	var err error
	if e.policy, err = Policies.New(defaultStr(cfg.Policy, "easy")); err != nil {
		return nil, err
	}
	if e.order, err = Orders.New(defaultStr(cfg.Order, "submit")); err != nil {
		return nil, err
	}
	if (e.order.Name() == "multifactor") != (cfg.Priority != nil) {
		return nil, fmt.Errorf("scheduler: queue order %q with Config.Priority set: %v; the multifactor order needs it, the others do not use it", e.order.Name(), cfg.Priority != nil)
	}
	if cfg.Priority != nil {
		if !(cfg.Priority.CalcPeriod > 0) {
			return nil, fmt.Errorf("scheduler: priority recompute period %v s; need > 0", cfg.Priority.CalcPeriod)
		}
		e.initPriority()
	}
	e.total, e.scope = cfg.Procs, -1
	e.initVarFactors() // variability.go
	if len(cfg.Parts) > 0 {
		if err := e.initParts(); err != nil {
			return nil, err
		}
	} else {
		e.alloc, err = cluster.Placements.New(defaultStr(cfg.Placement, "contiguous"),
			cluster.PlacementConfig{Procs: cfg.Procs, ProcsPerNode: cfg.ProcsPerNode, Seed: cfg.Seed, Topology: cfg.Topology,
				Slow: e.procSlow(0, cfg.Procs, 1)}) // variability.go
		if err != nil {
			return nil, err
		}
		e.watchFactors(e.alloc)
	}
	if e.cfg.Check && e.parts == nil {
		e.checked = newCheckedAlloc(e, e.alloc)
		e.alloc = e.checked
	}
	if err := e.initNodePower(); err != nil {
		return nil, err
	}
	e.gov = cfg.Governor
	if e.gov == nil {
		e.gov = Performance{}
	}
	e.powerAware = e.gov.PowerAware()
	e.govAware = e.powerAware
	if e.scope >= 0 {
		e.bind(e.bind(e.scope)) // sets powerAware for the bound partition
	}
	switch e.gov.(type) {
	case Performance, *Performance:
		e.govKind = govTop
	case Powersave, *Powersave:
		e.govKind = govBottom
	case LimitLeveler: // start levels that depend only on the limit in force (dr, uniform)
		e.estByLimit = true
	}
	e.hasPower = len(cfg.Apps) > 0
	for i, t := range cfg.Apps {
		if len(t.Levels) == 0 {
			return nil, fmt.Errorf("scheduler: application %d (%s) has no power levels", i, t.App)
		}
		if i < len(cfg.GPUShare) && cfg.GPUShare[i] != nil && len(cfg.GPUShare[i]) != len(t.Levels) {
			return nil, fmt.Errorf("scheduler: application %d (%s) has %d levels but %d GPU shares", i, t.App, len(t.Levels), len(cfg.GPUShare[i]))
		}
	}
	for _, p := range cfg.Parts {
		e.gpuOn = e.gpuOn || (e.hasPower && p.GPUs > 0)
	}
	if len(cfg.GPUShare) > len(cfg.Apps) {
		return nil, fmt.Errorf("scheduler: %d GPU share rows for %d applications", len(cfg.GPUShare), len(cfg.Apps))
	}
	for i, l := range cfg.Limits {
		if math.IsNaN(l.W) || l.W <= 0 {
			return nil, fmt.Errorf("scheduler: power limit step %d at t=%v has limit %v W; need > 0", i, l.T, l.W)
		}
		if i > 0 && l.T < cfg.Limits[i-1].T {
			return nil, fmt.Errorf("scheduler: power limit steps not sorted at step %d (t=%v)", i, l.T)
		}
	}
	if len(cfg.Limits) > 0 {
		// One limit step is in the queue at a time; each pushes the next
		// as it is applied (instant). The steps are sorted, so the queue's
		// earliest step is the one it would hold with all of them pushed,
		// while the heap stays as small as without a limit (thousands of
		// steps made every push and pop under DR walk twice as deep).
		e.q.Push(Event{T: cfg.Limits[0].T, Kind: KindLimit, Job: 0})
	}
	e.pfMax = 1
	e.minScale, e.finitePower = 1, !math.IsNaN(cfg.IdleW) && !math.IsInf(cfg.IdleW, 0)
	e.allFinite = e.finitePower
	for _, t := range cfg.Apps {
		for _, l := range t.Levels {
			e.minScale = math.Min(e.minScale, l.Scale)
			if math.IsNaN(l.Power) || math.IsInf(l.Power, 0) {
				e.allFinite = false
			}
		}
		if len(t.Levels) > 0 && (math.IsNaN(t.Levels[0].Power) || math.IsInf(t.Levels[0].Power, 0)) {
			e.finitePower = false
		}
	}
	e.changed = true
	e.checkFCFS = e.cfg.Check && e.policy.Name() == "fcfs"
	e.checkPrio = e.cfg.Check && e.prio != nil && !e.powerAware // a power-blocked head leaves no reservation
	e.checkRes = e.cfg.Check && e.policy.Name() == "easy" && e.order.Name() == "submit" && len(cfg.Limits) == 0 && cfg.Overrun == OverrunKill &&
		cfg.Network == nil // a network multiplier is known only at placement, so backfill can delay a reservation
	if err := e.initVariability(); err != nil { // variability.go
		return nil, err
	}
	e.view.e = e
	return e, nil
}

func defaultStr(s, d string) string {
	if s == "" {
		return d
	}
	return s
}

// Stats returns the engine's counters.
func (e *Engine) Stats() *Stats { return &e.stats }

// Meter returns the power meter (valid after Run).
func (e *Engine) Meter() *cluster.Meter { return e.meter }

// HasPower reports whether energies are modelled.
func (e *Engine) HasPower() bool { return e.hasPower }

// Run replays every job from src. It checks ctx every 64 instants, so a
// cancel stops it within a few milliseconds even when DR level problems
// make instants expensive.
func (e *Engine) Run(ctx context.Context, src Source) error {
	done := ctx.Done()
	e.src = src
	if err := e.pull(); err != nil {
		return err
	}
	t0 := 0.0
	if e.haveNext {
		t0 = e.next.Submit
	}
	if e.q.Len() > 0 {
		t0 = min(t0, e.q.Peek().T)
	}
	e.meter = cluster.NewMeter(e.cfg.Procs, e.cfg.IdleW, t0)
	e.lim = e.meter
	if e.parts != nil {
		e.meter.ChangeIdle(e.partIdleAdjW())
		e.initLimitMeter(t0) // partition.go
	}
	if e.nl != nil {
		e.startNodeLoad(t0) // nodeload.go
	}
	e.now = t0
	if e.np != nil {
		e.startNodePower(t0)
	}
	if e.prio != nil {
		e.startPriority(t0)
	}
	for n := 0; ; n++ {
		if n%64 == 0 {
			select {
			case <-done:
				return fmt.Errorf("scheduler: stopped at t=%v after %d events: %w", e.now, n, context.Cause(ctx))
			default:
			}
		}
		t, ok := e.nextTime()
		if !ok {
			break
		}
		if t > e.now {
			if e.gpuOn {
				e.gpuJ += e.gpuNow * (t - e.now)
			}
			e.meter.Advance(t)
			if e.lim != e.meter {
				e.lim.Advance(t)
			}
			e.now = t
		}
		if err := e.instant(t); err != nil {
			return err
		}
	}
	if e.cfg.Check {
		e.finalChecks()
	}
	return e.strictErr()
}

// nextTime returns the time of the next live event or submit, dropping
// stale finish events (jobs re-timed or evicted since) on the way, so that
// they never move the clock.
func (e *Engine) nextTime() (float64, bool) {
	for e.q.Len() > 0 && e.skip(e.q.Peek()) {
		if ev := e.q.Pop(); ev.Kind == KindSuspend {
			e.suspPopped(&ev) // suspendq.go
		}
	}
	switch {
	case e.q.Len() > 0 && e.haveNext:
		return min(e.q.Peek().T, e.next.Submit), true
	case e.q.Len() > 0:
		return e.q.Peek().T, true
	case e.haveNext:
		return e.next.Submit, true
	}
	return 0, false
}

// instant applies every event at time t in order (finishes in start order,
// then limit changes, then node events, then submits in trace order) and
// runs the policy.
func (e *Engine) instant(t float64) error {
	for e.q.Len() > 0 && e.q.Peek().T == t {
		ev := e.q.Pop()
		if ev.Kind == KindSuspend {
			e.suspPopped(&ev) // suspendq.go
		}
		if e.skip(&ev) {
			continue // re-timed or evicted since it was pushed
		}
		e.stats.Events++
		var err error
		switch ev.Kind {
		case KindFinish:
			if e.parts != nil {
				e.bind(int(e.jobs[ev.Job].part))
			}
			err = e.finish(ev.Job)
		case KindLimit:
			e.setLimit(e.cfg.Limits[ev.Job].W)
			if i := int(ev.Job) + 1; i < len(e.cfg.Limits) {
				e.q.Push(Event{T: e.cfg.Limits[i].T, Kind: KindLimit, Seq: uint64(i), Job: int32(i)})
			}
		case KindPriority:
			e.recomputePriority()
		case KindWake:
			e.woken(ev.T) // view.go
		case KindIdleDrift:
			e.idleDrift(ev.T) // nodeload.go
		default:
			e.nodeEvent(&ev)
		}
		if err != nil {
			return err
		}
		if e.cfg.Pass == PassEvent {
			e.decide()
		}
	}
	for e.haveNext && e.next.Submit == t {
		e.stats.Events++
		e.submit(&e.next)
		if err := e.pull(); err != nil {
			return err
		}
		if e.cfg.Pass == PassEvent {
			e.decide()
		}
	}
	if e.dirty {
		e.decide()
	}
	if e.np != nil {
		e.nodeSync()
	}
	return e.observePower()
}

// skip reports whether event ev, about to be popped, is not applied: it
// is stale, or it is the finish event of a job re-timed to a later end
// since it was pushed, which skip pushes again at that end. The pushed
// event has the key (T, Kind, Seq) that pushing it at the re-time would
// have given, and no event with a later key has been applied yet, so the
// order of applied events is the same.
func (e *Engine) skip(ev *Event) bool {
	if ev.Kind == KindFinish {
		j := &e.jobs[ev.Job]
		if j.gen != ev.Gen || j.state != stRunning {
			return true
		}
		if j.endT > ev.T {
			e.lateEnd(ev.Job)
			return true
		}
		return false
	}
	return e.stale(ev)
}

// lateEnd pushes running slot's finish event at its current end.
func (e *Engine) lateEnd(slot int32) {
	j := &e.jobs[slot]
	j.evT = j.endT
	e.q.Push(Event{T: j.endT, Kind: KindFinish, Seq: j.startSeq, Job: slot, Gen: j.gen})
}

// stale reports whether event ev, not a finish (skip), is out of date.
func (e *Engine) stale(ev *Event) bool {
	switch ev.Kind {
	case KindLimit, KindPriority, KindWake:
		return false
	case KindIdleDrift:
		return e.idleDriftStale() // nodeload.go
	}
	return e.staleNode(ev)
}

// pull reads the next job from the source into e.next.
func (e *Engine) pull() error {
	j, err := e.src.Next()
	if errors.Is(err, io.EOF) {
		e.haveNext = false
		return nil
	}
	if err != nil {
		return err
	}
	if e.stats.Submitted+e.stats.Dropped > 0 && j.Submit < e.lastSub {
		return fmt.Errorf("scheduler: job %d submitted at %v after a job submitted at %v: source not in submit order", j.ID, j.Submit, e.lastSub)
	}
	e.next, e.haveNext, e.lastSub = j, true, j.Submit
	return nil
}
