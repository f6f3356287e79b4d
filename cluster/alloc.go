package cluster

import (
	"fmt"
	"slices"
	"sort"
	"strings"
)

// An Allocator decides which processors a starting job gets. Alloc appends
// the job's processor ranges to dst; it reports false, and changes nothing,
// when fewer than n processors are free. Release gives a job's ranges back.
// Allocators are not safe for concurrent use.
type Allocator interface {
	Name() string
	Total() int
	Free() int
	Alloc(n int, dst []Range) ([]Range, bool)
	Release(rs []Range)
}

// FactorReader is an Allocator that keeps state derived from
// PlacementConfig.Slow: whoever changes those factors in place (node
// drift) calls FactorsChanged after.
type FactorReader interface {
	FactorsChanged()
}

// PlacementConfig configures a placement. Its zero value is invalid only in
// Procs, which must be positive.
type PlacementConfig struct {
	Procs        int    // processors in the machine
	ProcsPerNode int    // processors per node; 0 means 1
	Seed         uint64 // for randomised placements

	// Topology locates machine nodes on switches and groups for the
	// "topology" placement; the zero value is one switch.
	Topology NodeTopology

	// Slow is each processor's time factor (node variability, NodeVar);
	// nil: uniform. The "fastnodes" placement reads it.
	Slow []float64
}

// Placements is the table of contents of placement policies: a new one is
// one file plus one line here.
var Placements = Registry{
	"contiguous": NewContiguous,
	"scattered":  NewScattered,
	"topology":   NewTopology,
	"fastnodes":  NewFastNodes,
}

// Registry maps placement names to constructors.
type Registry map[string]func(PlacementConfig) (Allocator, error)

