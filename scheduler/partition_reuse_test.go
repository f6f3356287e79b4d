package scheduler

import (
	"math"
	"math/rand/v2"
	"reflect"
	"testing"

	"drsim/workloads"
)

// randomParts draws a machine of two or three partitions: a shared-core
// partition of one-core nodes, a whole-node partition of four-core nodes
// with two GPUs each, and sometimes a whole-node partition of two-core
// nodes.
func randomParts(r *rand.Rand) Config {
	cpu, gpu := 4+r.IntN(28), 4*(2+r.IntN(8))
	cfg := Config{Parts: []Part{
		{Name: "cpu", Lo: 0, Procs: cpu, Cores: 1},
		{Name: "gpu", Lo: cpu, Procs: gpu, Cores: 4, GPUs: 2, Exclusive: true, IdleW: 25, GPUBusyW: 300},
	}}
	cfg.Procs = cpu + gpu
	if r.IntN(2) == 0 {
		two := 2 * (2 + r.IntN(10))
		cfg.Parts = append(cfg.Parts, Part{Name: "two", Lo: cfg.Procs, Procs: two, Cores: 2, Exclusive: true})
		cfg.Procs += two
	}
	cfg.PartOf = func(w *workloads.Job) int { return int(w.Partition) - 1 }
	return cfg
}

// randomPartJobs draws n jobs over the partitions of cfg, in runs of
// repeated classes (size, estimate, partition) as randomTrace does; some
// ask for GPUs on the GPU partition, and one in eight runs over its
// estimate.
func randomPartJobs(r *rand.Rand, cfg Config, n int) []workloads.Job {
	ests := []float64{600, 3600, 7200, 14400, 86400}
	jobs := make([]workloads.Job, n)
	at, est, part, size, gpus := 0.0, 3600.0, 1, int64(1), int64(0)
	for i := range jobs {
		if r.IntN(3) == 0 {
			part = 1 + r.IntN(len(cfg.Parts))
			procs := cfg.Parts[part-1].Procs
			sizes := []int64{1, 1, 2, 4, int64(procs / 4), int64(procs / 2), int64(procs)}
			size, est, gpus = max(1, sizes[r.IntN(len(sizes))]), ests[r.IntN(len(ests))], 0
			if part == 2 && r.IntN(3) == 0 {
				gpus = 1 + int64(r.IntN(4))
			}
		}
		if r.IntN(4) == 0 {
			at += float64(r.IntN(3000))
		}
		run := math.Ceil(est * r.Float64())
		if r.IntN(8) == 0 {
			run = est + 100
		}
		jobs[i] = workloads.Job{ID: int64(i + 1), Submit: at, Run: max(1, run), Procs: size, ReqProcs: size,
			ReqTime: est, Estimate: est, Partition: int64(part), GPUs: gpus}
	}
	return jobs
}

// TestConservativeReuseWithPartitions compares conservative with the same
// policy rebuilding its profile at every pass after a finish, on random
// machines of two or three partitions (shared-core and whole-node, with
// GPUs), in both overrun rules, both pass modes and both queue orders:
// each partition's conservative instance keeps its groups across passes
// as the single pool's does, so the records and the engine's counters
// must not change. Every reusing pass checks its profile and kept
// certificates against the reference (CheckReusePasses), and enough
// passes must reuse for the comparison to mean something.
func TestConservativeReuseWithPartitions(t *testing.T) {
	Policies["conservative-noreuse"] = NewConservativeNoReuse
	defer delete(Policies, "conservative-noreuse")
	passes, failure, restore := CheckReusePasses()
	defer restore()
	type variant struct {
		pass    Pass
		overrun Overrun
		order   string
	}
	variants := []variant{{}, {overrun: OverrunExtend}, {pass: PassEvent}, {order: "sef", overrun: OverrunExtend}}
	run := func(cfg Config, policy string, jobs []workloads.Job) ([]any, [3]int) {
		t.Helper()
		c := &collect{}
		cfg.Policy, cfg.Recorder, cfg.Check = policy, c, true
		st := runWith(t, cfg, jobs...).Stats()
		if st.NViolations != 0 {
			t.Fatalf("%s: violations: %v", policy, st.Violations)
		}
		rows := make([]any, len(c.rows))
		for i := range c.rows {
			rows[i] = c.rows[i]
		}
		return rows, [3]int{st.Passes, st.Events, st.Finished}
	}
	for seed := range 80 {
		r := rand.New(rand.NewPCG(uint64(seed), 41))
		cfg := randomParts(r)
		jobs := randomPartJobs(r, cfg, 300+r.IntN(500))
		for k, vr := range variants {
			cfg.Pass, cfg.Overrun, cfg.Order = vr.pass, vr.overrun, vr.order
			got, gst := run(cfg, "conservative", jobs)
			if *failure != "" {
				t.Fatalf("seed %d variant %d: %s", seed, k, *failure)
			}
			want, wst := run(cfg, "conservative-noreuse", jobs)
			if gst != wst {
				t.Fatalf("seed %d variant %d: passes, events, finished %v, rebuilding %v", seed, k, gst, wst)
			}
			if gst[2] == 0 {
				t.Fatalf("seed %d variant %d: no job finished", seed, k)
			}
			for i := range want {
				if !reflect.DeepEqual(got[i], want[i]) {
					t.Fatalf("seed %d variant %d: record %d\n got %+v\nwant %+v", seed, k, i, got[i], want[i])
				}
			}
		}
	}
	if *passes < 2000 {
		t.Fatalf("only %d passes reused", *passes)
	}
	t.Logf("%d passes reused", *passes)
}
