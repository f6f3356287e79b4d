package sim

import (
	"context"
	"testing"

	"drsim/internal/sharedtest"
	"drsim/scheduler"
)

// BenchmarkVariability compares plain EASY on HPC2N with the same run
// under per-node variability (issue 17: at most 1.5× plain EASY). The
// trace is loaded once outside the timer; the variable runs also schedule
// differently (longer jobs), which is part of what they cost; the ignore
// case has plain's schedule and isolates the per-start work.
//
//	DRSIM_SHARED=../shared go test -run ^$ -bench Variability -count 5 ./scheduler/sim
func BenchmarkVariability(b *testing.B) {
	defer scheduler.WithoutTestChecks()()
	path := sharedtest.Path(b, "traces/HPC2N-2002-2.2-cln.swf.gz")
	tr, err := Load(Spec{Trace: path})
	if err != nil {
		b.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		s    Spec
	}{
		{"plain", Spec{Trace: path}},
		{"speed-sd-0.03", Spec{Trace: path, NodeSpeedSD: 0.03}},
		{"slow-0.0625:1.1", Spec{Trace: path, SlowNodes: "0.0625:1.1"}},
		{"speed-sd-0.03-mean", Spec{Trace: path, NodeSpeedSD: 0.03, Pace: "mean"}},
		// The mechanism alone: the same schedule as plain (pace ignored,
		// power factors 1), every start through varyStart.
		{"speed-sd-0.03-ignore", Spec{Trace: path, NodeSpeedSD: 0.03, Pace: "ignore"}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				if _, err := Run(context.Background(), tc.s, tr, Outputs{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
