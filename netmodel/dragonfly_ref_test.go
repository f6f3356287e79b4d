package netmodel

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// refDragonfly* are the dragonfly's route as it was before the router and
// local-index tables (divisions by p, a and cols on every route), kept as
// the oracle for TestDragonflyMatchesReference.
func refDragonflyLocalRoute(s *dragonfly, base, u, v int32, dst []int32) []int32 {
	if u == v {
		return dst
	}
	urow, vrow, vcol := u/s.cols, v/s.cols, v%s.cols
	if urow != vrow && u%s.cols != vcol { // row hop to v's column first
		dst = append(dst, s.linkOff+(base+u)*(s.cols+s.rows)+vcol)
		u = urow*s.cols + vcol
	}
	if u/s.cols == vrow {
		return append(dst, s.linkOff+(base+u)*(s.cols+s.rows)+vcol)
	}
	return append(dst, s.linkOff+(base+u)*(s.cols+s.rows)+s.cols+vrow)
}

func refDragonflyRoute(s *dragonfly, a, b int32, dst []int32) []int32 {
	dst = append(dst, 2*a)
	ra, rb := a/s.p, b/s.p
	ga, gb := ra/s.a, rb/s.a
	if ga == gb {
		dst = refDragonflyLocalRoute(s, ga*s.a, ra%s.a, rb%s.a, dst)
	} else {
		o := (gb - ga + s.g) % s.g
		cand := s.ports[o-1]
		k := cand[(ra+rb)%int32(len(cand))]
		dst = refDragonflyLocalRoute(s, ga*s.a, ra%s.a, k%s.a, dst)
		dst = append(dst, s.globOff+ga*s.a*s.h+k)
		dst = refDragonflyLocalRoute(s, gb*s.a, s.partner(k, o)%s.a, rb%s.a, dst)
	}
	return append(dst, 2*b+1)
}

// The table-driven dragonfly route gives the reference's link sequence on
// edison and on small dragonflies with one row, one column, several groups
// and one group, appended after a prefix as well.
func TestDragonflyMatchesReference(t *testing.T) {
	tops := []*Topology{mustPreset(t, "edison")}
	for _, s := range []Spec{
		{Kind: "dragonfly", Groups: 5, RoutersPerGroup: 6, Rows: 2, NodesPerRouter: 2, GlobalPerRouter: 2, LinkGBs: 1},
		{Kind: "dragonfly", Groups: 9, RoutersPerGroup: 4, NodesPerRouter: 1, GlobalPerRouter: 2, LinkGBs: 1},
		{Kind: "dragonfly", Groups: 3, RoutersPerGroup: 6, Rows: 6, NodesPerRouter: 3, GlobalPerRouter: 1, LinkGBs: 1},
		{Kind: "dragonfly", Groups: 1, RoutersPerGroup: 12, Rows: 3, NodesPerRouter: 2, LinkGBs: 1},
	} {
		tops = append(tops, mustBuild(t, s))
	}
	rng := rand.New(rand.NewPCG(4, 4))
	for _, tp := range tops {
		s := tp.shape.(*dragonfly)
		for it := 0; it < 20000; it++ {
			a, b := int32(rng.IntN(tp.Nodes())), int32(rng.IntN(tp.Nodes()))
			if it%2 == 0 { // the machine's corner, where a simulation's routes fall
				a, b = int32(rng.IntN(min(tp.Nodes(), 120))), int32(rng.IntN(min(tp.Nodes(), 120)))
			}
			where := fmt.Sprintf("%s g=%d a=%d rows=%d %d→%d", tp.Name, s.g, s.a, s.rows, a, b)
			if got, want := s.route(a, b, nil), refDragonflyRoute(s, a, b, nil); !slices.Equal(got, want) {
				t.Fatalf("%s: route %v, reference %v", where, got, want)
			}
			buf := append(make([]int32, 0, 16), -1, -2, 99, 99)[:2]
			if got, want := s.route(a, b, buf), refDragonflyRoute(s, a, b, []int32{-1, -2}); !slices.Equal(got, want) {
				t.Fatalf("%s: route after a prefix %v, reference %v", where, got, want)
			}
		}
	}
}
