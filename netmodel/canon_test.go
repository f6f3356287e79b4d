package netmodel

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// refCanonical is Topology.Canonical computed the plain way: each node's
// router coordinates by division, each dimension's smallest coordinate
// subtracted, the node rebuilt on its router's place. Tori whose
// coordinates are not packed, and the other shapes, are left as they are.
func refCanonical(t *Topology, nodes []int32) []int32 {
	s, ok := t.shape.(*torus)
	if !ok || s.packed == nil || len(nodes) == 0 {
		return slices.Clone(nodes)
	}
	coord := func(n int32, i int) int32 { return n / s.npr / s.stride[i] % s.dims[i] }
	out := make([]int32, len(nodes))
	for k, n := range nodes {
		r := int32(0)
		for i := range s.dims {
			lo := coord(nodes[0], i)
			for _, m := range nodes {
				lo = min(lo, coord(m, i))
			}
			r += (coord(n, i) - lo) * s.stride[i]
		}
		out[k] = r*s.npr + n%s.npr
	}
	return out
}

// Canonical matches the plain computation; every pair of the canonical
// placement routes with the hops and bottleneck of the same pair of the
// original, so CommTime is the same bit for bit; and a placement moved by
// any translation of the torus that wraps no coordinate has the same
// canonical form. On every preset and on small tori (rings of 1 and 2,
// several nodes per router, one ring too long to pack).
func TestCanonical(t *testing.T) {
	var tops []*Topology
	for _, name := range PresetNames() {
		tops = append(tops, mustPreset(t, name))
	}
	for _, s := range []Spec{
		{Kind: "torus", Dims: []int{1, 2, 3, 4}, NodesPerRouter: 3, LinkGBs: 1, DimGBs: []float64{4, 3, 2, 1}},
		{Kind: "torus", Dims: []int{5, 7}, NodesPerRouter: 1, LinkGBs: 2, NodeGBs: 1},
		{Kind: "torus", Dims: []int{130, 3}, NodesPerRouter: 2, LinkGBs: 1},
	} {
		tops = append(tops, mustBuild(t, s))
	}
	rng := rand.New(rand.NewPCG(5, 17))
	moved := 0
	for _, tp := range tops {
		m, err := NewModel(tp, Config{})
		if err != nil {
			t.Fatal(err)
		}
		N := tp.Nodes()
		for it := 0; it < 300; it++ {
			P := 1 + rng.IntN(min(N, 80))
			nodes := make([]int32, P)
			if it%2 == 0 { // a run of the node order, as a contiguous allocation
				o := rng.IntN(N - P + 1)
				for i := range nodes {
					nodes[i] = int32(o + i)
				}
			} else {
				span := min(N, []int{40, 300, N}[it%3])
				for i := range nodes {
					nodes[i] = int32(rng.IntN(span))
				}
			}
			where := fmt.Sprintf("%s it %d nodes %v", tp.Name, it, nodes)
			c := tp.Canonical(nodes, []int32{-5})
			if c[0] != -5 {
				t.Fatalf("%s: Canonical did not append to dst", where)
			}
			c = c[1:]
			if want := refCanonical(tp, nodes); !slices.Equal(c, want) {
				t.Fatalf("%s: Canonical %v, reference %v", where, c, want)
			}
			if !slices.Equal(c, nodes) {
				moved++
			}
			for i := range nodes {
				for j := range nodes {
					h, bw := tp.shape.path(nodes[i], nodes[j])
					if ch, cbw := tp.shape.path(c[i], c[j]); ch != h || math.Float64bits(cbw) != math.Float64bits(bw) {
						t.Fatalf("%s: pair %d,%d: path (%d, %v), canonical (%d, %v)", where, i, j, h, bw, ch, cbw)
					}
				}
			}
			for _, pat := range []Pattern{PointToPoint, Allreduce, Broadcast, AllToAll, Halo3D} {
				for _, size := range []float64{8, 1 << 20} {
					if a, b := m.CommTime(nodes, pat, size, 0.7), m.CommTime(c, pat, size, 0.7); math.Float64bits(a) != math.Float64bits(b) {
						t.Fatalf("%s: %v size %v: CommTime %v, canonical %v", where, pat, size, a, b)
					}
				}
			}
			if s, ok := tp.shape.(*torus); ok && s.packed != nil {
				// Move the canonical placement by a translation that
				// wraps nothing: the canonical form is the same.
				shift := int32(0)
				for i, d := range s.dims {
					hi := int32(0)
					for _, n := range c {
						hi = max(hi, n/s.npr/s.stride[i]%d)
					}
					shift += int32(rng.IntN(int(d-hi))) * s.stride[i]
				}
				tr := make([]int32, len(c))
				for i, n := range c {
					tr[i] = n + shift*s.npr
				}
				if got := tp.Canonical(tr, nil); !slices.Equal(got, c) {
					t.Fatalf("%s: translated by %d routers to %v: canonical %v, want %v", where, shift, tr, got, c)
				}
			}
		}
	}
	if moved == 0 {
		t.Fatal("no placement was moved")
	}
}
