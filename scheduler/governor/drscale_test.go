package governor

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"drsim/powercap"
	"drsim/results"
	"drsim/scheduler"
	"drsim/workloads"
)

// capTables returns the cap tables (default grid) of the first k built-in
// profiles with a cap model.
func capTables(t testing.TB, k int) []powercap.Table {
	t.Helper()
	var out []powercap.Table
	for _, p := range powercap.Builtin() {
		if p.Cap == nil || len(out) == k {
			continue
		}
		tab, err := p.CapTable(powercap.CapGrid{})
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, tab)
	}
	return out
}

// The DR governor is exact over cap tables: on random instances of up to 7
// jobs on the 18-level default cap grid of the built-in applications, its
// cost equals brute force.
func TestDRSolveCapTablesMatchesBruteForce(t *testing.T) {
	tabs := capTables(t, 4)
	levels := func(a int) []powercap.Level { return tabs[a].Levels }
	rng := rand.New(rand.NewPCG(11, 0))
	for it := range 150 {
		var g DR
		minW, maxW := 0.0, 0.0
		for range 1 + rng.IntN(4) {
			jb := drJob{procs: 1 + rng.IntN(16), app: rng.IntN(len(tabs)), rem: 1 + 1000*rng.Float64()}
			g.jobs = append(g.jobs, jb)
			lv := levels(jb.app)
			minW += float64(jb.procs) * lv[0].Power
			maxW += float64(jb.procs) * lv[len(lv)-1].Power
		}
		capacity := minW*0.97 + (maxW-minW)*0.8*rng.Float64()
		want := bruteForce(g.jobs, levels, capacity)
		choice, ok := g.solve(levels, capacity)
		if ok != !math.IsInf(want, 1) {
			t.Fatalf("instance %d: ok=%v, brute force %v", it, ok, want)
		}
		if !ok {
			continue
		}
		c := 0.0
		for i, jb := range g.jobs {
			l := levels(jb.app)[choice[i]]
			c += jb.rem * float64(jb.procs) * l.Power * l.Scale
		}
		if math.Abs(c-want) > 1e-12*want {
			t.Fatalf("instance %d: cost %v, brute force %v", it, c, want)
		}
	}
}

// The DR-Scale problem is exact: on random instances (malleable and rigid
// jobs, sizes × caps) its cost equals brute force computed from the
// rules' formula, and its choice respects the capacity.
func TestDRScaleSolveMatchesBruteForce(t *testing.T) {
	tabs := capTables(t, 3)
	rng := rand.New(rand.NewPCG(12, 0))
	amdahl := func(s float64) func(int, float64) float64 {
		return func(_ int, r float64) float64 { return s + (1-s)/r }
	}
	for it := range 120 {
		g := DRScale{ResizeCost: 30 * rng.Float64(), Factor: amdahl(0.3 * rng.Float64()), Steps: 3}
		type inst struct {
			j     scheduler.Job
			o     origSize
			pause float64
		}
		var in []inst
		minW, maxW, idle := 0.0, 0.0, 20.0
		for range 1 + rng.IntN(3) {
			n0 := 2 + rng.IntN(12)
			cur := n0 - rng.IntN(n0/2+1)
			jb := scheduler.Job{Procs: cur, App: rng.IntN(len(tabs)), Estimate: 100 + 1000*rng.Float64(), Done: 50 * rng.Float64()}
			x := inst{j: jb, o: origSize{n0: n0, malleable: rng.IntN(2) == 0}, pause: g.ResizeCost * float64(rng.IntN(2))}
			in = append(in, x)
			g.addJob(int32(len(in)-1), jb, x.o, tabs[jb.App].Levels, x.pause, idle)
			lv := tabs[jb.App].Levels
			minW += float64(cur)*lv[0].Power*0.5 + float64(cur)*idle*0.5
			maxW += float64(cur) * lv[len(lv)-1].Power
		}
		capacity := minW + (maxW-minW)*rng.Float64()
		// Brute force straight from the rules.
		best := math.Inf(1)
		var rec func(i int, w, c float64)
		rec = func(i int, w, c float64) {
			if i == len(in) {
				if w <= capacity && c < best {
					best = c
				}
				return
			}
			x := in[i]
			for _, n := range slices.Clone(g.sizes(x.o, x.j.Procs, false)) {
				tf := g.factor(0, float64(n)/float64(x.o.n0)) / g.factor(0, float64(x.j.Procs)/float64(x.o.n0))
				for _, l := range tabs[x.j.App].Levels {
					e := float64(n) * l.Power * (l.Scale*(x.j.Estimate-x.j.Done)*tf + map[bool]float64{true: x.pause}[n != x.j.Procs])
					rec(i+1, w+float64(n)*l.Power+float64(x.j.Procs-n)*idle, c+e)
				}
			}
		}
		rec(0, 0, 0)
		choice, ok := g.solve(capacity)
		if ok != !math.IsInf(best, 1) {
			t.Fatalf("instance %d: ok=%v, brute force %v", it, ok, best)
		}
		if !ok {
			continue
		}
		g.build() // the quick path leaves the option lists unbuilt
		var w, c float64
		for i, jb := range g.jobs {
			o := g.opts[jb.from+choice[i]]
			w, c = w+o.Weight, c+o.Cost
		}
		if w > capacity*(1+1e-12) || math.Abs(c-best) > 1e-9*best {
			t.Fatalf("instance %d: weight %v (cap %v) cost %v, brute force %v", it, w, capacity, c, best)
		}
	}
}

