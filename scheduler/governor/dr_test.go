package governor

import (
	"context"
	"math"
	"math/rand/v2"
	"testing"

	"drsim/powercap"
	"drsim/results"
	"drsim/scheduler"
	"drsim/workloads"
)

// randTables returns nApps random level tables with nLv levels each:
// power rising and runtime scale falling with the level, as in DVFS tables.
func randTables(rng *rand.Rand, nApps, nLv int) []powercap.Table {
	out := make([]powercap.Table, nApps)
	for a := range out {
		lv := make([]powercap.Level, nLv)
		p, s := 50+50*rng.Float64(), 1.0
		for i := nLv - 1; i >= 0; i-- {
			lv[i] = powercap.Level{X: float64(i + 1), Power: p, Scale: s}
			p *= 0.75 + 0.2*rng.Float64()
			s *= 1.05 + 0.3*rng.Float64()
		}
		out[a] = powercap.Table{App: "r", Levels: lv}
	}
	return out
}

// bruteForce enumerates every level vector and returns the least cost that
// fits capacity (+Inf if none).
func bruteForce(jobs []drJob, levels func(int) []powercap.Level, capacity float64) float64 {
	best := math.Inf(1)
	var rec func(i int, w, c float64)
	rec = func(i int, w, c float64) {
		if i == len(jobs) {
			if w <= capacity && c < best {
				best = c
			}
			return
		}
		j := jobs[i]
		n := float64(j.procs)
		for k, l := range levels(j.app) {
			if j.fixed && k != j.level {
				continue
			}
			rec(i+1, w+n*l.Power, c+j.rem*n*l.Power*l.Scale)
		}
	}
	rec(0, 0, 0)
	return best
}

// The governor's level choice is energy-optimal: on random instances of up
// to 8 jobs and 6 levels its cost equals brute force (relative 1e-12), its
// power fits the capacity, and it reports infeasibility exactly when brute
// force finds nothing.
func TestDRSolveMatchesBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 0))
	for it := range 1500 {
		var g DR // fresh: it caches per-app levels
		nLv := 1 + rng.IntN(6)
		tabs := randTables(rng, 3, nLv)
		levels := func(a int) []powercap.Level { return tabs[a].Levels }
		g.jobs = g.jobs[:0]
		minW, maxW := 0.0, 0.0
		for range 1 + rng.IntN(8) {
			j := drJob{procs: 1 + rng.IntN(16), app: rng.IntN(3), rem: 1 + 1000*rng.Float64(), fixed: rng.IntN(10) == 0}
			j.level = rng.IntN(nLv)
			g.jobs = append(g.jobs, j)
			lv := levels(j.app)
			minW += float64(j.procs) * lv[0].Power
			maxW += float64(j.procs) * lv[nLv-1].Power
		}
		capacity := minW*0.95 + (maxW-minW)*1.1*rng.Float64()
		want := bruteForce(g.jobs, levels, capacity)
		choice, ok := g.solve(levels, capacity)
		if ok != !math.IsInf(want, 1) {
			t.Fatalf("instance %d: solve ok=%v, brute force best %v", it, ok, want)
		}
		if !ok {
			continue
		}
		var w, c float64
		for i, j := range g.jobs {
			l := levels(j.app)[choice[i]]
			if j.fixed && choice[i] != j.level {
				t.Fatalf("instance %d: fixed job %d moved to level %d", it, i, choice[i])
			}
			w += float64(j.procs) * l.Power
			c += j.rem * float64(j.procs) * l.Power * l.Scale
		}
		if w > capacity*(1+1e-12) {
			t.Fatalf("instance %d: power %v above capacity %v", it, w, capacity)
		}
		if math.Abs(c-want) > 1e-12*want {
			t.Fatalf("instance %d: cost %v, brute force %v", it, c, want)
		}
	}
}

// smoothApp is a DVFS-like application: p(x) = a + b·x³ per processor and
// t(x) = c/x + d, so its discrete levels lie on smooth curves that the
// continuous relaxation (powercap.Relax) can use.
type smoothApp struct{ a, b, c, d float64 }

