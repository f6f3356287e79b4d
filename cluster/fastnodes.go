package cluster

import (
	"cmp"
	"math/bits"
	"slices"
	"sort"
)

// FastNodes is the contiguous placement that keeps wide jobs off slow
// nodes (issue 17; PlacementConfig.Slow). A bulk-synchronous job runs at
// its slowest node's pace (Cornebize et al. 2019, seed 004 §6.3), so a job
// wider than one node gets the free processors whose time factor is at
// most τ, the smallest factor for which enough are free: the first free
// run of such processors that holds the whole job, otherwise the
// lowest-numbered of them. Jobs within one node, and every job on a
// machine without variability, are placed as by Contiguous.
//
// The processors are ranked once by factor, then number (order), and a
// bitmap over the ranks marks the free ones (freeR, kept by Alloc and
// Release). τ is the factor at the rank where the count of free ranks
// reaches n (64 ranks a word by their popcount), the eligible processors
// the free ranks before the first rank of a larger factor (tieEnd), and
// their runs come out of a bitmap over the processors (mark) in processor
// order. A wide job costs O(P/64 + m) for m eligible processors, plus one
// sweep of the free runs when it takes many pieces (takeSorted); the
// first version sorted every free processor's factor per wide job
// (refFastNodes in the tests, which this matches).
type FastNodes struct {
	Contiguous
	slow   []float64 // time factor per processor
	ppn    int
	order  []int32  // processors by factor, then number
	rankOf []int32  // order's inverse
	tieEnd []int32  // per rank, the first rank of a larger factor
	freeR  []uint64 // bit r: processor order[r] is free
	mark   []uint64 // scratch, per processor: eligible
	pick   []Range
}

var (
	_ Allocator    = (*FastNodes)(nil)
	_ FactorReader = (*FastNodes)(nil)
)

// NewFastNodes returns the fast-nodes placement.
func NewFastNodes(cfg PlacementConfig) (Allocator, error) {
	a := &FastNodes{Contiguous: Contiguous{newFreeList(cfg.Procs)}, slow: cfg.Slow, ppn: max(cfg.ProcsPerNode, 1)}
	if a.slow != nil {
		n := cfg.Procs
		a.order, a.rankOf, a.tieEnd = make([]int32, n), make([]int32, n), make([]int32, n)
		for p := range a.order {
			a.order[p] = int32(p)
		}
		words := (n + 63) / 64
		a.freeR, a.mark = make([]uint64, words), make([]uint64, words)
		a.FactorsChanged()
	}
	return a, nil
}

// FactorsChanged ranks the processors by their factors again (drift
// changes them in place, cluster.FactorReader) and marks the free ones'
// ranks: O(P log P), once per drift step.
func (a *FastNodes) FactorsChanged() {
	if a.slow == nil {
		return
	}
	n := len(a.order)
	for p := range a.order {
		a.order[p] = int32(p)
	}
	slices.SortStableFunc(a.order, func(x, y int32) int { return cmp.Compare(a.slow[x], a.slow[y]) })
	for r, p := range a.order {
		a.rankOf[p] = int32(r)
	}
	for r := n - 1; r >= 0; r-- {
		if r == n-1 || a.slow[a.order[r+1]] != a.slow[a.order[r]] {
			a.tieEnd[r] = int32(r + 1)
		} else {
			a.tieEnd[r] = a.tieEnd[r+1]
		}
	}
	clear(a.freeR)
	a.markRanks(a.runs, true)
}

func (*FastNodes) Name() string { return "fastnodes" }

func (a *FastNodes) Alloc(n int, dst []Range) ([]Range, bool) {
	if a.slow == nil {
		return a.Contiguous.Alloc(n, dst)
	}
	k := len(dst)
	var ok bool
	if n <= a.ppn || n > a.free {
		dst, ok = a.Contiguous.Alloc(n, dst)
	} else {
		dst, ok = a.wide(n, dst), true
	}
	if ok {
		a.markRanks(dst[k:], false)
	}
	return dst, ok
}

