package cluster

import (
	"math/bits"
	"math/rand/v2"
	"slices"
)

// Scattered places a job on processors drawn uniformly at random (seeded)
// from the free ones, as a worst case for communication locality.
//
// The free processors are a bitmap of 64-bit words with a Fenwick tree
// of the words' counts over it (CEA-Curie: 1,458 words, a tree of 8 KiB
// that stays in L1), not a list of runs: scattered jobs leave the machine
// fragmented into single processors, and a run list then costs a pass
// over every free run per allocation (CEA-Curie, 93,312 processors, took
// minutes for 30,000 jobs). The k-th free processor is a descent of the
// word tree without a branch on the data, then a broadword select in its
// word (kth). A small draw makes its random positions first and looks
// them up four descents at a time (kths); a draw of a sixteenth of the
// free processors lists them off the bitmap and shuffles the list
// (allocLarge). Picks are put in order through a scratch bitmap (a sort
// below sortMax); large draws and releases leave the tree stale for the
// next small draw to rebuild. Every path draws what the plain definition
// draws (TestScatteredMatchesReference).
//
// Figures, the whole of CEA-Curie scattered: a bool per processor with a
// Fenwick tree over processors, the shuffle's moved entries an array and
// not a map, and the i-th free processor stepped on from the one before:
// 24.1 → 21.1 s (one run each; 27.9 → 25.9 s for the array alone). The
// word bitmap and the rest above: 20.2 → 4.6 s (two sets of three
// alternating runs, medians 20.23 → 4.69 and 20.17 → 4.55 s; peak RSS
// 70 to 79 MB on both sides); Alloc and Release are then 3.9 s of a
// profile's 6.0 s of samples, most of the rest writing the 975 MB
// jobs.csv.
type Scattered struct {
	total, free int
	// words is the bitmap of free processors: bit p%64 of words[p/64]
	// is set while processor p is free. Bits past total stay clear.
	words []uint64
	// tree is a Fenwick tree (1-based) of the words' popcounts, padded
	// to a power of two of nodes: the nodes past len(words) hold
	// noWord, which kth's descent never passes, so it needs no bound
	// check of its own.
	tree []int32
	// stale: the tree is not up to date with the bitmap. Only the
	// virtual list's draws read it: a large draw or release leaves it
	// stale, and the next small draw rebuilds it.
	stale bool
	rng   *rand.Rand
	// pick and js are a draw's picks and random positions, ids the list
	// of free processors of allocLarge.
	pick, js, ids []int32
	// mark is a scratch bitmap of a draw's picks, all clear between
	// calls.
	mark []uint64
	// swapped holds the entries of the virtual list the shuffle moved
	// (-1: not moved), moved lists their positions to reset: an array
	// and not a map, which cost a third of a scattered run in hashing
	// (CEA-Curie).
	swapped []int32
	moved   []int32
}

var _ Allocator = (*Scattered)(nil)

// noWord is the count of the tree's padding nodes: more than any rank.
const noWord = 1 << 30

// NewScattered returns the scattered placement.
func NewScattered(cfg PlacementConfig) (Allocator, error) {
	n := cfg.Procs
	nw := (n + 63) / 64
	size := 1
	for size < nw {
		size <<= 1
	}
	s := &Scattered{total: n, free: n, words: make([]uint64, nw), tree: make([]int32, size+1),
		mark: make([]uint64, nw),
		rng:  rand.New(rand.NewPCG(cfg.Seed, 0x5ca7)), swapped: make([]int32, n)}
	for i := range s.words {
		s.words[i] = ^uint64(0)
	}
	if r := n % 64; r != 0 {
		s.words[nw-1] = 1<<r - 1
	}
	for i := range s.swapped {
		s.swapped[i] = -1
	}
	for i := nw + 1; i <= size; i++ {
		s.tree[i] = noWord
	}
	s.rebuild()
	return s, nil
}

func (*Scattered) Name() string { return "scattered" }
func (s *Scattered) Total() int { return s.total }
func (s *Scattered) Free() int  { return s.free }

// kth returns the free processor with k free processors below it
// (0 ≤ k < free): the word it is in by a descent of the word tree, then
// its bit in the word.
func (s *Scattered) kth(k int32) int32 {
	t := s.tree
	pos, r := 0, int(k)
	for step := (len(t) - 1) >> 1; step > 0; step >>= 1 {
		// Without a branch on the data: the counts met are random.
		next := pos + step
		c := int(t[next])
		m := (r - c) >> 63 // -1 if c > r, else 0
		pos = next - step&m
		r -= c &^ m
	}
	return int32(pos<<6 + select64(s.words[pos], int32(r)))
}

