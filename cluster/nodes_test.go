package cluster

import (
	"math"
	"slices"
	"testing"
)

// 10 processors in nodes of 4: nodes 0 [0,4), 1 [4,8), 2 [8,10).
func TestNodes(t *testing.T) {
	a, _ := NewContiguous(PlacementConfig{Procs: 10})
	n := NewNodes(a, 10, 4)
	if n.Len() != 3 || n.Size(0) != 4 || n.Size(2) != 2 {
		t.Fatalf("len %d sizes %d %d, want 3 4 2", n.Len(), n.Size(0), n.Size(2))
	}
	if !n.Suspend(2) || n.Suspend(2) || n.Off() != 1 {
		t.Fatal("suspend of idle node 2 should work once")
	}
	// 6 processors: [0,6) touches nodes 0 and 1.
	a1, ok := n.Alloc(6, nil)
	if !ok || n.State(0) != NodeBusy || n.State(1) != NodeBusy || n.Used(1) != 2 || n.Gen(0) != 1 {
		t.Fatalf("after alloc: %v %v used %d gen %d", n.State(0), n.State(1), n.Used(1), n.Gen(0))
	}
	if len(n.Wake()) != 0 || !math.IsInf(n.Wait(), -1) {
		t.Fatal("no node to wake or wait for")
	}
	// 4 more: [6,10) touches node 1 (up) and node 2 (off): wake it.
	a2, _ := n.Alloc(4, nil)
	if !slices.Equal(n.Wake(), []int32{2}) || n.Used(2) != 2 {
		t.Fatalf("wake %v used %d, want [2] 2", n.Wake(), n.Used(2))
	}
	n.ClearWake()
	if !n.Boot(2, 130) || n.Booting() != 1 || n.Down() != 1 || n.Off() != 0 {
		t.Fatal("boot of off node 2")
	}
	n.Release(a2)
	if n.State(2) != NodeBooting || !slices.Equal(n.Freed(), []int32{2}) {
		t.Fatalf("node 2 %v freed %v: a released booting node keeps booting", n.State(2), n.Freed())
	}
	n.ClearFreed()
	if _, ok := n.Alloc(4, nil); !ok || n.Wait() != 130 { // [6,10) again
		t.Fatalf("alloc on booting node 2: wait %v, want 130", n.Wait())
	}
	if !n.Up(2) || n.State(2) != NodeBusy || n.Down() != 0 {
		t.Fatal("node 2 up with processors allocated is busy")
	}
	n.Release(a1)
	if n.State(0) != NodeIdle || n.State(1) != NodeBusy || !slices.Equal(n.Freed(), []int32{0}) {
		t.Fatalf("after release: %v %v freed %v", n.State(0), n.State(1), n.Freed())
	}
	if n.Free() != 6 || n.Total() != 10 || n.Name() != "contiguous" {
		t.Fatal("the wrapped allocator's counts")
	}
}

// Hand-computed: 2 idle processors at 10 W for 10 s; one node of 2 off
// (3 W) for 20 s; booting (50 W) for 30 s; up again for 5 s. Idle
// 20×10 + 20×5, off 3×20, transition 50×30.
func TestMeterNodes(t *testing.T) {
	m := NewMeter(2, 10, 0)
	m.OffW, m.BootW = 3, 50
	m.Advance(10)
	m.NodeChange(1, 0, -2)
	if m.Power() != 3 || m.NonJobW() != 3 {
		t.Fatalf("off power %v", m.Power())
	}
	m.Advance(30)
	m.NodeChange(-1, 1, 0)
	m.Advance(60)
	m.NodeChange(0, -1, 2)
	m.Advance(65)
	if m.IdleJ != 300 || m.OffJ != 60 || m.TransJ != 1500 || m.Energy() != 1860 {
		t.Fatalf("idle %v off %v transition %v total %v, want 300 60 1500 1860", m.IdleJ, m.OffJ, m.TransJ, m.Energy())
	}
}
