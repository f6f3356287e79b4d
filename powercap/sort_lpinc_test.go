package powercap

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// sortLpInc is slices.SortFunc with lpCmp, element for element, on random
// inputs of every length up to 3000 drawn from few values (so many
// increments tie on efficiency, within and across classes, and the order
// among full ties shows whether the algorithm is the same), sorted and
// reversed runs, and ±0.
func TestSortLpIncIsSortFunc(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 7))
	for it := range 400 {
		n := rng.IntN(3000)
		if it < 64 {
			n = it
		}
		in := make([]lpInc, n)
		effs := 1 + rng.IntN(40)
		for i := range in {
			in[i] = lpInc{eff: float64(rng.IntN(effs)) - float64(effs/2), dw: float64(i), gain: rng.Float64(), class: int32(rng.IntN(1 + n/8))}
			if in[i].eff == 0 && rng.IntN(2) == 0 {
				in[i].eff = -in[i].eff * 0 // -0
			}
		}
		switch it % 4 {
		case 1:
			slices.SortFunc(in, lpCmp)
		case 2:
			slices.SortFunc(in, lpCmp)
			slices.Reverse(in)
		}
		want, got := slices.Clone(in), slices.Clone(in)
		slices.SortFunc(want, lpCmp)
		sortLpInc(got)
		if !slices.Equal(got, want) {
			t.Fatalf("instance %d (n=%d): differs from slices.SortFunc", it, n)
		}
	}
}

// sortByKey is slices.SortFunc with the same order on random keys with
// many ties (broken by index).
func TestSortByKeyIsSortFunc(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 9))
	for it := range 400 {
		n := rng.IntN(2000)
		key := make([]float64, n)
		for i := range key {
			key[i] = float64(rng.IntN(1 + rng.IntN(50)))
		}
		want := make([]int32, 0, n)
		for i := range n {
			if rng.IntN(4) > 0 { // a subset, in a random order
				want = append(want, int32(i))
			}
		}
		rng.Shuffle(len(want), func(a, b int) { want[a], want[b] = want[b], want[a] })
		got := slices.Clone(want)
		slices.SortFunc(want, func(a, b int32) int { return descending(key[a], key[b], a, b) })
		sortByKey(got, key)
		if !slices.Equal(got, want) {
			t.Fatalf("instance %d (n=%d): differs from slices.SortFunc", it, n)
		}
	}
}
