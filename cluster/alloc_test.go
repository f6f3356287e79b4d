package cluster

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

func TestRegistryBuildsEveryPlacement(t *testing.T) {
	for _, name := range Placements.Names() {
		a, err := Placements.New(name, PlacementConfig{Procs: 8})
		if err != nil {
			t.Fatalf("New(%q): %v", name, err)
		}
		if a.Name() != name {
			t.Errorf("New(%q).Name() = %q", name, a.Name())
		}
	}
	want := `cluster: unknown placement "nope" (known: ` + strings.Join(Placements.Names(), ", ") + ")"
	if _, err := Placements.New("nope", PlacementConfig{Procs: 8}); err == nil || err.Error() != want {
		t.Errorf("unknown placement error = %v", err)
	}
}

func TestContiguousFirstFit(t *testing.T) {
	a, _ := NewContiguous(PlacementConfig{Procs: 10})
	r1, _ := a.Alloc(3, nil) // [0,3)
	r2, _ := a.Alloc(3, nil) // [3,6)
	_, _ = a.Alloc(2, nil)   // [6,8)
	a.Release(r1)
	a.Release(r2) // free: [0,6) [8,10)
	got, ok := a.Alloc(7, nil)
	if !ok || string(AppendIntervalSet(nil, got)) != "0-5 8" {
		t.Fatalf("Alloc(7) = %v %v, want 0-5 8", got, ok)
	}
	if a.Free() != 1 {
		t.Fatalf("Free() = %d, want 1", a.Free())
	}
	if _, ok := a.Alloc(2, nil); ok {
		t.Fatal("Alloc(2) with 1 free succeeded")
	}
}

// Random alloc/release sequences never hand out a processor twice and keep
// the free count equal to the processors not held.
func TestPlacementsNeverDoubleAllocate(t *testing.T) {
	for _, name := range Placements.Names() {
		rng := rand.New(rand.NewPCG(7, 0))
		a, _ := Placements.New(name, PlacementConfig{Procs: 64, Seed: 3})
		held := map[int][]Range{}
		owner := make([]int, 64)
		for step := 0; step < 5000; step++ {
			if rng.IntN(2) == 0 && len(held) > 0 {
				for id, rs := range held { // any one; order irrelevant to the check
					a.Release(rs)
					for _, r := range rs {
						for p := r.Lo; p < r.Hi; p++ {
							owner[p] = 0
						}
					}
					delete(held, id)
					break
				}
				continue
			}
			n := 1 + rng.IntN(20)
			rs, ok := a.Alloc(n, nil)
			if ok != (n <= a.Free()+Count(rs)) || (ok && Count(rs) != n) {
				t.Fatalf("%s: Alloc(%d) = %v, %v", name, n, rs, ok)
			}
			if !ok {
				continue
			}
			for _, r := range rs {
				for p := r.Lo; p < r.Hi; p++ {
					if owner[p] != 0 {
						t.Fatalf("%s: processor %d handed out twice", name, p)
					}
					owner[p] = step + 1
				}
			}
			held[step+1] = rs
		}
		busy := 0
		for _, o := range owner {
			if o != 0 {
				busy++
			}
		}
		if a.Free() != 64-busy {
			t.Fatalf("%s: Free() = %d, want %d", name, a.Free(), 64-busy)
		}
	}
}

func TestMeterIntegratesExactly(t *testing.T) {
	m := NewMeter(4, 10, 0) // 4 idle procs at 10 W
	m.Advance(5)            // 40 W × 5 s
	m.Change(200, 2)        // 2 procs busy at 100 W each
	m.Observe()
	m.Advance(15) // (200 + 2×10) × 10 s
	if m.BusyJ != 2000 || m.IdleJ != 200+200 || m.Energy() != 2400 {
		t.Fatalf("busy %v idle %v total %v, want 2000 400 2400", m.BusyJ, m.IdleJ, m.Energy())
	}
	mean, std := m.MeanStd() // 40 W for 5 s, 220 W for 10 s: mean 160, var 7200
	if mean != 160 || std != 84.8528137423857 {
		t.Fatalf("mean %v std %v", mean, std)
	}
	if m.PeakW != 220 {
		t.Fatalf("peak %v, want 220", m.PeakW)
	}
}

// The free list stays the sorted, coalesced set of free runs (exactly the
// maximal runs of a free bitmap) under random first-fit allocations and
// releases, whether a release goes range by range or as one merge.
func TestFreeListCoalesced(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 5))
	const procs = 300
	c := &Contiguous{newFreeList(procs)}
	free := make([]bool, procs)
	for i := range free {
		free[i] = true
	}
	var held [][]Range
	merges := 0
	for step := 0; step < 20000; step++ {
		if rng.IntN(2) == 0 && len(held) > 0 {
			k := rng.IntN(len(held))
			rs := held[k]
			if len(rs) > 2 {
				merges++
			}
			c.Release(rs)
			for _, r := range rs {
				for p := r.Lo; p < r.Hi; p++ {
					free[p] = true
				}
			}
			held = append(held[:k], held[k+1:]...)
		} else if rs, ok := c.Alloc(1+rng.IntN(40), nil); ok {
			for _, r := range rs {
				for p := r.Lo; p < r.Hi; p++ {
					free[p] = false
				}
			}
			held = append(held, rs)
		}
		var want []Range
		for p := 0; p < procs; p++ {
			if !free[p] {
				continue
			}
			if n := len(want); n > 0 && want[n-1].Hi == int32(p) {
				want[n-1].Hi++
			} else {
				want = append(want, Range{int32(p), int32(p) + 1})
			}
		}
		if !slices.Equal(c.runs, want) {
			t.Fatalf("step %d: runs %v, want %v", step, c.runs, want)
		}
	}
	if merges == 0 {
		t.Fatal("no release took the merge path")
	}
}
