package netmodel

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// Hand-solved max-min case: link A (capacity 10) and link B (capacity 4);
// flow 1 crosses A and B, flow 2 only A, flow 3 only B.
// Progressive filling: fair shares are A 10/2 = 5 and B 4/2 = 2, so B
// saturates first and freezes flows 1 and 3 at 2. A has 10 − 2 = 8 left for
// flow 2 alone, so flow 2 gets 8. Rates (2, 8, 2); both links full.
func TestMaxMinHandSolved(t *testing.T) {
	got := MaxMin([]float64{10, 4}, [][]int32{{0, 1}, {0}, {1}})
	want := []float64{2, 8, 2}
	if !slices.Equal(got, want) {
		t.Errorf("MaxMin = %v, want %v", got, want)
	}
}

func TestMaxMinEdgeCases(t *testing.T) {
	if got := MaxMin(nil, nil); len(got) != 0 {
		t.Errorf("no flows: %v", got)
	}
	if got := MaxMin([]float64{6}, [][]int32{{}, {0}, {0}, {0}}); !math.IsInf(got[0], 1) || got[1] != 2 || got[3] != 2 {
		t.Errorf("empty path and three equal flows: %v, want [+Inf 2 2 2]", got)
	}
}

// Random instances satisfy the max-min optimality conditions: no link is
// over capacity, and every flow has a saturated link on which its rate is the
// largest (its bottleneck).
func TestMaxMinOptimality(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 0))
	for it := 0; it < 200; it++ {
		L, F := 1+rng.IntN(12), 1+rng.IntN(20)
		caps := make([]float64, L)
		for l := range caps {
			caps[l] = 1 + 9*rng.Float64()
		}
		paths := make([][]int32, F)
		for f := range paths {
			for l := 0; l < L; l++ {
				if rng.IntN(3) == 0 {
					paths[f] = append(paths[f], int32(l))
				}
			}
			if len(paths[f]) == 0 {
				paths[f] = []int32{int32(rng.IntN(L))}
			}
		}
		rates := MaxMin(caps, paths)
		load := make([]float64, L)
		maxOn := make([]float64, L)
		for f, p := range paths {
			for _, l := range p {
				load[l] += rates[f]
				maxOn[l] = math.Max(maxOn[l], rates[f])
			}
		}
		for l := range caps {
			if load[l] > caps[l]*(1+1e-9) {
				t.Fatalf("instance %d: link %d load %g > cap %g", it, l, load[l], caps[l])
			}
		}
		for f, p := range paths {
			ok := false
			for _, l := range p {
				if load[l] >= caps[l]*(1-1e-9) && rates[f] >= maxOn[l]*(1-1e-9) {
					ok = true
				}
			}
			if !ok {
				t.Fatalf("instance %d: flow %d (rate %g) has no bottleneck link", it, f, rates[f])
			}
		}
	}
}

