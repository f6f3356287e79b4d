package scheduler

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"drsim/cluster"
	"drsim/internal/sharedtest"
	"drsim/powercap"
	"drsim/results"
	"drsim/workloads"
)

// gresMachine is one shared-core partition of 2 nodes × 4 cores × 2 GPUs
// (node 0 is processors 0-3, node 1 is 4-7).
func gresMachine(cfg Config) Config {
	cfg.Procs = 8
	cfg.Parts = []Part{{Name: "gpu", Procs: 8, Cores: 4, GPUs: 2, GPUBusyW: 100}}
	cfg.PartOf = func(*workloads.Job) int { return 0 }
	return cfg
}

func gj(id int64, submit, run float64, procs, gpus, nodes int64) workloads.Job {
	w := j(id, submit, run, procs, run)
	w.GPUs, w.Nodes = gpus, nodes
	return w
}

// allocs prints each job's processors, by ID.
func (c *collect) allocs() string {
	byID := map[int64]string{}
	for _, r := range c.rows {
		byID[r.ID] = string(cluster.AppendIntervalSet(nil, r.Alloc))
	}
	var b []string
	for id := int64(1); id <= int64(len(byID)); id++ {
		b = append(b, fmt.Sprintf("%d:%s", id, byID[id]))
	}
	return strings.Join(b, " ")
}

// Hand-computed schedules (exact; estimates are the run times). Job 1
// (2 cores, 2 GPUs) takes node 0's cores 0-1 and both its GPUs. Job 2
// (1 core, 2 GPUs) finds node 0 with free cores but no GPU and takes
// core 4 and both GPUs of node 1. Job 3 (4 cores, 1 GPU on one node)
// has 5 free cores but no GPU: it waits, and its reservation is 51,
// when job 2 gives node 1's GPUs and its core back.
//
// fcfs: everything waits behind job 3 (51-61 on node 1, 4-7); at 61 job 4
// (4 cores) gets the free run 2-5, job 5 (1 core) 6, and job 6 (2 cores)
// waits for job 4's end at 81.
//
// easy: job 4 (4 cores, ends 23 ≤ 51) backfills at 3 on the lowest free
// processors 2,3,5,6. At 4 job 5 (1 core, 100 s) fits on core 7, and the
// processor count alone allows it (6 free at 51, 4 for the head, 2
// extra), but node 1 would then have 3 free cores at 51 and the head
// needs 4 on a node with a GPU: it waits. At 23 (job 4 ended) it goes on
// core 2 of node 0, which the head does not need. Job 6 (2 cores) would
// go on 5-6 of node 1: over the extra processors, it waits until job 3
// ends at 61 (3-4).
func TestGresSchedules(t *testing.T) {
	jobs := []workloads.Job{
		gj(1, 0, 100, 2, 2, 1), gj(2, 1, 50, 1, 2, 1), gj(3, 2, 10, 4, 1, 1),
		gj(4, 3, 20, 4, 0, 0), gj(5, 4, 100, 1, 0, 0), gj(6, 5, 100, 2, 0, 0),
	}
	for _, tc := range []struct{ pol, starts, allocs string }{
		{"fcfs", "1:0-100 2:1-51 3:51-61 4:61-81 5:61-161 6:81-181", "1:0-1 2:4 3:4-7 4:2-5 5:6 6:2-3"},
		{"easy", "1:0-100 2:1-51 3:51-61 4:3-23 5:23-123 6:61-161", "1:0-1 2:4 3:4-7 4:2-3 5-6 5:2 6:3-4"},
	} {
		t.Run(tc.pol, func(t *testing.T) {
			cfg := gresMachine(Config{Policy: tc.pol})
			c := &collect{}
			cfg.Recorder, cfg.Check = c, true
			e, err := New(cfg)
			if err != nil {
				t.Fatal(err)
			}
			if err := e.Run(context.Background(), &SliceSource{Jobs: jobs}); err != nil {
				t.Fatal(err)
			}
			if st := e.Stats(); st.NViolations != 0 || st.Dropped != 0 {
				t.Fatalf("violations %v, dropped %d", st.Violations, st.Dropped)
			}
			if got := c.starts(); got != tc.starts {
				t.Errorf("schedule\n got %s\nwant %s", got, tc.starts)
			}
			if got := c.allocs(); got != tc.allocs {
				t.Errorf("processors\n got %s\nwant %s", got, tc.allocs)
			}
		})
	}
}

// sacct's AllocTRES cpu=2,node=2,gres/gpu=4 (job 24 of testdata/sacct):
// 1 core and 2 GPUs on each of 2 nodes. A job of 5 processors and 3 GPUs
// on 2 nodes rounds up to 3 cores and 2 GPUs per node (6 processors, 4
// GPUs); a job of 3 GPUs on no given node count needs ⌈3/2⌉ = 2 nodes.
func TestGresSplit(t *testing.T) {
	for _, c := range []struct{ reqNodes, procs, gpus, nodes, per, gpn int }{
		{2, 2, 4, 2, 1, 2},
		{2, 5, 3, 2, 3, 2},
		{0, 1, 3, 2, 1, 2},
		{0, 6, 1, 2, 3, 1}, // 6 cores need 2 nodes of 4
		{1, 4, 2, 1, 4, 2},
	} {
		n, p, g := gresSplit(c.reqNodes, c.procs, c.gpus, 4, 2)
		if n != c.nodes || p != c.per || g != c.gpn {
			t.Errorf("gresSplit(%d, %d, %d, 4, 2) = %d, %d, %d; want %d, %d, %d", c.reqNodes, c.procs, c.gpus, n, p, g, c.nodes, c.per, c.gpn)
		}
	}
}