// kths sets out[i] to kth(ks[i]) for every i, four descents at a time:
// each is a chain of dependent loads, the four are not (a micro-benchmark
// on 93,312 processors, a third of them free: 14 ns a lookup instead of
// kth's 26).
func (s *Scattered) kths(ks, out []int32) {
	t, words := s.tree, s.words
	top := (len(t) - 1) >> 1
	i := 0
	for ; i+4 <= len(ks); i += 4 {
		var p0, p1, p2, p3 int
		r0, r1, r2, r3 := int(ks[i]), int(ks[i+1]), int(ks[i+2]), int(ks[i+3])
		for step := top; step > 0; step >>= 1 {
			c0, c1, c2, c3 := int(t[p0+step]), int(t[p1+step]), int(t[p2+step]), int(t[p3+step])
			m0, m1, m2, m3 := (r0-c0)>>63, (r1-c1)>>63, (r2-c2)>>63, (r3-c3)>>63
			p0, p1, p2, p3 = p0+step&^m0, p1+step&^m1, p2+step&^m2, p3+step&^m3
			r0, r1, r2, r3 = r0-c0&^m0, r1-c1&^m1, r2-c2&^m2, r3-c3&^m3
		}
		out[i] = int32(p0<<6 + select64(words[p0], int32(r0)))
		out[i+1] = int32(p1<<6 + select64(words[p1], int32(r1)))
		out[i+2] = int32(p2<<6 + select64(words[p2], int32(r2)))
		out[i+3] = int32(p3<<6 + select64(words[p3], int32(r3)))
	}
	for ; i < len(ks); i++ {
		out[i] = s.kth(ks[i])
	}
}

// selectInByte[r<<8|b] is the position of the set bit of byte b with r
// set bits below it (0 if none).
var selectInByte = func() (t [8 << 8]uint8) {
	for b := 0; b < 256; b++ {
		r := 0
		for i := 0; i < 8; i++ {
			if b>>i&1 != 0 {
				t[r<<8|b] = uint8(i)
				r++
			}
		}
	}
	return t
}()

// select64 returns the position of the set bit of x with k set bits
// below it (0 ≤ k < popcount(x)), broadword: the bytes' cumulative
// popcounts locate its byte, a table its bit there.
func select64(x uint64, k int32) int {
	const l8, h8 = 0x0101010101010101, 0x8080808080808080
	c := x - (x>>1)&0x5555555555555555
	c = c&0x3333333333333333 + (c>>2)&0x3333333333333333
	c = (c + c>>4) & 0x0f0f0f0f0f0f0f0f * l8 // byte i: the set bits in bytes 0..i (≤ 64)
	// Byte i's high bit: c_i ≤ k. They are the bytes below k's.
	place := uint(bits.OnesCount64(((uint64(k)*l8|h8)-c)&h8)) * 8
	return int(place) + int(selectInByte[(uint64(k)-(c<<8)>>place&0xff)<<8|x>>place&0xff])
}

// nextFree returns the free processor with k free processors below it,
// given the one with k-1 below it (p; -1 for k = 0): the next free one
// after p, read off the bitmap in p's word or the next two, else kth's.
func (s *Scattered) nextFree(p, k int32) int32 {
	q := p + 1
	w := int(q >> 6)
	if w >= len(s.words) {
		return s.kth(k)
	}
	if m := s.words[w] >> (q & 63); m != 0 {
		return q + int32(bits.TrailingZeros64(m))
	}
	for e := min(w+3, len(s.words)); w+1 < e; {
		w++
		if m := s.words[w]; m != 0 {
			return int32(w<<6 + bits.TrailingZeros64(m))
		}
	}
	return s.kth(k)
}

// add adds d to the count of word w in the tree.
func (s *Scattered) add(w int, d int32) {
	t := s.tree[:len(s.words)+1]
	for i := w + 1; i < len(t); i += i & -i {
		t[i] += d
	}
}

// fresh brings the tree up to date with the bitmap.
func (s *Scattered) fresh() {
	if s.stale {
		s.rebuild()
		s.stale = false
	}
}

// rebuild recomputes the tree from the bitmap in O(P/64).
func (s *Scattered) rebuild() {
	t := s.tree[:len(s.words)+1]
	for w, x := range s.words {
		t[w+1] = int32(bits.OnesCount64(x))
	}
	for i := 1; i < len(t); i++ {
		if j := i + i&-i; j < len(t) {
			t[j] += t[i]
		}
	}
}

