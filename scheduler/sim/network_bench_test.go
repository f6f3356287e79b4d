package sim

import (
	"context"
	"drsim/scheduler"
	"io"
	"os"
	"path/filepath"
	"testing"

	"drsim/internal/sharedtest"
)

// netBenchCases are the network settings BenchmarkNetworkReplay compares.
var netBenchCases = []struct {
	name string
	spec Spec
	e2e  bool // also measured end to end
}{
	{"off", Spec{}, true},
	{"edison", Spec{Preset: "edison"}, true},
	{"edison-topology", Spec{Preset: "edison", Placement: "topology"}, true},
	{"hopper", Spec{Preset: "hopper"}, true},
	{"edison-interference", Spec{Preset: "edison", Interference: "on"}, false},
	{"edison-topology-interference", Spec{Preset: "edison", Placement: "topology", Interference: "on"}, false},
	{"hopper-interference", Spec{Preset: "hopper", Interference: "on"}, false},
	{"mira-interference", Spec{Preset: "mira", Interference: "on"}, false},
	{"stampede-interference", Spec{Preset: "stampede", Interference: "on"}, false},
}

// BenchmarkNetworkReplay measures what the network model adds to a replay
// of HPC2N (202,871 jobs, 240 processors) under EASY, two ways:
//
//	sim/NAME  the trace loaded once, only Run timed, jobs.csv to io.Discard
//	e2e/NAME  as BenchmarkReplay: gunzip, parse, simulate, jobs.csv to a file
//
// The target is NAME ≤ 2 × off with interference off, and ≤ 3 × off with
// it on (issue 18). Run with
// DRSIM_SHARED set:
//
//	DRSIM_SHARED=/work/shared go test -run ^$ -bench NetworkReplay ./scheduler/sim
func BenchmarkNetworkReplay(b *testing.B) {
	defer scheduler.WithoutTestChecks()() // time the engine users run
	path := sharedtest.Path(b, "traces/HPC2N-2002-2.2-cln.swf.gz")
	tr, err := Load(Spec{Trace: path})
	if err != nil {
		b.Fatal(err)
	}
	for _, tc := range netBenchCases {
		spec := tc.spec
		spec.Trace = path
		b.Run("sim/"+tc.name, func(b *testing.B) {
			b.ReportAllocs()
			jobs := 0
			for b.Loop() {
				res, err := Run(context.Background(), spec, tr, Outputs{Jobs: io.Discard})
				if err != nil {
					b.Fatal(err)
				}
				jobs = res.Summary.Jobs
			}
			b.ReportMetric(float64(jobs)*float64(b.N)/b.Elapsed().Seconds(), "jobs/s")
		})
	}
	for _, tc := range netBenchCases {
		if !tc.e2e {
			continue
		}
		spec := tc.spec
		spec.Trace = path
		b.Run("e2e/"+tc.name, func(b *testing.B) {
			out := filepath.Join(b.TempDir(), "jobs.csv")
			b.ReportAllocs()
			for b.Loop() {
				tr, err := Load(spec)
				if err != nil {
					b.Fatal(err)
				}
				f, err := os.Create(out)
				if err != nil {
					b.Fatal(err)
				}
				_, err = Run(context.Background(), spec, tr, Outputs{Jobs: f})
				f.Close()
				if err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
