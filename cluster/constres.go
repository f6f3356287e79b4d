package cluster

import (
	"cmp"
	"slices"
	"sort"
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
	order []int32 // runs not taken, most free first (choose)
}

// coreRun is a run of candidate nodes [lo, hi) with sum free cores.
type coreRun struct {
	lo, hi, sum int32
	taken       bool
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
	// The first choice reads every run. A run with rem free ends the
	// choice (it holds the rest); until one has, each choice is the run
	// with the most free cores left, so after a first choice without
	// enough the runs left are put in that order once (most free first,
	// the first on a tie), and each choice is the next of them, or the
	// last with rem free or more (the fewest such, and of those the
	// first): the choices SelectCores' rules make, without reading every
	// run at every choice.
	order, next := s.order[:0], -1
	for rem > 0 {
		b := -1
		if next < 0 {
			bestSuff := false
			for k, r := range s.runs {
				suff := r.sum >= rem
				if b < 0 || suff && !bestSuff || suff && r.sum < s.runs[b].sum || !suff && !bestSuff && r.sum > s.runs[b].sum {
					b, bestSuff = k, suff
				}
			}
			if !bestSuff {
				for k := range s.runs {
					if k != b {
						order = append(order, int32(k))
					}
				}
				slices.SortFunc(order, func(x, y int32) int {
					if c := cmp.Compare(s.runs[y].sum, s.runs[x].sum); c != 0 {
						return c
					}
					return cmp.Compare(x, y)
				})
				next = 0
			}
		} else {
			left := order[next:]
			if s.runs[left[0]].sum < rem {
				b = int(left[0])
				next++
			} else {
				// The last run with rem free or more has the fewest;
				// the first with as many is the first of them.
				j := sort.Search(len(left), func(i int) bool { return s.runs[left[i]].sum < rem }) - 1
				least := s.runs[left[j]].sum
				i := sort.Search(j+1, func(i int) bool { return s.runs[left[i]].sum <= least })
				b = int(left[i])
			}
		}
		r := &s.runs[b]
		r.taken = true
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
	}
	// In node order (a large job on a machine of many nodes takes
	// thousands, out of order).
	slices.SortFunc(dst[base:], func(a, b NodeTake) int { return cmp.Compare(a.Node, b.Node) })
	return dst, true
}

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
