package netmodel

import (
	"fmt"
	"math/rand/v2"
	"slices"
)

// Placement names for Place. The cluster package owns the real placement
// policies; these place one job on an empty machine for `drsim net predict`
// and for tests.
var Placements = []string{"contiguous", "scattered", "topology"}

// Place returns n nodes of t for one job on the empty machine:
//
//	contiguous  the first n nodes of the node order (the compact reference)
//	scattered   n distinct nodes drawn uniformly at random
//	topology    from a random start node: its group first, then the following
//	            groups in turn; within a group fewest hops, then index
func Place(t *Topology, n int, kind string, rng *rand.Rand) ([]int32, error) {
	if n < 1 || n > t.Nodes() {
		return nil, fmt.Errorf("netmodel: cannot place %d nodes on %s (%d nodes)", n, t.Name, t.Nodes())
	}
	switch kind {
	case "contiguous":
		return slices.Clone(t.order[:n]), nil
	case "scattered":
		perm := rng.Perm(t.Nodes())
		out := make([]int32, n)
		for i := range out {
			out[i] = int32(perm[i])
		}
		return out, nil
	case "topology":
		start := int32(rng.IntN(t.Nodes()))
		all := slices.Clone(t.order)
		dist := make([]int32, len(all))
		g, G := t.nodeGroup[start], t.groups
		for i, v := range all {
			rank := (t.nodeGroup[v] - g + G) % G // whole groups in turn, the start's first
			dist[i] = rank<<20 + int32(t.Hops(start, v))
		}
		slices.SortStableFunc(all, func(a, b int32) int { return int(dist[a] - dist[b]) })
		return all[:n], nil
	}
	return nil, fmt.Errorf("netmodel: unknown placement %q (known: contiguous, scattered, topology)", kind)
}
