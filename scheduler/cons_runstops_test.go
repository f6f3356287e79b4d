package scheduler

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestRunStopsMatchesTakeRun checks extendRun's quick test: wherever
// runStops says the run stops, takeRun (on a copy of the queue) takes
// nothing, returns i and leaves the slots and the queue's bounds as they
// were, for random runs left, free processors and suffix bounds; on
// random queues with runs of classes, tombstones and jobs larger than
// the machine, and at every position of a long queue.
func TestRunStopsMatchesTakeRun(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 3))
	const total = 16
	ests := []float64{10, 20, 30}
	randQueue := func(n int) *waitQueue {
		var w waitQueue
		procs, est := 1, 10.0
		for k := range n {
			if rng.IntN(6) == 0 {
				procs, est = 1+rng.IntN(4), ests[rng.IntN(len(ests))]
			}
			p := procs
			if rng.IntN(30) == 0 {
				p = total + 1 + rng.IntN(4) // never returned by View.Next
			}
			w.push(int32(k), p, est, 0)
		}
		for range rng.IntN(n/4 + 1) {
			if k := rng.IntN(n); w.slots[k] >= 0 {
				w.remove(k)
			}
		}
		return &w
	}
	stops, runs := 0, 0
	check := func(trial int, w *waitQueue, i, end int) {
		t.Helper()
		// The class mostly of the entry at i or i+1 (a run's own).
		procs, est := int32(1+rng.IntN(4)), ests[rng.IntN(len(ests))]
		if k := i + rng.IntN(2); k < len(w.procs) && rng.IntN(3) > 0 {
			procs, est = w.procs[k], w.est[k]
		}
		if !runStops(w, i, end, procs, est, total) {
			runs++
			return
		}
		stops++
		left := 1 + rng.IntN(40)
		if rng.IntN(4) == 0 {
			left = math.MaxInt
		}
		var suf []int32
		if rng.IntN(2) == 0 {
			var buf []int32
			suf = w.suffixMinProcs(&buf)
		}
		w2 := cloneWaitQueue(w)
		pre := []int32{-5}
		last, n, slots := takeRun(w2, i, end, left, procs, est, total, rng.IntN(12), suf, slices.Clone(pre), true)
		if last != i || n != 0 || !slices.Equal(slots, pre) {
			t.Fatalf("trial %d: runStops(%d, end %d, class %d/%v) but takeRun = (%d, %d, %v)", trial, i, end, procs, est, last, n, slots)
		}
		if !sameBounds(&w.group, &w2.group) || !sameBounds(&w.block, &w2.block) {
			t.Fatalf("trial %d: runStops(%d) but takeRun changed the queue's bounds", trial, i)
		}
	}
	for trial := range 6000 {
		n := 1 + rng.IntN(120)
		w := randQueue(n)
		i := rng.IntN(n)
		check(trial, w, i, i+1+rng.IntN(n-i))
	}
	w := randQueue(4000)
	for i := range len(w.procs) {
		check(i, w, i, len(w.procs)-rng.IntN(2))
	}
	t.Logf("%d positions where the run stops, %d where takeRun walks", stops, runs)
	if stops < 2000 || runs < 2000 {
		t.Fatalf("too few stops (%d) or walks (%d)", stops, runs)
	}
}
