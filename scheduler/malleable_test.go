package scheduler

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"drsim/cluster"
	"drsim/powercap"
	"drsim/results"
	"drsim/workloads"
)

func rg(lo, hi int32) cluster.Range { return cluster.Range{Lo: lo, Hi: hi} }

func TestSplitAndNormRanges(t *testing.T) {
	tests := []struct {
		in         []cluster.Range
		n          int
		keep, rest []cluster.Range
	}{
		{[]cluster.Range{rg(0, 4)}, 2, []cluster.Range{rg(0, 2)}, []cluster.Range{rg(2, 4)}},
		{[]cluster.Range{rg(0, 2), rg(5, 8)}, 2, []cluster.Range{rg(0, 2)}, []cluster.Range{rg(5, 8)}},
		{[]cluster.Range{rg(0, 2), rg(5, 8)}, 3, []cluster.Range{rg(0, 2), rg(5, 6)}, []cluster.Range{rg(6, 8)}},
		{[]cluster.Range{rg(0, 2), rg(5, 8)}, 5, []cluster.Range{rg(0, 2), rg(5, 8)}, nil},
	}
	for _, tc := range tests {
		keep, rest := splitRanges(slices.Clone(tc.in), tc.n)
		if !slices.Equal(keep, tc.keep) || !slices.Equal(rest, tc.rest) {
			t.Errorf("split(%v, %d) = %v, %v; want %v, %v", tc.in, tc.n, keep, rest, tc.keep, tc.rest)
		}
	}
	got := normRanges([]cluster.Range{rg(6, 8), rg(0, 2), rg(2, 3), rg(4, 6)})
	if want := []cluster.Range{rg(0, 3), rg(4, 8)}; !slices.Equal(got, want) {
		t.Errorf("normRanges = %v, want %v", got, want)
	}
}

// resizeInDR shrinks every running job to half its size (runtime factor
// 2, pause p) when a limit comes into force and grows it back when it
// lifts (factor 1/2, pause p). Levels never change.
type resizeInDR struct {
	p    float64
	orig map[int32]int
}

func (resizeInDR) Name() string                    { return "resize-in-dr" }
func (resizeInDR) StartLevel(e *Engine, _ int) int { return 1 }
func (resizeInDR) PowerAware() bool                { return false }
func (g resizeInDR) Adjust(c *Control) {
	for _, s := range c.Running() {
		n := c.Job(s).Procs
		switch {
		case c.InDR() && g.orig[s] == 0:
			g.orig[s] = n
			c.Resize(s, n/2, 2, g.p)
		case !c.InDR() && g.orig[s] > n:
			c.Resize(s, g.orig[s], 0.5, g.p)
			g.orig[s] = 0
		}
	}
}

// Work conservation, hand-computed. One 4-processor job of 100 s at the
// top level (100 W a processor) on 4 processors idling at 10 W; a limit
// from t=50 to t=100 shrinks it to 2 processors with runtime factor 2.
//
//   - pause 0: half the work is left at t=50; at 2 processors it takes
//     0.5 × 200 = 100 s, so without growing back it would end at 150. At
//     t=100 it has done 50/200 = 0.25 more (α = 0.75) and grows back: the
//     last 0.25 at 4 processors takes 25 s, so it ends at 125. Job energy
//     400 W × 50 + 200 W × 50 + 400 W × 25 = 40000 J; idle 2 × 10 W × 50.
//   - pause 10 each way: from t=50 the remaining time is 100 + 10, so at
//     t=100 it has done 40/200 = 0.2 (α = 0.7); growing back, the rest
//     takes 10 + 0.3 × 100 = 40 s: it ends at 140. Energy 400×50 +
//     200×50 + 400×40 = 46000 J.
func TestResizeWorkConservation(t *testing.T) {
	for _, tc := range []struct {
		pause, end, jobJ, idleJ float64
	}{
		{0, 125, 40000, 1000},
		{10, 140, 46000, 1000},
	} {
		rec := &energyRec{byID: map[int64]results.Record{}}
		e, err := New(Config{Procs: 4, Policy: "fcfs", Apps: twoLevels, IdleW: 10, Check: true, Recorder: rec,
			Governor: resizeInDR{p: tc.pause, orig: map[int32]int{}}, Limits: []LimitStep{{50, 1e9}, {100, math.Inf(1)}}})
		if err != nil {
			t.Fatal(err)
		}
		if err := e.Run(context.Background(), &SliceSource{Jobs: []workloads.Job{j(1, 0, 100, 4, 1000)}}); err != nil {
			t.Fatal(err)
		}
		if e.Stats().NViolations > 0 {
			t.Fatal(e.Stats().Violations)
		}
		r := rec.byID[1]
		if math.Abs(r.End-tc.end) > 1e-9 || math.Abs(r.Energy-tc.jobJ) > 1e-6 || r.Procs != 4 {
			t.Errorf("pause %v: end %v energy %v procs %d; want %v %v 4", tc.pause, r.End, r.Energy, r.Procs, tc.end, tc.jobJ)
		}
		if m := e.Meter(); math.Abs(m.IdleJ-tc.idleJ) > 1e-6 {
			t.Errorf("pause %v: idle %v J, want %v", tc.pause, m.IdleJ, tc.idleJ)
		}
	}
}

