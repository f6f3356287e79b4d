package scheduler

import (
	"fmt"
	"math"
	"strings"

	"drsim/powercap"
)

// A Governor chooses the operating level (frequency or cap) of jobs: the
// level a job starts at, and, for dynamic governors, changes to running
// jobs after every scheduling instant through a Control.
type Governor interface {
	Name() string
	// StartLevel returns the index into the application's levels at which a
	// job of app starts now.
	StartLevel(c *Engine, app int) int
	// PowerAware governors make the engine refuse starts that would break
	// the power limit.
	PowerAware() bool
	// Adjust may re-level or evict running jobs. It runs after every
	// scheduling pass (including after limit changes).
	Adjust(c *Control)
}

// Performance runs every job at its top level (fmax or Pmax), like the Linux
// performance governor.
type Performance struct{}

func (Performance) Name() string                      { return "performance" }
func (Performance) StartLevel(e *Engine, app int) int { return len(e.cfg.Apps[app].Levels) - 1 }
func (Performance) PowerAware() bool                  { return false }
func (Performance) Adjust(*Control)                   {}

// Powersave runs every job at its lowest level (fmin or Pmin), like the
// Linux powersave governor; runtimes stretch accordingly.
type Powersave struct{}

func (Powersave) Name() string                { return "powersave" }
func (Powersave) StartLevel(*Engine, int) int { return 0 }
func (Powersave) PowerAware() bool            { return false }
func (Powersave) Adjust(*Control)             {}

// Control is what a dynamic governor sees and changes after a pass.
type Control struct {
	e     *Engine
	buf   []int32
	pairs []seqSlot
	keys  []uint64 // StartedSince: packed (seq, slot) sort keys
}

type seqSlot struct {
	seq  uint64
	slot int32
}

// Now returns the current time.
func (c *Control) Now() float64 { return c.e.now }

// Limit returns the power limit in force (W; +Inf outside DR events).
func (c *Control) Limit() float64 { return c.e.meter.Limit }

// InDR reports whether a finite limit is in force.
func (c *Control) InDR() bool { return !math.IsInf(c.e.meter.Limit, 1) }

// IdlePower returns the power drawn by idle processors now (W); with node
// power states, everything but executing jobs: idle processors, off and
// booting nodes.
func (c *Control) IdlePower() float64 {
	if c.e.np != nil || c.e.nl != nil && c.e.parts == nil { // nl: idle offsets (nodeload.go)
		return c.e.meter.NonJobW()
	}
	if c.e.parts != nil {
		return c.e.governorIdleW() // partition.go
	}
	return float64(c.e.alloc.Free()) * c.e.cfg.IdleW
}

// Running returns the slots of the running jobs in start order. The slice
// is a copy owned by c, valid until the next call, so it may be iterated
// while SetLevel and Evict change the engine's own lists.
func (c *Control) Running() []int32 {
	c.buf = c.StartedSince(0, c.buf[:0]) // start sequence numbers begin at 1
	return c.buf
}

// Job describes a running job for a governor.
type Job struct {
	Procs     int
	App       int
	Level     int
	Remaining float64 // fraction of the work left, 1 − α, exact as of now
	Spent     float64 // J consumed by the current run so far
	Estimate  float64 // the user's runtime estimate at the top level (s)
	Done      float64 // work done so far, in seconds at the top level (α × work)
	Fixed     bool    // level fixed by Config.JobLevel: SetLevel ignores it
}

// Job returns the state of running slot s, synchronised to now.
func (c *Control) Job(s int32) Job {
	j := &c.e.jobs[s]
	c.e.sync(j)
	return Job{Procs: j.procs, App: j.app, Level: j.level, Remaining: max(0, 1-j.alpha), Spent: j.energy,
		Estimate: j.est, Done: min(1, j.alpha) * j.run, Fixed: j.fixed >= 0}
}

// Levels returns the level table of application app.
func (c *Control) Levels(app int) []powercap.Level { return c.e.cfg.Apps[app].Levels }

