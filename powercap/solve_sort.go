package powercap

import (
	"math"
	"math/bits"
	"slices"
)

// descSorter sorts positions by a float key, largest first, ties by
// position ascending (the order descending gives when the tie index grows
// with the position), without a comparison callback. Long inputs go
// through a stable radix sort of the top 32 of the keys' order-preserving
// bits, a byte at a time from the lowest, skipping the bytes all keys
// share. Short ones pack each key's bits, its low bits replaced by the
// position, into one uint64 and sort those as plain integers. Either way
// an insertion pass then repairs the few neighbours whose keys differ only
// in the bits not sorted on. Keys must not be NaN.
type descSorter struct {
	keys            []float64
	packed, packed2 []uint64
	perm            []int32
	count           [4][256]int32 // radix: per top byte of the keys, the count of each value
}

// radixMin is the length from which descSorter sorts by radix.
const radixMin = 96

// sort returns the permutation of positions 0..len(s.keys)-1 in
// (key descending, position ascending) order, in s.perm.
func (s *descSorter) sort() []int32 {
	n := len(s.keys)
	s.perm = mckpResize(s.perm, n)
	if n == 0 {
		return s.perm
	}
	if n >= radixMin {
		return s.radix()
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
	s.repair()
	return s.perm
}

// repair finishes s.perm, sorted but for neighbours whose keys share the
// bits sorted on, with an insertion pass.
func (s *descSorter) repair() {
	keys, perm := s.keys, s.perm
	for r := 1; r < len(perm); r++ {
		for q := r; q > 0; q-- {
			a, b := perm[q], perm[q-1]
			if !(keys[a] > keys[b] || (keys[a] == keys[b] && a < b)) {
				break
			}
			perm[q], perm[q-1] = b, a
		}
	}
}

// radix is sort's stable least-significant-byte-first radix sort. It
// sorts one word per position: the top 32 of the key's bits above the
// position (below 2³², so the bytes sorted on are the key's), so a pass
// moves one word, and the permutation is read off the low bits at the end.
func (s *descSorter) radix() []int32 {
	n := len(s.keys)
	s.packed, s.packed2 = mckpResize(s.packed, n), mckpResize(s.packed2, n)
	cnt := &s.count
	*cnt = [4][256]int32{}
	packed := s.packed[:n]
	for i, k := range s.keys {
		b := descBits(k)&^(1<<32-1) | uint64(i)
		packed[i] = b
		// The four top bytes, unrolled.
		cnt[0][byte(b>>32)]++
		cnt[1][byte(b>>40)]++
		cnt[2][byte(b>>48)]++
		cnt[3][byte(b>>56)]++
	}
	src, dst := s.packed, s.packed2
	for d := 4; d < 8; d++ {
		c := &cnt[d-4]
		shift := uint(8 * d)
		if c[byte(src[0]>>shift)] == int32(n) {
			continue // every key has this byte
		}
		// Exclusive prefix sums, eight counts a step.
		sum := int32(0)
		for x := 0; x < len(c); x += 8 {
			g := (*[8]int32)(c[x : x+8])
			a0, a1, a2, a3, a4, a5, a6, a7 := g[0], g[1], g[2], g[3], g[4], g[5], g[6], g[7]
			g[0] = sum
			sum += a0
			g[1] = sum
			sum += a1
			g[2] = sum
			sum += a2
			g[3] = sum
			sum += a3
			g[4] = sum
			sum += a4
			g[5] = sum
			sum += a5
			g[6] = sum
			sum += a6
			g[7] = sum
			sum += a7
		}
		out := dst[:len(src)]
		for _, b := range src {
			x := byte(b >> shift)
			o := c[x]
			c[x]++
			out[o] = b
		}
		src, dst = dst, src
	}
	s.packed, s.packed2 = src, dst
	perm := s.perm[:len(src)]
	for r, b := range src {
		perm[r] = int32(uint32(b))
	}
	s.repair()
	return s.perm
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
