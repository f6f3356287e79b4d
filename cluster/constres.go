package cluster

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
// than n cores are free on usable nodes. It does not allocate beyond dst's
// growth.
func SelectCores(free []int32, usable []bool, n int, dst []NodeTake) ([]NodeTake, bool) {
	ok := func(i int) bool { return free[i] > 0 && (usable == nil || usable[i]) }
	total := 0
	for i := range free {
		if ok(i) {
			total += int(free[i])
		}
	}
	if n <= 0 || total < n {
		return dst, false
	}
	base := len(dst)
	taken := func(i int) bool { // node i is in this job's choice already
		for _, t := range dst[base:] {
			if int(t.Node) == i {
				return true
			}
		}
		return false
	}
	rem := int32(n)
	for rem > 0 {
		// The best run not taken yet: [lo, hi) with sum free cores. A run
		// is taken whole or not at all, so its first node tells.
		bestLo, bestHi, best, bestSuff := -1, -1, int32(0), false
		for i := 0; i < len(free); {
			if !ok(i) {
				i++
				continue
			}
			lo, sum := i, int32(0)
			for ; i < len(free) && ok(i); i++ {
				sum += free[i]
			}
			if taken(lo) {
				continue
			}
			suff := sum >= rem
			if bestLo < 0 || suff && !bestSuff || suff && sum < best || !suff && !bestSuff && sum > best {
				bestLo, bestHi, best, bestSuff = lo, i, sum, suff
			}
		}
		one := -1 // the tightest single node that holds the rest
		for i := bestLo; i < bestHi; i++ {
			if free[i] >= rem && (one < 0 || free[i] < free[one]) {
				one = i
			}
		}
		if one >= 0 {
			dst = append(dst, NodeTake{int32(one), rem})
			break
		}
		for i := bestLo; i < bestHi && rem > 0; i++ {
			c := min(free[i], rem)
			dst = append(dst, NodeTake{int32(i), c})
			rem -= c
		}
	}
	s := dst[base:] // few nodes: an insertion sort, which allocates nothing
	for i := 1; i < len(s); i++ {
		for k := i; k > 0 && s[k].Node < s[k-1].Node; k-- {
			s[k], s[k-1] = s[k-1], s[k]
		}
	}
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
	if c.pick, ok = SelectCores(c.nodes, c.only, n, c.pick[:0]); !ok {
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