// Apps returns the number of applications (level tables).
func (c *Control) Apps() int { return len(c.e.cfg.Apps) }

// IdleW returns the draw of one idle processor.
func (c *Control) IdleW() float64 { return c.e.cfg.IdleW }

// SetLevel moves running slot s to level lv, re-timing it exactly.
func (c *Control) SetLevel(s int32, lv int) {
	if c.e.parts != nil {
		defer c.e.bind(c.e.bind(int(c.e.jobs[s].part))) // partition.go
	}
	c.e.retime(s, lv)
}

// Evict stops running slot s and requeues it with its original submit time.
func (c *Control) Evict(s int32) {
	if c.e.parts != nil {
		defer c.e.bind(c.e.bind(int(c.e.jobs[s].part))) // partition.go
	}
	c.e.evict(s)
}

// GovernorConfig configures a governor. Its zero value works.
type GovernorConfig struct {
	Seed uint64

	// For dr in a power-cap mode with malleable jobs (DR-Scale): which
	// jobs may change size (nil: none, and dr is the plain DR governor),
	// the runtime factor F(r) of app at r times its requested size (nil:
	// perfect scaling) and the reconfiguration pause (s).
	Malleable  func(id int64) bool
	Factor     func(app int, r float64) float64
	ResizeCost float64
}

// GovernorRegistry maps names to constructors. The tables of contents are
// in scheduler/governor (governor.DVFS, governor.Caps).
type GovernorRegistry map[string]func(GovernorConfig) Governor

// New builds the named governor.
func (r GovernorRegistry) New(name string, cfg GovernorConfig) (Governor, error) {
	mk, ok := r[name]
	if !ok {
		return nil, fmt.Errorf("scheduler: unknown governor %q (known: %s)", name, strings.Join(names(r), ", "))
	}
	return mk(cfg), nil
}

// A LimitLeveler is a governor whose start level depends only on the
// application and the limit in force (dr, uniform): the engine then keeps
// the wait queue's estimates exact for that limit (refreshLimitEst).
type LimitLeveler interface {
	Governor
	LimitLevels()
}

// What governors outside this package read of the engine. Every accessor
// reads a field in place: none allocates, synchronises a job or changes
// anything.

// Limit returns the power limit in force (W; +Inf outside DR events).
func (e *Engine) Limit() float64 { return e.meter.Limit }

// Levels returns the level table of application app.
func (e *Engine) Levels(app int) []powercap.Level { return e.cfg.Apps[app].Levels }

// Procs returns the machine's processor count (Config.Procs).
func (e *Engine) Procs() int { return e.cfg.Procs }

// RunEntry is one entry of the running list (runlist.go), read through
// its methods.
type RunEntry = runEntry

// Slot is the job slot of the run.
func (r *runEntry) Slot() int32 { return r.slot }

// Seq is the run's start sequence number (unique; 0 is none).
func (r *runEntry) Seq() uint64 { return r.seq }

// Procs is the run's processor count.
func (r *runEntry) Procs() int32 { return r.procs }

// EstEnd is the run's estimated end, the list's order.
func (r *runEntry) EstEnd() float64 { return r.estEnd }

// RunView reads the running list in place, in estimated-end order: blocks
// of entries. It is valid until the governor next changes a job (SetLevel,
// Evict, Resize), which may reorder the list.
type RunView struct{ blocks [][]runEntry }

// Runs returns a view of the running list.
func (c *Control) Runs() RunView { return RunView{c.e.runs.blocks} }

// Blocks returns the number of blocks.
func (v RunView) Blocks() int { return len(v.blocks) }

// Block returns block i's entries (read only).
func (v RunView) Block(i int) []RunEntry { return v.blocks[i] }

// RunEpoch counts the running list's inserts and removes (re-timed jobs
// included): equal epochs, the same entries.
func (c *Control) RunEpoch() uint64 { return c.e.runs.epoch }

