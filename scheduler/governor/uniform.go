package governor

import (
	"math"

	"drsim/powercap"
	"drsim/scheduler"
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

var _ scheduler.LimitLeveler = (*Uniform)(nil)

func (*Uniform) Name() string     { return "uniform" }
func (*Uniform) PowerAware() bool { return false }
func (*Uniform) LimitLevels()     {}

// StartLevel is the uniform cap's level of app under the limit in force.
func (*Uniform) StartLevel(e *scheduler.Engine, app int) int {
	return UniformLevel(e.Levels(app), e.Limit(), e.Procs())
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
func (u *Uniform) Adjust(c *scheduler.Control) {
	lim := c.Limit()
	if !u.started || lim != u.lastLimit {
		u.started, u.lastLimit = true, lim
		for _, s := range c.Running() {
			c.SetLevel(s, UniformLevel(c.Levels(c.App(s)), lim, c.Procs()))
		}
		if !u.reachable(c, lim) {
			u.Unreachable++
		}
	}
	if c.Checking() && !math.IsInf(lim, 1) && u.reachable(c, lim) && c.Power() > lim*(1+1e-9)+1e-6 {
		c.Violate("uniform cap: power %.3f W above the limit %.3f W", c.Power(), lim)
	}
}

// reachable reports whether the uniform cap guarantees the limit: the
// per-processor share is at least the idle power and every application's
// lowest cap.
func (u *Uniform) reachable(c *scheduler.Control, lim float64) bool {
	if math.IsInf(lim, 1) {
		return true
	}
	x := lim / float64(c.Procs())
	if x < c.IdleW() {
		return false
	}
	for app := range c.Apps() {
		if l := c.Levels(app)[0]; l.X > x*(1+1e-12) || l.Power > x*(1+1e-12) {
			return false
		}
	}
	return true
}
