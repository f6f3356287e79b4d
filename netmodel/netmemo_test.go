package netmodel

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestNetworkMemoMatchesReference drives the Network and the former solver
// (refNetwork) through random adds and removes built to repeat components:
// few job ids (so ids come back, as engine slots do), placements drawn from
// a small pool, and adds undone at once (a job that ends before anything
// else happens). The same changed lists, bit-identical shares and correct
// components are required after every step, and the memo must have served
// both add and remove solves, so the recalled rates and pieces are checked
// against solving. Seen to fail with the memo keyed by ids alone (an id's
// new placement takes the rates of its old one) and with a remove's recall
// leaving the union-find of the last solve (wrong pieces).
func TestNetworkMemoMatchesReference(t *testing.T) {
	ring := mustBuild(t, Spec{Kind: "torus", Dims: []int{6, 5}, LinkGBs: 1, DimGBs: []float64{1, 0.5}})
	tops := []*Topology{ring, mustPreset(t, "hopper"), mustPreset(t, "edison"), mustPreset(t, "stampede")}
	pats := []Pattern{Halo3D, AllToAll, PointToPoint}
	for ti, tp := range tops {
		rng := rand.New(rand.NewPCG(uint64(ti), 18))
		n, ref := NewNetwork(tp), newRefNetwork(tp)
		window := min(tp.Nodes(), 48)
		var pool [][]int32
		for range 10 {
			P := 2 + rng.IntN(12)
			var nodes []int32
			for _, k := range rng.Perm(window)[:P] {
				nodes = append(nodes, tp.NodeOrder()[k])
			}
			pool = append(pool, nodes)
		}
		var live []int32
		check := func(step int, what string) {
			t.Helper()
			if n.Len() != ref.Len() {
				t.Fatalf("%s step %d %s: Len %d, reference %d", tp.Name, step, what, n.Len(), ref.Len())
			}
			for _, id := range live {
				if a, b := n.Share(id), ref.Share(id); math.Float64bits(a) != math.Float64bits(b) {
					t.Fatalf("%s step %d %s: job %d share %v, reference %v", tp.Name, step, what, id, a, b)
				}
			}
			if err := n.checkComponents(); err != nil {
				t.Fatalf("%s step %d %s: %v", tp.Name, step, what, err)
			}
		}
		remove := func(step, i int) {
			t.Helper()
			id := live[i]
			live = slices.Delete(live, i, i+1)
			if got, want := n.Remove(id), ref.Remove(id); !slices.Equal(got, want) {
				t.Fatalf("%s step %d: Remove(%d) changed %v, reference %v", tp.Name, step, id, got, want)
			}
			check(step, "remove")
		}
		for step := range 4000 {
			if len(live) > 0 && (rng.IntN(2) == 0 || len(live) > 9) {
				remove(step, rng.IntN(len(live)))
				continue
			}
			id := int32(rng.IntN(12))
			if slices.Contains(live, id) {
				continue
			}
			nodes, pat := pool[rng.IntN(len(pool))], pats[rng.IntN(len(pats))]
			got, err1 := n.AddJob(id, nodes, pat)
			want, err2 := ref.Add(id, JobFlows(nodes, pat))
			if err1 != nil || err2 != nil || !slices.Equal(got, want) {
				t.Fatalf("%s step %d: Add(%d) changed %v (%v), reference %v (%v)", tp.Name, step, id, got, err1, want, err2)
			}
			live = append(live, id)
			check(step, "add")
			if rng.IntN(3) == 0 { // undone at once: the remove's members were solved before
				remove(step, len(live)-1)
			}
		}
		if n.recalled[0] < 50 || n.recalled[1] < 50 {
			t.Fatalf("%s: memo served %d add and %d remove solves; the test wants ≥ 50 of each", tp.Name, n.recalled[0], n.recalled[1])
		}
		t.Logf("%s: memo served %d add and %d remove solves", tp.Name, n.recalled[0], n.recalled[1])
	}
}
