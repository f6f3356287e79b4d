package sim

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"drsim/internal/sharedtest"
)

// Acceptance on every real trace, in full (DR-Scale: the first
// malleableJobs jobs, for CI time): --powercap dr under EASY with DR events over 25% of the span at
// 80% of peak, with --check, never lets the power exceed the limit
// (instantaneous, integrated, or averaged over the RAPL window) and every
// job finishes; the same holds with 30% malleable jobs (DR-Scale); the
// uniform cap holds the limit too (its per-processor share is above Pmin
// and the idle power at an 80% limit).
func TestAcceptancePowerCapDRNeverExceeds(t *testing.T) {
	for _, path := range sharedtest.Traces(t) {
		name := filepath.Base(path)
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			base := Spec{Trace: path, DRRatio: 0.25, Check: true, ResizeCost: 30}
			tr, err := Load(base)
			if err != nil {
				t.Fatal(err)
			}
			capped := base
			capped.Jobs = malleableJobs
			trCapped, err := Load(capped)
			if err != nil {
				t.Fatal(err)
			}
			for _, tc := range []struct {
				mode string
				mal  float64
			}{{"dr", 0}, {"dr", 0.3}, {"uniform", 0}} {
				start := time.Now()
				s, trace := base, tr
				if tc.mal > 0 {
					s, trace = capped, trCapped
				}
				s.PowerCap, s.Malleable = tc.mode, tc.mal
				r, err := Run(context.Background(), s, trace, Outputs{})
				if err != nil {
					t.Fatal(err)
				}
				sm := r.Summary
				if r.Stats.NViolations > 0 || sm.ExcessJ > 0 || sm.MaxExcessW > 0 || r.WindowExcessW > 0 {
					t.Errorf("%v: %d violations (%v), %.3g J / %.3g W above the limit, window %.3g W", tc, r.Stats.NViolations,
						r.Stats.Violations, sm.ExcessJ, sm.MaxExcessW, r.WindowExcessW)
				}
				if sm.Jobs != r.Stats.Submitted || sm.DRHours == 0 {
					t.Errorf("%v: %d of %d jobs finished, %v h under DR", tc, sm.Jobs, r.Stats.Submitted, sm.DRHours)
				}
				t.Logf("%s mal=%g: %d jobs, DR %.0f h, energy %.0f kWh, evictions %d, %.1f s", tc.mode, tc.mal, sm.Jobs, sm.DRHours, sm.EnergyKWh, sm.Evictions, time.Since(start).Seconds())
			}
		})
	}
}
