package netmodel

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// translate returns nodes moved to a random corner of the torus at which
// none of their router coordinates wraps (so with nodes' canonical form),
// and the corners of both; nodes themselves on other shapes.
func translate(t *Topology, nodes []int32, rng *rand.Rand) (moved []int32, from, to uint64) {
	s, ok := t.shape.(*torus)
	if !ok || s.packed == nil || len(nodes) == 0 {
		return slices.Clone(nodes), 0, 0
	}
	from = s.corner(nodes)
	for i, d := range s.dims {
		top := int32(0) // the largest coordinate above the corner
		for _, n := range nodes {
			top = max(top, int32(s.packed[n]>>(8*i)&0xff)-int32(from>>(8*i)&0xff))
		}
		to |= uint64(rng.Int32N(d-top)) << (8 * i)
	}
	shift := s.nodeShift(to) - s.nodeShift(from)
	for _, n := range nodes {
		moved = append(moved, n+shift)
	}
	return moved, from, to
}

// moveLinks turns the route of every pair of a placement into the route of
// the same pair of a translate, link for link in order: on every preset
// torus and small tori (rings of 1 and 2, three nodes per router, a ring
// of 2 next to longer ones), with random placements and corners, so with
// routes that wrap. Fails with a wrap taken one coordinate late, or node
// links moved like router links.
func TestMoveLinksMatchesRoute(t *testing.T) {
	tops := []*Topology{mustPreset(t, "hopper"), mustPreset(t, "mira")}
	for _, s := range []Spec{
		{Kind: "torus", Dims: []int{1, 2, 3, 4}, NodesPerRouter: 3, LinkGBs: 1, DimGBs: []float64{4, 3, 2, 1}},
		{Kind: "torus", Dims: []int{5, 7}, NodesPerRouter: 1, LinkGBs: 2, NodeGBs: 1},
		{Kind: "torus", Dims: []int{6, 2, 5}, NodesPerRouter: 2, LinkGBs: 1},
	} {
		tops = append(tops, mustBuild(t, s))
	}
	rng := rand.New(rand.NewPCG(3, 11))
	pairs, moved := 0, 0
	for _, tp := range tops {
		for trial := 0; trial < 300; trial++ {
			P := 1 + rng.IntN(min(12, tp.Nodes()))
			var nodes []int32
			if trial%2 == 0 { // a compact corner: translates reach far
				base := rng.Int32N(int32(tp.Nodes()))
				for k := range P {
					nodes = append(nodes, (base+int32(k))%int32(tp.Nodes()))
				}
				slices.Sort(nodes)
				nodes = slices.Compact(nodes)
			} else {
				for _, k := range rng.Perm(tp.Nodes())[:P] {
					nodes = append(nodes, int32(k))
				}
			}
			dst, from, to := translate(tp, nodes, rng)
			if from != to {
				moved++
			}
			for a := range nodes {
				for b := range nodes {
					got := tp.Route(nodes[a], nodes[b], nil)
					tp.moveLinks(got, from, to)
					if want := tp.Route(dst[a], dst[b], nil); !slices.Equal(got, want) {
						t.Fatalf("%s: route %d→%d moved from corner %x to %x: %v, route %d→%d: %v", tp.Name, nodes[a], nodes[b], from, to, got, dst[a], dst[b], want)
					}
					pairs++
				}
			}
		}
	}
	if moved < 1000 {
		t.Errorf("%d placements moved, want at least 1,000", moved)
	}
	t.Logf("%d pairs", pairs)
}

// countFlows counts, link for link and in first-seen order, what Route
// gives for each flow: random flows (some from a node to itself, which
// route nowhere) on the preset tori and small ones, wrapping routes
// included. Fails with a ring step taken before its link is counted, or
// a flow to itself counted.
func TestCountFlowsMatchesRoute(t *testing.T) {
	tops := []*Topology{mustPreset(t, "hopper"), mustPreset(t, "mira")}
	for _, s := range []Spec{
		{Kind: "torus", Dims: []int{1, 2, 3, 4}, NodesPerRouter: 3, LinkGBs: 1},
		{Kind: "torus", Dims: []int{5, 7}, NodesPerRouter: 1, LinkGBs: 2, NodeGBs: 1},
	} {
		tops = append(tops, mustBuild(t, s))
	}
	rng := rand.New(rand.NewPCG(9, 2))
	for _, tp := range tops {
		s := tp.shape.(*torus)
		count, want := make([]int32, len(tp.links)), make([]int32, len(tp.links))
		for trial := 0; trial < 200; trial++ {
			var flows []Flow
			for range 1 + rng.IntN(40) {
				a := rng.Int32N(int32(tp.Nodes()))
				b := a
				if rng.IntN(8) > 0 {
					b = rng.Int32N(int32(tp.Nodes()))
				}
				flows = append(flows, Flow{a, b})
			}
			got := s.countFlows(flows, count, nil)
			var order []int32
			for _, f := range flows {
				for _, gl := range tp.Route(f.Src, f.Dst, nil) {
					if want[gl] == 0 {
						order = append(order, gl)
					}
					want[gl]++
				}
			}
			if !slices.Equal(got, order) {
				t.Fatalf("%s: links %v, routes %v", tp.Name, got, order)
			}
			for _, gl := range order {
				if count[gl] != want[gl] {
					t.Fatalf("%s: link %d counted %d, routes cross it %d times", tp.Name, gl, count[gl], want[gl])
				}
				count[gl], want[gl] = 0, 0
			}
			if slices.ContainsFunc(count, func(c int32) bool { return c != 0 }) {
				t.Fatalf("%s: a link counted that no route crosses", tp.Name)
			}
		}
	}
}
