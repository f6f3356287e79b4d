package cluster

import (
	"math/bits"
	"math/rand/v2"
	"slices"
)

// Scattered places a job on processors drawn uniformly at random (seeded)
// from the free ones, as a worst case for communication locality.
//
// The free processors are a bitmap with a Fenwick tree of counts over it,
// not a list of runs: scattered jobs leave the machine fragmented into
// single processors, and a run list then costs a pass over every free run
// per allocation (CEA-Curie, 93,312 processors, took minutes for 30,000
// jobs). A draw of n processors costs O(n log P), a release O(n log P).
// The shuffle's moved entries are an array, not a map, and the i-th free
// processor it reads at step i is stepped from the one before on the
// bitmap (nextFree), not looked up in the tree: the whole of CEA-Curie
// 24.1 → 21.1 s (one run each; 27.9 → 25.9 s for the array alone), the
// same draws (TestScatteredMatchesReference, now also on 5,000
// processors, where the tree's lookup still answers far steps).
type Scattered struct {
	total, free int
	isFree      []bool
	tree        []int32 // Fenwick tree of isFree, 1-based
	top         int     // the largest power of two ≤ total
	rng         *rand.Rand
	pick, ids   []int32
	mark        []bool
	// swapped holds the entries of the virtual list the shuffle moved
	// (-1: not moved), moved lists their positions to reset: an array
	// and not a map, which cost a third of a scattered run in hashing
	// (CEA-Curie).
	swapped []int32
	moved   []int32
}

var _ Allocator = (*Scattered)(nil)

// NewScattered returns the scattered placement.
func NewScattered(cfg PlacementConfig) (Allocator, error) {
	n := cfg.Procs
	s := &Scattered{total: n, free: n, isFree: make([]bool, n), tree: make([]int32, n+1),
		rng: rand.New(rand.NewPCG(cfg.Seed, 0x5ca7)), swapped: make([]int32, n)}
	for i := range s.isFree {
		s.isFree[i] = true
		s.swapped[i] = -1
	}
	s.rebuild()
	if n > 0 {
		s.top = 1 << (bits.Len(uint(n)) - 1)
	}
	return s, nil
}

func (*Scattered) Name() string { return "scattered" }
func (s *Scattered) Total() int { return s.total }
func (s *Scattered) Free() int  { return s.free }

// kth returns the free processor with k free processors below it.
func (s *Scattered) kth(k int32) int32 {
	pos := 0
	for step := s.top; step > 0; step >>= 1 {
		if next := pos + step; next <= s.total && s.tree[next] <= k {
			pos = next
			k -= s.tree[next]
		}
	}
	return int32(pos)
}

// nextFree returns the free processor with k free processors below it,
// given the one with k-1 below it (p; -1 for k = 0): the next free one
// after p, read off the bitmap when it is near (the free processors of a
// scattered machine are spread evenly), else kth's.
func (s *Scattered) nextFree(p, k int32) int32 {
	for q := p + 1; q <= p+64 && int(q) < s.total; q++ {
		if s.isFree[q] {
			return q
		}
	}
	return s.kth(k)
}

func (s *Scattered) add(p int32, d int32) {
	for i := int(p) + 1; i <= s.total; i += i & -i {
		s.tree[i] += d
	}
}

// Alloc draws n of the free processors by a partial Fisher–Yates shuffle
// of the ascending list of free processors. The list is virtual: its k-th
// entry is read from the Fenwick tree, and only the entries the shuffle
// moved are stored. A job of at least a sixteenth of the machine takes
// allocLarge; both draw the same processors from the same random numbers.
func (s *Scattered) Alloc(n int, dst []Range) ([]Range, bool) {
	if n <= 0 || n > s.free {
		return dst, false
	}
	if n*16 >= s.total {
		return s.allocLarge(n, dst), true
	}
	sw := s.swapped
	at := func(k int32) int32 {
		if v := sw[k]; v >= 0 {
			return v
		}
		return s.kth(k)
	}
	pick, moved := s.pick[:0], s.moved[:0]
	fi := int32(-1) // the i-th free processor, stepped from the one before
	for i := int32(0); i < int32(n); i++ {
		j := i + int32(s.rng.IntN(s.free-int(i)))
		fi = s.nextFree(fi, i)
		vi := fi // at(i)
		if v := sw[i]; v >= 0 {
			vi = v
		}
		vj := at(j)
		if sw[j] < 0 {
			moved = append(moved, j)
		}
		sw[j] = vi // position i is never read again
		pick = append(pick, vj)
	}
	for _, j := range moved {
		sw[j] = -1
	}
	s.moved = moved
	for _, p := range pick {
		s.isFree[p] = false
		s.add(p, -1)
	}
	s.free -= n
	slices.Sort(pick)
	s.pick = pick
	start := len(dst)
	for _, p := range pick {
		dst = appendProc(dst, start, p)
	}
	return dst, true
}

// allocLarge is Alloc for a job of at least a sixteenth of the machine:
// the list of free processors is built and shuffled in place, the picks
// are marked and read back in order by one pass over the machine (no
// sort), and the tree is rebuilt: O(P) instead of O(n log n + n log P)
// with map lookups.
func (s *Scattered) allocLarge(n int, dst []Range) []Range {
	ids := s.ids[:0]
	for p, free := range s.isFree {
		if free {
			ids = append(ids, int32(p))
		}
	}
	for i := 0; i < n; i++ {
		j := i + s.rng.IntN(len(ids)-i)
		ids[i], ids[j] = ids[j], ids[i]
	}
	s.ids = ids
	if len(s.mark) < s.total {
		s.mark = make([]bool, s.total)
	}
	for _, p := range ids[:n] {
		s.mark[p] = true
	}
	start := len(dst)
	for p, m := range s.mark[:s.total] {
		if !m {
			continue
		}
		s.mark[p], s.isFree[p] = false, false
		dst = appendProc(dst, start, int32(p))
	}
	s.free -= n
	s.rebuild()
	return dst
}

// rebuild recomputes the Fenwick tree from the bitmap in O(P).
func (s *Scattered) rebuild() {
	for i := 1; i <= s.total; i++ {
		s.tree[i] = 0
		if s.isFree[i-1] {
			s.tree[i] = 1
		}
	}
	for i := 1; i <= s.total; i++ {
		if j := i + i&-i; j <= s.total {
			s.tree[j] += s.tree[i]
		}
	}
}

// Release returns rs to the free processors; a large release rebuilds the
// tree instead of updating it processor by processor.
func (s *Scattered) Release(rs []Range) {
	n := 0
	for _, r := range rs {
		n += int(r.Len())
	}
	large := n*16 >= s.total
	for _, r := range rs {
		for p := r.Lo; p < r.Hi; p++ {
			if s.isFree[p] {
				continue
			}
			s.isFree[p] = true
			s.free++
			if !large {
				s.add(p, 1)
			}
		}
	}
	if large {
		s.rebuild()
	}
}
