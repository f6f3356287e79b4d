package scheduler

import (
	"context"
	"math"
	"slices"
	"strings"
	"testing"

	"drsim/cluster"
	"drsim/powercap"
	"drsim/workloads"
)

// twoParts is a 12-processor machine: partition "cpu" of four one-core
// nodes shared by core (processors 0-3), and partition "gpu" of two
// whole-node, four-core nodes with two GPUs each (processors 4-11; node 0
// is 4-7, node 1 is 8-11). Jobs name their partition in SWF field 16:
// 1 = cpu, 2 = gpu.
func twoParts(cfg Config) Config {
	cfg.Procs = 12
	cfg.Parts = []Part{
		{Name: "cpu", Lo: 0, Procs: 4, Cores: 1},
		{Name: "gpu", Lo: 4, Procs: 8, Cores: 4, GPUs: 2, Exclusive: true, MaxTime: 1000, IdleW: 25, GPUBusyW: 300},
	}
	cfg.PartOf = func(w *workloads.Job) int { return int(w.Partition) - 1 }
	return cfg
}

func pj(id int64, submit, run float64, procs int64, part int64, gpus int64) workloads.Job {
	w := j(id, submit, run, procs, run)
	w.Partition, w.GPUs = part, gpus
	return w
}

// Hand-computed schedules. Job 1 fills "cpu" until 100, so job 2 (cpu)
// waits; job 3 asks 1 processor of "gpu" and gets a whole node (4
// processors) at once, 2-52: a job blocked in one partition does not block
// another. Job 4 asks 3 GPUs: ceil(3/2) = 2 nodes = 8 processors, which
// are free at 52 (52-62). Job 5 (one node, 5 s) waits behind job 4 under
// FCFS (62-67); EASY and conservative backfill it into the free node at 4
// (ends 9 ≤ the head's start 52). Jobs 6-9 are dropped: no partition 3, a
// GPU on the cpu partition, 5 GPUs (3 nodes) on a 2-node partition, and
// 2000 s requested over gpu's 1000 s limit.
func TestPartitionSchedules(t *testing.T) {
	jobs := []workloads.Job{
		pj(1, 0, 100, 4, 1, 0), pj(2, 1, 50, 2, 1, 0), pj(3, 2, 50, 1, 2, 0),
		pj(4, 3, 10, 1, 2, 3), pj(5, 4, 5, 4, 2, 0),
		pj(6, 5, 10, 1, 3, 0), pj(7, 6, 10, 1, 1, 1), pj(8, 7, 10, 1, 2, 5), pj(9, 8, 10, 1, 2, 0),
	}
	jobs[8].ReqTime, jobs[8].Estimate = 2000, 2000
	want := map[string]string{
		"fcfs":         "1:0-100 2:100-150 3:2-52 4:52-62 5:62-67",
		"easy":         "1:0-100 2:100-150 3:2-52 4:52-62 5:4-9",
		"conservative": "1:0-100 2:100-150 3:2-52 4:52-62 5:4-9",
	}
	for _, pol := range []string{"fcfs", "easy", "conservative"} {
		t.Run(pol, func(t *testing.T) {
			cfg := twoParts(Config{Policy: pol})
			c := &collect{}
			cfg.Recorder, cfg.Check = c, true
			e, err := New(cfg)
			if err != nil {
				t.Fatal(err)
			}
			if err := e.Run(context.Background(), &SliceSource{Jobs: jobs}); err != nil {
				t.Fatal(err)
			}
			if got := c.starts(); got != want[pol] {
				t.Errorf("schedule\n got %s\nwant %s", got, want[pol])
			}
			st := e.Stats()
			if st.NViolations != 0 {
				t.Errorf("violations: %v", st.Violations)
			}
			var wantDrop [nDropReasons]int
			wantDrop[dropNoPartition], wantDrop[dropNoGPUs], wantDrop[dropPartitionSize], wantDrop[dropPartitionTime] = 1, 1, 1, 1
			if st.Dropped != 4 || st.DroppedBy != wantDrop {
				t.Errorf("dropped %d by %v, want 4 by %v", st.Dropped, st.DroppedBy, wantDrop)
			}
			if pol == "fcfs" {
				// cpu: waits 0 + 99, work 4·100 + 2·50; gpu: waits 0 + 49 + 58, work 4·50 + 8·10 + 4·5.
				want := []PartStat{{"cpu", 4, 2, 99, 500}, {"gpu", 8, 3, 107, 300}}
				if got := e.PartStats(); !slices.Equal(got, want) {
					t.Errorf("partition stats %v, want %v", got, want)
				}
			}
			for _, r := range c.rows {
				wantAlloc := map[int64]string{3: "4-7", 4: "4-11"}[r.ID]
				if r.ID == 5 && pol == "fcfs" {
					wantAlloc = "4-7"
				} else if r.ID == 5 {
					wantAlloc = "8-11"
				}
				if got := string(cluster.AppendIntervalSet(nil, r.Alloc)); wantAlloc != "" && got != wantAlloc {
					t.Errorf("job %d on processors %s, want %s", r.ID, got, wantAlloc)
				}
				if r.ID >= 3 && r.Procs != int64(map[int64]int{3: 4, 4: 8, 5: 4}[r.ID]) {
					t.Errorf("job %d has %d processors", r.ID, r.Procs)
				}
			}
		})
	}
}

