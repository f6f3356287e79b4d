package cluster

import (
	"slices"
	"testing"
)

// Two nodes of 4 cores and 2 GPUs (processors 0-3 and 4-7); placements
// worked out by hand from the rule in Gres's doc.
func TestGresPlacement(t *testing.T) {
	g := NewGres(8, 4, 2)
	steps := []struct {
		name              string
		k, per, gpus, cpu int // cpu > 0: a job without GPUs of cpu processors
		want              []Range
		ok                bool
	}{
		{"cpu 3: first run holds it", 0, 0, 0, 3, []Range{{0, 3}}, true},
		{"1 node, 2 cores, 2 GPUs: node 0 has 1 free core, so node 1", 1, 2, 2, 0, []Range{{4, 6}}, true},
		{"1 node, 1 core, 1 GPU: node 0", 1, 1, 1, 0, []Range{{3, 4}}, true},
		{"1 node, 1 core, 1 GPU: node 0 full, node 1 has no GPU", 1, 1, 1, 0, nil, false},
		{"cpu 2: the last free run", 0, 0, 0, 2, []Range{{6, 8}}, true},
		{"cpu 1: nothing free", 0, 0, 0, 1, nil, false},
	}
	var held [][]Range
	for _, s := range steps {
		var got []Range
		var ok bool
		if s.cpu > 0 {
			got, ok = g.Alloc(s.cpu, nil)
		} else {
			got, ok = g.AllocNodes(s.k, s.per, s.gpus, nil)
		}
		if ok != s.ok || !slices.Equal(got, s.want) {
			t.Fatalf("%s: got %v %v, want %v %v", s.name, got, ok, s.want, s.ok)
		}
		if ok {
			held = append(held, got)
		}
	}
	if c0, g0 := g.NodeFree(0); c0 != 0 || g0 != 1 {
		t.Errorf("node 0 free = %d cores %d GPUs, want 0 1", c0, g0)
	}
	if c1, g1 := g.NodeFree(1); c1 != 0 || g1 != 0 || g.FreeGPUs() != 1 || g.Free() != 0 {
		t.Errorf("node 1 free = %d cores %d GPUs, total %d GPUs %d procs; want 0 0 1 0", c1, g1, g.FreeGPUs(), g.Free())
	}
	// Free the first CPU job and the 2-GPU job: a 2-node job of 2 cores
	// and 1 GPU each then gets processors 0-1 and 4-5.
	g.Release(held[0])
	g.ReleaseNodes(held[1], 2)
	got, ok := g.AllocNodes(2, 2, 1, nil)
	if want := []Range{{0, 2}, {4, 6}}; !ok || !slices.Equal(got, want) {
		t.Fatalf("2 nodes × (2 cores, 1 GPU) = %v %v, want %v", got, ok, want)
	}
	if g.FitsNodes(1, 1, 1) || !g.FitsNodes(1, 1, 0) {
		t.Errorf("FitsNodes: node 0 has 1 core 0 GPUs, node 1 0 cores 1 GPU")
	}
	g.ReleaseNodes(got, 1)
	g.ReleaseNodes(held[2], 1)
	g.Release(held[3])
	if g.Free() != 8 || g.FreeGPUs() != 4 || len(g.runs) != 1 {
		t.Errorf("after releasing everything: %d free, %d GPUs, runs %v", g.Free(), g.FreeGPUs(), g.runs)
	}
}

// A job whose processors on two nodes touch (the end of node 0 and the
// start of node 1) comes back as one range and is released per node.
func TestGresRangeAcrossNodes(t *testing.T) {
	g := NewGres(8, 4, 2)
	a, _ := g.Alloc(2, nil) // 0-1
	got, ok := g.AllocNodes(2, 2, 2, nil)
	if want := []Range{{2, 6}}; !ok || !slices.Equal(got, want) {
		t.Fatalf("got %v %v, want %v", got, ok, want)
	}
	g.ReleaseNodes(got, 2)
	g.Release(a)
	if g.FreeGPUs() != 4 || g.Free() != 8 {
		t.Errorf("free %d GPUs %d", g.Free(), g.FreeGPUs())
	}
}
