package powercap

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// Round 10's fast paths (DESIGN, "The MCKP search, round 10") against the
// code they replace.

// localPosRef is the former position lookup of improve: a binary search
// for the first undominated option at least as heavy as weight.
func localPosRef(u []int32, opts []Option, weight float64) int {
	lo, hi := 0, len(u)
	for lo < hi {
		if h := int(uint(lo+hi) >> 1); opts[u[h]].Weight >= weight {
			hi = h
		} else {
			lo = h + 1
		}
	}
	return lo
}

// TestLocalPosMatchesSearch compares localPos with the binary search on
// random classes (fractional and integer weights, some shuffled, some
// with dominated options) for every option of each class, undominated or
// not (a hint may name a dominated one), and on DR-like problems for their
// incumbents.
func TestLocalPosMatchesSearch(t *testing.T) {
	r := rand.New(rand.NewPCG(18, 10))
	var s MCKP
	top := 0 // lookups answered by the last-option check
	check := func(where string, classes [][]Option) {
		s.capacity = 1e9
		if !s.reduce(classes) {
			t.Fatal("reduce")
		}
		for j, opts := range classes {
			u := s.undom[s.undomStart[j]:s.undomStart[j+1]]
			for k := range opts {
				if !isFiniteF(opts[k].Weight) || !isFiniteF(opts[k].Cost) {
					continue
				}
				got, want := localPos(u, opts, int32(k), opts[k].Weight), localPosRef(u, opts, opts[k].Weight)
				if got != want {
					t.Fatalf("%s class %d option %d (undominated %v): localPos %d, search %d", where, j, k, u, got, want)
				}
				if u[len(u)-1] == int32(k) {
					top++
				}
			}
		}
	}
	for it := range 20000 {
		classes := randFillClasses(r, 6, it)
		check(fmt.Sprint("random #", it), classes)
	}
	for seed := range uint64(40) {
		classes, _ := dupClasses(20+int(seed)*8, seed)
		check(fmt.Sprint("dup seed ", seed), classes)
		classes, _ = benchClasses(30+int(seed)*8, seed)
		check(fmt.Sprint("bench seed ", seed), classes)
	}
	if top == 0 {
		t.Error("no lookup was of a class's last undominated option")
	}
}

// TestFillMatchesDefinitionDRLike runs fill and its definition (fillRef)
// from the LP-rounded choices of long DR-like problems, where most classes
// start at their cheapest option (the check before the binary search), and
// from random choices of the same problems.
func TestFillMatchesDefinitionDRLike(t *testing.T) {
	r := rand.New(rand.NewPCG(18, 11))
	var s, ref MCKP
	for seed := range uint64(60) {
		classes, capacity := dupClasses(40+int(seed)*6, seed+7)
		if seed%2 == 1 {
			classes, capacity = benchClasses(40+int(seed)*6, seed+7)
		}
		s.capacity = capacity
		if !s.reduce(classes) {
			continue
		}
		s.relax(classes)
		s.incumbent(classes) // s.lp: the LP rounding
		for round := range 4 {
			start := slices.Clone(s.lp)
			if round > 0 {
				for j := range start {
					if r.IntN(3) == 0 {
						start[j] = int32(r.IntN(len(classes[j])))
					}
				}
			}
			free := capacity
			for j, k := range start {
				free -= classes[j][k].Weight
			}
			if round == 3 {
				free = r.Float64() * capacity / 10
			}
			s.inc = append(s.inc[:0], start...)
			ref.undom, ref.undomStart, ref.capacity = s.undom, s.undomStart, s.capacity
			ref.inc = slices.Clone(start)
			s.fill(classes, free)
			fillRef(&ref, classes, free)
			if !slices.Equal(s.inc, ref.inc) || math.Float64bits(s.best) != math.Float64bits(ref.best) {
				t.Fatalf("seed %d round %d: fill %v best %v, definition %v best %v", seed, round, s.inc, s.best, ref.inc, ref.best)
			}
		}
	}
}

// TestLPValueKeptOverEmptyRemoves removes every class of DR-like problems
// (many classes with one option in the bound, so no increment) in a random
// order from the LP bound, asking value for nearby free capacities, the
// ends of the cached range and just past them between removes, and
// compares each answer bit for bit with a plain descent (lpValueRef). A
// remove of a class without increments must keep the last descent (the
// trees did not change); one with increments must drop it.
func TestLPValueKeptOverEmptyRemoves(t *testing.T) {
	r := rand.New(rand.NewPCG(18, 12))
	kept := 0
	for trial := range 200 {
		m := 2 + r.IntN(60)
		classes := make([][]Option, m)
		for j := range classes {
			w, c := r.Float64()*10, 100+r.Float64()*100
			n := 1
			if r.IntN(3) == 0 {
				n += r.IntN(6)
			}
			for range n {
				classes[j] = append(classes[j], Option{Weight: w, Cost: c})
				w += r.Float64() * 20
				c -= r.Float64() * 30
				if trial%4 == 0 { // integer data: exact sums and ties
					w, c = math.Round(w), math.Round(c)
				}
			}
		}
		if trial%5 == 0 { // level tables: every class has increments
			classes, _ = dupClasses(m, uint64(trial))
			m = len(classes)
		}
		s, total := builtLP(t, classes)
		b := &s.lpb
		free := r.Float64() * total
		ask := func(where string) {
			for range 1 + r.IntN(6) {
				switch x := r.IntN(8); {
				case x < 2:
					free = r.Float64()*total*1.2 - 1
				case x == 2:
					free = b.last.lo
				case x == 3:
					free = math.Nextafter(b.last.hi, math.Inf(-1))
				case x == 4:
					free = b.last.hi
				default:
					free -= r.Float64() * total / 20
				}
				got, want := b.value(free), lpValueRef(b, free)
				if math.Float64bits(got) != math.Float64bits(want) && !(math.IsNaN(got) && math.IsNaN(want)) {
					t.Fatalf("trial %d %s: value(%v) = %v, plain descent %v", trial, where, free, got, want)
				}
			}
		}
		ask("start")
		for i, j := range r.Perm(m) {
			before := b.last
			b.remove(int32(j), classes[j][s.undom[s.undomStart[j]]].Cost)
			empty := b.start[j] == b.start[j+1]
			if empty && b.last != before {
				t.Fatalf("trial %d: removing class %d (no increment) dropped the last descent", trial, j)
			}
			if !empty && b.last.lo <= b.last.hi {
				t.Fatalf("trial %d: removing class %d (%d increments) kept the last descent", trial, j, b.start[j+1]-b.start[j])
			}
			if empty && before.lo <= before.hi {
				kept++
			}
			ask(fmt.Sprint("after remove ", i, " (class ", j, ")"))
		}
	}
	if kept == 0 {
		t.Error("no descent was kept over a remove: the problems do not exercise it")
	}
}