// Names returns the registered names, sorted.
func (r Registry) Names() []string {
	names := make([]string, 0, len(r))
	for n := range r {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// New builds the named placement.
func (r Registry) New(name string, cfg PlacementConfig) (Allocator, error) {
	mk, ok := r[name]
	if !ok {
		return nil, fmt.Errorf("cluster: unknown placement %q (known: %s)", name, strings.Join(r.Names(), ", "))
	}
	if cfg.Procs <= 0 {
		return nil, fmt.Errorf("cluster: machine has %d processors; need at least 1", cfg.Procs)
	}
	return mk(cfg)
}

// freeList is the sorted, coalesced set of free processor runs that every
// placement shares.
type freeList struct {
	runs  []Range
	total int
	free  int
	tmp   []Range // scratch for merging a release into runs
}

func newFreeList(procs int) freeList {
	return freeList{runs: []Range{{0, int32(procs)}}, total: procs, free: procs}
}

func (f *freeList) Total() int { return f.total }
func (f *freeList) Free() int  { return f.free }

// take removes [lo, lo+n) from run i, which must contain it.
func (f *freeList) take(i int, lo, n int32) {
	r := f.runs[i]
	hi := lo + n
	switch {
	case r.Lo == lo && r.Hi == hi:
		f.runs = slices.Delete(f.runs, i, i+1)
	case r.Lo == lo:
		f.runs[i].Lo = hi
	case r.Hi == hi:
		f.runs[i].Hi = lo
	default:
		f.runs[i].Hi = lo
		f.runs = slices.Insert(f.runs, i+1, Range{hi, r.Hi})
	}
	f.free -= int(n)
}

// takeSorted removes ascending, disjoint rs, each inside one free run,
// in one sweep of the runs from the first that rs meets: the runs that
// take's calls, one per range, would leave, in O(len(runs) + len(rs)).
func (f *freeList) takeSorted(rs []Range) {
	if len(rs) == 0 {
		return
	}
	i := sort.Search(len(f.runs), func(k int) bool { return f.runs[k].Hi > rs[0].Lo })
	out := append(f.tmp[:0], f.runs[:i]...)
	j := 0
	for ; i < len(f.runs); i++ {
		r := f.runs[i]
		for j < len(rs) && rs[j].Lo < r.Hi { // rs[j] lies in r
			if r.Lo < rs[j].Lo {
				out = append(out, Range{r.Lo, rs[j].Lo})
			}
			r.Lo = rs[j].Hi
			f.free -= int(rs[j].Len())
			j++
		}
		if r.Lo < r.Hi {
			out = append(out, r)
		}
	}
	f.tmp, f.runs = f.runs, out
}

// takeNode takes need free processors in [lo, hi) (a node's processors,
// which must have that many free), lowest first, and appends them to dst,
// extending its last range where they continue it.
func (f *freeList) takeNode(lo, hi, need int32, dst []Range) []Range {
	for need > 0 {
		i := sort.Search(len(f.runs), func(i int) bool { return f.runs[i].Hi > lo })
		r := f.runs[i] // the node has need free processors at or after lo
		s := max(r.Lo, lo)
		take := min(min(r.Hi, hi)-s, need)
		f.take(i, s, take)
		if m := len(dst); m > 0 && dst[m-1].Hi == s {
			dst[m-1].Hi = s + take
		} else {
			dst = append(dst, Range{s, s + take})
		}
		need -= take
		lo = s + take
	}
	return dst
}

// Release returns rs to the free list, coalescing neighbours. A job that
// holds several ranges in ascending order (a scattered allocation) is
// merged in one linear pass instead of one insertion per range.
func (f *freeList) Release(rs []Range) {
	if len(rs) > 2 && rangesAscending(rs) {
		f.merge(rs)
		return
	}
	for _, r := range rs {
		i := sort.Search(len(f.runs), func(k int) bool { return f.runs[k].Lo >= r.Hi })
		// f.runs[i-1] (if any) ends at or before r.Lo.
		joinLeft := i > 0 && f.runs[i-1].Hi == r.Lo
		joinRight := i < len(f.runs) && f.runs[i].Lo == r.Hi
		switch {
		case joinLeft && joinRight:
			f.runs[i-1].Hi = f.runs[i].Hi
			f.runs = slices.Delete(f.runs, i, i+1)
		case joinLeft:
			f.runs[i-1].Hi = r.Hi
		case joinRight:
			f.runs[i].Lo = r.Lo
		default:
			f.runs = slices.Insert(f.runs, i, r)
		}
		f.free += int(r.Len())
	}
}

func rangesAscending(rs []Range) bool {
	for i := 1; i < len(rs); i++ {
		if rs[i].Lo < rs[i-1].Hi {
			return false
		}
	}
	return true
}

// merge releases ascending, disjoint rs (none of it free) by merging it
// with runs, coalescing touching runs: the same set Release's insertions
// build, in O(len(runs) + len(rs)).
func (f *freeList) merge(rs []Range) {
	out := f.tmp[:0]
	add := func(r Range) {
		if n := len(out); n > 0 && out[n-1].Hi == r.Lo {
			out[n-1].Hi = r.Hi
			return
		}
		out = append(out, r)
	}
	i, j := 0, 0
	for i < len(f.runs) || j < len(rs) {
		if j == len(rs) || (i < len(f.runs) && f.runs[i].Lo < rs[j].Lo) {
			add(f.runs[i])
			i++
		} else {
			add(rs[j])
			f.free += int(rs[j].Len())
			j++
		}
	}
	f.tmp, f.runs = f.runs, out
}

// Contiguous is first fit along the processor order: the first free run
// that holds the whole job, otherwise the lowest-numbered free processors.
type Contiguous struct{ freeList }

var _ Allocator = (*Contiguous)(nil)

// NewContiguous returns the contiguous placement.
func NewContiguous(cfg PlacementConfig) (Allocator, error) {
	return &Contiguous{newFreeList(cfg.Procs)}, nil
}

func (*Contiguous) Name() string { return "contiguous" }

func (c *Contiguous) Alloc(n int, dst []Range) ([]Range, bool) {
	if n <= 0 || n > c.free {
		return dst, false
	}
	for i, r := range c.runs {
		if int(r.Len()) >= n {
			c.take(i, r.Lo, int32(n))
			return append(dst, Range{r.Lo, r.Lo + int32(n)}), true
		}
	}
	for left := int32(n); left > 0; {
		r := c.runs[0]
		k := min(left, r.Len())
		c.take(0, r.Lo, k)
		dst = append(dst, Range{r.Lo, r.Lo + k})
		left -= k
	}
	return dst, true
}