// Energy per node type, hand-computed. One level of 10 W per busy
// processor, idle 2 W per processor (Config.IdleW, the cpu partition's),
// 25 W on the gpu nodes (a 100 W node idle over 4 cores), 300 W per busy
// GPU above idle. A gpu job asking 1 processor and 1 GPU for 100 s holds a
// 4-core node: 4·(25 + 10 − 2) + 300 = 432 W, 43,200 J. A cpu job of 2
// processors for 50 s draws 2·10 = 20 W, 1,000 J. Idle: 0-50 the other
// two cpu processors and the other gpu node, 2·2 + 4·25 = 104 W; 50-100
// all four cpu processors, 8 + 100 = 108 W: 5,200 + 5,400 = 10,600 J.
func TestPartitionEnergy(t *testing.T) {
	one := []powercap.Table{{App: "one", Levels: []powercap.Level{{X: 1, Power: 10, Scale: 1}}}}
	cfg := twoParts(Config{Policy: "easy", Apps: one, IdleW: 2, Check: true})
	c := &collect{}
	cfg.Recorder = c
	e, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Run(context.Background(), &SliceSource{Jobs: []workloads.Job{pj(1, 0, 100, 1, 2, 1), pj(2, 0, 50, 2, 1, 0)}}); err != nil {
		t.Fatal(err)
	}
	m := e.Meter()
	near := func(a, b float64) bool { return math.Abs(a-b) < 1e-6 }
	if !near(m.BusyJ, 44200) || !near(m.IdleJ, 10600) || !near(m.Energy(), 54800) || !near(m.TotalJ(), 54800) || !near(m.PeakW, 432+20+104) {
		t.Errorf("busy %v idle %v total %v ∫P %v peak %v J/W, want 44200 10600 54800 54800 556", m.BusyJ, m.IdleJ, m.Energy(), m.TotalJ(), m.PeakW)
	}
	for _, r := range c.rows {
		if want := map[int64]float64{1: 43200, 2: 1000}[r.ID]; !near(r.Energy, want) {
			t.Errorf("job %d energy %v J, want %v", r.ID, r.Energy, want)
		}
	}
	if e.Stats().NViolations != 0 {
		t.Errorf("violations: %v", e.Stats().Violations)
	}
}

// The dr governor keeps a partitioned machine under the limit (the checks
// verify power ≤ limit at every instant) and sees every partition's jobs:
// the two jobs run at once, one per partition, and the 1000 W limit makes
// it slow them down. Full speed: cpu 4·100 = 400 W, gpu 4·(25+100−10) +
// 300 = 760 W, plus the idle gpu node's 100 W: 1,260 W. Lowest level: 200
// + 4·(25+50−10) + 300 + 100 = 860 W.
func TestPartitionDRGovernor(t *testing.T) {
	cfg := twoParts(Config{Policy: "easy", Apps: twoLevels, IdleW: 10, Governor: newDR(), Limits: []LimitStep{{0, 1000}}})
	c := simulate(t, cfg, pj(1, 0, 100, 4, 1, 0), pj(2, 0, 100, 4, 2, 1))
	if len(c.rows) != 2 {
		t.Fatalf("%d jobs finished", len(c.rows))
	}
	for _, r := range c.rows {
		if r.Start != 0 {
			t.Errorf("job %d started at %v, want 0 (both fit at their lowest level: 860 W ≤ 1000 W)", r.ID, r.Start)
		}
	}
	if c.rows[0].End == 100 && c.rows[1].End == 100 {
		t.Errorf("both jobs ran at full speed (1160+ W) under a 1000 W limit")
	}
}

