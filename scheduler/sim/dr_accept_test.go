package sim

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"drsim/internal/sharedtest"
)

// acceptJobs caps the jobs per trace in the acceptance test so that the
// whole test stays within a few seconds of CI time; 0 keeps every job.
const acceptJobs = 20000

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
			base := Spec{Trace: path, Jobs: acceptJobs, DRRatio: 0.25, Check: true}
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
