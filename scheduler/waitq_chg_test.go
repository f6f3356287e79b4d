package scheduler

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestWaitQueueChgLo checks chgLo against a copy of the slots taken at
// each markClean, over random pushes, removals, inserts and compactions:
// every index below chgLo that the copy has holds the slot it held then.
func TestWaitQueueChgLo(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	var w waitQueue
	var snap []int32
	w.markClean()
	kept := 0 // indices checked equal while below chgLo (not vacuous)
	for step := range 30000 {
		switch r := rng.IntN(100); {
		case r < 45:
			w.push(int32(step), 1+rng.IntN(64), float64(rng.IntN(100)), 0)
		case r < 75 && w.live > 0:
			if i := w.next(w.head+rng.IntN(max(1, min(40, len(w.slots)-w.head))), 1<<30); i >= 0 {
				w.remove(i)
			}
		case r < 76:
			w.compact()
		case r < 77:
			w.compact()
			w.insert(rng.IntN(len(w.slots)+1), int32(step), 1+rng.IntN(64), 1, 0)
		case r < 85:
			w.markClean()
			snap = append(snap[:0], w.slots...)
		}
		n := min(w.chgLo, len(snap), len(w.slots))
		if !slices.Equal(w.slots[:n], snap[:n]) {
			t.Fatalf("step %d: chgLo %d, but slots[:%d] changed since markClean", step, w.chgLo, n)
		}
		kept += n
	}
	if kept < 100000 {
		t.Fatalf("only %d indices checked", kept)
	}
}
