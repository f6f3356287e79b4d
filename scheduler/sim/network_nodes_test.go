package sim

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"drsim/cluster"
	"drsim/netmodel"
)

// refNodesOf is the former NetAdapter.nodesOf, kept as the oracle of
// TestNodesOfMatchesReference: node by node, every node against the one
// appended last, every switch and group against the stamps.
func refNodesOf(a *NetAdapter, alloc []cluster.Range, dst []int32) (nodes []int32, sw, gr int, contiguous bool) {
	first, last := int32(-1), int32(-1)
	for _, r := range alloc {
		for k, hi := r.Lo/a.ppn, (r.Hi-1)/a.ppn; k <= hi; k++ {
			if k != last {
				dst = append(dst, a.order[k])
				if first < 0 {
					first = k
				}
				last = k
			}
		}
	}
	t := a.m.Topology()
	seenSw, seenGr := map[int32]bool{}, map[int32]bool{}
	for _, n := range dst {
		seenSw[t.SwitchOf(n)] = true
		seenGr[t.GroupOf(n)] = true
	}
	return dst, len(seenSw), len(seenGr), len(dst) == 0 || int(last-first)+1 == len(dst)
}

// nodesOf gives the former code's nodes and spread figures on random
// allocations: sorted ranges that share a node with the previous one or
// not, ranges within one node, empty ranges, and unsorted ones, on each
// preset with 1, 2 and 24 processors per node.
func TestNodesOfMatchesReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 14))
	for _, name := range netmodel.PresetNames() {
		topo, err := netmodel.Preset(name)
		if err != nil {
			t.Fatal(err)
		}
		m, err := netmodel.NewModel(topo, netmodel.Config{})
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct {
			ppn     int
			stamped bool // as for a node order whose switches interleave
		}{{1, false}, {2, false}, {24, false}, {1, true}, {2, true}} {
			ppn := c.ppn
			a := NewNetAdapter(m, NetApps([]string{"ft"}), ppn, false)
			if a.swRun == nil || a.grRun == nil {
				t.Fatalf("%s: a switch or group has two runs in the node order; the presets have one each", name)
			}
			if c.stamped {
				a.swRun = nil
			}
			procs := int32(min(topo.Nodes(), 2000) * ppn)
			var dst []int32
			for it := 0; it < 400; it++ {
				var alloc []cluster.Range
				at := int32(rng.IntN(int(procs) / 2))
				for n := 1 + rng.IntN(6); n > 0 && at < procs; n-- {
					lo := at
					if it%7 == 3 && lo > 5 {
						lo -= int32(rng.IntN(5)) // unsorted or overlapping
					}
					hi := min(lo+int32(rng.IntN(3*ppn+2)), procs) // may be empty
					alloc = append(alloc, cluster.Range{Lo: lo, Hi: hi})
					at = hi + int32(rng.IntN(2*ppn)) // 0: the next range may share a node
				}
				where := fmt.Sprintf("%s ppn %d stamped %v alloc %v", name, ppn, c.stamped, alloc)
				want, wsw, wgr, wcont := refNodesOf(a, alloc, nil)
				starts, sw0, gr0, nc0 := a.starts, a.switchSum, a.groupSum, a.nonContig
				dst = a.nodesOf(alloc, dst[:0])
				if !slices.Equal(dst, want) {
					t.Fatalf("%s: nodes %v, reference %v", where, dst, want)
				}
				if a.starts != starts+1 {
					t.Fatalf("%s: %d starts after %d", where, a.starts, starts)
				}
				if sw, gr := a.switchSum-sw0, a.groupSum-gr0; sw != float64(wsw) || gr != float64(wgr) {
					t.Fatalf("%s: spans %v switches, %v groups; reference %d, %d", where, sw, gr, wsw, wgr)
				}
				if nc := a.nonContig - nc0; (nc == 1) != !wcont {
					t.Fatalf("%s: non-contiguous %d, reference %v", where, nc, !wcont)
				}
			}
		}
	}
}

// orderRuns numbers runs of equal values and gives up on a value with two.
func TestOrderRuns(t *testing.T) {
	of := func(v []int32) func(int32) int32 { return func(n int32) int32 { return v[n] } }
	order := []int32{0, 1, 2, 3, 4, 5}
	if got := orderRuns(order, of([]int32{0, 0, 2, 2, 2, 1}), 3); !slices.Equal(got, []int32{0, 0, 1, 1, 1, 2}) {
		t.Fatalf("runs %v, want [0 0 1 1 1 2]", got)
	}
	if got := orderRuns([]int32{5, 4, 3}, of([]int32{0, 0, 0, 1, 1, 2}), 3); !slices.Equal(got, []int32{0, 1, 1}) {
		t.Fatalf("runs through the order %v, want [0 1 1]", got)
	}
	if got := orderRuns(order, of([]int32{0, 1, 1, 0, 2, 2}), 3); got != nil {
		t.Fatalf("switch 0 in two runs: runs %v, want nil", got)
	}
}
