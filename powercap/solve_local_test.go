package powercap

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// The early search's incumbent improved by paired moves (improve) gives
// the same answers as the solver without it (noLocal): choice and cost bit
// for bit, ok, Exact and Bound bit for bit, on random problems of every
// regime (some with budgets small enough that a search runs out, some with
// hints naming dominated options) and on DR-like problems with many
// identical jobs, with and without a hint. Where the reference runs out of
// budget and the local one proves its answer, the answer must be the
// unbounded reference's (as in TestMCKPEarlyMatchesReference). It also
// checks improve's incumbent: feasible and at its cost on the class-order
// sums, never dearer than the one before, and that it improves some.
func TestMCKPLocalMatchesReference(t *testing.T) {
	var loc, ref, full MCKP
	ref.noLocal, full.noLocal, full.Budget = true, true, -1
	better, improved, fell := 0, 0, 0
	check := func(name string, classes [][]Option, capacity float64, budget int, hint []int) {
		loc.Budget, ref.Budget, loc.Hint, ref.Hint, full.Hint = budget, budget, hint, hint, hint
		want, wantCost, wantOK := ref.Solve(classes, capacity)
		want = slices.Clone(want)
		wantExact, wantBound := ref.Exact, ref.Bound
		fb := loc.fallbacks
		choice, cost, ok := loc.Solve(classes, capacity)
		if loc.fallbacks != fb {
			fell++
		}
		if wantOK && !wantExact && loc.Exact && budget != 0 {
			better++
			want, wantCost, wantOK = full.Solve(classes, capacity)
			want = slices.Clone(want)
			wantExact, wantBound = full.Exact, full.Bound
		}
		sameSolve(t, fmt.Sprintf("%s (budget %d)", name, budget), &loc, choice, cost, ok, want, wantCost, wantOK, wantExact, wantBound)
	}
	r := rand.New(rand.NewPCG(18, 9))
	for it := range 20000 {
		classes := randClasses(r, it%3)
		budget := 0
		if it%4 == 3 {
			budget = 1 + r.IntN(40)
		}
		var hint []int
		if it%5 == 4 {
			hint = make([]int, len(classes))
			for j := range hint {
				hint[j] = r.IntN(len(classes[j]) + 1)
			}
		}
		check(fmt.Sprint("random #", it), classes, randCapacity(r, classes), budget, hint)
	}
	for seed := range uint64(80) {
		classes, capacity := dupClasses(20+int(seed), seed)
		check(fmt.Sprint("dup seed ", seed), classes, capacity, 0, nil)
		hint := slices.Clone(ref.choice)
		check(fmt.Sprint("dup seed ", seed, " hinted"), classes, capacity, 0, hint)
		classes, capacity = benchClasses(30+int(seed)*4, seed)
		check(fmt.Sprint("bench seed ", seed), classes, capacity, 0, nil)
	}
	// improve's own contract, on DR-like problems.
	var s MCKP
	for seed := range uint64(80) {
		classes, capacity := dupClasses(20+int(seed), seed+100)
		s.Solve(classes, capacity) // sizes the buffers
		s.capacity = capacity
		if !s.reduce(classes) {
			continue
		}
		s.relax(classes)
		s.incumbent(classes)
		s.prepare(classes)
		before := s.best
		s.inc0 = append(s.inc0[:0], s.inc...)
		s.improve(classes)
		var w, c float64
		for j := len(classes) - 1; j >= 0; j-- {
			w += classes[j][s.inc[j]].Weight
			c += classes[j][s.inc[j]].Cost
		}
		if math.IsInf(before, 1) {
			continue
		}
		if w > capacity || c != s.best || s.best > before {
			t.Fatalf("seed %d: improve's incumbent weighs %v (capacity %v), costs %v, s.best %v (before %v)", seed, w, capacity, c, s.best, before)
		}
		if s.best < before {
			improved++
		}
	}
	t.Logf("early searches fell back %d times; out of the reference's budget, %d local answers proven; improve lowered %d of 80 DR-like incumbents", fell, better, improved)
	if improved == 0 {
		t.Errorf("improve lowered no incumbent: the problems do not exercise it")
	}
}
