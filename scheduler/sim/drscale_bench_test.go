package sim

import (
	"context"
	"testing"

	"drsim/internal/sharedtest"
	"drsim/scheduler"
)

// BenchmarkDRScale times DR-Scale (--powercap dr --malleable F, DR events
// over 25% of the span) on the whole HPC2N trace, trace already loaded,
// beside plain EASY: issue 18's target is ≤ 3× plain EASY at F = 0.5.
// Run with
//
//	DRSIM_SHARED=/work/shared go test -run ^$ -bench BenchmarkDRScale ./scheduler/sim
func BenchmarkDRScale(b *testing.B) {
	defer scheduler.WithoutTestChecks()() // time the engine users run
	path := sharedtest.Path(b, "traces/HPC2N-2002-2.2-cln.swf.gz")
	tr, err := Load(Spec{Trace: path})
	if err != nil {
		b.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		spec Spec
	}{
		{"easy-plain", Spec{Trace: path}},
		{"malleable0.25", Spec{Trace: path, PowerCap: "dr", Malleable: 0.25, DRRatio: 0.25}},
		{"malleable0.5", Spec{Trace: path, PowerCap: "dr", Malleable: 0.5, DRRatio: 0.25}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Run(context.Background(), tc.spec, tr, Outputs{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
