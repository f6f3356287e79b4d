package cluster

import (
	"fmt"
	"math"
	"slices"
)

// NodeTopology says where each machine node sits on the interconnect, for
// topology-aware placement. Machine node k holds processors
// [k·ProcsPerNode, (k+1)·ProcsPerNode). Switch[k] is the switch or router
// node k is attached to and Group[k] its group (dragonfly group, fat-tree
// pod). Ids are any non-negative integers. A nil Switch puts every node on
// one switch; a nil Group puts every switch in one group. The cluster
// package does not know topologies: the caller (scheduler/sim) fills these
// from netmodel.Topology.SwitchOf/GroupOf.
type NodeTopology struct {
	Switch []int32
	Group  []int32
}

// Topology places a job on as few switches, then groups, as it can:
//
//  1. if one switch has enough free processors, the job goes on the switch
//     with the fewest free processors that still holds it (best fit);
//  2. otherwise, if one group has enough, the best-fitting group in the
//     same sense, filled switch by switch from the switch with the most
//     free processors down (fewest switches spanned);
//  3. otherwise groups from the most free down, each filled as in 2.
//
// Ties go to the lowest id; inside a switch, nodes and processors are taken
// in index order. Best fit at the level that holds the job keeps large free
// switches and groups for large jobs (the rule of Slurm's topology/tree
// plugin); most-free-first when a job must span several units minimises the
// units it spans. It is greedy, not an optimal packing.
type Topology struct {
	total, free int
	ppn         int
	busy        []bool    // per processor
	nodeFree    []int32   // free processors per node
	unitOf      []int32   // unit (switch within group) of each node
	unitNodes   [][]int32 // nodes of each unit, ascending
	unitFree    []int32
	unitGroup   []int32
	groupUnits  [][]int32
	groupFree   []int32
	groups      []int32 // scratch: groups being ranked
	units       []int32 // scratch: units being ranked
	pick        []int32 // scratch: chosen processors
}

var _ Allocator = (*Topology)(nil)

// NewTopology returns the topology placement for cfg.Topology.
func NewTopology(cfg PlacementConfig) (Allocator, error) {
	ppn := max(cfg.ProcsPerNode, 1)
	nodes := (cfg.Procs + ppn - 1) / ppn
	sw, gr := cfg.Topology.Switch, cfg.Topology.Group
	if sw != nil && len(sw) != nodes {
		return nil, fmt.Errorf("cluster: topology placement: %d switch ids for %d machine nodes", len(sw), nodes)
	}
	if gr != nil && len(gr) != nodes {
		return nil, fmt.Errorf("cluster: topology placement: %d group ids for %d machine nodes", len(gr), nodes)
	}
	t := &Topology{total: cfg.Procs, free: cfg.Procs, ppn: ppn, busy: make([]bool, cfg.Procs),
		nodeFree: make([]int32, nodes), unitOf: make([]int32, nodes)}
	type key struct{ g, s int32 }
	units := map[key]int32{}
	groups := map[int32]int32{}
	for k := range nodes {
		var id key
		if sw != nil {
			id.s = sw[k]
		}
		if gr != nil {
			id.g = gr[k]
		}
		if id.s < 0 || id.g < 0 {
			return nil, fmt.Errorf("cluster: topology placement: machine node %d has switch %d, group %d; ids must be ≥ 0", k, id.s, id.g)
		}
		g, ok := groups[id.g]
		if !ok {
			g = int32(len(t.groupFree))
			groups[id.g] = g
			t.groupFree = append(t.groupFree, 0)
			t.groupUnits = append(t.groupUnits, nil)
		}
		u, ok := units[id]
		if !ok {
			u = int32(len(t.unitFree))
			units[id] = u
			t.unitFree = append(t.unitFree, 0)
			t.unitNodes = append(t.unitNodes, nil)
			t.unitGroup = append(t.unitGroup, g)
			t.groupUnits[g] = append(t.groupUnits[g], u)
		}
		n := int32(min(ppn, cfg.Procs-k*ppn))
		t.unitOf[k] = u
		t.unitNodes[u] = append(t.unitNodes[u], int32(k))
		t.nodeFree[k] = n
		t.unitFree[u] += n
		t.groupFree[g] += n
	}
	return t, nil
}

