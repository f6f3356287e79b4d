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
}

// Governors is the table of contents of frequency/cap governors (the
// --dvfs and --powercap choices): a new one is one file plus one line here.
var Governors = GovernorRegistry{
	"performance": func(GovernorConfig) Governor { return Performance{} },
	"powersave":   func(GovernorConfig) Governor { return Powersave{} },
	"dr":          func(GovernorConfig) Governor { return &DR{} },
}

// GovernorRegistry maps names to constructors.
type GovernorRegistry map[string]func(GovernorConfig) Governor

// New builds the named governor.
func (r GovernorRegistry) New(name string, cfg GovernorConfig) (Governor, error) {
	mk, ok := r[name]
	if !ok {
		return nil, fmt.Errorf("scheduler: unknown governor %q (known: %s)", name, strings.Join(names(r), ", "))
	}
	return mk(cfg), nil
}