// Alloc draws n of the free processors by a partial Fisher–Yates shuffle
// of the ascending list of free processors. The list is virtual: its k-th
// entry is read from the word tree and bitmap, and only the entries the
// shuffle moved are stored. A job of at least a sixteenth of the free
// processors (and of two per word of the bitmap, what listing them
// costs besides) takes allocLarge; both draw the same processors from the
// same random numbers.
func (s *Scattered) Alloc(n int, dst []Range) ([]Range, bool) {
	if n <= 0 || n > s.free {
		return dst, false
	}
	if n*16 >= s.free+2*len(s.words) {
		return s.allocLarge(n, dst), true
	}
	s.fresh()
	// The draws depend on nothing but the generator and the count of
	// free processors: all are made first, and the list's entries at
	// them looked up together, four descents of the tree interleaved.
	js := slices.Grow(s.js[:0], n)[:n]
	for i := range js {
		js[i] = int32(i + s.rng.IntN(s.free-i))
	}
	s.js = js
	pick := slices.Grow(s.pick[:0], n)[:n]
	s.kths(js, pick)
	sw, moved := s.swapped, s.moved[:0]
	fi := int32(-1) // the i-th free processor, stepped from the one before
	for i, j := range js {
		fi = s.nextFree(fi, int32(i))
		vi := fi // the list's entry i
		if v := sw[i]; v >= 0 {
			vi = v
		}
		if v := sw[j]; v >= 0 { // the list's entry j, if moved
			pick[i] = v
		} else {
			moved = append(moved, j)
		}
		sw[j] = vi // position i is never read again
	}
	for _, j := range moved {
		sw[j] = -1
	}
	s.moved = moved
	s.pick = pick
	if n >= sortMax {
		return s.take(pick, dst), true
	}
	s.free -= n
	slices.Sort(pick)
	start := len(dst)
	for k := 0; k < len(pick); {
		w := int(pick[k] >> 6)
		var m uint64
		for ; k < len(pick) && int(pick[k]>>6) == w; k++ {
			m |= 1 << (pick[k] & 63)
			dst = appendProc(dst, start, pick[k])
		}
		s.words[w] &^= m
		s.add(w, -int32(bits.OnesCount64(m)))
	}
	return dst, true
}

// sortMax is the number of picks from which they are put in order by
// marking them in a bitmap and reading it back rather than by a sort.
const sortMax = 128

// few reports whether changes to k words of nw are better made to the
// tree word by word (about log₂ nw / 2 nodes each) than by leaving it
// stale (a rebuild, about 2·nw).
func few(k, nw int) bool { return k*8 < nw }

// take removes the processors of pick (distinct, free, in any order)
// from the free ones and appends them to dst in ascending order: marked
// in s.mark and read back word by word over the marked span.
func (s *Scattered) take(pick []int32, dst []Range) []Range {
	mark, words := s.mark, s.words
	lo, hi := len(words), -1
	for _, p := range pick {
		w := int(p >> 6)
		mark[w] |= 1 << (p & 63)
		lo, hi = min(lo, w), max(hi, w)
	}
	s.free -= len(pick)
	// Few words changed: the tree is updated for each, else left stale.
	upd := !s.stale && few(len(pick), len(words))
	s.stale = !upd
	start := len(dst)
	for w := lo; w <= hi; w++ {
		m := mark[w]
		if m == 0 {
			continue
		}
		mark[w] = 0
		words[w] &^= m
		if upd {
			s.add(w, -int32(bits.OnesCount64(m)))
		}
		for ; m != 0; m &= m - 1 {
			dst = appendProc(dst, start, int32(w<<6+bits.TrailingZeros64(m)))
		}
	}
	return dst
}

// allocLarge is Alloc for a job of at least a sixteenth of the free
// processors: the list of them is built off the bitmap and shuffled in
// place, and its first n taken: O(P/64 + free) instead of O(n log P).
func (s *Scattered) allocLarge(n int, dst []Range) []Range {
	ids := s.ids[:0]
	for w, x := range s.words {
		for ; x != 0; x &= x - 1 {
			ids = append(ids, int32(w<<6+bits.TrailingZeros64(x)))
		}
	}
	for i := 0; i < n; i++ {
		j := i + s.rng.IntN(len(ids)-i)
		ids[i], ids[j] = ids[j], ids[i]
	}
	s.ids = ids
	return s.take(ids[:n], dst)
}

// Release returns rs to the free processors (any already free stay so).
// The tree is updated word by word when few words change, else left
// stale.
func (s *Scattered) Release(rs []Range) {
	words := s.words
	// The words it touches are at most a word per range plus one per
	// 64 processors.
	upd := !s.stale && few(len(rs)+Count(rs)/64, len(words))
	s.stale = !upd
	cw, cd := -1, int32(0) // a word and the count it gained, not yet in the tree
	for _, r := range rs {
		for lo := r.Lo; lo < r.Hi; {
			w := int(lo >> 6)
			hi := min(r.Hi, int32(w+1)<<6)
			m := (^uint64(0) >> (64 - (hi - lo))) << (lo & 63)
			m &^= words[w]
			lo = hi
			if m == 0 {
				continue
			}
			words[w] |= m
			d := int32(bits.OnesCount64(m))
			s.free += int(d)
			if !upd {
				continue
			}
			if w != cw {
				if cw >= 0 {
					s.add(cw, cd)
				}
				cw, cd = w, 0
			}
			cd += d
		}
	}
	if cw >= 0 {
		s.add(cw, cd)
	}
}