func (m smoothApp) p(x float64) float64 { return m.a + m.b*x*x*x }
func (m smoothApp) t(x float64) float64 { return m.c/x + m.d }

// Cross-check against the continuous relaxation (gonum optimize, via
// powercap.Relax): snapping its solution down to the P-states keeps the
// limit, and the governor's discrete optimum is never worse than that
// snapped solution (it is feasible, so the exact MCKP must match or beat
// it). The relaxed energy itself is a local optimum, so its gap to the
// discrete optimum is only logged.
func TestDRCrossCheckRelax(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 0))
	xs := []float64{1.2, 1.4, 1.6, 1.8, 2.0, 2.4}
	worst := 0.0
	for it := range 40 {
		var g DR
		apps := make([]smoothApp, 2)
		tabs := make([]powercap.Table, 2)
		for a := range apps {
			m := smoothApp{a: 40 + 40*rng.Float64(), b: 5 + 10*rng.Float64(), c: 0.5 + rng.Float64(), d: 0.2 + rng.Float64()}
			apps[a] = m
			for _, x := range xs {
				tabs[a].Levels = append(tabs[a].Levels, powercap.Level{X: x, Power: m.p(x), Scale: m.t(x) / m.t(xs[len(xs)-1])})
			}
		}
		levels := func(a int) []powercap.Level { return tabs[a].Levels }
		g.jobs = g.jobs[:0]
		var rj []powercap.RelaxJob
		minW, maxW := 0.0, 0.0
		for range 2 + rng.IntN(6) {
			j := drJob{procs: 1 + rng.IntN(8), app: rng.IntN(2), rem: 100 + 1000*rng.Float64()}
			g.jobs = append(g.jobs, j)
			m, top := apps[j.app], xs[len(xs)-1]
			rem := j.rem
			rj = append(rj, powercap.RelaxJob{Power: m.p, Time: func(x float64) float64 { return rem * m.t(x) / m.t(top) }, N: float64(j.procs), Remaining: 1})
			minW += float64(j.procs) * m.p(xs[0])
			maxW += float64(j.procs) * m.p(top)
		}
		capacity := minW + (maxW-minW)*(0.1+0.8*rng.Float64())
		x, relaxed, err := powercap.Relax(context.Background(), rj, xs[0], xs[len(xs)-1], capacity)
		if err != nil {
			t.Fatalf("instance %d: %v", it, err)
		}
		snap := powercap.SnapDown(x, xs)
		var sw, sc float64
		for i, j := range g.jobs {
			l := levels(j.app)[snap[i]]
			sw += float64(j.procs) * l.Power
			sc += j.rem * float64(j.procs) * l.Power * l.Scale
		}
		if sw > capacity*(1+1e-12) {
			t.Fatalf("instance %d: snapped-down power %v above the limit %v", it, sw, capacity)
		}
		choice, ok := g.solve(levels, capacity)
		if !ok {
			t.Fatalf("instance %d: feasible instance reported infeasible", it)
		}
		var c float64
		for i, j := range g.jobs {
			l := levels(j.app)[choice[i]]
			c += j.rem * float64(j.procs) * l.Power * l.Scale
		}
		if c > sc*(1+1e-12) {
			t.Fatalf("instance %d: governor energy %v above the snapped relaxation's %v", it, c, sc)
		}
		worst = math.Max(worst, (c-relaxed)/c)
	}
	t.Logf("largest (discrete − relaxed)/discrete energy gap: %.4f", worst)
}

// runDR simulates jobs under the dr governor with --check semantics and
// returns the engine and the records by job ID.
func runDR(t *testing.T, cfg scheduler.Config, jobs ...workloads.Job) (*scheduler.Engine, *energyRec) {
	t.Helper()
	rec := &energyRec{byID: map[int64]results.Record{}}
	cfg.Governor, cfg.Recorder, cfg.Check = &DR{}, rec, true
	e, err := scheduler.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Run(context.Background(), &scheduler.SliceSource{Jobs: jobs}); err != nil {
		t.Fatal(err)
	}
	if e.Stats().NViolations > 0 {
		t.Fatal(e.Stats().Violations)
	}
	return e, rec
}

