package scheduler

import (
	"context"
	"testing"

	"drsim/powercap"
	"drsim/results"
	"drsim/workloads"
)

// Hand-computed per-device energy on one partition of two nodes (2
// processors and 2 GPUs each, idle 10 W per processor, 100 W per busy
// unmodelled GPU above idle). App 1 is a GPU app: its level 1 draws 110 W
// per processor of which 70 W are GPUs, its level 0 60 W (30 W GPUs) at
// half speed. slowInDR moves every job to level 0 from t=50 on.
func TestGPUEnergyPerDevice(t *testing.T) {
	apps := []powercap.Table{twoLevels[0], {App: "gpu", Levels: []powercap.Level{{X: 1, Power: 60, Scale: 2}, {X: 2, Power: 110, Scale: 1}}}}
	rec := &energyRec{byID: map[int64]results.Record{}}
	cfg := Config{Procs: 4, Policy: "fcfs", Apps: apps, IdleW: 10, Governor: slowInDR, Recorder: rec, Check: true,
		Limits:   []LimitStep{{T: 50, W: 1e9}},
		Parts:    []Part{{Name: "gpu", Procs: 4, Cores: 2, GPUs: 2, Exclusive: true, GPUBusyW: 100}},
		PartOf:   func(*workloads.Job) int { return 0 },
		AppOf:    func(w *workloads.Job) int { return map[int64]int{1: 1, 2: 0, 3: 0}[w.ID] },
		GPUShare: [][]float64{nil, {30, 70}},
	}
	e, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	jobs := []workloads.Job{
		{ID: 1, Submit: 0, Run: 100, Procs: 2, GPUs: 2},  // modelled GPU job
		{ID: 2, Submit: 0, Run: 100, Procs: 2},           // CPU job on a GPU node: GPUs idle
		{ID: 3, Submit: 200, Run: 10, Procs: 2, GPUs: 1}, // GPU job of a CPU app: constant 100 W per GPU
	}
	if err := e.Run(context.Background(), &SliceSource{Jobs: jobs}); err != nil {
		t.Fatal(err)
	}
	if e.Stats().NViolations > 0 {
		t.Fatal(e.Stats().Violations)
	}
	want := []struct {
		id          int64
		end, en, gj float64
	}{
		// 50 s at level 1 (half the work) then 100 s at level 0:
		// 50·2·110 + 100·2·60 J, GPUs 50·2·70 + 100·2·30 J.
		{1, 150, 23000, 13000},
		{2, 150, 50*2*100 + 100*2*50, 0},
		// 10 s of work at level 0: 20 s of 2·50 W + 1 GPU·100 W.
		{3, 220, 20 * (2*50 + 100), 2000},
	}
	for _, w := range want {
		r := rec.byID[w.id]
		if r.End != w.end || r.Energy != w.en || r.GPUEnergy != w.gj {
			t.Errorf("job %d: end %v energy %v GPU %v; want %v %v %v", w.id, r.End, r.Energy, r.GPUEnergy, w.end, w.en, w.gj)
		}
	}
	if got := e.GPUEnergy(); got != 15000 {
		t.Errorf("machine GPU energy %v J, want 15000", got)
	}
	if e.jobGPUJ != 15000 {
		t.Errorf("Σ jobs' GPU energy %v J, want 15000", e.jobGPUJ)
	}
	e.gpuJ++ // the balance check catches a mismatch
	e.finalChecks()
	if e.Stats().NViolations != 1 {
		t.Errorf("GPU energy mismatch not caught: %v", e.Stats().Violations)
	}
}
