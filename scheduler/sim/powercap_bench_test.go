package sim

import (
	"context"
	"testing"

	"drsim/internal/sharedtest"
)

// BenchmarkPowerCap compares the simulation time (trace loaded) of the
// power-cap modes with DR events over 25% of the span against plain EASY
// (performance, no events) on the whole HPC2N trace. Target: dr ≤ 3×
// plain. Run with
//
//	DRSIM_SHARED=/work/shared go test -run ^$ -bench BenchmarkPowerCap ./scheduler/sim
func BenchmarkPowerCap(b *testing.B) {
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
		{"easy-powercap-dr25", Spec{Trace: path, PowerCap: "dr", DRRatio: 0.25}},
		{"easy-powercap-uniform25", Spec{Trace: path, PowerCap: "uniform", DRRatio: 0.25}},
		{"easy-powercap-dr-scale25", Spec{Trace: path, PowerCap: "dr", Malleable: 0.3, ResizeCost: 30, DRRatio: 0.25}},
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
