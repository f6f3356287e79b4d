package scheduler

import (
	"context"
	"fmt"
	"math"
	"testing"

	"drsim/cluster"
	"drsim/powercap"
	"drsim/workloads"
)

// nodeRun runs jobs on a machine of nodes 4-core nodes in one partition
// (shared-core unless whole) whose nodes idle at 90 W (22.5 W a
// processor) with P_static = static (W, whole node; 0: not given), one
// application at 45 W a busy processor (P_allcores 180 W), and returns the
// engine and the jobs' energies by ID.
func nodeRun(t *testing.T, nodes int, whole bool, static float64, tweak func(*Config), jobs ...workloads.Job) (*Engine, map[int64]float64) {
	t.Helper()
	cfg := Config{Procs: 4 * nodes, IdleW: 22.5, Check: true,
		Apps: []powercap.Table{{App: "x", Levels: []powercap.Level{{X: 1, Power: 45, Scale: 1}}}}}
	cfg.Parts = []Part{{Name: "p", Lo: 0, Procs: 4 * nodes, Cores: 4, Exclusive: whole, IdleW: 22.5, StaticW: static / 4}}
	cfg.PartOf = func(*workloads.Job) int { return 0 }
	c := &collect{}
	cfg.Recorder = c
	if tweak != nil {
		tweak(&cfg)
	}
	if col, ok := cfg.Recorder.(*collect); ok {
		c = col
	}
	e, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Run(context.Background(), &SliceSource{Jobs: jobs}); err != nil {
		t.Fatal(err)
	}
	if st := e.Stats(); st.NViolations != 0 {
		t.Fatalf("violations: %v", st.Violations)
	}
	en := map[int64]float64{}
	for _, r := range c.rows {
		en[r.ID] = r.Energy
	}
	return e, en
}

func near(t *testing.T, what string, got, want float64) {
	t.Helper()
	if math.Abs(got-want) > 1e-6*math.Max(1, math.Abs(want)) {
		t.Errorf("%s = %.6f, want %.6f", what, got, want)
	}
}

// Hand-computed energies, exact (sums of products of small binary
// fractions). One 4-core node, P_idle 90, P_static 100, P_allcores 180:
// a 1-core job for 100 s draws 45 W and the node's three idle cores 25 W
// each, so the node draws 100 + (180 − 100)/4 = 120 W: 12,000 J, of which
// the job's own 4,500 J. Without P_static (or with P_static = P_idle) the
// idle cores draw 22.5 W: 112.5 W, 11,250 J.
func TestNodeLoadOneNode(t *testing.T) {
	for _, c := range []struct {
		name   string
		static float64
		total  float64
	}{{"static 100", 100, 12000}, {"no static", 0, 11250}, {"static = idle", 90, 11250}} {
		t.Run(c.name, func(t *testing.T) {
			e, en := nodeRun(t, 1, false, c.static, nil, j(1, 0, 100, 1, 100))
			near(t, "meter total", e.Meter().TotalJ(), c.total)
			near(t, "job energy", en[1], 4500)
			near(t, "meter job energy", e.Meter().BusyJ, 4500)
			near(t, "idle/static energy", e.Meter().IdleJ, c.total-4500)
			if c.static != 100 && e.nl != nil {
				t.Errorf("node load tracked without a static power above idle")
			}
		})
	}
}