// Growing beyond the free processors is refused; shrinking frees
// processors (which then draw idle power) and growing takes them back.
func TestResizeRefusedAndReleased(t *testing.T) {
	var log []string
	e, err := New(Config{Procs: 4, Policy: "fcfs", Apps: twoLevels, IdleW: 10, Check: true})
	if err != nil {
		t.Fatal(err)
	}
	e.meter = cluster.NewMeter(4, 10, 0)
	e.submit(&workloads.Job{ID: 1, Run: 100, Procs: 4, Estimate: 100})
	e.view.reset(e)
	e.view.Start(0)
	c := &Control{e: e}
	s := c.Running()[0]
	if c.Resize(s, 5, 1, 0) {
		log = append(log, "grew beyond the machine")
	}
	if !c.Resize(s, 1, 4, 0) || c.FreeProcs() != 3 || e.meter.Power() != 100+3*10 {
		log = append(log, "shrink to 1 did not free 3 processors")
	}
	if !c.Resize(s, 3, 1.0/3, 0) || c.FreeProcs() != 1 || cluster.Count(e.jobs[s].alloc) != 3 {
		log = append(log, "grow to 3 failed")
	}
	if e.Stats().NViolations > 0 || len(log) > 0 {
		t.Fatal(log, e.Stats().Violations)
	}
}

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
			j     Job
			o     origSize
			pause float64
		}
		var in []inst
		minW, maxW, idle := 0.0, 0.0, 20.0
		for range 1 + rng.IntN(3) {
			n0 := 2 + rng.IntN(12)
			cur := n0 - rng.IntN(n0/2+1)
			jb := Job{Procs: cur, App: rng.IntN(len(tabs)), Estimate: 100 + 1000*rng.Float64(), Done: 50 * rng.Float64()}
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
	e, err := New(Config{Procs: 32, Apps: tabs, AppOf: func(w *workloads.Job) int { return int(w.ID % 2) }, IdleW: 30,
		Governor: g, Check: true, Recorder: rec, Limits: []LimitStep{{2000, 0.6 * peak}, {9000, math.Inf(1)}}})
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
		var lv []powercap.Level
		if it%2 == 0 {
			lv = tabs[rng.IntN(len(tabs))].Levels
		} else {
			for range 1 + rng.IntN(8) { // small integers: many exact ties
				lv = append(lv, powercap.Level{Power: float64(1 + rng.IntN(4)), Scale: float64(1+rng.IntN(4)) / 2})
			}
		}
		n0 := 1 + rng.IntN(40)
		cur := n0 - rng.IntN(n0/2+1)
		j := Job{Procs: cur, Estimate: 1000 * rng.Float64(), Done: 600 * rng.Float64(), Level: rng.IntN(len(lv)), Fixed: rng.IntN(8) == 0}
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
