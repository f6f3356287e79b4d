package scheduler

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"drsim/cluster"

	"drsim/internal/sharedtest"
	"drsim/workloads"
)

// Reservations of whole nodes against reservations of processor counts,
// by hand. One partition of 4 nodes × 4 cores (16), bf_interval 5,
// bf_job_part_count_reserve 1, resolution 1, no batch delay; jobs in
// priority (submit) order, runs equal to limits:
//
//	A at 0: 10 cores, 50 s   starts at 0 on cores 0-9: nodes 0, 1 and 2 (2 of its 4)
//	B at 1:  9 cores, 60 s   blocked (6 free): the head
//	C at 2:  6 cores, 60 s
//	D at 3:  4 cores, 180 s
//
// Backfill at 5 reserves B from A's end at 50. By count the plan is 6 free
// over [5,50) and 16-9 = 7 over [50,110): C (6 cores over [5,65)) fits and
// starts at 5; D (4) then finds nothing free and starts when C ends at 65.
// By node (Slurm's node_space), B's reservation holds whole nodes 0, 1, 2
// (first fit at 50, 12 cores ≥ 9) over [50,110); C's interval [5,65)
// overlaps it, leaving it node 3's 4 cores: C cannot start, and D (4 cores
// on node 3) starts at 5. B starts at 50 either way; C, by node, at B's end
// (110). On an exclusive partition (jobs rounded to whole nodes: A and B
// 3 nodes, C 2, D 1) the node plan gives the same schedule.
func TestSlurmBackfillNodeReservations(t *testing.T) {
	jobs := []workloads.Job{j(1, 0, 50, 10, 50), j(2, 1, 60, 9, 60), j(3, 2, 60, 6, 60), j(4, 3, 180, 4, 180)}
	ps := SlurmSched{BfInterval: 5, BfMaxJobTest: 100, BfWindow: 1000, BfResolution: 1, BfPartCountResv: 1, SchedInterval: 60}
	for _, tc := range []struct {
		cores     int
		exclusive bool
		want      string
	}{
		{4, false, "1:0-50 2:50-110 3:110-170 4:5-185"}, // cores of nodes, reservations of nodes: slurmbf_nodes.go
		{4, true, "1:0-50 2:50-110 3:110-170 4:5-185"},  // whole nodes (A, B 3 nodes, C 2, D 1): the same
		{1, false, "1:0-50 2:50-110 3:5-65 4:65-245"},   // one core per node: counts
	} {
		cfg := Config{Procs: 16, Policy: "slurm-backfill", SlurmSched: &ps, Check: true,
			Parts: []Part{{Name: "cpu", Procs: 16, Cores: tc.cores, Exclusive: tc.exclusive}}, PartOf: func(*workloads.Job) int { return 0 }}
		if got := simulate(t, cfg, jobs...).starts(); got != tc.want {
			t.Errorf("%d cores per node, exclusive %v: %s, want %s", tc.cores, tc.exclusive, got, tc.want)
		}
	}
}