// threeLevels: energy per unit of work p·s is 100, 90 and 100 W·s at levels
// 0, 1 and 2, so level 1 is energy-optimal when it fits.
var threeLevels = []powercap.Table{{App: "toy3", Levels: []powercap.Level{{X: 1, Power: 40, Scale: 2.5}, {X: 2, Power: 60, Scale: 1.5}, {X: 3, Power: 100, Scale: 1}}}}

// Remaining work is conserved across level changes, hand-computed: one
// 1-processor job of 100 s at the top level on a 2-processor machine
// idling at 10 W per processor.
func TestDRRetimingExact(t *testing.T) {
	inf := math.Inf(1)
	tests := []struct {
		name        string
		limits      []scheduler.LimitStep
		end, energy float64
	}{
		// No limit: the top level, 100 s at 100 W.
		{"no limit", nil, 100, 10000},
		// A loose finite limit: the energy-optimal level 1 for the whole run,
		// t = 100 × 1.5 (the job starts at level 0 and moves to 1 in the same
		// instant, so no time is spent at 0). Energy 60 W × 150 s.
		{"loose limit", []scheduler.LimitStep{{T: 0, W: 1e9}}, 150, 9000},
		// 65 W: level 1 draws 60 + 10 idle = 70 > 65, so level 0: 250 s at 40 W.
		{"tight limit", []scheduler.LimitStep{{T: 0, W: 65}}, 250, 10000},
		// Level 1 for 75 s does half the work; the rest at the top takes 50 s.
		// Energy 60×75 + 100×50.
		{"lifted at 75", []scheduler.LimitStep{{T: 0, W: 1e9}, {T: 75, W: inf}}, 125, 9500},
		// Top for 40 s (0.4 done), level 0 from 40 to 140 (0.4 more: 100/250),
		// then the top for the last 0.2: 20 s. Energy 100×40 + 40×100 + 100×20.
		{"event 40-140", []scheduler.LimitStep{{T: 40, W: 65}, {T: 140, W: inf}}, 160, 10000},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, rec := runDR(t, scheduler.Config{Procs: 2, Policy: "fcfs", Apps: threeLevels, IdleW: 10, Limits: tc.limits}, j(1, 0, 100, 1, 1000))
			r := rec.byID[1]
			if math.Abs(r.End-tc.end) > 1e-9 || math.Abs(r.Energy-tc.energy) > 1e-6 {
				t.Errorf("end %v energy %v, want %v %v", r.End, r.Energy, tc.end, tc.energy)
			}
		})
	}
}

// Eviction, hand-computed on twoLevels (50 W at scale 2, 100 W at scale 1)
// with 10 W idle processors: A (200 s) starts at 0 and B (100 s) at 10, both
// at the top. At 50 the limit drops to 65 W: both at level 0 draw 100 W, so
// one must go. The knapsack keeps the larger energy spent: A has 5000 J, B
// 4000 J, so B is evicted (4000 J wasted) and A runs at level 0 (50 + 10 W
// idle ≤ 65). B cannot restart (40 W above idle > 5 W headroom). At 100 the
// limit lifts: B restarts at the top (ends 200) and A returns to the top
// with 1 − 0.25 − 50/400 = 0.625 of its work left: 125 s, so it ends at 225.
func TestDREvictionKeepsMostSpent(t *testing.T) {
	for _, pol := range []string{"fcfs", "easy", "conservative"} {
		t.Run(pol, func(t *testing.T) {
			e, rec := runDR(t, scheduler.Config{Procs: 2, Policy: pol, Apps: twoLevels, IdleW: 10,
				Limits: []scheduler.LimitStep{{T: 50, W: 65}, {T: 100, W: math.Inf(1)}}},
				j(1, 0, 200, 1, 1000), j(2, 10, 100, 1, 1000))
			a, b := rec.byID[1], rec.byID[2]
			if a.End != 225 || a.Evictions != 0 || a.Energy != 20000 {
				t.Errorf("A: end %v evictions %d energy %v, want 225 0 20000", a.End, a.Evictions, a.Energy)
			}
			if b.Start != 100 || b.End != 200 || b.Evictions != 1 || b.Wasted != 4000 || b.Energy != 10000 {
				t.Errorf("B: %v-%v evictions %d wasted %v energy %v, want 100-200 1 4000 10000", b.Start, b.End, b.Evictions, b.Wasted, b.Energy)
			}
			if e.Stats().Evictions != 1 {
				t.Errorf("engine evictions %d, want 1", e.Stats().Evictions)
			}
		})
	}
}

