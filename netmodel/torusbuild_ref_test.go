package netmodel

import (
	"slices"
	"testing"
)

// refTorusTables are NewTorus's router links and coordinate table as it
// built them before the coordinates were counted up (commit 1b0a329):
// every coordinate divided out of its router number, every neighbour by
// a modulo. The oracle of TestNewTorusMatchesReference.
func refTorusTables(s *torus, nodes int32) (links []Link, coord []int32) {
	R := s.n / s.npr
	D := int32(len(s.dims))
	links = make([]Link, R*D*2)
	for r := int32(0); r < R; r++ {
		for i := int32(0); i < D; i++ {
			d := s.dims[i]
			c := (r / s.stride[i]) % d
			for dir := int32(0); dir < 2; dir++ {
				if d == 1 || (d == 2 && dir == 1) {
					continue
				}
				nc := (c + 1) % d
				if dir == 1 {
					nc = (c + d - 1) % d
				}
				to := r + (nc-c)*s.stride[i]
				links[(r*D+i)*2+dir] = Link{From: nodes + r, To: nodes + to, BW: s.bw[i]}
			}
		}
	}
	coord = make([]int32, R*D)
	for r := int32(0); r < R; r++ {
		for i := int32(0); i < D; i++ {
			coord[r*D+i] = (r / s.stride[i]) % s.dims[i]
		}
	}
	return links, coord
}

// NewTorus gives the reference's router links (ends and bandwidths, the
// absent minus links of rings of one and two left zero) and router
// coordinates, on the torus presets and on tori with rings of 1, 2, odd
// and even length, and node links from each node to its router and back.
func TestNewTorusMatchesReference(t *testing.T) {
	tops := []*Topology{mustPreset(t, "hopper"), mustPreset(t, "mira")}
	for _, s := range []Spec{
		{Kind: "torus", Dims: []int{1, 2, 3, 4}, NodesPerRouter: 3, LinkGBs: 1, DimGBs: []float64{4, 3, 2, 1}},
		{Kind: "torus", Dims: []int{5, 7}, NodesPerRouter: 1, LinkGBs: 2, NodeGBs: 1},
		{Kind: "torus", Dims: []int{2, 2, 2}, NodesPerRouter: 2, LinkGBs: 1},
		{Kind: "torus", Dims: []int{3, 1, 2, 1}, NodesPerRouter: 1, LinkGBs: 1},
		{Kind: "torus", Dims: []int{130, 3}, NodesPerRouter: 2, LinkGBs: 1},
	} {
		tops = append(tops, mustBuild(t, s))
	}
	for _, tp := range tops {
		s := tp.shape.(*torus)
		links, coord := refTorusTables(s, tp.nodes)
		if got := tp.links[s.linkOff:]; !slices.Equal(got, links) {
			for k := range links {
				if got[k] != links[k] {
					t.Fatalf("%s %v: router link %d is %+v, reference %+v", tp.Name, s.dims, k, got[k], links[k])
				}
			}
			t.Fatalf("%s %v: %d router links, reference %d", tp.Name, s.dims, len(got), len(links))
		}
		if !slices.Equal(s.coord, coord) {
			t.Fatalf("%s %v: coordinate table differs from the reference", tp.Name, s.dims)
		}
		for n := int32(0); n < tp.nodes; n++ {
			r := tp.nodes + n/s.npr
			if tp.links[2*n] != (Link{n, r, s.nodeBW}) || tp.links[2*n+1] != (Link{r, n, s.nodeBW}) {
				t.Fatalf("%s %v: node %d's links %+v %+v", tp.Name, s.dims, n, tp.links[2*n], tp.links[2*n+1])
			}
		}
	}
}
