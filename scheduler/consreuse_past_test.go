package scheduler

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestWalkPastMatchesEach compares walkPast (the reuse walk past the
// free-processor cutoff) with the walk one entry at a time through the
// wait queue's skips (walkSlotsEach, with no cutoff) on random wait
// queues with tombstones and jobs larger than the machine: the same
// answers, a position kept only where the group's slots are consecutive
// from it, and the queue left exactly as it was (a rebuilt pass makes no
// wait-queue call past the cutoff, so walkPast must not tighten bounds).
func TestWalkPastMatchesEach(t *testing.T) {
	rng := rand.New(rand.NewPCG(18, 7))
	const total = 64
	found, missed := 0, 0
	for trial := range 3000 {
		w, want, i, ok := randWalkGroup(rng, total)
		if !ok {
			continue
		}
		// The position after the group before: at the first slot, or at
		// a tombstone or large job before it.
		for i > 0 && rng.IntN(2) == 0 && w.procs[i-1] > total {
			i--
		}
		var c Conservative
		c.rs.slots = append(append(c.rs.slots, 1, 2, 3), want...)
		gr := resGroup{slotEnd: int32(len(c.rs.slots)), pos: 5}
		before := cloneWaitQueue(w)
		j, sj := c.walkPast(w, &gr, i, 3, total)
		if !sameBounds(&w.group, &before.group) || !sameBounds(&w.block, &before.block) ||
			!slices.Equal(w.slots, before.slots) || !slices.Equal(w.procs, before.procs) || w.head != before.head {
			t.Fatalf("trial %d: walkPast changed the wait queue", trial)
		}
		w2 := cloneWaitQueue(w)
		i2 := i
		if w2.procs[i2] > total {
			i2 = walkSkip(w2, i2, total)
		}
		var buf []int32
		suf := w2.suffixMinProcs(&buf)
		j2, sj2 := walkSlotsEach(w2, want, i2, 3, total, math.MaxInt32, suf)
		// walkPast leaves the step past the group's last entry to the
		// next group (the reuse walk's deferred walkStep).
		jj := j
		for sj >= 0 && jj < len(w.procs) && w.procs[jj] > total {
			jj++
		}
		if (sj < 0) != (sj2 < 0) || sj >= 0 && (jj != j2 || sj != sj2) {
			t.Fatalf("trial %d: walkPast from %d = (%d, %d), one at a time (%d, %d)", trial, i, j, sj, j2, sj2)
		}
		if sj < 0 {
			missed++
			if gr.pos != noPos {
				t.Fatalf("trial %d: not found, position %d kept", trial, gr.pos)
			}
			continue
		}
		found++
		p := int(gr.pos)
		consec := p == i2 && p+len(want) <= len(w.slots) && slices.Equal(w.slots[p:p+len(want)], want)
		if gr.pos != noPos && !consec || gr.pos == noPos && i2+len(want) <= len(w.slots) && slices.Equal(w.slots[i2:i2+len(want)], want) {
			t.Fatalf("trial %d: position %d kept for slots from %d", trial, gr.pos, i2)
		}
	}
	if found < 500 || missed < 300 {
		t.Fatalf("only %d groups found and %d not", found, missed)
	}
}