// Slurm's cons_tres node choice (cluster.SelectCores) under slurm-backfill,
// by hand. One shared-core partition of 2 nodes × 4 cores (node 0 is
// processors 0-3), bf_interval 5, bf_job_part_count_reserve 1, resolution
// 1, no batch delay; runs equal to limits:
//
//	A at 0: 2 cores, 100 s   node 0 (the first that holds it): 0-1
//	B at 0: 4 cores,  30 s   node 1, the tightest that holds it whole: 4-7
//	                         (the lowest free cores would be 2-5, on both)
//	H at 1: 4 cores,  50 s   2 free: the head
//	S at 2: 2 cores, 200 s
//
// Backfill at 5 reserves H at B's end, 30, on node 1 (node 0 has 2 free
// then, node 1 holds it whole) over [30,80). S over [5,205) may use node 0
// alone, which has its 2 cores free: it starts at 5 there (2-3), and H
// starts at 30 on node 1. With the lowest free cores (B on 2-5) and first
// fit, H's reservation would take both nodes and S would wait for H's
// start at 30.
func TestSlurmBackfillConsTres(t *testing.T) {
	ps := SlurmSched{BfInterval: 5, BfMaxJobTest: 100, BfWindow: 1000, BfResolution: 1, BfPartCountResv: 1, SchedInterval: 60}
	cfg := Config{Procs: 8, Policy: "slurm-backfill", SlurmSched: &ps,
		Parts: []Part{{Name: "cpu", Procs: 8, Cores: 4}}, PartOf: func(*workloads.Job) int { return 0 }}
	c := simulate(t, cfg, j(1, 0, 100, 2, 100), j(2, 0, 30, 4, 30), j(3, 1, 50, 4, 50), j(4, 2, 200, 2, 200))
	if got, want := c.starts(), "1:0-100 2:0-30 3:30-80 4:5-205"; got != want {
		t.Errorf("schedule\n got %s\nwant %s", got, want)
	}
	if got, want := c.allocs(), "1:0-1 2:4-7 3:4-7 4:2-3"; got != want {
		t.Errorf("processors\n got %s\nwant %s", got, want)
	}
}

// GPU jobs on a shared-core GPU partition under slurm-backfill, by hand:
// gresMachine (2 nodes × 4 cores × 2 GPUs; node 0 is processors 0-3),
// bf_interval 5, bf_job_part_count_reserve 1, resolution 1, no batch delay.
//
// "reservation": B (4 cores, 30 s) takes node 0's cores 0-3, A (1 core,
// both GPUs, 100 s) node 1's core 4, C (2 cores, 20 s) cores 5-6, all at
// 0. H (2 cores, 1 GPU) comes at 1 and D (1 core, 60 s) at 2; neither
// fits (node 0: no core, node 1: 1 core, no GPU) and the main scheduler
// stops at H. Backfill at 5: H needs a node with 2 cores and 1 GPU free
// over its 20 s; node 1's GPUs are A's until 100, so H's reservation is
// node 0 over [30,50) (B's end), and D (1 core over [5,65)) fits on node 1,
// which nobody reserved: it starts at 5 on core 7; H starts at 30 on 0-1.
// By processor count (H' the same job without its GPU), H' fits at 20 on
// node 1 (3 cores free once C ends) and reserves node 1 over [20,40): D
// then has no unreserved node with a free core and waits for C's end at
// 20, when the main scheduler starts H' (cores 5-6) and D (core 7).
//
// "plan's nodes": X (3 cores, 30 s) takes 0-2; Z (2 cores, 1 GPU, 40 s)
// finds 1 core on node 0 and takes node 1's 4-5 and a GPU. H (4 cores, 2
// GPUs, 50 s) reserves node 0 over [30,80) at the pass at 5. G (1 core, 1
// GPU, 100 s) fits now on node 0 (core 3, both GPUs) and on node 1 (6-7,
// a GPU), but node 0 is H's from 30: the plan gives G node 1, and G
// starts there (core 6), as Slurm starts a backfilled job on its plan's
// nodes; the placement's first fit (node 0, core 3) would leave H no node
// at 30 and start it at Z's end, 40, on node 1.
func TestSlurmBackfillGres(t *testing.T) {
	ps := SlurmSched{BfInterval: 5, BfMaxJobTest: 100, BfWindow: 1000, BfResolution: 1, BfPartCountResv: 1, SchedInterval: 60}
	for _, tc := range []struct {
		name           string
		jobs           []workloads.Job
		starts, allocs string
	}{
		{"reservation",
			[]workloads.Job{gj(1, 0, 30, 4, 0, 0), gj(2, 0, 100, 1, 2, 1), gj(3, 0, 20, 2, 0, 0), gj(4, 1, 20, 2, 1, 1), gj(5, 2, 60, 1, 0, 0)},
			"1:0-30 2:0-100 3:0-20 4:30-50 5:5-65", "1:0-3 2:4 3:5-6 4:0-1 5:7"},
		{"reservation by count",
			[]workloads.Job{gj(1, 0, 30, 4, 0, 0), gj(2, 0, 100, 1, 2, 1), gj(3, 0, 20, 2, 0, 0), gj(4, 1, 20, 2, 0, 0), gj(5, 2, 60, 1, 0, 0)},
			"1:0-30 2:0-100 3:0-20 4:20-40 5:20-80", "1:0-3 2:4 3:5-6 4:5-6 5:7"},
		{"plan's nodes",
			[]workloads.Job{gj(1, 0, 30, 3, 0, 0), gj(2, 0, 40, 2, 1, 1), gj(3, 1, 50, 4, 2, 1), gj(4, 2, 100, 1, 1, 1)},
			"1:0-30 2:0-40 3:30-80 4:5-105", "1:0-2 2:4-5 3:0-3 4:6"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := gresMachine(Config{Policy: "slurm-backfill", SlurmSched: &ps})
			c := simulate(t, cfg, tc.jobs...)
			if got := c.starts(); got != tc.starts {
				t.Errorf("schedule\n got %s\nwant %s", got, tc.starts)
			}
			if got := c.allocs(); got != tc.allocs {
				t.Errorf("processors\n got %s\nwant %s", got, tc.allocs)
			}
		})
	}
}

