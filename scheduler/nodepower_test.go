package scheduler

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"drsim/cluster"
	"drsim/workloads"
)

// evictOnce evicts every running (or booting) job the first time a limit
// is in force.
type evictOnce struct{ done bool }

func (*evictOnce) Name() string                      { return "evict-once" }
func (*evictOnce) StartLevel(e *Engine, app int) int { return 1 }
func (*evictOnce) PowerAware() bool                  { return false }
func (g *evictOnce) Adjust(c *Control) {
	if g.done || !c.InDR() {
		return
	}
	g.done = true
	for _, s := range c.Running() {
		c.Evict(s)
	}
}

func runNodes(t *testing.T, cfg Config, jobs ...workloads.Job) (*Engine, *collect) {
	t.Helper()
	c := &collect{}
	cfg.Recorder, cfg.Check, cfg.Policy = c, true, "fcfs"
	cfg.Apps, cfg.IdleW = twoLevels, 10
	e, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Run(context.Background(), &SliceSource{Jobs: jobs}); err != nil {
		t.Fatal(err)
	}
	if s := e.Stats(); s.NViolations > 0 {
		t.Fatal(s.Violations)
	}
	return e, c
}

// Hand-computed schedules and energies, exact. Processors draw 10 W idle
// and 100 W busy (twoLevels at the top); nodes 50 W booting, 5 W off
// unless a row says otherwise.
func TestNodePower(t *testing.T) {
	tests := []struct {
		name   string
		cfg    Config
		jobs   []workloads.Job
		starts string // id:start-end per job
		busy   float64
		idle   float64
		off    float64
		trans  float64
		boots  int
		susp   int
		evict  int
	}{
		// 2 nodes of 1. Node 1 idle since 0 is off at 100; node 0, free at 50,
		// would be off at 150 but job 2 takes both at 120: node 1 boots
		// 120–150 and job 2 runs 150–250 (its wait, 30 s, is the boot).
		// Busy 100×50 + 200×100; idle 10×50 + 20×50 + 10×20 + 10×30 (node 0
		// held by job 2 while node 1 boots); off 5×20; boot 50×30.
		{"two nodes", Config{Procs: 2, SuspendAfter: 100, ResumeTime: 30, BootW: 50, OffW: 5},
			[]workloads.Job{j(1, 0, 50, 1, 1000), j(2, 120, 100, 2, 1000)},
			"1:0-50 2:150-250", 25000, 2000, 100, 1500, 1, 1, 0},
		// 2 nodes of 2. Node 1 off at 100, node 0 off at 150. Job 2 (160)
		// boots node 0 until 190; job 3 (170) lands on the same booting node
		// and waits for the same boot. Busy 100×50 + 200×10 + 100×90; idle
		// 30×50 + 40×50 + 20×50 + 10×90; off 5×50 + 10×10 + 5×30 + 5×10 +
		// 5×90; boot 50×30. The run ends with job 2: node 0's suspend timer
		// (at 390) does not extend it.
		{"shared boot", Config{Procs: 4, ProcsPerNode: 2, SuspendAfter: 100, ResumeTime: 30, BootW: 50, OffW: 5},
			[]workloads.Job{j(1, 0, 50, 1, 1000), j(2, 160, 100, 1, 1000), j(3, 170, 10, 1, 1000)},
			"1:0-50 2:190-290 3:190-200", 16000, 5400, 1000, 1500, 1, 2, 0},
		// 1 node: its timer and job 2's submit are both at 110; node events
		// come before submits, so it powers off and job 2 boots it (110–140).
		{"suspend before submit", Config{Procs: 1, SuspendAfter: 100, ResumeTime: 30, BootW: 50},
			[]workloads.Job{j(1, 0, 10, 1, 1000), j(2, 110, 10, 1, 1000)},
			"1:0-10 2:140-150", 2000, 1000, 0, 1500, 1, 1, 0},
		// ResumeTime 0: the node boots at once, no wait, no boot energy.
		{"instant resume", Config{Procs: 1, SuspendAfter: 100, BootW: 50},
			[]workloads.Job{j(1, 0, 10, 1, 1000), j(2, 110, 10, 1, 1000)},
			"1:0-10 2:110-120", 2000, 1000, 0, 0, 1, 1, 0},
		// Reused before its timer: the node never powers off.
		{"reuse", Config{Procs: 1, SuspendAfter: 100, ResumeTime: 30, BootW: 50},
			[]workloads.Job{j(1, 0, 10, 1, 1000), j(2, 100, 10, 1, 1000), j(3, 200, 10, 1, 1000)},
			"1:0-10 2:100-110 3:200-210", 3000, 1800, 0, 0, 0, 0, 0},
		// Job 2 boots the node at 120 (up at 150) and is evicted at 130 (a
		// limit step; evict-once): it requeues, is allocated again at once on
		// the still-booting node and runs 150–160. No energy is wasted; the
		// boot goes on. Idle 10×100; off 5×10; boot 50×30.
		{"evicted while booting", Config{Procs: 1, SuspendAfter: 100, ResumeTime: 30, BootW: 50, OffW: 5,
			Governor: &evictOnce{}, Limits: []LimitStep{{130, 1e9}}},
			[]workloads.Job{j(1, 0, 10, 1, 1000), j(2, 120, 10, 1, 1000)},
			"1:0-10 2:150-160", 2000, 1000, 50, 1500, 1, 1, 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e, c := runNodes(t, tc.cfg, tc.jobs...)
			if got := c.starts(); got != tc.starts {
				t.Errorf("schedule %s, want %s", got, tc.starts)
			}
			m := e.Meter()
			if m.BusyJ != tc.busy || m.IdleJ != tc.idle || m.OffJ != tc.off || m.TransJ != tc.trans {
				t.Errorf("busy/idle/off/transition %v %v %v %v J, want %v %v %v %v",
					m.BusyJ, m.IdleJ, m.OffJ, m.TransJ, tc.busy, tc.idle, tc.off, tc.trans)
			}
			if want := tc.busy + tc.idle + tc.off + tc.trans; m.Energy() != want {
				t.Errorf("energy %v J, want %v", m.Energy(), want)
			}
			jobJ := 0.0
			for _, r := range c.rows {
				jobJ += r.Energy + r.Wasted
			}
			if jobJ != m.BusyJ {
				t.Errorf("Σ job energy %v J, meter busy %v J", jobJ, m.BusyJ)
			}
			if s := e.Stats(); s.Boots != tc.boots || s.Suspends != tc.susp || s.Evictions != tc.evict {
				t.Errorf("boots %d suspends %d evictions %d, want %d %d %d", s.Boots, s.Suspends, s.Evictions, tc.boots, tc.susp, tc.evict)
			}
		})
	}
}