// RunChanges returns the running list's changes since the previous call,
// in order (a re-timed run is removed and inserted again; an in-place
// update of a run's entry is a remove and an insert of the same run, both
// InPlace, with the same processors unless they changed), and ok=false
// when they are not all known: on the first call, which starts the
// record, after more than a few thousand changes between calls, and on a
// machine with partitions (never recorded). Then the caller must read the
// whole list (Runs). The slice is valid until the list next changes.
func (c *Control) RunChanges() (ch []RunChange, ok bool) {
	l := &c.e.runs
	if c.e.parts != nil {
		return nil, false
	}
	return l.govChanges()
}

// EstEnd returns running slot s's estimated end, the running list's
// order with its start sequence number (RunSeq).
func (c *Control) EstEnd(s int32) float64 { return c.e.jobs[s].estEnd }

// AppendRunning appends the running slots to dst in the running list's
// (estimated-end) order, a copy that may be walked while SetLevel and
// Evict change the list.
func (c *Control) AppendRunning(dst []int32) []int32 { return c.e.runs.appendSlots(dst) }

// Slots returns the number of job slots (every slot is below it).
func (c *Control) Slots() int { return len(c.e.jobs) }

// Partitioned reports whether the machine has partitions.
func (c *Control) Partitioned() bool { return c.e.parts != nil }

// Checking reports whether invariant checks are on (Config.Check).
func (c *Control) Checking() bool { return c.e.cfg.Check }

// Violate records an invariant violation (under Config.Check).
func (c *Control) Violate(format string, a ...any) { c.e.violate(format, a...) }

// Power returns the power drawn now (W), as the limit sees it.
func (c *Control) Power() float64 { return c.e.meter.Power() }

// StartSeq returns the engine's count of starts (the last run's start
// sequence number).
func (c *Control) StartSeq() uint64 { return c.e.startSeq }

// The fields of the job in running slot s, as stored (not synchronised to
// now; Job synchronises).

// App returns the job's application.
func (c *Control) App(s int32) int { return c.e.jobs[s].app }

// Level returns the job's level.
func (c *Control) Level(s int32) int { return c.e.jobs[s].level }

// Fixed reports whether the job's level is fixed (Config.JobLevel).
func (c *Control) Fixed(s int32) bool { return c.e.jobs[s].fixed >= 0 }

// JobProcs returns the job's processor count.
func (c *Control) JobProcs(s int32) int { return c.e.jobs[s].procs }

// PowerFactor returns the power factor of the job's nodes
// (variability.go; 1 without, 0 read as 1).
func (c *Control) PowerFactor(s int32) float64 { return c.e.jobs[s].pf }

// RunSeq returns the start sequence number of the job's current run.
func (c *Control) RunSeq(s int32) uint64 { return c.e.jobs[s].startSeq }

// Est and Work return the job's estimate and its work (both in seconds at
// the top level on its current size).
func (c *Control) Est(s int32) float64  { return c.e.jobs[s].est }
func (c *Control) Work(s int32) float64 { return c.e.jobs[s].run }

// EstLeft returns the job's estimated remaining work at the top level as
// of now, est − α·run with α advanced to now (at most 1), without
// synchronising the job.
func (c *Control) EstLeft(s int32) float64 {
	j := &c.e.jobs[s]
	alpha := min(1, j.alpha+(c.e.now-j.last)/j.dur)
	return j.est - alpha*j.run
}

// EvictWeight returns the power that evicting running slot s frees, given
// w, its processors' power above idle at the least level: w plus its GPUs'
// power (partition.go), and with load-proportional node power its nodes'
// static power (nodeload.go).
func (c *Control) EvictWeight(s int32, w float64) float64 {
	w += c.e.jobs[s].gpuW
	if c.e.nl != nil {
		w = c.e.evictWeight(s, w)
	}
	return w
}

// AllIdleW returns the power of the whole machine idle, given the draw of
// one idle processor (partition.go): the eviction knapsack's floor.
func (c *Control) AllIdleW(idle float64) float64 { return c.e.allIdleW(idle) }
