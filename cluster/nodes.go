package cluster

import "math"

// NodeState is a node's power state.
type NodeState uint8

const (
	NodeIdle    NodeState = iota // powered on, no processor allocated
	NodeBusy                     // powered on, some processor allocated
	NodeOff                      // suspended (powered off)
	NodeBooting                  // resuming: powered, not yet usable
)

var nodeStateNames = [...]string{"idle", "busy", "off", "booting"}

func (s NodeState) String() string {
	if int(s) < len(nodeStateNames) {
		return nodeStateNames[s]
	}
	return "unknown"
}

// Nodes wraps an Allocator and keeps, per node, the number of allocated
// processors, the power state and a generation. Node k holds processors
// [k·ppn, (k+1)·ppn) (the last node may be smaller). Placement is the
// wrapped allocator's, unchanged: it ignores power states.
//
// Alloc and Release update occupancy and the occupancy-driven transitions
// (idle ⇄ busy); the caller drives the power transitions (Suspend, Boot,
// Up) and reads what an allocation or a release left it to do:
//
//   - Wake lists the off nodes the last Alloc calls took (they must boot),
//     Wait is the latest boot end among the booting nodes the last Alloc
//     touched (−Inf if none). ClearWake empties the list.
//   - Freed lists the nodes whose last processor was released (now idle, or
//     still booting); ClearFreed empties it.
//
// A node's generation changes whenever it gets its first processor, so a
// suspend timer armed when it became idle is stale once it is reused.
// Nodes does no work per node beyond the nodes an allocation touches.
type Nodes struct {
	inner Allocator
	ppn   int32
	procs int32
	used  []int32
	state []NodeState
	gen   []uint32
	end   []float64 // boot end of booting nodes

	wake, freed []int32
	wait        float64
	off, boot   int
}

var _ Allocator = (*Nodes)(nil)

// NewNodes wraps a (an allocator of procs processors) with nodes of ppn
// processors (0 means 1). Every node starts idle.
func NewNodes(a Allocator, procs, ppn int) *Nodes {
	if ppn <= 0 {
		ppn = 1
	}
	n := (procs + ppn - 1) / ppn
	return &Nodes{inner: a, ppn: int32(ppn), procs: int32(procs), used: make([]int32, n),
		state: make([]NodeState, n), gen: make([]uint32, n), end: make([]float64, n), wait: math.Inf(-1)}
}

func (n *Nodes) Name() string { return n.inner.Name() }
func (n *Nodes) Total() int   { return n.inner.Total() }
func (n *Nodes) Free() int    { return n.inner.Free() }

// Alloc allocates through the wrapped allocator and records, per node, the
// processors taken; see Nodes for Wake and Wait.
func (n *Nodes) Alloc(k int, dst []Range) ([]Range, bool) {
	start := len(dst)
	dst, ok := n.inner.Alloc(k, dst)
	n.wait = math.Inf(-1)
	if !ok {
		return dst, false
	}
	for _, r := range dst[start:] {
		for lo := r.Lo; lo < r.Hi; {
			node := lo / n.ppn
			hi := min(r.Hi, (node+1)*n.ppn)
			n.take(node, hi-lo)
			lo = hi
		}
	}
	return dst, true
}

// Release gives rs back to the wrapped allocator; nodes left without
// allocated processors go to Freed (and from busy to idle).
func (n *Nodes) Release(rs []Range) {
	n.inner.Release(rs)
	for _, r := range rs {
		for lo := r.Lo; lo < r.Hi; {
			node := lo / n.ppn
			hi := min(r.Hi, (node+1)*n.ppn)
			n.give(node, hi-lo)
			lo = hi
		}
	}
}

// take records cnt processors of node allocated.
func (n *Nodes) take(node, cnt int32) {
	if n.used[node] == 0 {
		n.gen[node]++
		switch n.state[node] {
		case NodeIdle:
			n.state[node] = NodeBusy
		case NodeOff:
			n.wake = append(n.wake, node)
		}
	}
	if n.state[node] == NodeBooting {
		n.wait = math.Max(n.wait, n.end[node])
	}
	n.used[node] += cnt
}

// give records cnt processors of node released.
func (n *Nodes) give(node, cnt int32) {
	n.used[node] -= cnt
	if n.used[node] == 0 {
		if n.state[node] == NodeBusy {
			n.state[node] = NodeIdle
		}
		n.freed = append(n.freed, node)
	}
}

// Len returns the number of nodes.
func (n *Nodes) Len() int { return len(n.used) }

// Size returns the number of processors of node k.
func (n *Nodes) Size(k int32) int { return int(min(n.ppn, n.procs-k*n.ppn)) }

// State returns node k's power state.
func (n *Nodes) State(k int32) NodeState { return n.state[k] }

// Used returns the processors allocated on node k.
func (n *Nodes) Used(k int32) int { return int(n.used[k]) }

// Gen returns node k's generation.
func (n *Nodes) Gen(k int32) uint32 { return n.gen[k] }

// BootEnd returns when booting node k is up.
func (n *Nodes) BootEnd(k int32) float64 { return n.end[k] }

// Off and Booting count the nodes in those states; Down is their sum.
func (n *Nodes) Off() int     { return n.off }
func (n *Nodes) Booting() int { return n.boot }
func (n *Nodes) Down() int    { return n.off + n.boot }

// Wake returns the off nodes taken since the last ClearWake.
func (n *Nodes) Wake() []int32 { return n.wake }

// ClearWake empties Wake.
func (n *Nodes) ClearWake() { n.wake = n.wake[:0] }

// Wait returns the latest boot end among the booting nodes the last Alloc
// touched, or −Inf.
func (n *Nodes) Wait() float64 { return n.wait }

// Freed returns the nodes left without processors since the last
// ClearFreed (a node may appear again, or be in use again, by now).
func (n *Nodes) Freed() []int32 { return n.freed }

// ClearFreed empties Freed.
func (n *Nodes) ClearFreed() { n.freed = n.freed[:0] }

// Suspend powers idle node k off; it reports false, changing nothing,
// unless k is idle.
func (n *Nodes) Suspend(k int32) bool {
	if n.state[k] != NodeIdle || n.used[k] != 0 {
		return false
	}
	n.state[k] = NodeOff
	n.off++
	return true
}

// Boot starts resuming off node k, up at end; it reports false, changing
// nothing, unless k is off.
func (n *Nodes) Boot(k int32, end float64) bool {
	if n.state[k] != NodeOff {
		return false
	}
	n.state[k], n.end[k] = NodeBooting, end
	n.off--
	n.boot++
	return true
}

// Up ends booting node k's boot: it becomes busy, or idle without
// allocated processors. It reports false, changing nothing, unless k is
// booting.
func (n *Nodes) Up(k int32) bool {
	if n.state[k] != NodeBooting {
		return false
	}
	n.state[k] = NodeIdle
	if n.used[k] > 0 {
		n.state[k] = NodeBusy
	}
	n.boot--
	return true
}
