package sweep

import (
	"context"
	"drsim/scheduler"
	"fmt"
	"path/filepath"
	"testing"
)

// BenchmarkSweep runs 8 cells of 20,000 generated jobs each (Lublin–Feitelson,
// EASY and conservative × 4 seeds, jobs.csv written) per iteration, with 1
// and 2 workers; cells/s is the throughput. Cells are large enough (about
// 60 ms of CPU each) that simulation, not fsync, dominates. Traces are
// loaded once per Run, so each iteration pays for its 4 workloads as a real
// sweep would.
func BenchmarkSweep(b *testing.B) {
	defer scheduler.WithoutTestChecks()() // time the engine users run
	cfg, err := ParseConfig("bench.toml", []byte("jobs = 20000\npolicy = [\"easy\", \"conservative\"]\nseed = [1, 2, 3, 4]\n"))
	if err != nil {
		b.Fatal(err)
	}
	for _, workers := range []int{1, 2} {
		b.Run(fmt.Sprintf("workers=%d", workers), func(b *testing.B) {
			b.ReportAllocs()
			dir := b.TempDir()
			cells := 0
			for i := 0; b.Loop(); i++ {
				rep, err := Run(context.Background(), cfg, Options{Out: filepath.Join(dir, fmt.Sprint(i)), Workers: workers})
				if err != nil {
					b.Fatal(err)
				}
				cells += rep.Ran
			}
			b.ReportMetric(float64(cells)/b.Elapsed().Seconds(), "cells/s")
		})
	}
}
