package netmodel

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// refFatTreeRoute is the fat tree's route as it was before the subtree
// table (divisions by k^l on every route), kept as the oracle for
// TestFatTreeMatchesReference.
func refFatTreeRoute(s *fatTree, a, b int32, dst []int32) []int32 {
	dst = append(dst, 2*a)
	L := s.n
	for l := int32(1); l < s.n; l++ {
		if a/s.pow[l] == b/s.pow[l] {
			L = l
			break
		}
	}
	ca, cb := a/s.k, int32(0)
	for l := int32(1); l < L; l++ {
		j := (b / s.pow[l-1]) % s.k
		dst = append(dst, s.linkOff+s.idx(l, ca, cb)*s.k+j)
		ca, cb = ca/s.k, cb+j*s.pow[l-1]
	}
	for l := L; l > 1; l-- {
		a2, b2 := b/s.pow[l-1], cb%s.pow[l-2]
		j := cb / s.pow[l-2]
		dst = append(dst, s.linkOff+s.idx(l-1, a2, b2)*s.k+j+s.upCount)
		cb = b2
	}
	return append(dst, 2*b+1)
}

// The table-driven fat-tree route gives the reference's link sequence on
// stampede and on small trees of one to five levels, partly populated, with
// and without the table (routeDiv), appended after a prefix as well.
func TestFatTreeMatchesReference(t *testing.T) {
	tops := []*Topology{mustPreset(t, "stampede")}
	for _, s := range []Spec{
		{Kind: "fat-tree", Ports: 4, Levels: 1, LinkGBs: 1},
		{Kind: "fat-tree", Ports: 4, Levels: 3, LinkGBs: 1},
		{Kind: "fat-tree", Ports: 6, Levels: 4, Nodes: 100, LinkGBs: 1},
		{Kind: "fat-tree", Ports: 2, Levels: 5, LinkGBs: 1},
		{Kind: "fat-tree", Ports: 8, Levels: 5, Nodes: 1500, LinkGBs: 1},
	} {
		tops = append(tops, mustBuild(t, s))
	}
	rng := rand.New(rand.NewPCG(6, 6))
	for _, tp := range tops {
		s := tp.shape.(*fatTree)
		if s.sub == nil {
			t.Fatalf("%s: no subtree table", tp.Name)
		}
		noTable := *s
		noTable.sub = nil
		for it := 0; it < 20000; it++ {
			a, b := int32(rng.IntN(tp.Nodes())), int32(rng.IntN(tp.Nodes()))
			if it%2 == 0 {
				a, b = int32(rng.IntN(min(tp.Nodes(), 120))), int32(rng.IntN(min(tp.Nodes(), 120)))
			}
			where := fmt.Sprintf("%s %d-port %d-tree %d→%d", tp.Name, 2*s.k, s.n, a, b)
			want := refFatTreeRoute(s, a, b, nil)
			if got := s.route(a, b, nil); !slices.Equal(got, want) {
				t.Fatalf("%s: route %v, reference %v", where, got, want)
			}
			if got := noTable.route(a, b, nil); !slices.Equal(got, want) {
				t.Fatalf("%s: route without the table %v, reference %v", where, got, want)
			}
			buf := append(make([]int32, 0, 16), -1, -2, 99, 99)[:2]
			if got, want := s.route(a, b, buf), refFatTreeRoute(s, a, b, []int32{-1, -2}); !slices.Equal(got, want) {
				t.Fatalf("%s: route after a prefix %v, reference %v", where, got, want)
			}
		}
	}
}