// Power-feasible reservations, hand-computed on twoLevels with idle power 0
// and a 150 W limit throughout (both levels cost the same energy, so the
// governor keeps every job at level 0, 50 W per processor, scale 2).
// J1 (2 procs, 100 s → 200 s) starts at 0 (100 W). J2 (2 procs, 100 W) at 1
// has processors but not power: its reservation is J1's estimated end, 200,
// when 150 W are free, leaving 2 processors and 50 W extra. J3 (1 proc,
// 50 W, 100 s at level 0) fits the 50 W now and ends by 200: it backfills
// at 2. J4 (1 proc, 50 W, 1000 s) must wait for power until J3 ends at
// 102; it then outlasts the shadow but fits the extra processors and power,
// so it starts at 102, and J2 still starts at 200 as promised. Conservative
// gives the same schedule; FCFS keeps the order: J3 starts with J2 at 200
// (50 W left), and J4 when J2 ends.
func TestPowerFeasibleReservations(t *testing.T) {
	jobs := []workloads.Job{j(1, 0, 100, 2, 100), j(2, 1, 10, 2, 10), j(3, 2, 50, 1, 50), j(4, 3, 500, 1, 500)}
	for _, tc := range []struct{ policy, starts string }{
		{"easy", "1:0-200 2:200-220 3:2-102 4:102-1102"},
		{"conservative", "1:0-200 2:200-220 3:2-102 4:102-1102"},
		{"fcfs", "1:0-200 2:200-220 3:200-300 4:220-1220"},
	} {
		t.Run(tc.policy, func(t *testing.T) {
			c := simulate(t, scheduler.Config{Procs: 4, Policy: tc.policy, Apps: twoLevels, Governor: &DR{}, Limits: []scheduler.LimitStep{{T: 0, W: 150}}}, jobs...)
			if got := c.starts(); got != tc.starts {
				t.Errorf("got  %s\nwant %s", got, tc.starts)
			}
		})
	}
}

// A job that cannot fit under the limit even on an empty machine is
// deferred (no reservation) and does not hold back others; it starts when
// the limit lifts. J1 needs 4 × 50 W = 200 W > 150 W; J2 runs meanwhile.
func TestDeferredReservation(t *testing.T) {
	jobs := []workloads.Job{j(1, 0, 10, 4, 10), j(2, 0, 100, 1, 100)}
	for _, pol := range []string{"easy", "conservative"} {
		t.Run(pol, func(t *testing.T) {
			c := simulate(t, scheduler.Config{Procs: 4, Policy: pol, Apps: twoLevels, Governor: &DR{},
				Limits: []scheduler.LimitStep{{T: 0, W: 150}, {T: 500, W: math.Inf(1)}}}, jobs...)
			if got, want := c.starts(), "1:500-510 2:0-200"; got != want {
				t.Errorf("got %s, want %s", got, want)
			}
		})
	}
}

