package sim

import (
	"context"
	"drsim/scheduler"
	"os"
	"path/filepath"
	"testing"

	"drsim/internal/sharedtest"
)

// BenchmarkReplay measures what a user waits for: gunzip, parse, simulate
// and write jobs.csv to a file, end to end, for one trace and policy.
// It reports jobs/s. Run with DRSIM_SHARED set:
//
//	DRSIM_SHARED=../shared go test -run ^$ -bench Replay ./scheduler/sim
func BenchmarkReplay(b *testing.B) {
	defer scheduler.WithoutTestChecks()() // time the engine users run
	for _, tc := range []struct{ trace, policy string }{
		{"RICC-2010-2.swf.gz", "easy"},
		{"HPC2N-2002-2.2-cln.swf.gz", "easy"},
		{"HPC2N-2002-2.2-cln.swf.gz", "conservative"},
		{"HPC2N-2002-2.2-cln.swf.gz", "fcfs"},
	} {
		b.Run(tc.trace+"/"+tc.policy, func(b *testing.B) {
			path := sharedtest.Path(b, "traces/"+tc.trace)
			out := filepath.Join(b.TempDir(), "jobs.csv")
			b.ReportAllocs()
			jobs := 0
			for i := 0; i < b.N; i++ {
				spec := Spec{Trace: path, Policy: tc.policy}
				tr, err := Load(spec)
				if err != nil {
					b.Fatal(err)
				}
				f, err := os.Create(out)
				if err != nil {
					b.Fatal(err)
				}
				res, err := Run(context.Background(), spec, tr, Outputs{Jobs: f})
				f.Close()
				if err != nil {
					b.Fatal(err)
				}
				jobs = res.Summary.Jobs
			}
			b.ReportMetric(float64(jobs)*float64(b.N)/b.Elapsed().Seconds(), "jobs/s")
		})
	}
}

// BenchmarkEngineOnly measures the simulation alone, the critical path of
// an end-to-end run (reading and writing overlap with it on other
// goroutines): the trace is loaded once outside the timer and no output
// file is written; the summary is still computed.
//
//	DRSIM_SHARED=../shared go test -run ^$ -bench EngineOnly -count 5 ./scheduler/sim
func BenchmarkEngineOnly(b *testing.B) {
	defer scheduler.WithoutTestChecks()() // time the engine users run
	for _, tc := range []struct{ trace, policy string }{
		{"RICC-2010-2.swf.gz", "easy"},
		{"HPC2N-2002-2.2-cln.swf.gz", "easy"},
		{"HPC2N-2002-2.2-cln.swf.gz", "conservative"},
	} {
		b.Run(tc.trace+"/"+tc.policy, func(b *testing.B) {
			spec := Spec{Trace: sharedtest.Path(b, "traces/"+tc.trace), Policy: tc.policy}
			tr, err := Load(spec)
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			b.ResetTimer()
			jobs := 0
			for i := 0; i < b.N; i++ {
				res, err := Run(context.Background(), spec, tr, Outputs{})
				if err != nil {
					b.Fatal(err)
				}
				jobs = res.Summary.Jobs
			}
			b.ReportMetric(float64(jobs)*float64(b.N)/b.Elapsed().Seconds(), "jobs/s")
		})
	}
}
