package powercap

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"testing"
)

// The hopeless check only skips rounds that would find nothing: on random
// problems of every regime, DR-like ones with identical jobs, giant-class
// ones and the same under tight budgets, the answer (choice and cost bit
// for bit, ok, Exact and Bound) and the work count are the reference's, the solver without the
// check; and it does skip rounds.
func TestMCKPSkipMatchesReference(t *testing.T) {
	var skip, ref MCKP
	ref.noSkip = true
	check := func(name string, classes [][]Option, capacity float64, budget int) {
		skip.Budget, ref.Budget = budget, budget
		want, wantCost, wantOK := ref.Solve(classes, capacity)
		want = slices.Clone(want)
		choice, cost, ok := skip.Solve(classes, capacity)
		if ok != wantOK || ok && (math.Float64bits(cost) != math.Float64bits(wantCost) || !slices.Equal(choice, want)) ||
			skip.Exact != ref.Exact || math.Float64bits(skip.Bound) != math.Float64bits(ref.Bound) || skip.work != ref.work {
			t.Fatalf("%s (budget %d): %v %v %v exact %v bound %v work %d, reference %v %v %v exact %v bound %v work %d",
				name, budget, choice, cost, ok, skip.Exact, skip.Bound, skip.work, want, wantCost, wantOK, ref.Exact, ref.Bound, ref.work)
		}
	}
	r := rand.New(rand.NewPCG(11, 0))
	for it := range 20000 {
		classes := randClasses(r, it%3)
		check(fmt.Sprint("random #", it), classes, randCapacity(r, classes), 0)
	}
	random := skip.skipped
	for seed := range uint64(60) {
		classes, capacity := dupClasses(20+int(seed), seed)
		check(fmt.Sprint("dup seed ", seed), classes, capacity, 0)
		for _, budget := range []int{50, 300, 2000} {
			check(fmt.Sprint("dup seed ", seed), classes, capacity, budget)
		}
		classes, capacity = benchClasses(30+int(seed), seed)
		check(fmt.Sprint("bench seed ", seed), classes, capacity, 0)
	}
	for it := range 30 {
		classes, capacity := giantClasses(r)
		check(fmt.Sprint("giant #", it), classes, float64(capacity), 0)
		check(fmt.Sprint("giant #", it), classes, float64(capacity), 200)
	}
	t.Logf("rounds skipped: %d on the random problems, %d in all", random, skip.skipped)
	if skip.skipped == 0 {
		t.Errorf("no round skipped: the problems do not exercise the check")
	}
}

// lpAt is the LP value of the increments by the greedy rule: compared with
// sorting them by efficiency and taking them in turn, on random increments
// with repeated efficiencies, at capacities from none to all.
func TestLPAtMatchesGreedy(t *testing.T) {
	r := rand.New(rand.NewPCG(12, 0))
	for it := range 3000 {
		n := r.IntN(40)
		incs := make([]lpInc, n)
		total := 0.0
		for i := range incs {
			dw := float64(1 + r.IntN(8))
			eff := float64(r.IntN(6)) + []float64{0, 0.5, 0.25}[r.IntN(3)]
			incs[i] = lpInc{eff: eff, dw: dw, gain: eff * dw, class: int32(i)}
			total += dw
		}
		base := 1000.0
		free := math.Floor(r.Float64()*(total+4)*4) / 4 // dyadic: sums exact
		sorted := slices.Clone(incs)
		sort.SliceStable(sorted, func(a, b int) bool { return sorted[a].eff > sorted[b].eff })
		want, left := base, free
		for _, in := range sorted {
			take := min(in.dw, left)
			want -= in.eff * take
			left -= take
		}
		if got := lpAt(slices.Clone(incs), base, free); got != want {
			t.Fatalf("#%d: lpAt(%v, %v, %v) = %v, want %v", it, incs, base, free, got, want)
		}
	}
}