// randDRInstance draws a machine of 16–63 processors, three random level
// tables, 200 jobs (estimate est(run)) and limit steps every 200–2,200 s,
// each a limit of 20–100 % of the peak where limited() says so and none
// otherwise, lifted after the last submit. It draws from rng in the order
// the two tests below always have, so their instances are unchanged.
func randDRInstance(rng *rand.Rand, est func(run float64) float64, limited func() bool) (int, []powercap.Table, []workloads.Job, []scheduler.LimitStep) {
	procs := 16 + rng.IntN(48)
	tabs := randTables(rng, 3, 2+rng.IntN(6))
	peak := 0.0
	for _, tb := range tabs {
		peak = math.Max(peak, tb.Max().Power*float64(procs))
	}
	var jobs []workloads.Job
	at := 0.0
	for id := range 200 {
		at += math.Floor(rng.ExpFloat64() * 30)
		run := 1 + math.Floor(rng.ExpFloat64()*300)
		p := int64(1 + rng.IntN(procs))
		jobs = append(jobs, j(int64(id+1), at, run, p, est(run)))
	}
	var lim []scheduler.LimitStep
	for t := 0.0; t < at; t += 200 + math.Floor(rng.Float64()*2000) {
		w := math.Inf(1)
		if limited() {
			w = peak * (0.2 + 0.8*rng.Float64())
		}
		lim = append(lim, scheduler.LimitStep{T: t, W: w})
	}
	lim = append(lim, scheduler.LimitStep{T: at + 1, W: math.Inf(1)})
	return procs, tabs, jobs, lim
}

// Property: under dr, with random jobs, random tables and random limit
// steps (some below what the running jobs need at their lowest levels, so
// evictions happen), every policy finishes every job and the engine's
// online check never sees power above the limit at the end of an instant.
func TestDRNeverExceedsLimit(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 0))
	evictions := 0
	for it := range 30 {
		procs, tabs, jobs, lim := randDRInstance(rng,
			func(run float64) float64 { return run * (1 + 3*rng.Float64()) },
			func() bool { return rng.IntN(2) == 0 })
		for _, pol := range []string{"fcfs", "easy", "conservative"} {
			e, rec := runDR(t, scheduler.Config{Procs: procs, Policy: pol, Apps: tabs, AppOf: func(w *workloads.Job) int { return int(w.ID % 3) },
				IdleW: 5, Limits: lim}, jobs...)
			if len(rec.byID) != len(jobs) {
				t.Fatalf("instance %d %s: %d of %d jobs finished", it, pol, len(rec.byID), len(jobs))
			}
			evictions += e.Stats().Evictions
		}
	}
	if evictions == 0 {
		t.Error("no evictions: the instances do not exercise the eviction path")
	}
	t.Logf("%d evictions", evictions)
}

// The governor's caches (the memo of quick's answer, the per-run records
// quick reads, its running sums kept from the list's changes, the previous
// levels as the knapsack's starting incumbent) change nothing: on random
// instances with limits coming and going and jobs running past their
// estimates (whose level depends on the time), every job's record equals
// the one without them, under every policy; the memo did answer some
// Adjusts and quick some from the list's changes (each checked against a
// walk of the list, as Config.Check does).
func TestDRCachesChangeNothing(t *testing.T) {
	rng := rand.New(rand.NewPCG(12, 0))
	skips, follows, early := 0, 0, 0
	for it := range 20 {
		procs, tabs, jobs, lim := randDRInstance(rng,
			func(run float64) float64 { return math.Ceil(run * (0.5 + 2*rng.Float64())) },
			func() bool { return rng.IntN(3) > 0 })
		againstPlain(t, it, procs, tabs, lim, jobs, func() *DR { return &DR{} }, func(g *DR) {
			skips += g.skips
			follows += g.follows
			early += g.early
		})
	}
	if skips == 0 {
		t.Error("the memo never answered an Adjust: the instances do not exercise it")
	}
	if follows == 0 {
		t.Error("quick never followed the list's changes: the instances do not exercise it")
	}
	if early == 0 {
		t.Error("follow never placed a non-steady run from its estimated end: the instances do not exercise it")
	}
	t.Logf("%d Adjusts answered by the memo, %d quick answers from the list's changes, %d non-steady runs placed from their estimated end", skips, follows, early)
}

// In steady state the optimiser does not allocate.
func TestDRSolveAllocFree(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 0))
	tabs := randTables(rng, 3, 8)
	levels := func(a int) []powercap.Level { return tabs[a].Levels }
	var g DR
	minW := 0.0
	for i := range 40 {
		jb := drJob{procs: 1 + rng.IntN(16), app: i % 3, rem: 1 + 1000*rng.Float64()}
		g.jobs = append(g.jobs, jb)
		minW += float64(jb.procs) * levels(jb.app)[0].Power
	}
	g.solve(levels, minW*1.3)
	if a := testing.AllocsPerRun(20, func() { g.solve(levels, minW*1.3) }); a != 0 {
		t.Errorf("solve allocates %v times per call in steady state", a)
	}
}