// Cross-check of the cap problem against the continuous relaxation
// (powercap.Relax, gonum optimize) on the built-in cap models: snapping the
// relaxed caps down to the grid keeps the limit, and the exact discrete
// optimum is never worse than that snapped point.
func TestDRCapCrossCheckRelax(t *testing.T) {
	var profs []powercap.Profile
	for _, p := range powercap.Builtin() {
		if p.Cap != nil && len(profs) < 3 {
			profs = append(profs, p)
		}
	}
	tabs := capTables(t, 3)
	caps, _ := powercap.CapGrid{}.List()
	levels := func(a int) []powercap.Level { return tabs[a].Levels }
	rng := rand.New(rand.NewPCG(13, 0))
	for it := range 15 {
		var g DR
		var rj []powercap.RelaxJob
		minW, maxW := 0.0, 0.0
		for range 2 + rng.IntN(5) {
			jb := drJob{procs: 1 + rng.IntN(8), app: rng.IntN(len(profs)), rem: 100 + 1000*rng.Float64()}
			g.jobs = append(g.jobs, jb)
			p := profs[jb.app]
			tmax, _ := p.Runtime(powercap.Cap, caps[len(caps)-1])
			rem := jb.rem
			rj = append(rj, powercap.RelaxJob{
				Power: func(x float64) float64 { v, _ := p.Power(powercap.Cap, x); return v },
				Time:  func(x float64) float64 { v, _ := p.Runtime(powercap.Cap, x); return rem * v / tmax },
				N:     float64(jb.procs), Remaining: 1})
			minW += float64(jb.procs) * levels(jb.app)[0].Power
			maxW += float64(jb.procs) * levels(jb.app)[len(caps)-1].Power
		}
		capacity := minW + (maxW-minW)*(0.1+0.8*rng.Float64())
		x, _, err := powercap.Relax(context.Background(), rj, caps[0], caps[len(caps)-1], capacity)
		if err != nil {
			t.Fatalf("instance %d: %v", it, err)
		}
		snap := powercap.SnapDown(x, caps)
		var sw, sc float64
		for i, jb := range g.jobs {
			l := levels(jb.app)[snap[i]]
			sw += float64(jb.procs) * l.Power
			sc += jb.rem * float64(jb.procs) * l.Power * l.Scale
		}
		if sw > capacity*(1+1e-12) {
			t.Fatalf("instance %d: snapped power %v above %v", it, sw, capacity)
		}
		choice, ok := g.solve(levels, capacity)
		if !ok {
			t.Fatalf("instance %d: infeasible", it)
		}
		c := 0.0
		for i, jb := range g.jobs {
			l := levels(jb.app)[choice[i]]
			c += jb.rem * float64(jb.procs) * l.Power * l.Scale
		}
		if c > sc*(1+1e-12) {
			t.Fatalf("instance %d: exact %v above snapped relaxation %v", it, c, sc)
		}
	}
}

// End to end: under DR-Scale on cap tables, with every job malleable, a
// limit that binds shrinks jobs, the power never exceeds the limit, every
// job finishes, and shrunk jobs grow back after the event.
func TestDRScaleEndToEnd(t *testing.T) {
	tabs := capTables(t, 2)
	var jobs []workloads.Job
	rng := rand.New(rand.NewPCG(5, 0))
	for i := range 60 {
		jobs = append(jobs, j(int64(i+1), float64(i*200), 500+3000*rng.Float64(), int64(2+rng.IntN(14)), 8000))
	}
	peak := 32 * tabs[0].Max().Power
	g := &DRScale{Malleable: func(int64) bool { return true }, ResizeCost: 20,
		Factor: func(_ int, r float64) float64 { return 0.2 + 0.8/r }}
	rec := &energyRec{byID: map[int64]results.Record{}}
	e, err := scheduler.New(scheduler.Config{Procs: 32, Apps: tabs, AppOf: func(w *workloads.Job) int { return int(w.ID % 2) }, IdleW: 30,
		Governor: g, Check: true, Recorder: rec, Limits: []scheduler.LimitStep{{T: 2000, W: 0.6 * peak}, {T: 9000, W: math.Inf(1)}}})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Run(context.Background(), &scheduler.SliceSource{Jobs: jobs}); err != nil {
		t.Fatal(err)
	}
	st := e.Stats()
	if st.NViolations > 0 {
		t.Fatal(st.Violations)
	}
	if st.Finished != len(jobs) || g.Shrinks == 0 || g.Grows == 0 {
		t.Fatalf("finished %d/%d, shrinks %d, grows %d", st.Finished, len(jobs), g.Shrinks, g.Grows)
	}
	if m := e.Meter(); m.MaxExcessW > 0 {
		t.Fatalf("power above the limit by %v W", m.MaxExcessW)
	}
}