// --check catches the faults a broken placement plants on a partitioned
// machine: a node (and its GPUs) handed to two jobs, and a job given
// processors outside its partition.
func TestPartitionChecks(t *testing.T) {
	t.Run("node twice", func(t *testing.T) {
		// test-overlapping always hands out the lowest units: both gpu jobs get node 0.
		cfg := twoParts(Config{Policy: "fcfs", Placement: "test-overlapping", Check: true})
		e := runWith(t, cfg, pj(1, 0, 100, 1, 2, 1), pj(2, 1, 100, 1, 2, 1))
		wantViolation(t, e, `node 0 of partition "gpu" (processor 4) handed to two jobs`)
		wantViolation(t, e, `node 0 of partition "gpu" has 4 GPUs allocated; it has 2`)
	})
	t.Run("outside", func(t *testing.T) {
		cfg := twoParts(Config{Policy: "fcfs", Placement: "test-outside", Check: true})
		e := runWith(t, cfg, pj(1, 0, 100, 1, 1, 0))
		wantViolation(t, e, `processors [4,5) of a job in partition "cpu" are outside it ([0,4))`)
	})
}

func runWith(t *testing.T, cfg Config, jobs ...workloads.Job) *Engine {
	t.Helper()
	e, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Run(context.Background(), &SliceSource{Jobs: jobs}); err != nil {
		t.Fatal(err)
	}
	return e
}

func wantViolation(t *testing.T, e *Engine, want string) {
	t.Helper()
	for _, v := range e.Stats().Violations {
		if strings.Contains(v, want) {
			return
		}
	}
	t.Errorf("no violation %q in %q", want, e.Stats().Violations)
}

// outside is a broken placement that hands out the units just past its
// end (the next partition's processors, once shifted).
type outside struct{ total, free int }

func (o *outside) Name() string { return "outside" }
func (o *outside) Total() int   { return o.total }
func (o *outside) Free() int    { return o.free }
func (o *outside) Alloc(n int, dst []cluster.Range) ([]cluster.Range, bool) {
	if n > o.free {
		return dst, false
	}
	o.free -= n
	return append(dst, cluster.Range{Lo: int32(o.total), Hi: int32(o.total + n)}), true
}
func (o *outside) Release(rs []cluster.Range) {
	for _, r := range rs {
		o.free += int(r.Len())
	}
}

func init() {
	cluster.Placements["test-outside"] = func(c cluster.PlacementConfig) (cluster.Allocator, error) {
		return &outside{total: c.Procs, free: c.Procs}, nil
	}
}

// Partitions refuse what they do not support yet, by name.
func TestPartitionRefusals(t *testing.T) {
	for _, c := range []struct {
		cfg  Config
		want string
	}{
		{twoParts(Config{SuspendAfter: 60}), "node power saving"},
		{twoParts(Config{Placement: "topology"}), "topology placement"},
		{Config{Procs: 4, Parts: []Part{{Name: "a", Procs: 4, Cores: 1}}}, "no PartOf rule"},
		{Config{Procs: 4, Parts: []Part{{Name: "a", Procs: 4, Cores: 3}}, PartOf: func(*workloads.Job) int { return 0 }}, `partition "a" has 4 processors in nodes of 3`},
		{Config{Procs: 4, Parts: []Part{{Name: "a", Procs: 4, Cores: 1}, {Name: "b", Lo: 2, Procs: 2, Cores: 1}}, PartOf: func(*workloads.Job) int { return 0 }}, `partition "b" at processors [2,4) overlaps`},
	} {
		if _, err := New(c.cfg); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("New: %v, want an error containing %q", err, c.want)
		}
	}
}

// With LimitPart the limit applies to one partition's nodes only, and the
// governor governs that partition's jobs only. Hand-computed: the gpu
// partition idles at 8·25 = 200 W; its job (one node, one GPU) draws
// 4·(25+100−10) + 300 = 760 W at the top level, so the partition draws
// 860 W, over the 700 W limit; at level 0 (50 W, twice as slow) 4·(25+50−10)
// + 300 = 560 W, 660 W in all: the job runs 0-200 and uses 560·200 =
// 112,000 J. The cpu job is not limited and runs at the top, 0-100, 40,000 J.
func TestPartitionLimitPart(t *testing.T) {
	cfg := twoParts(Config{Policy: "easy", Apps: twoLevels, IdleW: 10, Governor: newDR(), Limits: []LimitStep{{0, 700}}, LimitPart: "gpu"})
	c := &collect{}
	cfg.Recorder, cfg.Check = c, true
	e := runWith(t, cfg, pj(1, 0, 100, 4, 1, 0), pj(2, 0, 100, 1, 2, 1))
	if got, want := c.starts(), "1:0-100 2:0-200"; got != want {
		t.Errorf("schedule %s, want %s", got, want)
	}
	for _, r := range c.rows {
		if want := map[int64]float64{1: 40000, 2: 112000}[r.ID]; math.Abs(r.Energy-want) > 1e-6 {
			t.Errorf("job %d energy %v J, want %v", r.ID, r.Energy, want)
		}
	}
	if m := e.LimitMeter(); m == e.Meter() || m.MaxExcessW != 0 || math.Abs(m.PeakW-660) > 1e-9 {
		t.Errorf("limit meter: excess %v W, peak %v W (want 0 and 660)", m.MaxExcessW, m.PeakW)
	}
	if e.Stats().NViolations != 0 {
		t.Errorf("violations: %v", e.Stats().Violations)
	}
	if _, err := New(twoParts(Config{LimitPart: "nope"})); err == nil || !strings.Contains(err.Error(), `partition "nope"`) {
		t.Errorf("unknown LimitPart: %v", err)
	}
}