func TestNetworkIncremental(t *testing.T) {
	tp := mustBuild(t, Spec{Kind: "torus", Dims: []int{8}, LinkGBs: 1}) // ring of 8 routers, 1 node each
	n := NewNetwork(tp)
	// job 1: 0→2, job 2: 4→6 are link-disjoint; job 3: 1→3 shares 1→2 with job 1.
	if ch, err := n.Add(1, []Flow{{0, 2}}); err != nil || !slices.Equal(ch, []int32{1}) {
		t.Fatalf("Add(1) = %v, %v", ch, err)
	}
	if ch, _ := n.Add(2, []Flow{{4, 6}}); !slices.Equal(ch, []int32{2}) {
		t.Errorf("Add(2) disjoint: changed %v, want [2]", ch)
	}
	ch, _ := n.Add(3, []Flow{{1, 3}})
	if !slices.Equal(ch, []int32{1, 3}) {
		t.Errorf("Add(3) sharing with 1: changed %v, want [1 3]", ch)
	}
	// two flows on one 1 GB/s link: each gets half of what it had alone.
	if s1, s2, s3 := n.Share(1), n.Share(2), n.Share(3); s1 != 0.5 || s2 != 1 || s3 != 0.5 {
		t.Errorf("shares %v %v %v, want 0.5 1 0.5", s1, s2, s3)
	}
	if ch := n.Remove(3); !slices.Equal(ch, []int32{1}) || n.Share(1) != 1 {
		t.Errorf("Remove(3): changed %v share(1) %v, want [1] and 1", ch, n.Share(1))
	}
	// Job-level coupling, hand-solved: job 4 sends two flows over link 5→6
	// (1 GB/s), job 5 one. Constraint 2·x4 + x5 ≤ 1e9 with equal rates gives
	// x = 1e9/3; alone x4 = 1e9/2 and x5 = 1e9, so shares 2/3 and 1/3.
	n = NewNetwork(tp)
	n.Add(4, []Flow{{5, 6}, {5, 7}})
	if ch, _ := n.Add(5, []Flow{{4, 6}}); !slices.Equal(ch, []int32{4, 5}) || !within(n.Share(4), 2.0/3, 1e-12) || !within(n.Share(5), 1.0/3, 1e-12) {
		t.Errorf("Add(5): changed %v, shares %v %v; want [4 5], 2/3, 1/3", ch, n.Share(4), n.Share(5))
	}
	if _, err := n.Add(4, nil); err == nil {
		t.Error("duplicate job accepted")
	}
	if _, err := n.Add(9, []Flow{{0, 99}}); err == nil {
		t.Error("out-of-range flow accepted")
	}
	// refused after a flow was routed: none of its counts stay behind
	if _, err := n.Add(9, []Flow{{0, 2}, {0, 99}}); err == nil {
		t.Error("out-of-range second flow accepted")
	}
	if _, err := n.Add(6, []Flow{{0, 2}}); err != nil || n.Len() != 3 {
		t.Fatalf("Add(6) after a refused add: %v, Len %d", err, n.Len())
	}
	if j := &n.jobs[n.idxOf(6)]; len(j.links) != 4 || slices.ContainsFunc(j.load, func(c int32) bool { return c != 1 }) {
		t.Errorf("Add(6) after a refused add: links %v, loads %v; want 4 links of one flow each", j.links, j.load)
	}
	if ch := n.Remove(42); ch != nil || n.Len() != 3 {
		t.Errorf("Remove(unknown) = %v, Len %d", ch, n.Len())
	}
}

// After random adds and removes, the incrementally maintained shares equal a
// network built from scratch with the surviving jobs.
func TestNetworkMatchesFromScratch(t *testing.T) {
	tp := mustPreset(t, "hopper")
	rng := rand.New(rand.NewPCG(11, 0))
	n := NewNetwork(tp)
	type job struct {
		nodes []int32
		pat   Pattern
	}
	live := map[int32]job{}
	for id := int32(0); id < 60; id++ {
		nodes, _ := Place(tp, 2+rng.IntN(64), []string{"contiguous", "scattered", "topology"}[rng.IntN(3)], rng)
		pat := []Pattern{PointToPoint, AllToAll, Halo3D}[rng.IntN(3)]
		if _, err := n.AddJob(id, nodes, pat); err != nil {
			t.Fatal(err)
		}
		live[id] = job{nodes, pat}
		if rng.IntN(3) == 0 {
			victim := int32(rng.IntN(int(id) + 1))
			n.Remove(victim)
			delete(live, victim)
		}
	}
	fresh := NewNetwork(tp)
	for id := int32(0); id < 60; id++ {
		if j, ok := live[id]; ok {
			fresh.AddJob(id, j.nodes, j.pat)
		}
	}
	for id := range live {
		if a, b := n.Share(id), fresh.Share(id); !within(a, b, 1e-9) {
			t.Errorf("job %d: incremental share %v, from scratch %v", id, a, b)
		}
	}
}
