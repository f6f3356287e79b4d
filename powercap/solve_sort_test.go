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

// TestRadixPermSortedBeforeRepair checks radix's passes on their own
// (the words they leave in s.packed),
// before the insertion pass that would hide a skipped or misdirected pass
// (at a cost): the permutation is in (top 32 of descBits, position) order,
// strictly, on random keys with ties, near ties in the low bits and keys
// apart in only one of the top bytes (also one key among equal ones),
// and on a long input.
func TestRadixPermSortedBeforeRepair(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 17))
	var s descSorter
	for trial := range 2000 {
		n := radixMin + rng.IntN(400)
		if trial == 0 {
			n = 70000
		}
		s.keys = s.keys[:0]
		base := rng.NormFloat64() * 50
		for range n {
			var k float64
			switch rng.IntN(6) {
			case 0:
				k = base
			case 1:
				k = math.Float64frombits(math.Float64bits(base) + uint64(rng.IntN(1<<12))) // differ below the top 32 bits
			case 2:
				k = math.Float64frombits(math.Float64bits(base) ^ uint64(rng.IntN(256))<<(32+8*uint(rng.IntN(3)))) // one top byte apart
			case 3:
				k = math.Copysign(0, float64(rng.IntN(2)*2-1))
			default:
				k = rng.NormFloat64() * 100
			}
			s.keys = append(s.keys, k)
		}
		if trial%4 == 1 {
			// Every key alike but one, which differs in one top byte: the
			// pass on that byte must not be skipped.
			for i := range s.keys {
				s.keys[i] = base
			}
			d := uint(rng.IntN(4))
			s.keys[rng.IntN(n)] = math.Float64frombits(math.Float64bits(base) ^ uint64(1+rng.IntN(255))<<(32+8*d))
		}
		s.perm = mckpResize(s.perm, n)
		s.radix()
		// s.packed keeps the passes' words: the repair moves s.perm only.
		seen := make([]bool, n)
		for r, w := range s.packed[:n] {
			p := int32(uint32(w))
			if int(p) >= n || seen[p] || w>>32 != descBits(s.keys[p])>>32 {
				t.Fatalf("trial %d (n=%d): rank %d holds word %x: position out of range, twice, or not its key's", trial, n, r, w)
			}
			seen[p] = true
			if r == 0 {
				continue
			}
			if q := s.packed[r-1]; !(q < w) {
				t.Fatalf("trial %d (n=%d): ranks %d, %d: words %x, %x out of (top bits, position) order", trial, n, r-1, r, q, w)
			}
		}
	}
}
