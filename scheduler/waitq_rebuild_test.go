package scheduler

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// rebuild computes every bound a group or block at a time; the reference
// adds the entries one by one. Random queues of up to 1,000 entries with
// tombstones, ties and NaN-free estimates: the bounds are equal.
func TestWaitQueueRebuild(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 1))
	for trial := range 200 {
		var w waitQueue
		n := rng.IntN(1000)
		for k := range n {
			w.push(int32(k), 1+rng.IntN(64), float64(rng.IntN(5000)), 0)
		}
		for range rng.IntN(n + 1) {
			if i := rng.IntN(max(n, 1)); n > 0 && w.slots[i] >= 0 {
				w.remove(i)
			}
		}
		w.rebuild()
		var g, b bounds
		for i, p := range w.procs {
			g.add(i>>groupShift, p, w.est[i])
			b.add(i>>blockShift, p, w.est[i])
		}
		if !slices.Equal(w.group.procs, g.procs) || !slices.Equal(w.group.est, g.est) || !slices.Equal(w.group.stale, g.stale) ||
			!slices.Equal(w.block.procs, b.procs) || !slices.Equal(w.block.est, b.est) || !slices.Equal(w.block.stale, b.stale) {
			t.Fatalf("trial %d (%d entries): bounds differ from adding the entries one by one", trial, n)
		}
		if n > 0 && (len(w.group.procs) == 0 || w.group.procs[0] == math.MaxInt32 && w.slots[0] >= 0) {
			t.Fatalf("trial %d: empty bounds", trial)
		}
	}
}
