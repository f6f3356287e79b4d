package scheduler

import (
	"math/rand/v2"
	"testing"
)

// next agrees with a linear scan after random pushes, removals and
// compactions.
func TestWaitQueueNext(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	var w waitQueue
	for step := 0; step < 3000; step++ {
		switch r := rng.IntN(10); {
		case r < 5:
			w.push(int32(step), 1+rng.IntN(64), float64(rng.IntN(100)))
		case r < 8 && w.live > 0:
			i := w.next(rng.IntN(len(w.slots)), 1<<30)
			if i >= 0 {
				w.remove(i)
			}
		case r == 8:
			w.compact()
		}
		from, mp := rng.IntN(len(w.slots)+1), 1+rng.IntN(64)
		want := -1
		for i := from; i < len(w.slots); i++ {
			if w.slots[i] >= 0 && int(w.procs[i]) <= mp {
				want = i
				break
			}
		}
		if got := w.next(from, mp); got != want {
			t.Fatalf("step %d: next(%d, %d) = %d, want %d", step, from, mp, got, want)
		}
		xp, win := rng.IntN(64), float64(rng.IntN(100))
		want = -1
		for i := from; i < len(w.slots); i++ {
			if p := int(w.procs[i]); w.slots[i] >= 0 && p <= mp && (p <= xp || w.est[i] <= win) {
				want = i
				break
			}
		}
		if got := w.nextBackfill(from, mp, xp, win); got != want {
			t.Fatalf("step %d: nextBackfill(%d, %d, %d, %v) = %d, want %d", step, from, mp, xp, win, got, want)
		}
	}
}
