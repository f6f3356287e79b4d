package netmodel

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// refTorus* are the torus's hops, path and route as they were before the
// coordinate table (commit 2d324a5), kept as the oracle for
// TestTorusMatchesReference.
func refRingDelta(ca, cb, d int32) int32 {
	f := (cb - ca + d) % d
	if f <= d-f {
		return f
	}
	return f - d
}

func refAbs32(x int32) int32 {
	if x < 0 {
		return -x
	}
	return x
}

func refTorusHops(s *torus, a, b int32) int {
	ra, rb := a/s.npr, b/s.npr
	h := int32(0)
	for i, d := range s.dims {
		h += refAbs32(refRingDelta((ra/s.stride[i])%d, (rb/s.stride[i])%d, d))
	}
	return int(h)
}

func refTorusPath(s *torus, a, b int32) (int, float64) {
	ra, rb := a/s.npr, b/s.npr
	h, bw := int32(0), s.nodeBW
	for i, d := range s.dims {
		if k := refAbs32(refRingDelta((ra/s.stride[i])%d, (rb/s.stride[i])%d, d)); k > 0 {
			h += k
			bw = math.Min(bw, s.bw[i])
		}
	}
	return int(h), bw
}

func refTorusRoute(s *torus, a, b int32, dst []int32) []int32 {
	dst = append(dst, 2*a)
	r, rb := a/s.npr, b/s.npr
	D := int32(len(s.dims))
	for i, d := range s.dims {
		c := (r / s.stride[i]) % d
		k := refRingDelta(c, (rb/s.stride[i])%d, d)
		dir, step := int32(0), int32(1)
		if k < 0 {
			dir, step, k = 1, -1, -k
		}
		for ; k > 0; k-- {
			dst = append(dst, s.linkOff+(r*D+int32(i))*2+dir)
			nc := (c + step + d) % d
			r += (nc - c) * s.stride[i]
			c = nc
		}
	}
	return append(dst, 2*b+1)
}

// The coordinate-table torus gives the same hops, bottleneck bandwidth
// (bit for bit) and link sequence as the former modulo arithmetic, on the
// torus presets and on small tori with rings of 1, 2, odd and even length,
// with packed coordinates (route over the differing dimensions only) and
// without.
func TestTorusMatchesReference(t *testing.T) {
	tops := []*Topology{mustPreset(t, "hopper"), mustPreset(t, "mira")}
	for _, s := range []Spec{
		{Kind: "torus", Dims: []int{1, 2, 3, 4}, NodesPerRouter: 3, LinkGBs: 1, DimGBs: []float64{4, 3, 2, 1}},
		{Kind: "torus", Dims: []int{5, 7}, NodesPerRouter: 1, LinkGBs: 2, NodeGBs: 1},
		{Kind: "torus", Dims: []int{2, 2, 2}, NodesPerRouter: 2, LinkGBs: 1},
		{Kind: "torus", Dims: []int{130, 3}, NodesPerRouter: 2, LinkGBs: 1}, // too long a ring to pack: route walks every dimension
	} {
		tops = append(tops, mustBuild(t, s))
	}
	rng := rand.New(rand.NewPCG(9, 9))
	for _, tp := range tops {
		s := tp.shape.(*torus)
		for it := 0; it < 20000; it++ {
			a, b := int32(rng.IntN(tp.Nodes())), int32(rng.IntN(tp.Nodes()))
			where := fmt.Sprintf("%s %v %d→%d", tp.Name, s.dims, a, b)
			if got, want := s.hops(a, b), refTorusHops(s, a, b); got != want {
				t.Fatalf("%s: hops %d, reference %d", where, got, want)
			}
			h, bw := s.path(a, b)
			rh, rbw := refTorusPath(s, a, b)
			if h != rh || math.Float64bits(bw) != math.Float64bits(rbw) {
				t.Fatalf("%s: path (%d, %v), reference (%d, %v)", where, h, bw, rh, rbw)
			}
			if got, want := s.route(a, b, nil), refTorusRoute(s, a, b, nil); !slices.Equal(got, want) {
				t.Fatalf("%s: route %v, reference %v", where, got, want)
			}
			// appended after a prefix, into spare capacity holding garbage
			buf := append(make([]int32, 0, 40), -1, -2, 99, 99, 99)[:2]
			if got, want := s.route(a, b, buf), refTorusRoute(s, a, b, []int32{-1, -2}); !slices.Equal(got, want) {
				t.Fatalf("%s: route after a prefix %v, reference %v", where, got, want)
			}
		}
	}
}
