package governor

import (
	"math"
	"math/rand/v2"
	"reflect"
	"testing"

	"drsim/powercap"
	"drsim/scheduler"
)

// best's kept pick (sizeCache.pk, certify) is the full walk's pick, option
// index, weight and all, along a job's life: the same job visited again
// and again with its remaining work falling, now in small steps, now
// exactly at or one ulp beside a crossing of two candidates' exact costs,
// with the pause switching between zero and the resize cost, on the
// built-in cap tables and on small-integer tables full of exact ties.
// The test also counts the visits answered from the kept pick, so that
// it does exercise it.
func TestDRScaleKeptPickMatchesFullWalk(t *testing.T) {
	tabs := capTables(t, 4)
	rng := rand.New(rand.NewPCG(21, 0))
	visits, kept := 0, 0
	for it := range 600 {
		g := DRScale{ResizeCost: 30 * rng.Float64(), Steps: 1 + rng.IntN(6), MinFrac: 0.25 + 0.5*rng.Float64()}
		if it%5 == 0 {
			g.ResizeCost = float64(rng.IntN(3)) // 0 included, and small integers
		}
		s := 0.3 * rng.Float64()
		g.Factor = func(_ int, r float64) float64 { return s + (1-s)/r }
		lv := randScaleLevels(rng, tabs, it)
		n0 := 1 + rng.IntN(40)
		cur := n0 - rng.IntN(n0/2+1)
		est := 2000 * rng.Float64()
		jb := scheduler.Job{Procs: cur, Estimate: est, Level: rng.IntN(len(lv)), Fixed: rng.IntN(8) == 0}
		o := origSize{seq: int64(it), n0: n0, malleable: rng.IntN(4) != 0, ok: true}
		idle := 20 * rng.Float64()
		slot := int32(rng.IntN(3000))
		rem := est
		for step := range 60 {
			switch {
			case step == 59:
				rem = 0
			case step%7 == 3:
				// At (or one ulp beside) a crossing of two candidates' costs.
				sc := &g.slot(slot).sc // this job's, since step 0
				if x, ok := crossing(rng, sc, cur, g.ResizeCost); ok {
					rem = x
				}
			default:
				rem = max(0, rem-rem*0.2*rng.Float64())
			}
			pause := g.ResizeCost * float64(rng.IntN(2))
			jb.Done = est - rem
			g.jobs, g.built = g.jobs[:0], false
			if int(slot) < len(g.ss) {
				if p := g.ss[slot].sc.pk; p.k >= 0 && p.pause == pause && rem >= p.lo && rem <= p.hi && (rem >= pickMin || rem == 0) {
					kept++
				}
			}
			r := max(0, jb.Estimate-jb.Done)
			g.addJob(slot, jb, o, lv, pause, idle)
			quick := g.jobs[0]
			g.build()
			full := g.jobs[0]
			visits++
			if quick.best != full.best || quick.bestW != full.bestW || quick.pick != full.pick {
				t.Fatalf("instance %d step %d (rem %v, pause %v): kept pick %d (%v, %v), full walk %d (%v, %v)",
					it, step, r, pause, quick.best, quick.pick, quick.bestW, full.best, full.pick, full.bestW)
			}
		}
	}
	if kept < visits/4 {
		t.Fatalf("%d of %d visits answered from the kept pick; the test does not exercise it", kept, visits)
	}
}

// crossing returns a remaining work at which two of sc's candidates have
// equal exact costs (s_a·rem + b_a = s_b·rem + b_b), or one ulp beside it.
func crossing(rng *rand.Rand, sc *sizeCache, cur int, pause float64) (float64, bool) {
	cc := sc.sh.cc
	if len(cc) < 2 {
		return 0, false
	}
	a, b := &cc[rng.IntN(len(cc))], &cc[rng.IntN(len(cc))]
	sa, sb := a.nps*a.tf, b.nps*b.tf
	ba, bb := 0.0, 0.0
	if a.n != cur {
		ba = a.np * pause
	}
	if b.n != cur {
		bb = b.np * pause
	}
	if sa == sb {
		return 0, false
	}
	x := (bb - ba) / (sa - sb)
	if !(x >= 0) || math.IsInf(x, 0) {
		return 0, false
	}
	switch rng.IntN(3) {
	case 1:
		x = math.Nextafter(x, 0)
	case 2:
		x = math.Nextafter(x, math.Inf(1))
	}
	return x, true
}

// certify's range on a hand-computed case: two candidates of one size,
// costs 2·rem (no pause: the current size) and rem + 10 (a smaller size,
// np·pause = 10). They cross at rem = 10; below it the first wins, above
// it the second, and each range ends within 1e-8 of the crossing (pickEps and
// pickShrink).
func TestCertifyTwoLines(t *testing.T) {
	cc := []candCache{
		{np: 1, nps: 2, tf: 1, n: 4, i: 0}, // current size 4: cost 2·rem
		{np: 5, nps: 1, tf: 1, n: 2, i: 1}, // size 2, pause 2: cost rem + 10
	}
	lowW := certify(cc, 0, 4, 2)
	if lowW.k != 0 || lowW.lo != 0 || !(lowW.hi < 10) || lowW.hi < 10*(1-1e-8) {
		t.Fatalf("certify(w=0) = %+v, want k 0 on [0, just under 10]", lowW)
	}
	highW := certify(cc, 1, 4, 2)
	if highW.k != 1 || !(highW.lo > 10) || highW.lo > 10*(1+1e-8) || highW.hi != pickMax {
		t.Fatalf("certify(w=1) = %+v, want k 1 on [just over 10, pickMax]", highW)
	}
	// Equal lines: never certain.
	same := []candCache{{np: 1, nps: 2, tf: 1, n: 4}, {np: 1, nps: 2, tf: 1, n: 4, i: 1}}
	if p := certify(same, 0, 4, 2); p.k >= 0 {
		t.Fatalf("certify over two equal candidates = %+v, want none", p)
	}
	// Outside the domain (a subnormal pause): none.
	if p := certify(cc, 0, 4, 1e-310); p.k >= 0 {
		t.Fatalf("certify with pause 1e-310 = %+v, want none", p)
	}
}

