package netmodel

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestJobIndexMatchesMap drives a jobIndex and a map with the same sets
// and deletes, over dense, negative and huge ids, and compares every
// lookup, the count and the iteration.
func TestJobIndexMatchesMap(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	var x jobIndex
	ref := map[int32]int32{}
	pick := func() int32 {
		switch r.IntN(6) {
		case 0:
			return -1 - r.Int32N(50)
		case 1:
			return denseIDs - 5 + r.Int32N(10) // both sides of the bound
		case 2:
			return math.MaxInt32 - r.Int32N(3)
		default:
			return r.Int32N(300)
		}
	}
	for step := range 20000 {
		id := pick()
		if _, ok := ref[id]; ok {
			x.del(id)
			delete(ref, id)
		} else {
			k := r.Int32N(1000)
			x.set(id, k)
			ref[id] = k
		}
		for range 4 {
			q := pick()
			k, ok := x.get(q)
			rk, rok := ref[q]
			if ok != rok || ok && k != rk {
				t.Fatalf("step %d: get(%d) = %d, %v; want %d, %v", step, q, k, ok, rk, rok)
			}
		}
		if x.len() != len(ref) {
			t.Fatalf("step %d: len %d, want %d", step, x.len(), len(ref))
		}
	}
	seen := 0
	for id, k := range x.all() {
		if rk, ok := ref[id]; !ok || rk != k {
			t.Fatalf("all yields %d → %d; the map has %d, %v", id, k, rk, ok)
		}
		seen++
	}
	if seen != len(ref) {
		t.Fatalf("all yields %d ids, want %d", seen, len(ref))
	}
}