// TestDREvictionKeepsMostSpent on a machine of two one-processor
// partitions, A in the first and B in the second: the governor sees both
// partitions' jobs, evicts B (B goes back to its own partition's queue)
// and the hand-computed schedule is the single pool's.
func TestPartitionDREviction(t *testing.T) {
	for _, pol := range []string{"fcfs", "easy", "conservative"} {
		t.Run(pol, func(t *testing.T) {
			cfg := Config{Procs: 2, Policy: pol, Apps: twoLevels, IdleW: 10, Governor: newDR(),
				Limits: []LimitStep{{50, 65}, {100, math.Inf(1)}},
				Parts:  []Part{{Name: "a", Procs: 1, Cores: 1}, {Name: "b", Lo: 1, Procs: 1, Cores: 1}},
				PartOf: func(w *workloads.Job) int { return int(w.Partition) - 1 }}
			c := simulate(t, cfg, pj(1, 0, 200, 1, 1, 0), pj(2, 10, 100, 1, 2, 0))
			byID := map[int64]int{}
			for i, r := range c.rows {
				byID[r.ID] = i
			}
			a, b := c.rows[byID[1]], c.rows[byID[2]]
			if a.End != 225 || a.Evictions != 0 || a.Energy != 20000 || cluster.AppendIntervalSet(nil, a.Alloc)[0] != '0' {
				t.Errorf("A: end %v evictions %d energy %v, want 225 0 20000 on processor 0", a.End, a.Evictions, a.Energy)
			}
			if b.Start != 100 || b.End != 200 || b.Evictions != 1 || b.Wasted != 4000 || b.Energy != 10000 || string(cluster.AppendIntervalSet(nil, b.Alloc)) != "1" {
				t.Errorf("B: %v-%v evictions %d wasted %v energy %v, want 100-200 1 4000 10000 on processor 1", b.Start, b.End, b.Evictions, b.Wasted, b.Energy)
			}
		})
	}
}

// The dr governor's eviction budget counts each partition's idle draw
// and the jobs' GPU draw. Hand-computed: A (partition a, idle 10 W) and B
// (partition b: one 1-core node with a GPU, idle 20 W, the GPU 100 W
// above idle when busy) at their lowest level (50 W) draw 40 and
// 40 + 100 = 140 W above an all-idle machine's 30 W. Under the 100 W limit
// from 50 only A fits (70 W), so B is evicted, whatever its energy: it
// wasted 210 W × 40 s = 8,400 J (100 + 10 + 100 W at the top from 10),
// restarts at 100 when the limit lifts, and ends at 200 (21,000 J). A runs
// as in TestPartitionDREviction: 0-225, 20,000 J. Counting processors
// only (40 + 40 ≤ 100 − 2·10) would have kept both, at 210 W.
func TestPartitionDREvictionGPU(t *testing.T) {
	cfg := Config{Procs: 2, Policy: "easy", Apps: twoLevels, IdleW: 10, Governor: newDR(),
		Limits: []LimitStep{{50, 100}, {100, math.Inf(1)}},
		Parts: []Part{{Name: "a", Procs: 1, Cores: 1},
			{Name: "b", Lo: 1, Procs: 1, Cores: 1, GPUs: 1, Exclusive: true, IdleW: 20, GPUBusyW: 100}},
		PartOf: func(w *workloads.Job) int { return int(w.Partition) - 1 }}
	c := simulate(t, cfg, pj(1, 0, 200, 1, 1, 0), pj(2, 10, 100, 1, 2, 1))
	byID := map[int64]int{}
	for i, r := range c.rows {
		byID[r.ID] = i
	}
	a, b := c.rows[byID[1]], c.rows[byID[2]]
	if a.End != 225 || a.Evictions != 0 || math.Abs(a.Energy-20000) > 1e-6 {
		t.Errorf("A: end %v evictions %d energy %v, want 225 0 20000", a.End, a.Evictions, a.Energy)
	}
	if b.Start != 100 || b.End != 200 || b.Evictions != 1 || math.Abs(b.Wasted-8400) > 1e-6 || math.Abs(b.Energy-21000) > 1e-6 {
		t.Errorf("B: %v-%v evictions %d wasted %v energy %v, want 100-200 1 8400 21000", b.Start, b.End, b.Evictions, b.Wasted, b.Energy)
	}
}
