package netmodel

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// refJobFlows is appendJobFlows as it was before the halo walk kept the
// grid coordinates (commit 89bb6f8): every neighbour from partner, by
// division. The oracle of TestJobFlowsMatchesReference.
func refJobFlows(nodes []int32, pat Pattern) []Flow {
	var out []Flow
	P := len(nodes)
	if P < 2 || pat == NoComm {
		return out
	}
	add := func(i, j int) {
		if nodes[i] != nodes[j] {
			out = append(out, Flow{nodes[i], nodes[j]})
		}
	}
	switch pat {
	case AllToAll:
		shifts := [...]int{1, P / 4, P / 2, 3 * P / 4}
		slices.Sort(shifts[:])
		for k, s := range shifts {
			if k > 0 && s == shifts[k-1] {
				continue
			}
			if s%P != 0 {
				for i := 0; i < P; i++ {
					add(i, (i+s)%P)
				}
			}
		}
	case Halo3D:
		g := factor3(P)
		dims := [3]int{g.x, g.y, g.z}
		for i := 0; i < P; i++ {
			for dir := 0; dir < 6; dir++ {
				if n := dims[dir/2]; n == 1 || (n == 2 && dir&1 == 1) {
					continue
				}
				add(i, partner(i, P, pHalo, dir, 0, g))
			}
		}
	default:
		for i := 0; i < P; i++ {
			add(i, (i+1)%P)
		}
	}
	return out
}

// JobFlows gives the reference's flows in the reference's order for every
// pattern and every job size up to 300 (grids with axes of 1, 2 and more:
// primes, squares, cubes), on distinct nodes and on nodes with repeats
// (flows to the same node left out), appended after a prefix.
func TestJobFlowsMatchesReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(18, 11))
	pats := []Pattern{NoComm, PointToPoint, Allreduce, Broadcast, AllToAll, Halo3D}
	for P := 0; P <= 300; P++ {
		for rep := 0; rep < 2; rep++ {
			nodes := make([]int32, P)
			for i := range nodes {
				nodes[i] = int32(1000 + i)
				if rep == 1 {
					nodes[i] = rng.Int32N(int32(max(1, P/3)))
				}
			}
			for _, pat := range pats {
				want := refJobFlows(nodes, pat)
				if got := JobFlows(nodes, pat); !slices.Equal(got, want) {
					t.Fatalf("P=%d rep=%d %v: %d flows %v, reference %d %v", P, rep, pat, len(got), got, len(want), want)
				}
				prefix := []Flow{{-1, -2}}
				if got := appendJobFlows(prefix, nodes, pat); !slices.Equal(got[1:], want) || got[0] != prefix[0] {
					t.Fatalf("P=%d rep=%d %v: appended after a prefix differs", P, rep, pat)
				}
			}
		}
	}
}
