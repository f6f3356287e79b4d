package powercap

import (
	"math"
	"math/bits"
	"slices"
)

// descSorter sorts positions by a float key, largest first, ties by
// position ascending (the order descending gives when the tie index grows
// with the position). It packs each key's order-preserving bits, its low
// bits replaced by the position, into one uint64 and sorts those as plain
// integers (no comparison callback), then repairs with an insertion pass
// the few neighbours whose keys differ only in the replaced bits. Keys
// must not be NaN.
type descSorter struct {
	keys   []float64
	packed []uint64
	perm   []int32
}

// sort returns the permutation of positions 0..len(s.keys)-1 in
// (key descending, position ascending) order, in s.perm.
func (s *descSorter) sort() []int32 {
	n := len(s.keys)
	s.perm = mckpResize(s.perm, n)
	if n == 0 {
		return s.perm
	}
	s.packed = mckpResize(s.packed, n)
	mask := uint64(1)<<bits.Len(uint(n-1)) - 1
	for i, k := range s.keys {
		s.packed[i] = descBits(k)&^mask | uint64(i)
	}
	slices.Sort(s.packed)
	for r, p := range s.packed {
		s.perm[r] = int32(p & mask)
	}
	keys, perm := s.keys, s.perm
	for r := 1; r < n; r++ {
		for q := r; q > 0; q-- {
			a, b := perm[q], perm[q-1]
			if !(keys[a] > keys[b] || (keys[a] == keys[b] && a < b)) {
				break
			}
			perm[q], perm[q-1] = b, a
		}
	}
	return perm
}

// descBits maps x to a uint64 that orders as x does, reversed: larger x,
// smaller result; −0 and +0 map alike.
func descBits(x float64) uint64 {
	if x == 0 {
		x = 0
	}
	b := math.Float64bits(x)
	if b>>63 != 0 {
		b = ^b
	} else {
		b |= 1 << 63
	}
	return ^b
}
