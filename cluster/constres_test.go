package cluster

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// SelectCores against choices worked out by hand from the rule in its doc
// (Slurm 22.05's _eval_nodes for an n-task job, one node weight).
func TestSelectCores(t *testing.T) {
	F, T := false, true
	cases := []struct {
		name   string
		free   []int32
		usable []bool
		n      int
		want   []NodeTake
	}{
		{"all free: the first node holds it", []int32{4, 4, 4, 4}, nil, 4, []NodeTake{{0, 4}}},
		{"one run: the tightest node that holds it", []int32{4, 3, 4, 4}, nil, 1, []NodeTake{{1, 1}}},
		{"tightest node, first of a tie", []int32{1, 2, 1, 2}, nil, 2, []NodeTake{{1, 2}}},
		{"busy nodes split runs; slurmctld.log run2 job 74 less its reservation", []int32{0, 0, 3, 4}, nil, 2, []NodeTake{{2, 2}}},
		{"the tightest sufficient run, even over two nodes", []int32{4, 0, 2, 1}, nil, 3, []NodeTake{{2, 2}, {3, 1}}},
		{"sufficient runs tie: the first", []int32{2, 0, 2}, nil, 2, []NodeTake{{0, 2}}},
		{"no run suffices: the largest whole, then the tightest for the rest", []int32{2, 0, 3, 0, 1}, nil, 5, []NodeTake{{0, 2}, {2, 3}}},
		{"no run suffices, largest tie: the first", []int32{2, 0, 2, 0, 1}, nil, 3, []NodeTake{{0, 2}, {4, 1}}},
		{"a run taken in index order up to what remains", []int32{3, 3, 3}, nil, 7, []NodeTake{{0, 3}, {1, 3}, {2, 1}}},
		{"unusable nodes split runs", []int32{4, 4, 4, 4}, []bool{F, T, F, T}, 4, []NodeTake{{1, 4}}},
		{"unusable nodes are not counted", []int32{4, 4, 4, 4}, []bool{T, F, F, F}, 5, nil},
		{"not enough free", []int32{1, 0, 2}, nil, 4, nil},
		{"zero cores", []int32{4}, nil, 0, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, ok := SelectCores(c.free, c.usable, c.n, nil)
			if ok != (c.want != nil) || !slices.Equal(got, c.want) {
				t.Errorf("SelectCores(%v, %v, %d) = %v, %v; want %v", c.free, c.usable, c.n, got, ok, c.want)
			}
		})
	}
}

// Four nodes of 4 cores (processors 0-3, 4-7, 8-11, 12-15); placements
// worked out by hand from SelectCores.
func TestConsTresPlacement(t *testing.T) {
	c := NewConsTres(16, 4)
	steps := []struct {
		name string
		n    int
		only []bool
		want []Range
	}{
		{"2: node 0, its lowest cores", 2, nil, []Range{{0, 2}}},
		{"3: node 0 has 2, node 1 is the first that holds it", 3, nil, []Range{{4, 7}}},
		{"1: the tightest node is node 1 (1 free)", 1, nil, []Range{{7, 8}}},
		{"2: node 0 (2 free) is tighter than nodes 2 and 3", 2, nil, []Range{{2, 4}}},
		{"5: nodes 2 and 3 in order", 5, nil, []Range{{8, 13}}},
		{"3: only node 3 left with room", 3, nil, []Range{{13, 16}}},
		{"1: nothing free", 1, nil, nil},
	}
	var held [][]Range
	for _, s := range steps {
		c.Only(s.only)
		got, ok := c.Alloc(s.n, nil)
		c.Only(nil)
		if ok != (s.want != nil) || !slices.Equal(got, s.want) {
			t.Fatalf("%s: got %v %v, want %v", s.name, got, ok, s.want)
		}
		if ok {
			held = append(held, got)
		}
	}
	c.Release(held[1]) // node 1's 4-6
	c.Release(held[4]) // node 2's 8-11 and node 3's 12
	if got, want := c.NodeFree(), []int32{0, 3, 4, 1}; !slices.Equal(got, want) {
		t.Fatalf("free per node %v, want %v", got, want)
	}
	// Only nodes 2 and 3: node 3 is tighter for 1 core.
	c.Only([]bool{false, false, true, true})
	got, ok := c.Alloc(1, nil)
	c.Only(nil)
	if !ok || !slices.Equal(got, []Range{{12, 13}}) {
		t.Fatalf("1 core on nodes 2-3: got %v %v, want [12,13)", got, ok)
	}
	// 4 on nodes 1 (3) + 2 (4): node 2 holds it whole.
	if got, ok := c.Alloc(4, nil); !ok || !slices.Equal(got, []Range{{8, 12}}) {
		t.Fatalf("4 cores: got %v %v, want [8,12)", got, ok)
	}
	if c.Free() != 3 {
		t.Fatalf("Free() = %d, want 3", c.Free())
	}
}

