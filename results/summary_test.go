package results

import (
	"math"
	"math/rand/v2"
	"os"
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

// The wait set answers exactly as the sorted order whether it keeps its
// values in memory or spills them: on values with long runs of equal
// values (buckets too big to gather, selected down to all 64 bits), values
// sharing their top 16 or 32 key bits (more than one counting pass),
// negative values and zeros, for chunk sizes that spill a little or a lot;
// and its temporary file is gone from the directory.
func TestWaitSetSpillMatchesSort(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	gens := map[string]func() float64{
		"few distinct": func() float64 { return float64(rng.IntN(3)) * 1.5 },
		"many":         func() float64 { return rng.Float64() * 1e6 },
		"close":        func() float64 { return 1000 + float64(rng.IntN(1<<20))*1e-9 }, // same top 32 bits
		"signed":       func() float64 { return float64(rng.IntN(2001)-1000) / 7 },
		"zeros":        func() float64 { return float64(rng.IntN(2)) * float64(rng.IntN(100)) },
	}
	for _, name := range []string{"few distinct", "many", "close", "signed", "zeros"} {
		for _, tc := range []struct{ n, chunk int }{{1, 4}, {5, 4}, {1000, 64}, {20000, 64}, {20000, 5000}, {777, 0}} {
			s := waitSet{chunk: tc.chunk}
			x := make([]float64, tc.n)
			for i := range x {
				x[i] = gens[name]()
				if err := s.add(x[i]); err != nil {
					t.Fatal(err)
				}
			}
			spilled := s.f != nil
			if want := tc.chunk != 0 && tc.n >= tc.chunk; spilled != want {
				t.Fatalf("%s n=%d chunk=%d: spilled %v", name, tc.n, tc.chunk, spilled)
			}
			sorted := slices.Sorted(slices.Values(x))
			qs := []float64{0, 0.5, 0.95, 1}
			got, err := s.quantiles(qs...)
			if err != nil {
				t.Fatal(err)
			}
			for i, q := range qs {
				h := q * float64(tc.n-1)
				lo := math.Floor(h)
				k := int(lo)
				want := sorted[k]
				if k+1 < tc.n {
					want += (h - lo) * (sorted[k+1] - sorted[k])
				}
				if got[i] != want {
					t.Fatalf("%s n=%d chunk=%d: quantile(%v) = %v, want %v", name, tc.n, tc.chunk, q, got[i], want)
				}
			}
			if s.f != nil {
				t.Fatalf("%s: temporary file still open after quantiles", name)
			}
		}
	}
}

// A spilled wait set leaves nothing in the temporary directory, even while
// its file is open (it is unlinked at once), so a killed run leaves no
// litter.
func TestWaitSetLeavesNoFile(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("TMPDIR", dir)
	s := waitSet{chunk: 8}
	for i := range 100 {
		if err := s.add(float64(i)); err != nil {
			t.Fatal(err)
		}
	}
	if s.f == nil {
		t.Fatal("did not spill")
	}
	if ents, err := os.ReadDir(dir); err != nil || len(ents) != 0 {
		t.Fatalf("temporary directory holds %v (%v)", ents, err)
	}
	if q, err := s.quantiles(0.5); err != nil || q[0] != 49.5 {
		t.Fatalf("median %v, %v; want 49.5", q, err)
	}
}
