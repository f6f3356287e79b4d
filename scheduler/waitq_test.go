package scheduler

import (
	"math/rand/v2"
	"testing"
)

// next and nextBackfill agree with a linear scan after random pushes,
// removals and compactions, over queues many blocks long, and every group
// and block bound stays a lower bound of its live entries.
func TestWaitQueueNext(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	var w waitQueue
	longest := 0
	for step := 0; step < 20000; step++ {
		switch r := rng.IntN(100); {
		case r < 50:
			w.push(int32(step), 1+rng.IntN(64), float64(rng.IntN(100)), float64(rng.IntN(100)))
		case r < 70 && w.live > 0:
			// Remove a run of entries, as a pass that starts several jobs.
			i := w.next(rng.IntN(len(w.slots)), 1<<30)
			for k := rng.IntN(3); i >= 0 && k >= 0; k-- {
				w.remove(i)
				i = w.next(i+1, 8+rng.IntN(64))
			}
		case r < 71:
			w.compact()
		}
		longest = max(longest, len(w.slots))
		if step%97 == 0 {
			checkBounds(t, &w, step)
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
		xp, win, room := rng.IntN(64), float64(rng.IntN(100)), float64(rng.IntN(120))
		want = -1
		for i := from; i < len(w.slots); i++ {
			if p := int(w.procs[i]); w.slots[i] >= 0 && p <= mp && (p <= xp || w.est[i] <= win) && w.pw[i] <= room {
				want = i
				break
			}
		}
		if got := w.nextBackfill(from, mp, xp, win, room); got != want {
			t.Fatalf("step %d: nextBackfill(%d, %d, %d, %v, %v) = %d, want %d", step, from, mp, xp, win, room, got, want)
		}
	}
	if longest < 4<<blockShift {
		t.Fatalf("queue grew to %d entries; the test needs several blocks", longest)
	}
	if testing.Verbose() {
		t.Logf("longest queue %d entries", longest)
	}
}

func checkBounds(t *testing.T, w *waitQueue, step int) {
	t.Helper()
	for i, p := range w.procs {
		g, b := i>>groupShift, i>>blockShift
		if w.group.procs[g] > p || w.group.est[g] > w.est[i] || w.block.procs[b] > p || w.block.est[b] > w.est[i] {
			t.Fatalf("step %d: entry %d (%d procs, est %v) below its bounds: group %d %v, block %d %v",
				step, i, p, w.est[i], w.group.procs[g], w.group.est[g], w.block.procs[b], w.block.est[b])
		}
	}
}
