package sim

import (
	"context"
	"drsim/scheduler"
	"testing"

	"drsim/internal/sharedtest"
)

// BenchmarkDR compares the simulation time (trace already loaded) of the
// demand-response modes, with DR events over 25% of the span, against plain
// EASY with the performance governor and no events, on the whole HPC2N
// trace. The issues' targets: dr and powercap dr ≤ 3× plain. Run with
//
//	DRSIM_SHARED=/work/shared go test -run ^$ -bench BenchmarkDR ./scheduler/sim
func BenchmarkDR(b *testing.B) {
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
		{"easy-dvfs-dr25", Spec{Trace: path, DVFS: "dr", DRRatio: 0.25}},
		{"conservative-plain", Spec{Trace: path, Policy: "conservative"}},
		{"conservative-dvfs-dr25", Spec{Trace: path, Policy: "conservative", DVFS: "dr", DRRatio: 0.25}},
		{"easy-powercap-dr25", Spec{Trace: path, PowerCap: "dr", DRRatio: 0.25}},
		{"easy-powercap-uniform25", Spec{Trace: path, PowerCap: "uniform", DRRatio: 0.25}},
		{"easy-powercap-dr-scale25", Spec{Trace: path, PowerCap: "dr", Malleable: 0.3, ResizeCost: 30, DRRatio: 0.25}},
		{"easy-powercap-malleable0.25", Spec{Trace: path, PowerCap: "dr", Malleable: 0.25, DRRatio: 0.25}},
		{"easy-powercap-malleable0.5", Spec{Trace: path, PowerCap: "dr", Malleable: 0.5, DRRatio: 0.25}}, // issue 18: ≤ 3× plain
	} {
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			jobs := 0
			for b.Loop() {
				res, err := Run(context.Background(), tc.spec, tr, Outputs{})
				if err != nil {
					b.Fatal(err)
				}
				jobs = res.Summary.Jobs
			}
			b.ReportMetric(float64(jobs)*float64(b.N)/b.Elapsed().Seconds(), "jobs/s")
		})
	}
}
