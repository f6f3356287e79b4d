package cluster

import (
	"cmp"
	"container/heap"
	"slices"
)

// NodeTake is the cores a job takes on one node.
type NodeTake struct{ Node, Cores int32 }

// SelectCores chooses the nodes of a job of n cores the way Slurm 22.05's
// select/cons_tres (_eval_nodes, no topology, CR_Core) chooses them for a
// job that asks for n tasks of one core and no node count, every node of
// one weight, read in Slurm's job_test.c:
//
//   - the candidates are the usable nodes with a free core (usable nil:
//     every node), grouped into runs of consecutive node indices;
//   - repeatedly, the best run is chosen: among the runs with at least the
//     remaining cores free, the one with the fewest free (the first on a
//     tie); if none has enough, the one with the most (the first on a tie);
//   - in that run, if one node has the remaining cores free, the job takes
//     them on the node with the fewest free cores that does (the first on a
//     tie: a job is kept on one node when it fits); otherwise it takes the
//     run's nodes in index order, each for its free cores up to what
//     remains, and the next best run is chosen for the rest.
//
// free[i] is node i's free cores. It appends the choice to dst in
// ascending node order and reports false, appending nothing, when fewer
// than n cores are free on usable nodes. A CoreSelector makes the same
// choice without allocating.
func SelectCores(free []int32, usable []bool, n int, dst []NodeTake) ([]NodeTake, bool) {
	var s CoreSelector
	return s.SelectCores(free, usable, n, dst)
}

// CoreSelector makes SelectCores' choice, keeping its scratch between
// calls (the zero value is ready): past its first calls it does not
// allocate beyond dst's growth. It lists the runs once, so a choice costs
// one pass over the nodes (or over a list of them: Select) and one over
// the runs per run taken.
type CoreSelector struct {
	runs  []coreRun
	order []int32 // runs not taken: a heap, most free first (choose)
	segs  []int32 // where each run taken starts in the answer (choose)
	idx   []int32 // scratch: segments in node order
	tmp   []NodeTake
}

// coreRun is a run of candidate nodes [lo, hi) with sum free cores.
type coreRun struct {
	lo, hi, sum int32
}

// SelectCores is SelectCores.
func (s *CoreSelector) SelectCores(free []int32, usable []bool, n int, dst []NodeTake) ([]NodeTake, bool) {
	s.runs = s.runs[:0]
	for i := 0; i < len(free); {
		if free[i] <= 0 || usable != nil && !usable[i] {
			i++
			continue
		}
		r := coreRun{lo: int32(i)}
		for ; i < len(free) && free[i] > 0 && (usable == nil || usable[i]); i++ {
			r.sum += free[i]
		}
		r.hi = int32(i)
		s.runs = append(s.runs, r)
	}
	return s.choose(free, n, dst)
}

// Select is SelectCores with the candidates listed: nodes holds, in
// ascending order, every node that may take cores, each with free[i] > 0
// (the other entries of free are not read).
func (s *CoreSelector) Select(free []int32, nodes []int32, n int, dst []NodeTake) ([]NodeTake, bool) {
	s.runs = s.runs[:0]
	for k := 0; k < len(nodes); {
		r := coreRun{lo: nodes[k]}
		for {
			r.sum += free[nodes[k]]
			k++
			if k == len(nodes) || nodes[k] != nodes[k-1]+1 {
				break
			}
		}
		r.hi = nodes[k-1] + 1
		s.runs = append(s.runs, r)
	}
	return s.choose(free, n, dst)
}

// choose makes the choice over s.runs (SelectCores' rules).
func (s *CoreSelector) choose(free []int32, n int, dst []NodeTake) ([]NodeTake, bool) {
	total := 0
	for _, r := range s.runs {
		total += int(r.sum)
	}
	if n <= 0 || total < n {
		return dst, false
	}
	base := len(dst)
	rem := int32(n)
	// Each choice is the run with the fewest free cores of those with rem
	// free or more (the first of them), which ends the choice; else the
	// run with the most (the first on a tie). The first choices read the
	// runs left (s.order, in index order); from the fourth, the runs left
	// go on a heap in that order, and each choice is its top, or, once
	// the top has rem free, the run with the fewest of those with rem or
	// more: SelectCores' rules, without reading every run at each of a
	// large job's choices.
	s.order = s.order[:0]
	for k := range s.runs {
		s.order = append(s.order, int32(k))
	}
	b := s.best(rem)
	h, scans, heaped := runHeap{s}, 1, false
	s.segs = s.segs[:0]
	for {
		r := s.runs[b]
		s.segs = append(s.segs, int32(len(dst)))
		one := int32(-1) // the tightest single node that holds the rest
		for i := r.lo; i < r.hi; i++ {
			if free[i] >= rem && (one < 0 || free[i] < free[one]) {
				one = i
			}
		}
		if one >= 0 {
			dst = append(dst, NodeTake{one, rem})
			break
		}
		for i := r.lo; i < r.hi && rem > 0; i++ {
			c := min(free[i], rem)
			dst = append(dst, NodeTake{i, c})
			rem -= c
		}
		if rem == 0 {
			break
		}
		if scans < 3 {
			b, scans = s.best(rem), scans+1
			continue
		}
		if !heaped {
			heap.Init(h)
			heaped = true
		}
		if top := s.order[0]; s.runs[top].sum < rem {
			b = int(top)
			heap.Pop(h)
			continue
		}
		b = -1
		for _, k := range s.order {
			if x := s.runs[k].sum; x >= rem && (b < 0 || x < s.runs[b].sum || x == s.runs[b].sum && int(k) < b) {
				b = int(k)
			}
		}
	}
	// In node order: each run taken gave a segment in node order, and the
	// runs do not overlap, so the segments are put in order of their
	// first nodes (a large job on a machine of many nodes takes thousands
	// of nodes, in few segments).
	if len(s.segs) > 1 {
		s.segs = append(s.segs, int32(len(dst)))
		s.idx = s.idx[:0]
		for k := range len(s.segs) - 1 {
			s.idx = append(s.idx, int32(k))
		}
		slices.SortFunc(s.idx, func(a, b int32) int { return cmp.Compare(dst[s.segs[a]].Node, dst[s.segs[b]].Node) })
		s.tmp = s.tmp[:0]
		for _, k := range s.idx {
			s.tmp = append(s.tmp, dst[s.segs[k]:s.segs[k+1]]...)
		}
		copy(dst[base:], s.tmp)
	}
	return dst, true
}

