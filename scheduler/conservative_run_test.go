package scheduler

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// takeRunEach is takeRun one entry at a time, as the loop of extendRun
// was written before it took stretches: the reference.
func takeRunEach(w *waitQueue, i, end, left int, procs int32, est float64, total, free int, suf, slots []int32, keep bool) (int, int, []int32) {
	mp := int32(min(total, math.MaxInt32-1))
	n := 0
	for j := i + 1; left > 0 && j < end; j++ {
		if w.procs[j] > mp {
			if j = w.next(j, total); j < 0 || j >= end {
				break
			}
		}
		if w.procs[j] != procs || w.est[j] != est || (suf != nil && free < int(suf[j>>groupShift])) {
			break
		}
		left--
		n++
		if keep {
			slots = append(slots, w.slots[j])
		}
		i = j
	}
	return i, n, slots
}

// TestTakeRunMatchesEach compares takeRun with the walk one entry at a
// time on random wait queues made of long runs of a few classes, with
// tombstones, jobs larger than the machine and random suffix cutoffs:
// the same last position, count and slots, and the same bounds left in
// the queue (the walk's skips tighten them).
func TestTakeRunMatchesEach(t *testing.T) {
	rng := rand.New(rand.NewPCG(18, 7))
	const total = 16
	type class struct {
		procs int
		est   float64
	}
	ests := []float64{10, 20}
	cut, took := 0, 0
	for trial := range 8000 {
		var w waitQueue
		n := 1 + rng.IntN(200)
		// Runs of a class, their processors growing along the queue, so
		// that the suffix bounds grow too.
		cl := class{1, 10}
		for k := range n {
			if rng.IntN(12) == 0 {
				cl = class{1 + 8*k/n + rng.IntN(2), ests[rng.IntN(len(ests))]}
			}
			procs, est := cl.procs, cl.est
			if rng.IntN(40) == 0 {
				procs = total + 1 + rng.IntN(4) // never returned by View.Next
			}
			w.push(int32(k), procs, est, 0)
		}
		for range rng.IntN(n/4 + 1) {
			if k := rng.IntN(n); w.slots[k] >= 0 {
				w.remove(k)
			}
		}
		i := rng.IntN(n)
		end := i + 1 + rng.IntN(n-i)
		left := 1 + rng.IntN(40)
		if rng.IntN(4) == 0 {
			left = math.MaxInt // a run of no processors
		}
		// Mostly the class of the entry after i (as after a search).
		c := class{1 + rng.IntN(9), ests[rng.IntN(len(ests))]}
		if j := i + 1; j < n && rng.IntN(4) > 0 {
			c = class{int(w.procs[j]), w.est[j]}
		}
		var suf []int32
		if rng.IntN(4) > 0 {
			var buf []int32
			suf = w.suffixMinProcs(&buf)
		}
		free := rng.IntN(12)
		keep := rng.IntN(4) > 0
		w2 := cloneWaitQueue(&w)
		pre := []int32{-5}
		last, got, slots := takeRun(&w, i, end, left, int32(c.procs), c.est, total, free, suf, slices.Clone(pre), keep)
		last2, got2, slots2 := takeRunEach(w2, i, end, left, int32(c.procs), c.est, total, free, suf, slices.Clone(pre), keep)
		if last != last2 || got != got2 || !slices.Equal(slots, slots2) {
			t.Fatalf("trial %d: takeRun from %d to %d (left %d, class %v, free %d) = (%d, %d, %v), one at a time (%d, %d, %v)",
				trial, i, end, left, c, free, last, got, slots, last2, got2, slots2)
		}
		if !sameBounds(&w.group, &w2.group) || !sameBounds(&w.block, &w2.block) {
			t.Fatalf("trial %d: the walks left different bounds", trial)
		}
		if got > 0 {
			took++
		}
		if suf != nil && last2+1 < end && got2 < left && last2+1 < len(w.procs) && free < int(suf[(last2+1)>>groupShift]) {
			cut++
		}
	}
	t.Logf("%d trials took a run, %d stopped at the suffix bound", took, cut)
	if took < 1500 || cut < 300 {
		t.Fatalf("too few trials took a run (%d) or stopped at the suffix bound (%d)", took, cut)
	}
}
