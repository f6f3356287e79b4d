package scheduler

import (
	"context"
	"testing"

	"drsim/internal/sharedtest"
	"drsim/powercap"
	"drsim/workloads"
)

var sinkStats Stats

// BenchmarkEngine replays a generated 20,000-job workload (Lublin–Feitelson,
// 256 processors, 73% load) through each policy, with a power model and
// the performance governor, no outputs. It reports ns and allocations per
// job: the hot path allocates only while slices grow to their peak size.
func BenchmarkEngine(b *testing.B) {
	defer WithoutTestChecks()() // time the engine users run
	tr, err := workloads.Lublin(workloads.LublinConfig{Jobs: 20000, RateFactor: workloads.DefaultRate})
	if err != nil {
		b.Fatal(err)
	}
	apps := []powercap.Table{{App: "toy", Levels: []powercap.Level{{X: 1.2, Power: 80, Scale: 1.8}, {X: 2.7, Power: 200, Scale: 1}}}}
	for _, policy := range []string{"fcfs", "easy", "conservative"} {
		b.Run(policy, func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				e, err := New(Config{Procs: 256, Policy: policy, Apps: apps, IdleW: 30})
				if err != nil {
					b.Fatal(err)
				}
				if err := e.Run(context.Background(), &SliceSource{Jobs: tr.Jobs}); err != nil {
					b.Fatal(err)
				}
				sinkStats = *e.Stats()
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(tr.Jobs)), "ns/job")
		})
	}
}

// BenchmarkEnergyAccounting replays HPC2N (202,871 jobs) under EASY with and
// without a power model: the difference is the cost of energy accounting
// (per-job energy integration, the cluster meter, level lookups).
func BenchmarkEnergyAccounting(b *testing.B) {
	defer WithoutTestChecks()() // time the engine users run
	tr, err := workloads.LoadFile(sharedtest.Path(b, "traces/HPC2N-2002-2.2-cln.swf.gz"), workloads.Options{})
	if err != nil {
		b.Fatal(err)
	}
	apps := []powercap.Table{{App: "toy", Levels: []powercap.Level{{X: 1.2, Power: 80, Scale: 1.8}, {X: 2.7, Power: 200, Scale: 1}}}}
	for _, tc := range []struct {
		name string
		apps []powercap.Table
	}{{"plain", nil}, {"energy", apps}} {
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				e, err := New(Config{Procs: int(tr.MachineProcs), Policy: "easy", Apps: tc.apps, IdleW: 30})
				if err != nil {
					b.Fatal(err)
				}
				if err := e.Run(context.Background(), &SliceSource{Jobs: tr.Jobs}); err != nil {
					b.Fatal(err)
				}
				sinkStats = *e.Stats()
			}
		})
	}
}