// BenchmarkSlurmBackfillGres replays HPC2N's first 20,000 jobs on one
// shared-core partition of 120 nodes × 2 cores × 2 GPUs, as BenchmarkGres
// does under EASY, under easy and slurm-backfill (Slurm's default
// SchedulerParameters): without GPU jobs (the node plan counts cores only)
// and with every other job asking one GPU per 2 processors (the plan
// counts GPUs per node too); and, "cores", without GPUs on the nodes (a
// CR_Core partition: the plan and the placement choose nodes as Slurm's
// cons_tres, cluster.SelectCores).
//
//	DRSIM_SHARED=/work/shared go test -run ^$ -bench SlurmBackfillGres -benchtime 1x ./scheduler
func BenchmarkSlurmBackfillGres(b *testing.B) {
	defer WithoutTestChecks()()
	tr, err := workloads.LoadFile(sharedtest.Path(b, "traces/HPC2N-2002-2.2-cln.swf.gz"), workloads.Options{})
	if err != nil {
		b.Fatal(err)
	}
	jobs := tr.Jobs[:20000] // the first 20,000 (the whole trace took minutes under the node plan before its speed-ups: docs/slurm-scheduling.md)
	gpuJobs := make([]workloads.Job, len(jobs))
	for i, w := range jobs {
		if w.ID%2 == 0 {
			w.GPUs = (w.Procs + 1) / 2
		}
		gpuJobs[i] = w
	}
	gpuParts := []Part{{Name: "gpu", Procs: 240, Cores: 2, GPUs: 2, GPUBusyW: 100}}
	coreParts := []Part{{Name: "cpu", Procs: 240, Cores: 2}}
	for _, policy := range []string{"easy", "slurm-backfill"} {
		for _, tc := range []struct {
			name  string
			jobs  []workloads.Job
			parts []Part
		}{{"nogpu", jobs, gpuParts}, {"gpu", gpuJobs, gpuParts}, {"cores", jobs, coreParts}} {
			b.Run(policy+"/"+tc.name, func(b *testing.B) {
				b.ReportAllocs()
				for i := 0; i < b.N; i++ {
					cfg := Config{Procs: 240, Policy: policy, IdleW: 30, Parts: tc.parts, PartOf: func(*workloads.Job) int { return 0 }}
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
}

// refEarliest is nodePlan.earliest as first written, kept as the reference
// for its speed-ups: every step start in turn, every node merged over the
// whole interval, the nodes chosen by the plan's rules (the first k nodes
// with a GPU job's cores and GPUs; cluster.SelectCores on a cons_tres
// partition; else first fit).
func refEarliest(pl *nodePlan, procs int, dur float64) (float64, []int32) {
	for k := range pl.at {
		if pl.at[k] >= pl.end {
			break
		}
		if pick, ok := refFits(pl, k, procs, dur); ok {
			return pl.at[k], pick
		}
	}
	return math.Inf(1), nil
}

func refFits(pl *nodePlan, k, procs int, dur float64) ([]int32, bool) {
	n := pl.nodes
	minFree, minGPU, usable := make([]int32, n), make([]int32, n), make([]bool, n)
	for i := range n {
		minFree[i], minGPU[i], usable[i] = math.MaxInt32, math.MaxInt32, true
	}
	end := pl.at[k] + dur
	for m := k; m < len(pl.at) && (m == k || pl.at[m] < end); m++ {
		for i := range n {
			usable[i] = usable[i] && !pl.reserved(m, i)
			minFree[i] = min(minFree[i], pl.freeAt(m)[i])
			if pl.gres {
				minGPU[i] = min(minGPU[i], pl.gfreeAt(m)[i])
			}
		}
	}
	var pick []int32
	switch {
	case pl.need.nodes > 0:
		for i := 0; i < n && len(pick) < pl.need.nodes; i++ {
			if usable[i] && int(minFree[i]) >= pl.need.cores && int(minGPU[i]) >= pl.need.gpus {
				pick = append(pick, int32(i))
			}
		}
		return pick, len(pick) == pl.need.nodes
	case pl.cons:
		takes, ok := cluster.SelectCores(minFree, usable, procs, nil)
		for _, t := range takes {
			pick = append(pick, t.Node)
		}
		return pick, ok
	}
	got := 0
	for i := 0; i < n && got < procs; i++ {
		f := int(minFree[i])
		if !usable[i] || f <= 0 || pl.exclusive && f < pl.cores {
			continue
		}
		pick = append(pick, int32(i))
		got += f
	}
	return pick, got >= procs
}

// randomPlan is a plan as reset builds one: free cores (and GPUs) per node
// from now, rising at later steps as running jobs end.
func randomPlan(r *rand.Rand, exclusive, cons, gres bool) *nodePlan {
	nodes, cores, gpus := 1+r.IntN(12), 2+r.IntN(3), 2
	if r.IntN(4) == 0 {
		nodes = 50 + r.IntN(150) // past a word of nodePlan.ok
	}
	pl := &nodePlan{nodes: nodes, cores: cores, exclusive: exclusive, cons: cons, gres: gres, end: 400}
	pl.at = append(pl.at, 0)
	for range nodes {
		f := int32(r.IntN(cores + 1))
		if exclusive && f < int32(cores) {
			f = 0
		}
		pl.free = append(pl.free, f)
		if gres {
			pl.gfree = append(pl.gfree, int32(r.IntN(gpus+1)))
		}
	}
	for t, s := 0.0, r.IntN(12); s > 0; s-- {
		t += float64(1 + r.IntN(80))
		last := len(pl.at) - 1
		pl.at = append(pl.at, t)
		pl.free = append(pl.free, pl.free[last*nodes:(last+1)*nodes]...)
		if gres {
			pl.gfree = append(pl.gfree, pl.gfree[last*nodes:(last+1)*nodes]...)
		}
		row := pl.free[(last+1)*nodes:]
		for i := range row {
			if r.IntN(3) == 0 {
				row[i] = int32(cores) // a job ends: with one per node, the node is free
				if gres {
					pl.gfree[(last+1)*nodes+i] = int32(gpus)
				}
			}
		}
	}
	pl.derive()
	pl.ready()
	return pl
}

// The plan's earliest and fits against refEarliest and refFits on random
// plans, each followed through a pass of queries, reservations and
// starts (which only take room away, as in a pass).
func TestNodePlanReference(t *testing.T) {
	r := rand.New(rand.NewPCG(15, 0))
	for trial := range 3000 {
		kind := trial % 4
		// ref keeps free cores per step, as the tests build plans; on
		// exclusive partitions, pl is (every other time) the same plan
		// without them, as reset builds it, and must answer as ref does.
		ref := randomPlan(r, kind == 1, kind == 2, kind == 3)
		pl := ref
		if kind == 1 && trial%8 == 5 {
			pl = ref.withoutFree()
		}
		most := 0 // most, as first written: every node of every step before the window's end
		for k := 0; k < len(ref.at) && ref.at[k] < ref.end; k++ {
			s := 0
			for _, f := range ref.freeAt(k) {
				if !pl.exclusive || int(f) == pl.cores {
					s += int(max(f, 0))
				}
			}
			most = max(most, s)
		}
		if got := pl.most(); got != most {
			t.Fatalf("trial %d: most() = %d, want %d", trial, got, most)
		}
		for q := range 40 {
			procs, dur := 1+r.IntN(pl.nodes*pl.cores), float64(1+r.IntN(150))
			pl.need = gresNeed{}
			if pl.gres && r.IntN(2) == 0 {
				k, c := 1+r.IntN(pl.nodes), 1+r.IntN(pl.cores)
				pl.need, procs = gresNeed{k, c, r.IntN(3)}, k*c
			}
			if pl.exclusive {
				procs = (procs + pl.cores - 1) / pl.cores * pl.cores
			}
			// fits intersects the steps' usable nodes, or takes the pass's
			// reservations away (byRows): both, from each step.
			ref.need = pl.need
			pick, wantOK := refFits(ref, 0, procs, dur)
			for k := range pl.at {
				pk, ok := pick, wantOK
				if k > 0 {
					pk, ok = refFits(ref, k, procs, dur)
				}
				for _, via := range []int8{viaRows, viaResv} {
					pl.via = via
					if got := pl.fits(k, procs, dur); got != ok || ok && !slices.Equal(pl.pick, pk) {
						t.Fatalf("trial %d query %d: fits(%d, %d, %v) via %d = %v %v, want %v %v", trial, q, k, procs, dur, via, got, pl.pick, ok, pk)
					}
				}
			}
			pl.via = int8(r.IntN(3)) // mayFitNow's bounds and earliest: either way, or by cost
			// mayFitNow is an upper bound of fits from now (a pass's early
			// end), and on an exclusive partition fits itself.
			if may := pl.mayFitNow(procs, dur); wantOK && !may || pl.exclusive && may != wantOK {
				t.Fatalf("trial %d query %d: mayFitNow(%d, %v) = %v; fits from now: %v", trial, q, procs, dur, may, wantOK)
			}
			want, wantPick := refEarliest(ref, procs, dur)
			got := pl.earliest(procs, dur)
			if got != want || !math.IsInf(got, 1) && !slices.Equal(pl.pick, wantPick) {
				t.Fatalf("trial %d query %d (need %+v): earliest(%d, %v) = %v %v, want %v %v", trial, q, pl.need, procs, dur, got, pl.pick, want, wantPick)
			}
			switch {
			case math.IsInf(got, 1):
			case got == pl.at[0] && wantOK && r.IntN(2) == 0:
				// Start it: hold its cores on the picked nodes.
				var alloc []cluster.Range
				left := procs
				for _, i := range pl.pick {
					c := min(left, int(ref.freeAt(0)[i])) // free over the interval (free cores never fall later)
					if pl.need.nodes > 0 {
						c = pl.need.cores
					}
					lo := int32(int(i) * pl.cores)
					alloc = append(alloc, cluster.Range{Lo: lo, Hi: lo + int32(c)})
					left -= c
				}
				g := int32(0)
				if pl.need.nodes > 0 {
					g = int32(pl.need.gpus)
				}
				pl.hold(pl.at[0], pl.at[0]+dur, alloc, g)
				if ref != pl {
					ref.hold(ref.at[0], ref.at[0]+dur, alloc, g)
				}
			default:
				pl.reserve(got, got+dur)
				if ref != pl {
					ref.pick = append(ref.pick[:0], pl.pick...)
					ref.reserve(got, got+dur)
				}
			}
			if ref != pl && !pl.sameSteps(ref) {
				t.Fatalf("trial %d query %d: the plan without free cores per step differs from the plan with them:\n%v %v %v\n%v %v %v", trial, q, pl.at, pl.room, pl.ok, ref.at, ref.room, ref.ok)
			}
			if k := ref.badDelta(); k > 0 {
				t.Fatalf("trial %d query %d: the changes of free cores at step %d differ from the steps'", trial, q, k)
			}
			if k, i := ref.falls(); k > 0 {
				t.Fatalf("trial %d query %d: node %d has fewer free cores or GPUs at step %d than at the one before", trial, q, i, k)
			}
			for k := range ref.at {
				if ref.room[k] != ref.rowRoom(k) {
					t.Fatalf("trial %d query %d: room[%d] = %d, want %d", trial, q, k, ref.room[k], ref.rowRoom(k))
				}
				for i := range ref.nodes {
					f := ref.freeAt(k)[i]
					ok := !ref.reserved(k, i) && f > 0 && (!ref.exclusive || int(f) == ref.cores)
					if got := ref.okAt(k)[i/64]>>(i%64)&1 == 1; got != ok {
						t.Fatalf("trial %d query %d: ok bit of node %d at step %d = %v, want %v", trial, q, i, k, got, ok)
					}
				}
			}
		}
	}
}

// A backfill pass over whole nodes ends once no job left to test could
// start now by the plan (nodePlan.mayFitNow); that must never change a
// start or a job's processors. Random workloads on partitions of up to
// 150 nodes (past a word of nodePlan.ok): exclusive, shared by core
// (cons_tres), and shared by core with GPUs, under random
// SchedulerParameters, some jobs running past their estimates; every job
// starts when and where it does under the exhaustive pass. The engines
// run with --check, so each pass's plan is also compared with one
// derived from its steps (nodePlan.check).
func TestSlurmBackfillNodesEarlyEnd(t *testing.T) {
	Policies["slurm-backfill-exhaustive"] = func() Policy { return &SlurmBackfill{exhaustive: true} }
	defer delete(Policies, "slurm-backfill-exhaustive")
	rng := rand.New(rand.NewPCG(29, 1))
	for trial := range 45 {
		kind := trial % 3
		nodes, cores := 1+rng.IntN(150), 2+rng.IntN(7)
		procs := nodes * cores
		part := Part{Name: "p", Procs: procs, Cores: cores, Exclusive: kind == 0}
		if kind == 2 {
			part.GPUs, part.GPUBusyW = 2, 100
		}
		jobs, ps := randomBackfillTrial(rng, procs)
		if kind == 2 {
			for k := range jobs {
				if rng.IntN(3) == 0 {
					jobs[k].GPUs = int64(1 + rng.IntN(2*min(nodes, 4)))
					jobs[k].Procs = min(jobs[k].Procs, int64(4*cores))
				}
			}
		}
		cfg := Config{Procs: procs, Policy: "slurm-backfill", SlurmSched: &ps,
			Parts: []Part{part}, PartOf: func(*workloads.Job) int { return 0 }}
		if rng.IntN(2) == 0 {
			cfg.Overrun = OverrunExtend
		}
		c := simulate(t, cfg, jobs...)
		cfg.Policy = "slurm-backfill-exhaustive"
		w := simulate(t, cfg, jobs...)
		if got, want := c.starts(), w.starts(); got != want {
			t.Fatalf("trial %d (%d nodes of %d cores, kind %d, %+v): starts differ from the exhaustive pass:\n got %s\nwant %s", trial, nodes, cores, kind, ps, got, want)
		}
		if got, want := c.allocs(), w.allocs(); got != want {
			t.Fatalf("trial %d (%d nodes of %d cores, kind %d): processors differ from the exhaustive pass:\n got %s\nwant %s", trial, nodes, cores, kind, got, want)
		}
	}
}

// rowRoom returns room[k] computed from step k's nodes.
func (pl *nodePlan) rowRoom(k int) int32 {
	var s int32
	for i, f := range pl.freeAt(k) {
		if !pl.reserved(k, i) && pl.gives(f) {
			s += f
		}
	}
	return s
}

// withoutFree returns a copy of an exclusive partition's plan that keeps
// no free cores per step, as reset builds one.
func (pl *nodePlan) withoutFree() *nodePlan {
	c := *pl
	c.at, c.rows, c.room = slices.Clone(pl.at), slices.Clone(pl.rows), slices.Clone(pl.room)
	c.ok, c.resv = slices.Clone(pl.ok), slices.Clone(pl.resv)
	c.free, c.width = nil, 0
	c.pick, c.both, c.cand, c.acc, c.caps = nil, nil, nil, nil, nil
	c.rsv, c.rmask = nil, nil
	c.ready()
	return &c
}

// sameSteps reports whether two plans have the same steps, room, usable
// and reserved nodes.
func (pl *nodePlan) sameSteps(o *nodePlan) bool {
	if !slices.Equal(pl.at, o.at) || !slices.Equal(pl.room, o.room) {
		return false
	}
	for k := range pl.at {
		if !slices.Equal(pl.okAt(k), o.okAt(k)) || !slices.Equal(pl.resvAt(k), o.resvAt(k)) {
			return false
		}
	}
	return true
}

// addWhole, as reset uses it on an exclusive partition's plan (no free
// cores per step), against addStep on the same plan with them: random
// jobs on disjoint random cores, some covering nodes in part (which the
// engine does not do on exclusive partitions, but addWhole counts them),
// taken away at step 0 and given back at their steps.
func TestAddWholeReference(t *testing.T) {
	r := rand.New(rand.NewPCG(30, 2))
	for trial := range 2000 {
		nodes, cores := 1+r.IntN(150), 1+r.IntN(6)
		procs, steps := nodes*cores, 1+r.IntN(6)
		with := &nodePlan{nodes: nodes, cores: cores, exclusive: true, end: math.Inf(1)}
		for k := range steps {
			with.at = append(with.at, float64(10*k))
			for range nodes {
				with.free = append(with.free, int32(cores))
			}
		}
		with.derive()
		with.ready()
		without := with.withoutFree()
		without.cur = make([]int32, nodes)
		for i := range without.cur {
			without.cur[i] = int32(cores)
		}
		// Jobs: runs of the processors in order, each a few ranges, ending
		// at a random step (or never).
		type job struct {
			alloc []cluster.Range
			end   int
		}
		var jobs []job
		for p := 0; p < procs; {
			var j job
			for n := 1 + r.IntN(3); n > 0 && p < procs; n-- {
				p += r.IntN(2 * cores) // a gap
				if p >= procs {
					break
				}
				hi := min(procs, p+1+r.IntN(3*cores))
				j.alloc = append(j.alloc, cluster.Range{Lo: int32(p), Hi: int32(hi)})
				p = hi
			}
			if len(j.alloc) > 0 {
				j.end = 1 + r.IntN(steps)
				jobs = append(jobs, j)
			}
		}
		for _, j := range jobs {
			for k := range j.end {
				if k < steps {
					with.addStep(k, j.alloc, 0, -1)
				}
			}
			without.addWhole(0, j.alloc, -1, true)
		}
		// Given back in step order, as reset does (the steps are set up
		// front here, so each later step holds every job taken at 0 until
		// its end: without's steps after 0 start as copies of step 0).
		for k := 1; k < steps; k++ {
			copy(without.okAt(k), without.okAt(k-1))
			without.room[k] = without.room[k-1]
			for _, j := range jobs {
				if j.end == k {
					without.addWhole(k, j.alloc, 1, true)
				}
			}
		}
		for k := range steps {
			if !slices.Equal(with.okAt(k), without.okAt(k)) || with.room[k] != without.room[k] {
				t.Fatalf("trial %d (%d nodes of %d cores): step %d: addWhole gives ok %x room %d, addStep ok %x room %d", trial, nodes, cores, k, without.okAt(k), without.room[k], with.okAt(k), with.room[k])
			}
		}
	}
}