// One DRScale over many jobs shares each (application, size)'s options
// (sizeOpts) between jobs, slots and resizes: every job's quick pick is
// still the full walk's, also when two tables pass under one application
// index (the entry is keyed by the table too) and when entries collide.
func TestDRScaleSharedSizeOptsMatchFullWalk(t *testing.T) {
	tabs := capTables(t, 4)
	rng := rand.New(rand.NewPCG(22, 0))
	var small [][]powercap.Level // small-integer tables: exact ties
	for range 3 {
		small = append(small, smallLevels(rng))
	}
	g := DRScale{ResizeCost: 17, Steps: 5, MinFrac: 0.4}
	g.Factor = func(app int, r float64) float64 { s := 0.05 * float64(app%5); return s + (1-s)/r }
	for it := range 4000 {
		app := rng.IntN(6)
		var lv []powercap.Level
		switch {
		case app < len(tabs):
			lv = tabs[app].Levels
		default:
			lv = small[rng.IntN(len(small))] // app 4 or 5 with any of three tables
		}
		n0 := 1 + rng.IntN(300)
		cur := n0 - rng.IntN(n0/2+1)
		jb := scheduler.Job{Procs: cur, App: app, Estimate: 5000 * rng.Float64(), Level: rng.IntN(len(lv)), Fixed: rng.IntN(10) == 0}
		jb.Done = jb.Estimate * rng.Float64()
		o := origSize{seq: int64(it), n0: n0, malleable: rng.IntN(3) != 0, ok: true}
		g.jobs, g.built = g.jobs[:0], false
		g.addJob(int32(rng.IntN(5000)), jb, o, lv, g.ResizeCost*float64(rng.IntN(2)), 25)
		quick := g.jobs[0]
		g.build()
		full := g.jobs[0]
		if quick.best != full.best || quick.bestW != full.bestW || quick.pick != full.pick {
			t.Fatalf("job %d (app %d, n0 %d, cur %d): quick pick %d (%v, %v), full walk %d (%v, %v)",
				it, app, n0, cur, quick.best, quick.pick, quick.bestW, full.best, full.pick, full.bestW)
		}
	}
}

// Jobs share a shape only when everything it is made from is the same: on
// keys drawn from a small space (two applications over three tables, one
// table under both, requested and current sizes, malleability, fixed
// levels), through one to three entries so that keys collide, every job's
// shape (sizes, factors, options and candidates) equals the one the plain
// governor computes for it afresh, also when the job's slot cache found it
// before and other jobs' shapes were computed since.
func TestDRScaleShapesMatchFresh(t *testing.T) {
	tabs := capTables(t, 3)
	lvs := [][]powercap.Level{tabs[0].Levels, tabs[1].Levels, tabs[2].Levels}
	rng := rand.New(rand.NewPCG(23, 0))
	factor := func(app int, r float64) float64 { s := 0.1 + 0.2*float64(app); return s + (1-s)/r }
	found := 0
	for _, n := range []int{1, 2, 3} {
		g := DRScale{Steps: 4, MinFrac: 0.3, Factor: factor, shapeLen: n}
		ref := DRScale{Steps: 4, MinFrac: 0.3, Factor: factor, plain: true}
		var runs [4]scaleJob // per slot: the run in it
		for it := range 3000 {
			slot := rng.IntN(len(runs))
			sj := &runs[slot]
			if !sj.o.ok || rng.IntN(2) == 0 { // a new run in the slot
				app := rng.IntN(2)
				lv := lvs[app+rng.IntN(2)] // table 1 under both applications
				n0 := 4 + rng.IntN(2)
				*sj = scaleJob{slot: int32(slot), app: app, lv: lv, cur: n0, n0: n0, fixed: rng.IntN(4) == 0, level: rng.IntN(len(lv))}
				sj.o = origSize{seq: int64(it), n0: n0, malleable: rng.IntN(2) == 0, ok: true}
			}
			if rng.IntN(3) == 0 {
				sj.cur = sj.n0 - rng.IntN(3) // resized
			}
			if int(sj.slot) < len(g.ss) {
				if c := &g.ss[sj.slot].sc; c.key != (sizeKey{}) && c.sh.gen == c.gen {
					found++
				}
			}
			got, want := g.sizesOf(sj).sh, ref.sizesOf(sj).sh
			if !reflect.DeepEqual(got.n, want.n) || !reflect.DeepEqual(got.tf, want.tf) || !reflect.DeepEqual(got.cc, want.cc) ||
				got.nopt != want.nopt || !reflect.DeepEqual(got.opts(sj), want.opts(sj)) {
				t.Fatalf("%d entries, job slot %d app %d n0 %d cur %d mall %v fixed %v level %d: shape n %v tf %v cc %v nopt %d, want n %v tf %v cc %v nopt %d", n, sj.slot, sj.app, sj.n0, sj.cur, sj.o.malleable, sj.fixed, sj.level, got.n, got.tf, got.cc, got.nopt, want.n, want.tf, want.cc, want.nopt)
			}
		}
	}
	if found == 0 {
		t.Error("no slot found its shape again: the test does not exercise the slot caches")
	}
}