// Two nodes, two 1-core jobs from t=0, one of 100 s and one of 200 s.
// Shared cores: both land on node 0 (contiguous placement). 0-100: node 0
// has 2 busy cores, 2·45 + 2·25 = 140 W, node 1 idles at 90 W: 230 W;
// 100-200: node 0 has one, 45 + 3·25 = 120 W, + 90: 210 W. Total 23,000 +
// 21,000 = 44,000 J (per-processor model: 225 W then 202.5 W, 42,750 J).
// Whole nodes: each job gets a node (4 processors at 45 W = 180 W);
// P_static never applies: 0-100 360 W, 100-200 180 + 90 = 270 W: 63,000 J
// with or without it.
func TestNodeLoadTwoNodesWholeVersusShared(t *testing.T) {
	jobs := []workloads.Job{j(1, 0, 100, 1, 100), j(2, 0, 200, 1, 200)}
	for _, c := range []struct {
		name          string
		whole         bool
		static        float64
		total, j1, j2 float64
	}{
		{"shared, static 100", false, 100, 44000, 4500, 9000},
		{"shared, no static", false, 0, 42750, 4500, 9000},
		{"whole, static 100", true, 100, 63000, 18000, 36000},
		{"whole, no static", true, 0, 63000, 18000, 36000},
	} {
		t.Run(c.name, func(t *testing.T) {
			e, en := nodeRun(t, 2, c.whole, c.static, nil, jobs...)
			near(t, "meter total", e.Meter().TotalJ(), c.total)
			near(t, "job 1 energy", en[1], c.j1)
			near(t, "job 2 energy", en[2], c.j2)
			if c.whole && e.nl != nil && e.nl.track {
				t.Errorf("a whole-node partition is tracked")
			}
		})
	}
}

// Power-aware admission under the dr governor adds the most uplift a
// start can cause. Limit 297 W on the two nodes (idle 180 W). Job 1 (3
// cores) is admitted at 3·22.5 W above idle + min(3, 2 idle nodes)·3·2.5
// W uplift bound = 82.5 W (262.5 ≤ 297); actually node 0 draws 3·45 + 25
// = 160 W, 250 W in all. Job 2 (2 cores) would take processors 3-4, one
// core on each node: node 0 full (180 W), node 1 with one busy core
// (45 + 3·25 = 120 W), 300 W: over the limit, although its per-processor
// estimate, 250 + 2·22.5 = 295 W, fits. Its bound, 45 + min(2, 1)·7.5 =
// 52.5 W (302.5 W), keeps it waiting until job 1 ends at 100; then it
// starts on node 0 (230 W) and ends at 110. The limit lasts to 300.
func TestNodeLoadAdmission(t *testing.T) {
	col := &collect{}
	e, _ := nodeRun(t, 2, false, 100, func(c *Config) {
		c.Governor = newDR()
		c.Limits = []LimitStep{{T: 0, W: 297}, {T: 300, W: math.Inf(1)}}
		c.Recorder = col
	}, j(1, 0, 100, 3, 100), j(2, 0, 10, 2, 10))
	if got, want := col.starts(), "1:0-100 2:100-110"; got != want {
		t.Errorf("schedule %s, want %s", got, want)
	}
	near(t, "meter total", e.Meter().TotalJ(), 250*100+230*10+180*190)
	near(t, "peak power", e.Meter().PeakW, 250)
}

// Per-node idle power: a single pool of two 4-core nodes (22.5 W an idle
// processor). Node 1 idles 3 W below its type from the start, node 0
// drifts up by 11 W at t=50 (Heinrich's taurus-5 and taurus-12). One
// 1-core job 0-100 on node 0: nominal 45 + 7·22.5 = 202.5 W for 100 s =
// 20,250 J; −3 W for 100 s, +11 W for 50 s: 20,250 − 300 + 550 = 20,500 J.
// The offsets are idle/static energy; the job's own stays 4,500 J.
func TestNodeIdleOffsetsAndDrift(t *testing.T) {
	cfg := Config{Procs: 8, ProcsPerNode: 4, IdleW: 22.5, Check: true,
		Apps:        []powercap.Table{{App: "x", Levels: []powercap.Level{{X: 1, Power: 45, Scale: 1}}}},
		ProcVar:     make([]cluster.NodeVar, 8),
		IdleOffsets: []IdleOffset{{Lo: 4, Hi: 8, W: -3}},
		Drift:       []DriftStep{{T: 50, Lo: 0, Hi: 4, Slow: 1, IdleW: 11}, {T: 1e6, Lo: 0, Hi: 4, Slow: 1, IdleW: 5}},
	}
	for p := range cfg.ProcVar {
		cfg.ProcVar[p] = cluster.NodeVar{Slow: 1, Power: 1}
	}
	c := &collect{}
	cfg.Recorder = c
	e, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Run(context.Background(), &SliceSource{Jobs: []workloads.Job{j(1, 0, 100, 1, 100)}}); err != nil {
		t.Fatal(err)
	}
	if st := e.Stats(); st.NViolations != 0 {
		t.Fatalf("violations: %v", st.Violations)
	}
	// The step at 1e6 s comes after the last job: dropped, not integrated.
	near(t, "meter total", e.Meter().TotalJ(), 20500)
	near(t, "job energy", c.rows[0].Energy, 4500)
	near(t, "idle energy", e.Meter().IdleJ, 16000)
	if c.rows[0].End != 100 {
		t.Errorf("job ended at %v, want 100", c.rows[0].End)
	}
}

