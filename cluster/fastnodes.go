package cluster

import (
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
// Choosing τ sorts the free processors' factors: O(F log F) for F free
// processors, per wide job.
type FastNodes struct {
	Contiguous
	slow []float64 // time factor per processor
	ppn  int
	buf  []float64
	pick []Range
}

var _ Allocator = (*FastNodes)(nil)

// NewFastNodes returns the fast-nodes placement.
func NewFastNodes(cfg PlacementConfig) (Allocator, error) {
	return &FastNodes{Contiguous: Contiguous{newFreeList(cfg.Procs)}, slow: cfg.Slow, ppn: max(cfg.ProcsPerNode, 1)}, nil
}

func (*FastNodes) Name() string { return "fastnodes" }

func (a *FastNodes) Alloc(n int, dst []Range) ([]Range, bool) {
	if a.slow == nil || n <= a.ppn || n > a.free {
		return a.Contiguous.Alloc(n, dst)
	}
	a.buf = a.buf[:0]
	for _, r := range a.runs {
		a.buf = append(a.buf, a.slow[r.Lo:r.Hi]...)
	}
	slices.Sort(a.buf)
	tau := a.buf[n-1]
	// The eligible sub-runs of the free runs, in processor order.
	a.pick = a.pick[:0]
	for _, r := range a.runs {
		for p := r.Lo; p < r.Hi; {
			if a.slow[p] > tau {
				p++
				continue
			}
			q := p + 1
			for q < r.Hi && a.slow[q] <= tau {
				q++
			}
			a.pick = append(a.pick, Range{p, q})
			p = q
		}
	}
	for _, r := range a.pick {
		if int(r.Len()) >= n {
			a.takeRange(Range{r.Lo, r.Lo + int32(n)})
			return append(dst, Range{r.Lo, r.Lo + int32(n)}), true
		}
	}
	left := int32(n)
	for _, r := range a.pick {
		k := min(left, r.Len())
		a.takeRange(Range{r.Lo, r.Lo + k})
		dst = append(dst, Range{r.Lo, r.Lo + k})
		if left -= k; left == 0 {
			break
		}
	}
	return dst, true
}

// takeRange removes free range r from the free run holding it.
func (a *FastNodes) takeRange(r Range) {
	i := sort.Search(len(a.runs), func(k int) bool { return a.runs[k].Hi > r.Lo })
	a.take(i, r.Lo, r.Len())
}