// The quick pick over the undominated options (DRScale.best) is the full
// walk's pick, option index and all, on the built-in cap tables and on
// random level tables with ties, zero remaining work, zero or positive
// pauses and fixed levels.
func TestDRScaleBestMatchesFullWalk(t *testing.T) {
	tabs := capTables(t, 4)
	rng := rand.New(rand.NewPCG(13, 0))
	for it := range 3000 {
		g := DRScale{ResizeCost: 30 * rng.Float64(), Steps: 1 + rng.IntN(6), MinFrac: 0.25 + 0.5*rng.Float64()}
		s := 0.3 * rng.Float64()
		g.Factor = func(_ int, r float64) float64 { return s + (1-s)/r }
		lv := randScaleLevels(rng, tabs, it)
		n0 := 1 + rng.IntN(40)
		cur := n0 - rng.IntN(n0/2+1)
		j := scheduler.Job{Procs: cur, Estimate: 1000 * rng.Float64(), Done: 600 * rng.Float64(), Level: rng.IntN(len(lv)), Fixed: rng.IntN(8) == 0}
		if rng.IntN(5) == 0 {
			j.Done = j.Estimate // no work left: every cost is a tie
		}
		pause := g.ResizeCost * float64(rng.IntN(2))
		o := origSize{seq: int64(it), n0: n0, malleable: rng.IntN(4) != 0, ok: true}
		g.addJob(int32(it%7), j, o, lv, pause, 20*rng.Float64())
		quick := g.jobs[0]
		g.build()
		full := g.jobs[0]
		if quick.best != full.best || quick.bestW != full.bestW || quick.pick != full.pick {
			t.Fatalf("instance %d: quick pick %d (%v, %v), full walk %d (%v, %v)", it, quick.best, quick.pick, quick.bestW, full.best, full.pick, full.bestW)
		}
	}
}

// DR-Scale's caches (the kept picks and their ranges, the sizes' shared
// options, the shapes shared between jobs, the skipped SetLevel calls)
// change nothing: on random instances (dr's randDRInstance, half the jobs
// malleable, a resize cost, an Amdahl factor per application or a power
// law) every job's record equals the one the plain governor gives, which
// picks every job's option by the full walk over all its options,
// computes every job's shape afresh and calls SetLevel on every job, under
// every policy. A third of the instances share shapes through one entry
// and a third through three, so that keys collide.
func TestDRScaleCachesChangeNothing(t *testing.T) {
	rng := rand.New(rand.NewPCG(31, 0))
	shrinks := 0
	for it := range 12 {
		procs, tabs, jobs, lim := randDRInstance(rng,
			func(run float64) float64 { return math.Ceil(run * (0.5 + 2*rng.Float64())) },
			func() bool { return rng.IntN(3) > 0 })
		cost := float64(rng.IntN(40))
		// Amdahl (shrinking costs energy) or r^−e, e < 1 (shrinking saves
		// energy, so the least-cost option moves from a smaller size to
		// the current one as the remaining work falls below the pause's
		// worth).
		factor := func(app int, r float64) float64 { s := 0.1 * float64(app); return s + (1-s)/r }
		if it%2 == 1 {
			e := 0.3 + 0.6*rng.Float64()
			factor = func(_ int, r float64) float64 { return math.Pow(r, -e) }
		}
		for _, pol := range []string{"fcfs", "easy", "conservative"} {
			var recs [2]map[int64]results.Record
			for k, plain := range []bool{false, true} {
				g := &DRScale{Malleable: func(id int64) bool { return id%2 == 0 }, ResizeCost: cost, plain: plain, Factor: factor, shapeLen: []int{0, 1, 3}[it%3]}
				recs[k] = energyRecords(t, it, pol, procs, tabs, lim, g, jobs)
				if k == 0 {
					shrinks += g.Shrinks
				}
			}
			sameRecords(t, it, pol, recs, jobs)
		}
	}
	if shrinks == 0 {
		t.Error("no job shrank: the instances do not exercise DR-Scale")
	}
	t.Logf("%d shrinks", shrinks)
}

// randScaleLevels returns, for even it, one of tabs' level tables, and for
// odd it a small-integer table (smallLevels).
func randScaleLevels(rng *rand.Rand, tabs []powercap.Table, it int) []powercap.Level {
	if it%2 == 0 {
		return tabs[rng.IntN(len(tabs))].Levels
	}
	return smallLevels(rng)
}

// smallLevels returns 1 to 8 levels of small integer powers and half-integer
// scales: many exact ties between options' costs.
func smallLevels(rng *rand.Rand) []powercap.Level {
	var lv []powercap.Level
	for range 1 + rng.IntN(8) {
		lv = append(lv, powercap.Level{Power: float64(1 + rng.IntN(4)), Scale: float64(1+rng.IntN(4)) / 2})
	}
	return lv
}
