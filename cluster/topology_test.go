package cluster

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// 16 processors, 2 per node, 2 nodes per switch, 2 switches per group:
// switch s holds processors [4s, 4s+4), group g processors [8g, 8g+8).
func smallTopology(t *testing.T) Allocator {
	t.Helper()
	a, err := Placements.New("topology", PlacementConfig{Procs: 16, ProcsPerNode: 2, Topology: NodeTopology{
		Switch: []int32{0, 0, 1, 1, 2, 2, 3, 3},
		Group:  []int32{0, 0, 0, 0, 1, 1, 1, 1},
	}})
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// Hand-traced sequence; see the comment on each row for the rule applied.
func TestTopologyPlacementSequence(t *testing.T) {
	a := smallTopology(t)
	for _, tc := range []struct {
		n    int
		want string
		why  string
	}{
		{3, "0-2", "all switches have 4 free: best fit, lowest id"},
		{1, "3", "switch 0 has 1 free: the tightest fit"},
		{2, "4-5", "switches 1-3 have 4 free: lowest id"},
		{6, "8-13", "no switch holds 6; group 1 (8 free) does: switch 2 (4) then switch 3"},
		{4, "6-7 14-15", "no switch or group holds 4: groups 0 and 1 (2 free each, ties by id)"},
	} {
		got, ok := a.Alloc(tc.n, nil)
		if s := string(AppendIntervalSet(nil, got)); !ok || s != tc.want {
			t.Fatalf("Alloc(%d) = %q, %v; want %q (%s)", tc.n, s, ok, tc.want, tc.why)
		}
	}
	if a.Free() != 0 {
		t.Fatalf("Free() = %d, want 0", a.Free())
	}
	if _, ok := a.Alloc(1, nil); ok {
		t.Fatal("Alloc(1) on a full machine succeeded")
	}
	a.Release([]Range{{8, 12}}) // switch 2 free again
	a.Release([]Range{{3, 4}})  // one processor on switch 0
	if got, _ := a.Alloc(2, nil); string(AppendIntervalSet(nil, got)) != "8-9" {
		t.Fatalf("after release Alloc(2) = %v, want 8-9 (switch 2; switch 0 has only 1 free)", got)
	}
	if got, _ := a.Alloc(1, nil); string(AppendIntervalSet(nil, got)) != "3" {
		t.Fatalf("Alloc(1) = %v, want 3 (best fit: switch 0 has 1 free)", got)
	}
	if a.Free() != 2 {
		t.Fatalf("Free() = %d, want 2", a.Free())
	}
}

// A job that fits in one switch's free processors never spans two, and the
// processor accounting stays exact, over random alloc/release sequences.
func TestTopologyPlacementInvariants(t *testing.T) {
	const procs, ppn, perSwitch = 96, 3, 4 // 32 nodes, 8 switches, 2 groups
	sw, gr := make([]int32, procs/ppn), make([]int32, procs/ppn)
	for k := range sw {
		sw[k], gr[k] = int32(k/perSwitch), int32(k/(4*perSwitch))
	}
	a, err := NewTopology(PlacementConfig{Procs: procs, ProcsPerNode: ppn, Topology: NodeTopology{sw, gr}})
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(11, 0))
	owner := make([]bool, procs)
	var held [][]Range
	for step := 0; step < 20000; step++ {
		if rng.IntN(2) == 0 && len(held) > 0 {
			i := rng.IntN(len(held))
			a.Release(held[i])
			for _, r := range held[i] {
				for p := r.Lo; p < r.Hi; p++ {
					owner[p] = false
				}
			}
			held = append(held[:i], held[i+1:]...)
			continue
		}
		n := 1 + rng.IntN(30)
		maxSwitch := switchFree(owner, ppn, perSwitch)
		rs, ok := a.Alloc(n, nil)
		if ok != (n <= a.Free()+Count(rs)) || (ok && Count(rs) != n) {
			t.Fatalf("step %d: Alloc(%d) = %v, %v with %d free", step, n, rs, ok, a.Free())
		}
		if !ok {
			continue
		}
		switches := map[int32]bool{}
		for _, r := range rs {
			for p := r.Lo; p < r.Hi; p++ {
				if owner[p] {
					t.Fatalf("step %d: processor %d handed out twice", step, p)
				}
				owner[p] = true
				switches[sw[int(p)/ppn]] = true
			}
		}
		if n <= maxSwitch && len(switches) != 1 {
			t.Fatalf("step %d: %d processors fit one switch (max free %d) but span %d", step, n, maxSwitch, len(switches))
		}
		held = append(held, rs)
	}
	busy := 0
	for _, o := range owner {
		if o {
			busy++
		}
	}
	if a.Free() != procs-busy {
		t.Fatalf("Free() = %d, want %d", a.Free(), procs-busy)
	}
}

// switchFree is the largest number of free processors on one switch.
func switchFree(owner []bool, ppn, perSwitch int) int {
	best := 0
	per := ppn * perSwitch
	for lo := 0; lo < len(owner); lo += per {
		f := 0
		for p := lo; p < lo+per; p++ {
			if !owner[p] {
				f++
			}
		}
		best = max(best, f)
	}
	return best
}

func TestTopologyPlacementErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		cfg  PlacementConfig
		want string
	}{
		{"short switch list", PlacementConfig{Procs: 8, ProcsPerNode: 2, Topology: NodeTopology{Switch: []int32{0, 1}}}, "2 switch ids for 4 machine nodes"},
		{"long group list", PlacementConfig{Procs: 7, ProcsPerNode: 2, Topology: NodeTopology{Group: make([]int32, 5)}}, "5 group ids for 4 machine nodes"},
		{"negative id", PlacementConfig{Procs: 4, Topology: NodeTopology{Switch: []int32{0, 0, -1, 1}}}, "machine node 2 has switch -1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := NewTopology(tc.cfg)
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "cluster: ") {
				t.Fatalf("NewTopology = %v, want an error containing %q", err, tc.want)
			}
		})
	}
}

// Without a hint the whole machine is one switch: lowest free processors
// first, like first fit over single processors.
func TestTopologyPlacementNoHint(t *testing.T) {
	a, _ := NewTopology(PlacementConfig{Procs: 10})
	r1, _ := a.Alloc(3, nil)
	a.Alloc(3, nil)
	a.Release(r1)
	if got, _ := a.Alloc(5, nil); string(AppendIntervalSet(nil, got)) != "0-2 6-7" {
		t.Fatalf("Alloc(5) = %v, want 0-2 6-7", got)
	}
}

func BenchmarkTopologyPlacement(b *testing.B) {
	// edison-like: 5,760 nodes, 4 per router, 384 per group, 1 processor each.
	const nodes = 5760
	sw, gr := make([]int32, nodes), make([]int32, nodes)
	for k := range sw {
		sw[k], gr[k] = int32(k/4), int32(k/384)
	}
	a, _ := NewTopology(PlacementConfig{Procs: nodes, Topology: NodeTopology{sw, gr}})
	rng := rand.New(rand.NewPCG(1, 0))
	var held [][]Range
	b.ReportAllocs()
	for b.Loop() {
		if len(held) > 40 || a.Free() < 600 {
			i := rng.IntN(len(held))
			a.Release(held[i])
			held[i] = held[len(held)-1]
			held = held[:len(held)-1]
		}
		rs, ok := a.Alloc(1+rng.IntN(512), nil)
		if ok {
			held = append(held, rs)
		}
	}
}