// GPU power and energy of shared-core GPU jobs (hand-computed). One level
// of 30 W per busy processor, idle 10 W, 100 W per busy GPU above idle.
// Job 1 (2 cores and 2 GPUs on 2 nodes: 1 core and 1 GPU on each, 10 s)
// draws 2·30 + 2·100 = 260 W: 2600 J, of it 2000 J GPUs. Job 2 (3 cores
// and 1 GPU on one node, 20 s) starts at 0 beside it, on node 0's 3 free
// cores and its second GPU, and draws 3·30 + 100 = 190 W: 3800 J, 2000 J
// GPUs. Job 3 (5 GPUs: ⌈5/2⌉ = 3 nodes of a 2-node partition) is dropped
// as larger than its partition; under conservative every GPU job on
// shared cores is dropped with the reason "GPUs in a shared-core
// partition".
func TestGresEnergy(t *testing.T) {
	apps := []powercap.Table{{App: "a", Levels: []powercap.Level{{X: 1, Power: 30, Scale: 1}}}}
	jobs := []workloads.Job{gj(1, 0, 10, 2, 2, 2), gj(2, 0, 20, 3, 1, 1), gj(3, 0, 10, 1, 5, 0)}
	for _, pol := range []string{"easy", "conservative"} {
		rec := &collect{}
		cfg := gresMachine(Config{Policy: pol, Apps: apps, IdleW: 10, Recorder: rec, Check: true})
		e, err := New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		if err := e.Run(context.Background(), &SliceSource{Jobs: jobs}); err != nil {
			t.Fatal(err)
		}
		st := e.Stats()
		if st.NViolations > 0 {
			t.Fatal(st.Violations)
		}
		if pol == "conservative" {
			if st.Dropped != 3 || st.DroppedBy[dropGPUsShared] != 3 {
				t.Errorf("conservative: dropped %d by %v, want 3 GPUs in a shared-core partition", st.Dropped, st.DroppedBy)
			}
			continue
		}
		if st.Dropped != 1 || st.DroppedBy[dropPartitionSize] != 1 {
			t.Errorf("dropped %d by %v, want job 3 as larger than its partition", st.Dropped, st.DroppedBy)
		}
		for _, w := range []struct {
			id              int64
			start, en, gpuJ float64
			procs           int64
			alloc           string
		}{{1, 0, 2600, 2000, 2, "0 4"}, {2, 0, 3800, 2000, 3, "1-3"}} {
			var r results.Record
			for _, x := range rec.rows {
				if x.ID == w.id {
					r = x
				}
			}
			if r.Start != w.start || r.Energy != w.en || r.GPUEnergy != w.gpuJ || r.Procs != w.procs || string(cluster.AppendIntervalSet(nil, r.Alloc)) != w.alloc {
				t.Errorf("job %d: start %v energy %v GPU %v procs %d on %s; want %v %v %v %d %s", w.id, r.Start, r.Energy, r.GPUEnergy,
					r.Procs, string(cluster.AppendIntervalSet(nil, r.Alloc)), w.start, w.en, w.gpuJ, w.procs, w.alloc)
			}
		}
		if got := e.GPUEnergy(); got != 4000 {
			t.Errorf("machine GPU energy %v J, want 4000", got)
		}
	}
}

// --check catches a placement whose per-node free counts drift from what
// the jobs hold, and a node with more GPUs in use than it has.
func TestGresCheckCatches(t *testing.T) {
	cfg := gresMachine(Config{Policy: "fcfs", Check: true})
	e, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	a := e.parts[0].checked
	if _, ok := a.AllocNodes(1, 1, 2, nil); !ok {
		t.Fatal("AllocNodes refused on an empty machine")
	}
	if e.Stats().NViolations != 0 {
		t.Fatalf("violations on a good allocation: %v", e.Stats().Violations)
	}
	// Hand node 0's GPUs out again behind the placement's back: the
	// checker sees 4 GPUs in use on a 2-GPU node.
	a.nodes([]cluster.Range{{Lo: 1, Hi: 2}}, 1, 2)
	if st := e.Stats(); st.NViolations != 1 || !strings.Contains(st.Violations[0], "has 2 cores and 4 GPUs in use; it has 4 and 2") {
		t.Errorf("over-allocated GPUs not caught: %v", st.Violations)
	}
	// A placement that loses count of a node's free GPUs.
	b := e.parts[0].gres
	if _, ok := b.AllocNodes(1, 1, 1, nil); !ok {
		t.Fatal("second AllocNodes refused")
	}
	a.nodes([]cluster.Range{{Lo: 4, Hi: 5}}, 1, 0)
	if st := e.Stats(); st.NViolations != 2 || !strings.Contains(st.Violations[1], "the placement counts 3 free cores and 1 free GPUs, the ownership map 3 and 2") {
		t.Errorf("free-count mismatch not caught: %v", st.Violations)
	}
}

