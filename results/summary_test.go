package results

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// quantile by selection agrees exactly with the sorted definition on
// random data with long runs of equal values, many sizes and both
// quantiles the summary reads, in the order it reads them.
func TestQuantileMatchesSort(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, n := range []int{1, 2, 3, 16, 17, 100, 1000, 12345} {
		for _, distinct := range []int{1, 3, 50, 1 << 30} {
			x := make([]float64, n)
			for i := range x {
				x[i] = float64(rng.IntN(distinct)) * 1.5
			}
			sorted := slices.Sorted(slices.Values(x))
			ref := func(q float64) float64 {
				h := q * float64(n-1)
				lo := math.Floor(h)
				i := int(lo)
				if i+1 >= n {
					return sorted[n-1]
				}
				return sorted[i] + (h-lo)*(sorted[i+1]-sorted[i])
			}
			for _, q := range []float64{0.5, 0.95, 0, 1} {
				if got, want := quantile(x, q), ref(q); got != want {
					t.Fatalf("n=%d distinct=%d: quantile(%v) = %v, want %v", n, distinct, q, got, want)
				}
			}
		}
	}
}