// The caches change nothing either when jobs run past their estimates
// without being killed (no requested time): their estimated remaining
// work reaches 0 mid-run, which moves them to their least-power level
// (drSeen.at), and the run with the caches records every job as the one
// without them, which reads each such job's level from its levels
// (levelFor).
func TestDRCachesChangeNothingOverrun(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 0))
	expired, early := 0, 0
	for it := range 20 {
		procs, tabs, jobs, lim := randDRInstance(rng,
			func(run float64) float64 { return math.Ceil(run * (0.3 + 1.2*rng.Float64())) },
			func() bool { return rng.IntN(3) > 0 })
		for i := range jobs {
			jobs[i].ReqTime = 0 // not killed at the estimate
		}
		againstPlain(t, it, procs, tabs, lim, jobs, func() *DR { return &DR{} }, func(g *DR) {
			expired += g.expired
			early += g.early
		})
	}
	if expired == 0 {
		t.Error("quick never saw a run past its estimate: the instances do not exercise it")
	}
	if early == 0 {
		t.Error("follow never placed a run from its estimated end: the instances do not exercise it")
	}
	t.Logf("%d runs past their estimates seen by quick from the list's changes, %d placed from their estimated end", expired, early)
}

// quick's far runs (non-steady runs summed with the steady ones until the
// horizon, drInc) change nothing: with horizons from a few seconds to
// longer than most runs, on instances with jobs past their estimates and
// limits coming and going, every job's record equals the one without the
// caches, and every answer follow gave was checked against a walk of the
// list (Config.Check, checkFollow). Runs were summed as far, and some
// were re-timed to end by the horizon (leaving the sum for a row of
// their own).
func TestDRFarRunsChangeNothing(t *testing.T) {
	rng := rand.New(rand.NewPCG(14, 0))
	farRuns, nearer, follows := 0, 0, 0
	for it := range 24 {
		procs, tabs, jobs, lim := randDRInstance(rng,
			func(run float64) float64 { return math.Ceil(run * (0.4 + 1.6*rng.Float64())) },
			func() bool { return rng.IntN(3) > 0 })
		if it%2 == 0 {
			for i := range jobs {
				jobs[i].ReqTime = 0 // not killed at the estimate
			}
		}
		ahead := []float64{5, 60, 400}[it%3]
		againstPlain(t, it, procs, tabs, lim, jobs, func() *DR { return &DR{ahead: ahead} }, func(g *DR) {
			farRuns += g.farRuns
			nearer += g.nearer
			follows += g.follows
		})
	}
	if farRuns == 0 || nearer == 0 || follows == 0 {
		t.Errorf("far runs %d, re-timed to end by the horizon %d, quick answers from the changes %d: the instances do not exercise them", farRuns, nearer, follows)
	}
	t.Logf("%d runs summed as far, %d re-timed nearer, %d quick answers from the list's changes", farRuns, nearer, follows)
}

// againstPlain runs jobs under fcfs, easy and conservative with a governor
// from mk (its caches on) and with one without caches, fails the test
// unless every job's record is the same, and hands each governor with
// caches to seen after its run.
func againstPlain(t *testing.T, it, procs int, tabs []powercap.Table, lim []scheduler.LimitStep, jobs []workloads.Job, mk func() *DR, seen func(g *DR)) {
	t.Helper()
	for _, pol := range []string{"fcfs", "easy", "conservative"} {
		var recs [2]map[int64]results.Record
		g := mk()
		recs[0] = energyRecords(t, it, pol, procs, tabs, lim, g, jobs)
		seen(g)
		recs[1] = energyRecords(t, it, pol, procs, tabs, lim, &DR{plain: true}, jobs)
		sameRecords(t, it, pol, recs, jobs)
	}
}