// Seeded random mixes of CPU and GPU jobs on a shared-core GPU partition
// (3 nodes × 4 cores × 2 GPUs), estimates at or above the run times: the
// online checks (per-node cores and GPUs, free counts, FCFS order, EASY's
// head never starting after its first reservation, energy and GPU energy
// balance) find nothing, and every job runs; also under the dr governor
// with limits that slow and evict jobs (evictions release GPUs).
func TestGresRandomChecked(t *testing.T) {
	evictions := 0
	for seed := uint64(1); seed <= 20; seed++ {
		rng := rand.New(rand.NewPCG(seed, 0))
		var jobs []workloads.Job
		at := 0.0
		for id := int64(1); id <= 200; id++ {
			at += float64(rng.IntN(20))
			run := float64(1 + rng.IntN(100))
			w := gj(id, at, run, int64(1+rng.IntN(8)), 0, 0)
			if rng.IntN(2) == 0 {
				w.GPUs, w.Nodes = int64(1+rng.IntN(4)), int64(rng.IntN(3))
			}
			w.Estimate = run * (1 + float64(rng.IntN(3)))
			w.ReqTime = w.Estimate
			jobs = append(jobs, w)
		}
		for _, pol := range []string{"fcfs", "easy", "easy-dr"} {
			cfg := gresMachine(Config{Policy: pol, Check: true, Apps: []powercap.Table{{App: "a", Levels: []powercap.Level{{X: 1, Power: 30, Scale: 1}}}}, IdleW: 10})
			if pol == "easy-dr" { // the dr governor under a limit that forces slowdowns and evictions
				cfg.Policy, cfg.Apps, cfg.Governor = "easy", twoLevels, newDR()
				cfg.Limits = []LimitStep{{T: 300, W: 700}, {T: 900, W: math.Inf(1)}, {T: 1500, W: 500}, {T: 2000, W: math.Inf(1)}}
			}
			cfg.Procs = 12
			cfg.Parts[0].Procs = 12
			e, err := New(cfg)
			if err != nil {
				t.Fatal(err)
			}
			if err := e.Run(context.Background(), &SliceSource{Jobs: jobs}); err != nil {
				t.Fatal(err)
			}
			st := e.Stats()
			if pol == "easy-dr" {
				evictions += st.Evictions
			}
			if st.NViolations != 0 || st.Finished+st.Dropped != 200 || st.DroppedBy[dropGPUsShared] != 0 {
				t.Fatalf("seed %d %s: finished %d dropped %v, violations %v", seed, pol, st.Finished, st.DroppedBy, st.Violations)
			}
		}
	}
	if evictions == 0 {
		t.Errorf("the dr runs evicted no job: the limits do not exercise eviction")
	}
}

// BenchmarkGres replays HPC2N (202,871 jobs, 240 processors) under EASY
// with a power model: as one pool, as one shared-core partition of 120
// nodes × 2 cores × 2 GPUs without GPU jobs (the placement's per-node
// counts), and with every other job asking one GPU per 2 processors (the
// per-node fit tests and EASY's GPU-head reservations).
func BenchmarkGres(b *testing.B) {
	defer WithoutTestChecks()() // time the engine users run
	tr, err := workloads.LoadFile(sharedtest.Path(b, "traces/HPC2N-2002-2.2-cln.swf.gz"), workloads.Options{})
	if err != nil {
		b.Fatal(err)
	}
	gpuJobs := make([]workloads.Job, len(tr.Jobs))
	for i, w := range tr.Jobs {
		if w.ID%2 == 0 {
			w.GPUs = (w.Procs + 1) / 2
		}
		gpuJobs[i] = w
	}
	apps := []powercap.Table{{App: "toy", Levels: []powercap.Level{{X: 1.2, Power: 80, Scale: 1.8}, {X: 2.7, Power: 200, Scale: 1}}}}
	parts := []Part{{Name: "gpu", Procs: 240, Cores: 2, GPUs: 2, GPUBusyW: 100}}
	for _, tc := range []struct {
		name  string
		parts []Part
		jobs  []workloads.Job
	}{{"pool", nil, tr.Jobs}, {"gres-nogpu", parts, tr.Jobs}, {"gres-gpu", parts, gpuJobs}} {
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				cfg := Config{Procs: 240, Policy: "easy", Apps: apps, IdleW: 30, Parts: tc.parts}
				if tc.parts != nil {
					cfg.PartOf = func(*workloads.Job) int { return 0 }
				}
				e, err := New(cfg)
				if err != nil {
					b.Fatal(err)
				}
				if err := e.Run(context.Background(), &SliceSource{Jobs: tc.jobs}); err != nil {
					b.Fatal(err)
				}
				sinkStats = *e.Stats()
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(tc.jobs)), "ns/job")
		})
	}
}
