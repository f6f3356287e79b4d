package powercap

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestDescSorterMatchesSortFunc compares the packed sort with a
// comparison sort by (key descending, position ascending) on random keys
// with exact ties, keys a few ulps apart (they differ only in the bits the
// position replaces), signed zeros, infinities and negative keys.
func TestDescSorterMatchesSortFunc(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 18))
	var s descSorter
	for trial := range 3000 {
		n := rng.IntN(300)
		if trial%1000 == 0 {
			n = 70000 // more positions than 16 bits hold
		}
		s.keys = s.keys[:0]
		base := rng.Float64()*10 - 2
		for range n {
			var k float64
			switch rng.IntN(7) {
			case 0:
				k = base // exact ties
			case 1:
				k = math.Float64frombits(math.Float64bits(base) + uint64(rng.IntN(1<<12))) // ulps apart
			case 2:
				k = math.Copysign(0, float64(rng.IntN(2)*2-1))
			case 3:
				k = math.Inf(rng.IntN(2)*2 - 1)
			default:
				k = rng.NormFloat64() * 100
			}
			s.keys = append(s.keys, k)
		}
		want := make([]int32, n)
		for i := range want {
			want[i] = int32(i)
		}
		slices.SortFunc(want, func(a, b int32) int { return descending(s.keys[a], s.keys[b], a, b) })
		if got := s.sort(); !slices.Equal(got, want) {
			t.Fatalf("trial %d (n=%d): packed sort differs from the comparison sort", trial, n)
		}
	}
}