// TestNodePowerOffByDefault: without SuspendAfter there is no node
// bookkeeping and the results equal the plain engine's.
func TestNodePowerOffByDefault(t *testing.T) {
	jobs := []workloads.Job{j(1, 0, 50, 1, 1000), j(2, 120, 100, 2, 1000)}
	e, c := runNodes(t, Config{Procs: 2, ResumeTime: 30, BootW: 50, OffW: 5}, jobs...)
	if e.Nodes() != nil {
		t.Fatal("node states without SuspendAfter")
	}
	if got, want := c.starts(), "1:0-50 2:120-220"; got != want {
		t.Errorf("schedule %s, want %s", got, want)
	}
	// Busy 100×50 + 200×100; idle 10×50 + 20×70.
	if m := e.Meter(); m.BusyJ != 25000 || m.IdleJ != 1900 || m.OffJ != 0 || m.TransJ != 0 {
		t.Errorf("meter %+v", m)
	}
}

func TestNodePowerBadConfig(t *testing.T) {
	for _, cfg := range []Config{
		{Procs: 2, SuspendAfter: -1},
		{Procs: 2, SuspendAfter: 10, ResumeTime: math.NaN()},
		{Procs: 2, SuspendAfter: 10, BootW: -5},
		{Procs: 2, SuspendAfter: math.Inf(1)},
	} {
		if _, err := New(cfg); err == nil {
			t.Errorf("New(%+v) accepted", cfg)
		}
	}
}

// TestNodePowerStates follows the states of the "shared boot" row.
func TestNodePowerStates(t *testing.T) {
	cfg := Config{Procs: 4, ProcsPerNode: 2, SuspendAfter: 100, ResumeTime: 30, BootW: 50}
	e, _ := runNodes(t, cfg, j(1, 0, 50, 1, 1000), j(2, 160, 100, 1, 1000))
	n := e.Nodes()
	if n.Len() != 2 || n.State(0) != cluster.NodeIdle || n.State(1) != cluster.NodeOff || n.Off() != 1 || n.Down() != 1 {
		t.Fatalf("end states %v %v, off %d down %d", n.State(0), n.State(1), n.Off(), n.Down())
	}
}

// BenchmarkNodePower replays 20,000 seeded jobs on 256 processors (nodes
// of 4) under EASY with and without power saving; allocations per run
// stay O(1) in the number of jobs (slab, heap and list growth only).
func BenchmarkNodePower(b *testing.B) {
	defer WithoutTestChecks()() // time the engine users run
	rng := rand.New(rand.NewPCG(3, 0))
	jobs := make([]workloads.Job, 20000)
	t := 0.0
	for i := range jobs {
		t += rng.ExpFloat64() * 120
		run := 1 + rng.ExpFloat64()*600
		jobs[i] = j(int64(i+1), math.Round(t), math.Round(run), int64(1+rng.IntN(64)), math.Round(run*2))
	}
	for _, tc := range []struct {
		name string
		cfg  Config
	}{
		{"off", Config{Procs: 256, ProcsPerNode: 4}},
		{"suspend600", Config{Procs: 256, ProcsPerNode: 4, SuspendAfter: 600, ResumeTime: 300, BootW: 40}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				cfg := tc.cfg
				cfg.Apps, cfg.IdleW = twoLevels, 10
				e, err := New(cfg)
				if err != nil {
					b.Fatal(err)
				}
				if err := e.Run(context.Background(), &SliceSource{Jobs: jobs}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(len(jobs))*float64(b.N)/b.Elapsed().Seconds(), "jobs/s")
		})
	}
}