// collectRef is lpBound.collect as it was before its one-option shortcut:
// every class goes through the hull.
func collectRef(b *lpBound, s *MCKP, classes [][]Option, sel, start []int32, relaxed bool) {
	b.incs = b.incs[:0]
	b.baseC, b.maxEff, b.absG = 0, 0, 0
	distinct := true
	for j, opts := range classes {
		act := sel[start[j]:start[j+1]]
		if len(act) == 0 {
			b.baseC = math.Inf(1)
			continue
		}
		b.baseC += opts[act[0]].Cost
		var h []int32
		if relaxed && len(act) == int(s.undomStart[j+1]-s.undomStart[j]) {
			h = s.hull[s.hullStart[j]:s.hullStart[j+1]]
		} else {
			h = mckpHull(act, opts, nil)
		}
		prev := math.Inf(1)
		for i := 1; i < len(h); i++ {
			a, c := opts[h[i-1]], opts[h[i]]
			dw, g := c.Weight-a.Weight, a.Cost-c.Cost
			if !(g/dw < prev) && !(i == 1 && g/dw == prev) {
				distinct = false
			}
			prev = g / dw
			b.incs = append(b.incs, lpInc{eff: g / dw, dw: dw, gain: g, class: int32(j)})
			b.maxEff = max(b.maxEff, g/dw)
			b.absG += g
		}
	}
	b.distinct = distinct
}

// TestCollectMatchesReference compares collect with collectRef (the
// increments, baseC, maxEff, absG and distinct, bit for bit) over the
// undominated options and over random subsets of them (most classes left
// with one option, as the heavy-first rounds' active options, some with
// none), relaxed or not, on random and DR-like problems.
func TestCollectMatchesReference(t *testing.T) {
	r := rand.New(rand.NewPCG(18, 13))
	var s MCKP
	var ref lpBound
	same := func(x, y float64) bool { return math.Float64bits(x) == math.Float64bits(y) }
	ones := 0
	check := func(where string, classes [][]Option) {
		s.capacity = 1e9
		if !s.reduce(classes) {
			return
		}
		for round := range 3 {
			sel, start := s.undom, s.undomStart
			if round > 0 {
				sel, start = nil, make([]int32, len(classes)+1)
				for j := range classes {
					start[j] = int32(len(sel))
					u := s.undom[s.undomStart[j]:s.undomStart[j+1]]
					switch x := r.IntN(10); {
					case x < 6: // one option
						sel = append(sel, u[r.IntN(len(u))])
						ones++
					case x == 6 && round == 2: // none
					default:
						for _, k := range u {
							if r.IntN(3) > 0 {
								sel = append(sel, k)
							}
						}
					}
				}
				start[len(classes)] = int32(len(sel))
			}
			for _, relaxed := range []bool{false, true} {
				s.lpb.collect(&s, classes, sel, start, relaxed)
				collectRef(&ref, &s, classes, sel, start, relaxed)
				b := &s.lpb
				ok := len(b.incs) == len(ref.incs) && same(b.baseC, ref.baseC) && same(b.maxEff, ref.maxEff) && same(b.absG, ref.absG) && b.distinct == ref.distinct
				for i := 0; ok && i < len(b.incs); i++ {
					x, y := b.incs[i], ref.incs[i]
					ok = same(x.eff, y.eff) && same(x.dw, y.dw) && same(x.gain, y.gain) && x.class == y.class
				}
				if !ok {
					t.Fatalf("%s round %d relaxed %v: collect %d increments baseC %v maxEff %v absG %v distinct %v, reference %d %v %v %v %v", where, round, relaxed, len(b.incs), b.baseC, b.maxEff, b.absG, b.distinct, len(ref.incs), ref.baseC, ref.maxEff, ref.absG, ref.distinct)
				}
			}
		}
	}
	for it := range 5000 {
		check(fmt.Sprint("random #", it), randClasses(r, it%3))
	}
	for seed := range uint64(40) {
		classes, _ := dupClasses(20+int(seed)*8, seed)
		check(fmt.Sprint("dup seed ", seed), classes)
		classes, _ = benchClasses(30+int(seed)*8, seed)
		check(fmt.Sprint("bench seed ", seed), classes)
	}
	if ones == 0 {
		t.Error("no class with one option in the bound")
	}
}
