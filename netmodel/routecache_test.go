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
