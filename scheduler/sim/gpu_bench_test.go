package sim

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"drsim/scheduler"
	"drsim/workloads"
)

// gpuBenchMachine is 1,024 GPU nodes (one CPU package, 4 GPUs each).
const gpuBenchMachine = `name = "gpu1024"
[[node_type]]
name = "gpu"
prefix = "g"
count = 1024
cores = 1
gpus = 4
idle_w = 390
gpu_idle_w = 50
gpu_busy_w = 400

[[partition]]
name = "gpu"
nodes = "g[0001-1024]"
allocation = "node"
`

// BenchmarkGPUDR: 100,000 Lublin–Feitelson jobs (seed 1, the embedded
// workload's rate) on 1,024 GPU nodes, every job a GPU job (--gpu-map
// all:1) of the default GPU profile mix, DR events over 25% of the span
// at 0.8 and 0.5 of peak: --gpucap dr against the same events without DR
// (GPUs at their top pair). The target: ≤ 3×. Run with
//
//	go test -run ^$ -bench BenchmarkGPUDR -benchtime 3x ./scheduler/sim
func BenchmarkGPUDR(b *testing.B) {
	defer scheduler.WithoutTestChecks()()
	m := filepath.Join(b.TempDir(), "gpu1024.toml")
	if err := os.WriteFile(m, []byte(gpuBenchMachine), 0o644); err != nil {
		b.Fatal(err)
	}
	tr, err := workloads.Lublin(workloads.LublinConfig{Jobs: 100000, Procs: 1024, Seed: 1, RateFactor: workloads.DefaultRate})
	if err != nil {
		b.Fatal(err)
	}
	base := Spec{Machine: m, GPUMap: "all:1", DRRatio: 0.25}
	for _, tc := range []struct {
		name  string
		gpu   string
		limit float64
	}{{"plain-dr25-0.8", "", 0.8}, {"gpucap-dr-dr25-0.8", "dr", 0.8}, {"plain-dr25-0.5", "", 0.5}, {"gpucap-dr-dr25-0.5", "dr", 0.5}} {
		s := base
		s.GPUCap, s.DRLimit = tc.gpu, tc.limit
		b.Run(tc.name, func(b *testing.B) {
			jobs, solves := 0, 0
			for b.Loop() {
				res, err := Run(context.Background(), s, tr, Outputs{})
				if err != nil {
					b.Fatal(err)
				}
				jobs, solves = res.Summary.Jobs, res.Summary.LevelSolves
			}
			b.ReportMetric(float64(jobs)*float64(b.N)/b.Elapsed().Seconds(), "jobs/s")
			b.ReportMetric(float64(solves), "level-solves")
		})
	}
}
