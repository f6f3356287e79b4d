package scheduler

import (
	"math"

	"drsim/powercap"
)

// Uniform is the hardware-only centre-wide cap (--powercap uniform), the
// baseline of the power-cap DR mode. It works over cap tables (Level.X in
// W per processor).
//
// Rules:
//
//   - No limit in force: every job runs at its top level (Pmax).
//   - Under a limit L on a machine of N processors, every processor is
//     capped at c = L/N, snapped down to the cap grid: each job runs at the
//     highest level whose X ≤ c (level 0 when even Pmin is above c), and
//     slows down as its model says. Running jobs move to that level when
//     the limit changes; jobs starting under the limit start at it.
//   - It is not power-aware: like a hardware cap, it never delays or
//     refuses a start. The power holds because every processor is capped:
//     a busy processor draws p(X) ≤ X ≤ c (cap tables clamp p to X) and an
//     idle one IdleW, so the total is at most N·c = L whenever IdleW ≤ c
//     and the snapped cap X is at most c (that is, c ≥ Pmin). When c <
//     Pmin (the grid cannot go that low) or c < IdleW (idle processors
//     alone break the limit), the limit cannot hold; with Config.Check the
//     governor records a violation only when it should have held.
//
// One Uniform value serves one engine.
type Uniform struct {
	lastLimit float64
	started   bool

	// Unreachable counts the limit changes whose per-processor cap was
	// below Pmin of some application or below the idle power: under those
	// the limit cannot hold and is not checked.
	Unreachable int
}

var _ Governor = (*Uniform)(nil)

func (*Uniform) Name() string     { return "uniform" }
func (*Uniform) PowerAware() bool { return false }

// StartLevel is the uniform cap's level of app under the limit in force.
func (*Uniform) StartLevel(e *Engine, app int) int {
	return UniformLevel(e.cfg.Apps[app].Levels, e.meter.Limit, e.cfg.Procs)
}

// UniformLevel returns the index of the highest level whose X is at most
// limit/procs (the per-processor share of the limit), 0 when every level
// is above it, and the top level when limit is +Inf.
func UniformLevel(levels []powercap.Level, limit float64, procs int) int {
	if math.IsInf(limit, 1) || procs <= 0 {
		return len(levels) - 1
	}
	c := limit / float64(procs)
	k := 0
	for i, l := range levels {
		if l.X <= c*(1+1e-12) {
			k = i
		}
	}
	return k
}

// Adjust moves running jobs to the uniform level after a limit change and,
// with Config.Check, verifies the limit where it must hold.
func (u *Uniform) Adjust(c *Control) {
	e := c.e
	lim := e.meter.Limit
	if !u.started || lim != u.lastLimit {
		u.started, u.lastLimit = true, lim
		for _, s := range c.Running() {
			j := &e.jobs[s]
			c.SetLevel(s, UniformLevel(e.cfg.Apps[j.app].Levels, lim, e.cfg.Procs))
		}
		if !u.reachable(e, lim) {
			u.Unreachable++
		}
	}
	if e.cfg.Check && !math.IsInf(lim, 1) && u.reachable(e, lim) && e.meter.Power() > lim*(1+1e-9)+1e-6 {
		e.violate("uniform cap: power %.3f W above the limit %.3f W", e.meter.Power(), lim)
	}
}

// reachable reports whether the uniform cap guarantees the limit: the
// per-processor share is at least the idle power and every application's
// lowest cap.
func (u *Uniform) reachable(e *Engine, lim float64) bool {
	if math.IsInf(lim, 1) {
		return true
	}
	c := lim / float64(e.cfg.Procs)
	if c < e.cfg.IdleW {
		return false
	}
	for _, t := range e.cfg.Apps {
		if t.Levels[0].X > c*(1+1e-12) || t.Levels[0].Power > c*(1+1e-12) {
			return false
		}
	}
	return true
}