// Bad node-level configurations are refused with what is wrong.
func TestNodeLoadErrors(t *testing.T) {
	base := func() Config {
		return Config{Procs: 8, IdleW: 22.5, Parts: []Part{{Name: "p", Lo: 0, Procs: 8, Cores: 4, IdleW: 22.5}},
			PartOf: func(*workloads.Job) int { return 0 }}
	}
	for _, c := range []struct {
		name string
		mod  func(*Config)
		want string
	}{
		{"static below idle", func(c *Config) { c.Parts[0].StaticW = 20 }, `scheduler: partition "p" has static power 20 W per processor, below its idle power 22.5 W`},
		{"static NaN", func(c *Config) { c.Parts[0].StaticW = math.NaN() }, `scheduler: partition "p" has static power NaN W per processor; need a finite value ≥ 0`},
		{"offset outside", func(c *Config) { c.IdleOffsets = []IdleOffset{{Lo: 4, Hi: 12, W: 1}} }, "scheduler: idle offset 0 of 1 W covers processors [4, 12) of 8"},
	} {
		cfg := base()
		c.mod(&cfg)
		if _, err := New(cfg); err == nil || err.Error() != c.want {
			t.Errorf("%s: New = %v, want %s", c.name, err, c.want)
		}
	}
}

// idleRec is a governor that records what Control.IdlePower says after
// every pass.
type idleRec struct {
	Performance
	at, idle []float64
}

func (g *idleRec) Adjust(c *Control) {
	g.at, g.idle = append(g.at, c.Now()), append(g.idle, c.IdlePower())
}

// Control.IdlePower is what the meter draws besides the jobs' own power,
// static uplift and offsets included. Two nodes (90 W idle, P_static 100
// W), node 1 idling 11 W high: job 1 (1 core, 0–100) leaves node 0 with
// three idle cores at 25 W (75 W) and node 1 at 101 W: 176 W; job 2 (2
// cores, 50–60) joins node 0: one idle core, 25 + 101 = 126 W; at 100 the
// machine idles: 90 + 101 = 191 W.
func TestNodeLoadIdlePower(t *testing.T) {
	g := &idleRec{}
	e, _ := nodeRun(t, 2, false, 100, func(c *Config) {
		c.Governor = g
		c.IdleOffsets = []IdleOffset{{Lo: 4, Hi: 8, W: 11}}
	}, j(1, 0, 100, 1, 100), j(2, 50, 10, 2, 10))
	want := map[float64]float64{0: 176, 50: 126, 60: 176, 100: 191}
	for i, at := range g.at {
		if w, ok := want[at]; ok {
			near(t, fmt.Sprintf("IdlePower at %v", at), g.idle[i], w)
			delete(want, at)
		}
	}
	if len(want) != 0 {
		t.Errorf("no pass at %v (passes at %v)", want, g.at)
	}
	// 0–50 176 + 45, 50–60 126 + 3·45, 60–100 221, 100 on nothing.
	near(t, "meter total", e.Meter().TotalJ(), 221*50+261*10+221*40)
}
