package scheduler

import (
	"context"
	"testing"

	"drsim/internal/sharedtest"
	"drsim/powercap"
	"drsim/workloads"
)

// BenchmarkPartitions replays HPC2N (202,871 jobs, 240 processors) with a
// power model, as one pool and as two core partitions of the same total
// (160 + 80 processors, every third job to the second): the difference is
// the cost of partitions (routing, binding, the mirrored machine-wide
// running list). A few jobs larger than the 80-processor partition are
// dropped there, so the two runs do slightly different work.
func BenchmarkPartitions(b *testing.B) {
	defer WithoutTestChecks()() // time the engine users run
	tr, err := workloads.LoadFile(sharedtest.Path(b, "traces/HPC2N-2002-2.2-cln.swf.gz"), workloads.Options{})
	if err != nil {
		b.Fatal(err)
	}
	apps := []powercap.Table{{App: "toy", Levels: []powercap.Level{{X: 1.2, Power: 80, Scale: 1.8}, {X: 2.7, Power: 200, Scale: 1}}}}
	parts := []Part{{Name: "a", Procs: 160, Cores: 2}, {Name: "b", Lo: 160, Procs: 80, Cores: 2}}
	partOf := func(w *workloads.Job) int { return int(w.ID % 3 / 2) }
	for _, policy := range []string{"easy", "conservative"} {
		for _, tc := range []struct {
			name  string
			parts []Part
		}{{"pool", nil}, {"2parts", parts}} {
			b.Run(policy+"/"+tc.name, func(b *testing.B) {
				b.ReportAllocs()
				for i := 0; i < b.N; i++ {
					cfg := Config{Procs: 240, Policy: policy, Apps: apps, IdleW: 30, Parts: tc.parts}
					if tc.parts != nil {
						cfg.PartOf = partOf
					}
					e, err := New(cfg)
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
}
