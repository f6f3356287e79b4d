package sim

import (
	"math"

	"drsim/results/plot"
	"drsim/scheduler"
)

// powerSink is the scheduler.PowerObserver compare gives Run (as
// Outputs.Observer): it sees the cluster state at the end of every instant
// at which power, limit or occupancy changed, integrates the energy drawn
// under a finite limit and the worst excess over it, and keeps the steps
// only when asked to.
type powerSink struct {
	keep  bool
	steps []plot.Step

	last, lastP, lastL float64 // previous state and its time
	have               bool
	drJ                float64 // ∫ power dt while a finite limit is in force (J)
	maxExcW            float64 // worst power above a finite limit at the end of an instant (W)
}

var _ scheduler.PowerObserver = (*powerSink)(nil)

func (p *powerSink) Power(t, watts, limit float64, _, _ int) error {
	if p.have && t > p.last && !math.IsInf(p.lastL, 1) {
		p.drJ += p.lastP * (t - p.last)
	}
	p.last, p.lastP, p.lastL, p.have = t, watts, limit, true
	if !math.IsInf(limit, 1) {
		p.maxExcW = math.Max(p.maxExcW, watts-limit)
	}
	if p.keep {
		p.steps = append(p.steps, plot.Step{T: t, W: watts})
	}
	return nil
}
