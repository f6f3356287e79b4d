package netmodel

import (
	"fmt"
	"sort"
	"strings"
)

// Link is one direction of a physical link. Vertices 0..Nodes()-1 are compute
// nodes and Nodes()+s is switch/router s. A link with BW 0 is a placeholder
// (for example the unused "minus" direction of a torus ring of two) and is not
// counted or routed over.
type Link struct {
	From, To int32
	BW       float64 // bytes/s
}

// shape is what each topology kind implements: routing, hop counts and the
// closed forms used by Info. Nodes are topology node indices.
type shape interface {
	// hops is the number of switch-to-switch (router-to-router) links on the
	// routed path from a to b; 0 for two nodes on the same switch.
	hops(a, b int32) int
	// path returns hops(a,b) and the bottleneck bandwidth of the routed path,
	// node links included, without building the route (no allocation).
	path(a, b int32) (hops int, bw float64)
	// route appends the directed link ids of the routed path a→b to dst.
	route(a, b int32, dst []int32) []int32
	// hopStats returns the min, mean and max of hops over ordered pairs of
	// distinct nodes, and whether the figures are exact.
	hopStats() (lo int, mean float64, hi int, exact bool)
	// bisection is the bisection bandwidth in bytes/s, one direction.
	bisection(links []Link) float64
}

// Topology is an interconnect built as a graph of nodes, switches/routers and
// directed links, with a deterministic routing function. It is immutable after
// construction and safe for concurrent use.
type Topology struct {
	Name string
	Kind string // fat-tree, dragonfly or torus

	nodes, switches, groups int32
	links                   []Link
	nodeSwitch              []int32 // switch index of each node's attachment point
	nodeGroup               []int32 // group of each node (dragonfly group, fat-tree pod, 0 for tori)
	nicLat, hopLat          float64 // seconds
	plateau                 float64 // B_eff plateau as a fraction of the path's peak bandwidth
	swLinksPerNode          float64 // directed switch-to-switch links per node
	swBW                    float64 // mean bandwidth of switch-to-switch links
	shape                   shape
	order                   []int32 // 0..nodes−1
	nodeBW                  float64 // node link bandwidth
}

// Nodes is the number of compute nodes; node indices are 0..Nodes()-1 and
// that order is the topology's node order (compact placements take a prefix).
func (t *Topology) Nodes() int { return int(t.nodes) }

// Switches is the number of switches or routers.
func (t *Topology) Switches() int { return int(t.switches) }

// Groups is the number of groups: dragonfly groups, fat-tree pods (subtrees
// below the top level) or 1 for a torus.
func (t *Topology) Groups() int { return int(t.groups) }

// Links returns the directed links (shared; do not modify). Link ids used by
// Route index this slice.
func (t *Topology) Links() []Link { return t.links }

// SwitchOf is the switch/router node n is attached to.
func (t *Topology) SwitchOf(n int32) int32 { return t.nodeSwitch[n] }

// GroupOf is the group of node n.
func (t *Topology) GroupOf(n int32) int32 { return t.nodeGroup[n] }

// NICLatency and HopLatency are the model's latencies in seconds.
func (t *Topology) NICLatency() float64 { return t.nicLat }

// HopLatency is the latency per switch-to-switch link, in seconds.
func (t *Topology) HopLatency() float64 { return t.hopLat }

// Plateau is the large-message bandwidth as a fraction of the path's peak.
func (t *Topology) Plateau() float64 { return t.plateau }

// Hops is the number of switch-to-switch links on the routed path from a to
// b (0 on the same switch or for a == b).
func (t *Topology) Hops(a, b int32) int {
	if a == b {
		return 0
	}
	return t.shape.hops(a, b)
}

// Distance is the number of links on the routed path including the two node
// links: 0 for a == b, otherwise Hops+2.
func (t *Topology) Distance(a, b int32) int {
	if a == b {
		return 0
	}
	return t.shape.hops(a, b) + 2
}

// Route appends the directed link ids of the routed path from a to b to dst.
func (t *Topology) Route(a, b int32, dst []int32) []int32 {
	if a == b {
		return dst
	}
	return t.shape.route(a, b, dst)
}