// best takes from s.order (in index order) and returns the run chosen
// for rem cores (choose's rules) by reading every run left.
func (s *CoreSelector) best(rem int32) int {
	p, suffB := -1, false
	for q, k := range s.order {
		r := &s.runs[k]
		suff := r.sum >= rem
		if p < 0 {
			p, suffB = q, suff
			continue
		}
		x := s.runs[s.order[p]].sum
		if suff && !suffB || suff && r.sum < x || !suff && !suffB && r.sum > x {
			p, suffB = q, suff
		}
	}
	b := int(s.order[p])
	s.order = slices.Delete(s.order, p, p+1)
	return b
}

// runHeap orders the runs of s.order by most free cores first, the first
// on a tie (container/heap).
type runHeap struct{ s *CoreSelector }

func (h runHeap) Len() int { return len(h.s.order) }
func (h runHeap) Less(i, j int) bool {
	a, b := h.s.order[i], h.s.order[j]
	x, y := h.s.runs[a].sum, h.s.runs[b].sum
	return x > y || x == y && a < b
}
func (h runHeap) Swap(i, j int)   { h.s.order[i], h.s.order[j] = h.s.order[j], h.s.order[i] }
func (h runHeap) Push(x any)      { h.s.order = append(h.s.order, x.(int32)) }
func (h runHeap) Pop() (none any) { h.s.order = h.s.order[:len(h.s.order)-1]; return nil } // the caller read the top

// ConsTres is the placement of a shared-core partition (CR_Core) as Slurm's
// select/cons_tres makes it (SelectCores): it counts each node's free
// cores, chooses a job's nodes by SelectCores and, on each, gives the job
// its lowest free processors. Only limits the nodes of the next
// allocations, as Slurm's backfill starts a job away from the nodes it has
// reserved for others.
type ConsTres struct {
	freeList
	cores int32
	nodes []int32 // free cores per node
	only  []bool  // non-nil: Alloc uses only these nodes
	pick  []NodeTake
	sel   CoreSelector
}

var _ Allocator = (*ConsTres)(nil)

// NewConsTres returns the placement over procs processors in nodes of
// cores processors; procs must be a multiple of cores.
func NewConsTres(procs, cores int) *ConsTres {
	c := &ConsTres{freeList: newFreeList(procs), cores: int32(cores), nodes: make([]int32, procs/cores)}
	for i := range c.nodes {
		c.nodes[i] = int32(cores)
	}
	return c
}

func (*ConsTres) Name() string { return "cons_tres" }

// NodeFree returns the free cores of every node (read only).
func (c *ConsTres) NodeFree() []int32 { return c.nodes }

// Only limits the next allocations to the nodes n with nodes[n] true (nil:
// every node); the caller clears it after the allocation.
func (c *ConsTres) Only(nodes []bool) { c.only = nodes }

// Alloc places a job of n processors on the nodes SelectCores chooses, on
// each its lowest free processors, appended to dst in ascending order.
func (c *ConsTres) Alloc(n int, dst []Range) ([]Range, bool) {
	if n <= 0 || n > c.free {
		return dst, false
	}
	var ok bool
	if c.pick, ok = c.sel.SelectCores(c.nodes, c.only, n, c.pick[:0]); !ok {
		return dst, false
	}
	for _, t := range c.pick {
		dst = c.takeNode(t.Node*c.cores, (t.Node+1)*c.cores, t.Cores, dst)
		c.nodes[t.Node] -= t.Cores
	}
	return dst, true
}

// Release gives back a job's processors.
func (c *ConsTres) Release(rs []Range) {
	c.freeList.Release(rs)
	for _, r := range rs {
		for lo := r.Lo; lo < r.Hi; {
			n := lo / c.cores
			hi := min(r.Hi, (n+1)*c.cores)
			c.nodes[n] += hi - lo
			lo = hi
		}
	}
}