func TestSelectCoresAllocs(t *testing.T) {
	free := []int32{2, 0, 3, 0, 1, 4, 4, 1}
	dst := make([]NodeTake, 0, 8)
	var s CoreSelector
	if n := testing.AllocsPerRun(100, func() { dst, _ = s.SelectCores(free, nil, 9, dst[:0]) }); n != 0 {
		t.Fatalf("CoreSelector.SelectCores allocates %v times per call", n)
	}
	// No run holds the job: choices in order of the runs' free cores.
	free = []int32{2, 0, 3, 0, 1, 0, 4, 0, 2}
	if n := testing.AllocsPerRun(100, func() { dst, _ = s.SelectCores(free, nil, 11, dst[:0]) }); n != 0 {
		t.Fatalf("CoreSelector.SelectCores allocates %v times per call over several runs", n)
	}
}

// refSelectCores is SelectCores written plainly (a list of runs, each
// removed once chosen), kept as the reference for the allocation-free
// version.
func refSelectCores(free []int32, usable []bool, n int) []NodeTake {
	type run struct{ lo, hi, sum int }
	var runs []run
	total := 0
	for i := 0; i < len(free); {
		if free[i] <= 0 || usable != nil && !usable[i] {
			i++
			continue
		}
		r := run{lo: i}
		for ; i < len(free) && free[i] > 0 && (usable == nil || usable[i]); i++ {
			r.sum += int(free[i])
		}
		r.hi = i
		runs = append(runs, r)
		total += r.sum
	}
	if n <= 0 || total < n {
		return nil
	}
	var out []NodeTake
	for rem := n; rem > 0; {
		b := 0
		for k, r := range runs {
			bs := runs[b].sum >= rem
			if s := r.sum >= rem; s && !bs || s && r.sum < runs[b].sum || !s && !bs && r.sum > runs[b].sum {
				b = k
			}
		}
		r := runs[b]
		runs = slices.Delete(runs, b, b+1)
		one := -1
		for i := r.lo; i < r.hi; i++ {
			if int(free[i]) >= rem && (one < 0 || free[i] < free[one]) {
				one = i
			}
		}
		if one >= 0 {
			out = append(out, NodeTake{int32(one), int32(rem)})
			break
		}
		for i := r.lo; i < r.hi && rem > 0; i++ {
			c := min(int(free[i]), rem)
			out = append(out, NodeTake{int32(i), int32(c)})
			rem -= c
		}
	}
	slices.SortFunc(out, func(a, b NodeTake) int { return int(a.Node - b.Node) })
	return out
}

func TestSelectCoresReference(t *testing.T) {
	r := rand.New(rand.NewPCG(22, 5))
	var sel CoreSelector // kept across trials, as ConsTres keeps it
	for trial := range 20000 {
		nodes, cores := 1+r.IntN(16), 1+r.IntN(8)
		if trial%10 == 0 {
			nodes = 1 + r.IntN(300) // many runs, many choices
		}
		free := make([]int32, nodes)
		var usable []bool
		if r.IntN(2) == 0 {
			usable = make([]bool, nodes)
		}
		for i := range free {
			free[i] = int32(r.IntN(cores + 1))
			if usable != nil {
				usable[i] = r.IntN(4) != 0
			}
		}
		n := 1 + r.IntN(nodes*cores)
		got, ok := sel.SelectCores(free, usable, n, nil)
		want := refSelectCores(free, usable, n)
		if ok != (want != nil) || !slices.Equal(got, want) {
			t.Fatalf("trial %d: SelectCores(%v, %v, %d) = %v %v, want %v", trial, free, usable, n, got, ok, want)
		}
		// Select over the list of candidates, the others' entries spoiled
		// (it must not read them).
		var cand []int32
		spoiled := slices.Clone(free)
		for i := range free {
			if free[i] > 0 && (usable == nil || usable[i]) {
				cand = append(cand, int32(i))
			} else {
				spoiled[i] = 99
			}
		}
		got, ok = sel.Select(spoiled, cand, n, nil)
		if ok != (want != nil) || !slices.Equal(got, want) {
			t.Fatalf("trial %d: Select(%v, %v, %d) = %v %v, want %v", trial, spoiled, cand, n, got, ok, want)
		}
	}
}
