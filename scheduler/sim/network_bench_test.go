package sim

import (
	"context"
	"io"
	"testing"

	"drsim/internal/sharedtest"
)

// BenchmarkNetworkReplay measures what the network model adds to a replay
// of HPC2N (202,871 jobs, 240 processors) under EASY, the trace loaded once
// and jobs.csv written to io.Discard, so only the simulation is timed. The
// target is off ≤ on ≤ 2 × off with interference off. Run with
// DRSIM_SHARED set:
//
//	DRSIM_SHARED=/work/shared go test -run ^$ -bench NetworkReplay ./scheduler/sim
func BenchmarkNetworkReplay(b *testing.B) {
	path := sharedtest.Path(b, "traces/HPC2N-2002-2.2-cln.swf.gz")
	tr, err := Load(Spec{Trace: path})
	if err != nil {
		b.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		spec Spec
	}{
		{"off", Spec{}},
		{"edison", Spec{Preset: "edison"}},
		{"edison/topology", Spec{Preset: "edison", Placement: "topology"}},
		{"hopper", Spec{Preset: "hopper"}},
		{"edison/interference", Spec{Preset: "edison", Interference: "on"}},
		{"edison/topology/interference", Spec{Preset: "edison", Placement: "topology", Interference: "on"}},
		{"hopper/interference", Spec{Preset: "hopper", Interference: "on"}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			tc.spec.Trace = path
			b.ReportAllocs()
			jobs := 0
			for b.Loop() {
				res, err := Run(context.Background(), tc.spec, tr, Outputs{Jobs: io.Discard})
				if err != nil {
					b.Fatal(err)
				}
				jobs = res.Summary.Jobs
			}
			b.ReportMetric(float64(jobs)*float64(b.N)/b.Elapsed().Seconds(), "jobs/s")
		})
	}
}