// Release frees rs (Contiguous.Release) and marks their ranks free.
func (a *FastNodes) Release(rs []Range) {
	if a.slow != nil {
		a.markRanks(rs, true)
	}
	a.Contiguous.Release(rs)
}

// markRanks sets (free) or clears the rank bits of rs's processors.
func (a *FastNodes) markRanks(rs []Range, free bool) {
	for _, r := range rs {
		for _, rk := range a.rankOf[r.Lo:r.Hi] {
			if free {
				a.freeR[rk>>6] |= 1 << (rk & 63)
			} else {
				a.freeR[rk>>6] &^= 1 << (rk & 63)
			}
		}
	}
}

// wide places a job of n > ppn processors, n ≤ free.
func (a *FastNodes) wide(n int, dst []Range) []Range {
	// The rank of the n-th free processor in factor order: τ's.
	left, w := n, 0
	for ; ; w++ {
		if c := bits.OnesCount64(a.freeR[w]); c < left {
			left -= c
		} else {
			break
		}
	}
	x := a.freeR[w]
	for range left - 1 {
		x &= x - 1 // drop the lowest free rank
	}
	rt := w<<6 + bits.TrailingZeros64(x)
	end := int(a.tieEnd[rt]) // eligible: the free ranks below end
	// Mark the eligible processors, then read their runs in processor order.
	lo, hi := int32(len(a.slow)), int32(-1)
	for w := 0; w<<6 < end; w++ {
		x := a.freeR[w]
		if rem := end - w<<6; rem < 64 {
			x &= 1<<uint(rem) - 1
		}
		for ; x != 0; x &= x - 1 {
			p := a.order[w<<6+bits.TrailingZeros64(x)]
			a.mark[p>>6] |= 1 << (p & 63)
			lo, hi = min(lo, p), max(hi, p)
		}
	}
	a.pick = a.pick[:0]
	for w := lo >> 6; w <= hi>>6; w++ {
		x := a.mark[w]
		a.mark[w] = 0
		for x != 0 {
			b := int32(bits.TrailingZeros64(x))
			run := int32(bits.TrailingZeros64(^(x >> uint(b)))) // 64 when the rest of the word is set
			p := w<<6 + b
			if m := len(a.pick); m > 0 && a.pick[m-1].Hi == p {
				a.pick[m-1].Hi += run
			} else {
				a.pick = append(a.pick, Range{p, p + run})
			}
			if b+run >= 64 {
				break
			}
			x &^= (1<<uint(run) - 1) << uint(b)
		}
	}
	for _, r := range a.pick {
		if int(r.Len()) >= n {
			a.takeRange(Range{r.Lo, r.Lo + int32(n)})
			return append(dst, Range{r.Lo, r.Lo + int32(n)})
		}
	}
	k0 := len(dst)
	need := int32(n)
	for _, r := range a.pick {
		k := min(need, r.Len())
		dst = append(dst, Range{r.Lo, r.Lo + k})
		if need -= k; need == 0 {
			break
		}
	}
	if len(dst)-k0 <= 4 {
		for _, r := range dst[k0:] {
			a.takeRange(r)
		}
	} else {
		a.takeSorted(dst[k0:])
	}
	return dst
}

// setBits sets (or clears) the bits of r's processors.
func setBits(b []uint64, r Range, on bool) {
	for p := r.Lo; p < r.Hi; {
		w, o := p>>6, uint(p&63)
		k := min(int32(64-o), r.Hi-p)
		m := (^uint64(0) >> (64 - uint(k))) << o
		if on {
			b[w] |= m
		} else {
			b[w] &^= m
		}
		p += k
	}
}

// takeRange removes free range r from the free run holding it.
func (a *FastNodes) takeRange(r Range) {
	i := sort.Search(len(a.runs), func(k int) bool { return a.runs[k].Hi > r.Lo })
	a.take(i, r.Lo, r.Len())
}