func (*Topology) Name() string { return "topology" }
func (t *Topology) Total() int { return t.total }
func (t *Topology) Free() int  { return t.free }

func (t *Topology) Alloc(n int, dst []Range) ([]Range, bool) {
	if n <= 0 || n > t.free {
		return dst, false
	}
	need := int32(n)
	t.pick = t.pick[:0]
	if u := bestFit(t.unitFree, nil, need); u >= 0 {
		t.takeUnit(u, need)
	} else if g := bestFit(t.groupFree, nil, need); g >= 0 {
		t.fillGroup(g, need)
	} else {
		t.groups = mostFree(t.groups[:0], t.groupFree, nil)
		for _, g := range t.groups {
			need = t.takeGroup(g, need)
			if need == 0 {
				break
			}
		}
	}
	slices.Sort(t.pick)
	start := len(dst)
	for _, p := range t.pick {
		dst = appendProc(dst, start, p)
	}
	return dst, true
}

// bestFit returns the index among ids (all indices when ids is nil) with
// the smallest free[i] ≥ need, the lowest on ties, or −1.
func bestFit(free, ids []int32, need int32) int32 {
	best, bf := int32(-1), int32(math.MaxInt32)
	if ids == nil {
		for i, f := range free {
			if f >= need && f < bf {
				best, bf = int32(i), f
			}
		}
		return best
	}
	for _, i := range ids {
		if f := free[i]; f >= need && f < bf {
			best, bf = i, f
		}
	}
	return best
}

// mostFree appends the indices (of ids, or all when nil) with free
// processors to dst, most free first, ties by index.
func mostFree(dst, free, ids []int32) []int32 {
	if ids == nil {
		for i, f := range free {
			if f > 0 {
				dst = append(dst, int32(i))
			}
		}
	} else {
		for _, i := range ids {
			if free[i] > 0 {
				dst = append(dst, i)
			}
		}
	}
	slices.SortStableFunc(dst, func(a, b int32) int { return int(free[b] - free[a]) })
	return dst
}

// takeGroup takes up to need processors from group g: from the
// best-fitting switch if one holds them all, else as fillGroup.
func (t *Topology) takeGroup(g, need int32) int32 {
	if u := bestFit(t.unitFree, t.groupUnits[g], need); u >= 0 {
		return t.takeUnit(u, need)
	}
	return t.fillGroup(g, need)
}

// fillGroup takes up to need processors from group g, switches with the
// most free first, and returns how many are still needed.
func (t *Topology) fillGroup(g, need int32) int32 {
	t.units = mostFree(t.units[:0], t.unitFree, t.groupUnits[g])
	for _, u := range t.units {
		if need = t.takeUnit(u, need); need == 0 {
			break
		}
	}
	return need
}

// takeUnit takes up to need free processors of unit u, in index order, and
// returns how many are still needed.
func (t *Topology) takeUnit(u, need int32) int32 {
	for _, k := range t.unitNodes[u] {
		if need == 0 {
			break
		}
		if t.nodeFree[k] == 0 {
			continue
		}
		lo := int(k) * t.ppn
		hi := min(lo+t.ppn, t.total)
		for p := lo; p < hi && need > 0; p++ {
			if !t.busy[p] {
				t.busy[p] = true
				t.pick = append(t.pick, int32(p))
				t.count(int32(p), -1)
				need--
			}
		}
	}
	return need
}

// count adds d to the free counts of processor p's node, unit and group.
func (t *Topology) count(p, d int32) {
	k := p / int32(t.ppn)
	u := t.unitOf[k]
	t.nodeFree[k] += d
	t.unitFree[u] += d
	t.groupFree[t.unitGroup[u]] += d
	t.free += int(d)
}

func (t *Topology) Release(rs []Range) {
	for _, r := range rs {
		for p := r.Lo; p < r.Hi; p++ {
			if t.busy[p] {
				t.busy[p] = false
				t.count(p, 1)
			}
		}
	}
}
