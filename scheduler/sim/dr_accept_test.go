package sim

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"drsim/internal/sharedtest"
)

// malleableJobs caps the jobs per trace for DR-Scale (30% malleable jobs)
// in the power-cap acceptance test: it re-optimises sizes and levels of
// every running job at every instant of a DR event, which on RICC (about
// 740 running jobs) takes about 2 minutes in full. The dr governor,
// --powercap dr and the uniform cap run every trace in full (CEA-Curie's
// --powercap dr, the slowest, about 35 s).
const malleableJobs = 50000

// Acceptance on every real trace: the dr governor under EASY with DR events
// covering 25% of the span at 80% of peak power never lets the power
// exceed the limit (the engine's online --check counts any instant ending
// above it, and the meter integrates any energy above it), every job
// finishes, and the performance governor on the same events does exceed it
// (so the events bite).
func TestAcceptanceDRNeverExceeds(t *testing.T) {
	for _, path := range sharedtest.Traces(t) {
		name := filepath.Base(path)
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			base := Spec{Trace: path, DRRatio: 0.25, Check: true}
			tr, err := Load(base)
			if err != nil {
				t.Fatal(err)
			}
			start := time.Now()
			for _, gov := range []string{"dr", "performance"} {
				s := base
				s.DVFS = gov
				r, err := Run(context.Background(), s, tr, Outputs{})
				if err != nil {
					t.Fatal(err)
				}
				sm := r.Summary
				if gov == "dr" {
					if r.Stats.NViolations > 0 || sm.ExcessJ > 0 {
						t.Errorf("dr: %d violations (%v), %.3g J above the limit", r.Stats.NViolations, r.Stats.Violations, sm.ExcessJ)
					}
					if sm.DRHours == 0 {
						t.Error("no time under DR")
					}
				} else if sm.ExcessJ == 0 {
					t.Logf("performance never exceeded the limit on this trace")
				}
				t.Logf("%s: %d jobs, DR %.0f h, energy %.0f kWh, evictions %d, %.1f s", gov, sm.Jobs, sm.DRHours, sm.EnergyKWh, sm.Evictions, time.Since(start).Seconds())
			}
		})
	}
}