// Latency is the zero-byte latency 2·L_nic + h·L_hop between distinct nodes.
func (t *Topology) Latency(a, b int32) float64 {
	if a == b {
		return 0
	}
	return 2*t.nicLat + float64(t.shape.hops(a, b))*t.hopLat
}

// Canonical returns a placement whose every ordered pair of ranks has the
// same routed hop count and bottleneck bandwidth as in nodes, so that
// CommTime, CommRatio and the sampled round statistics of the two are the
// same, bit for bit (the same values summed in the same order). On a torus
// it is nodes translated so that each dimension's smallest router
// coordinate is 0; on the other shapes it is nodes. It is appended to dst.
// Placements that differ by such a translation have one canonical form, so
// a cache keyed by it serves them all. Nodes must be valid.
func (t *Topology) Canonical(nodes, dst []int32) []int32 {
	if s, ok := t.shape.(*torus); ok {
		return s.canonical(nodes, dst)
	}
	return append(dst, nodes...)
}

// corner returns a key of nodes' translation and the node shift that
// Canonical subtracts: on a torus with packed coordinates, the smallest
// router coordinate in each dimension, packed; elsewhere 0 and 0 (the
// canonical form is nodes). Nodes must be valid and not empty.
func (t *Topology) corner(nodes []int32) (lo uint64, shift int32) {
	if t.translates() {
		s := t.shape.(*torus)
		lo = s.corner(nodes)
		return lo, s.nodeShift(lo)
	}
	return 0, 0
}

// translates reports whether corner tells translates apart (a torus with
// packed coordinates); elsewhere every corner is 0.
func (t *Topology) translates() bool {
	s, ok := t.shape.(*torus)
	return ok && s.packed != nil
}

// moveLinks rewrites, in place, the route links of a placement with
// corner from into those of its translate with corner to (corners as
// corner returns them, for placements with one canonical form): the links
// Route gives for each translated pair, in the same order.
func (t *Topology) moveLinks(links []int32, from, to uint64) {
	if from != to {
		t.shape.(*torus).moveLinks(links, from, to)
	}
}

// Span counts the distinct switches and groups the node set spans.
func (t *Topology) Span(nodes []int32) (switches, groups int) {
	sw := make(map[int32]struct{}, len(nodes))
	gr := make(map[int32]struct{})
	for _, n := range nodes {
		sw[t.nodeSwitch[n]] = struct{}{}
		gr[t.nodeGroup[n]] = struct{}{}
	}
	return len(sw), len(gr)
}

// CheckNodes reports the first node index out of range. Methods taking node
// indices assume valid ones; callers holding untrusted input check first.
func (t *Topology) CheckNodes(nodes []int32) error {
	for i, n := range nodes {
		if n < 0 || n >= t.nodes {
			return fmt.Errorf("netmodel: node %d (position %d) out of range [0,%d) on %s", n, i, t.nodes, t.Name)
		}
	}
	return nil
}

// finish fills the derived fields shared by all kinds.
func (t *Topology) finish() {
	t.nodeBW = t.links[0].BW
	t.order = make([]int32, t.nodes)
	for i := range t.order {
		t.order[i] = int32(i)
	}
	var n, sum float64
	for _, l := range t.links {
		if l.BW > 0 && l.From >= t.nodes && l.To >= t.nodes {
			n++
			sum += l.BW
		}
	}
	if n > 0 {
		t.swBW = sum / n
		t.swLinksPerNode = n / float64(t.nodes)
	}
}

// Builder constructs a topology of one kind from a Spec.
type Builder func(Spec) (*Topology, error)

// Registry maps kind names to builders.
type Registry map[string]Builder

// Topologies is the table of topology kinds.
var Topologies = Registry{"fat-tree": NewFatTree, "dragonfly": NewDragonfly, "torus": NewTorus}

// New builds the topology for spec.Kind.
func (r Registry) New(s Spec) (*Topology, error) {
	b, ok := r[s.Kind]
	if !ok {
		return nil, fmt.Errorf("netmodel: unknown topology kind %q (known: %s)", s.Kind, strings.Join(r.Names(), ", "))
	}
	return b(s)
}

// Names lists the registry keys, sorted.
func (r Registry) Names() []string {
	names := make([]string, 0, len(r))
	for k := range r {
		names = append(names, k)
	}
	sort.Strings(names)
	return names
}
