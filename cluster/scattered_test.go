package cluster

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// refScattered is the plain definition of the scattered draw: list the
// free processors in ascending order and take the first n of a partial
// Fisher–Yates shuffle with the same generator.
type refScattered struct {
	free []bool
	rng  *rand.Rand
}

func (r *refScattered) alloc(n int) []int32 {
	var ids []int32
	for p, f := range r.free {
		if f {
			ids = append(ids, int32(p))
		}
	}
	for i := 0; i < n; i++ {
		j := i + r.rng.IntN(len(ids)-i)
		ids[i], ids[j] = ids[j], ids[i]
	}
	pick := slices.Clone(ids[:n])
	for _, p := range pick {
		r.free[p] = false
	}
	slices.Sort(pick)
	return pick
}

// Scattered (virtual list with a Fenwick tree for small jobs, the list
// itself for large ones) draws exactly the processors of the plain
// definition, through thousands of allocations and releases of every size.
func TestScatteredMatchesReference(t *testing.T) {
	for _, procs := range []int{1, 7, 64, 1000, 5000} {
		a, _ := NewScattered(PlacementConfig{Procs: procs, Seed: 3})
		s := a.(*Scattered)
		ref := &refScattered{free: make([]bool, procs), rng: rand.New(rand.NewPCG(3, 0x5ca7))}
		for i := range ref.free {
			ref.free[i] = true
		}
		rng := rand.New(rand.NewPCG(uint64(procs), 9))
		var held [][]Range
		for step := 0; step < 3000; step++ {
			if len(held) > 0 && (s.Free() == 0 || rng.IntN(3) == 0) {
				k := rng.IntN(len(held))
				s.Release(held[k])
				for _, r := range held[k] {
					for p := r.Lo; p < r.Hi; p++ {
						ref.free[p] = true
					}
				}
				held = slices.Delete(held, k, k+1)
				continue
			}
			n := 1 + rng.IntN(max(1, s.Free()/(1+rng.IntN(40))))
			got, ok := s.Alloc(n, nil)
			if !ok {
				t.Fatalf("procs %d step %d: Alloc(%d) refused with %d free", procs, step, n, s.Free())
			}
			want := ref.alloc(n)
			var flat []int32
			for i, r := range got {
				if i > 0 && r.Lo <= got[i-1].Hi {
					t.Fatalf("ranges not ascending and coalesced: %v", got)
				}
				for p := r.Lo; p < r.Hi; p++ {
					flat = append(flat, p)
				}
			}
			if !slices.Equal(flat, want) {
				t.Fatalf("procs %d step %d: drew %v, want %v", procs, step, flat, want)
			}
			held = append(held, got)
			free := 0
			for _, f := range ref.free {
				if f {
					free++
				}
			}
			if s.Free() != free {
				t.Fatalf("Free() = %d, want %d", s.Free(), free)
			}
			for k := int32(0); k < int32(free); k += 1 + int32(free/50) {
				if p := s.kth(k); !ref.free[p] {
					t.Fatalf("kth(%d) = %d is not free", k, p)
				}
			}
		}
	}
}
