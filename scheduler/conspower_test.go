package scheduler

import "testing"

// A reservation of negative power (a job whose lowest level draws less
// than the idle power its processors are counted at) gives headroom back,
// so a search answer remembered before it no longer bounds later
// searches: place must clear the memo (powerMemo) there. Hand-made case
// on 10 processors and 150 W of headroom, 100 W of it taken over
// [0, 1000) by an earlier reservation:
//   - A (1 processor, 100 W, 100 s) fits from 1000 only (50 W free before);
//   - B (1 processor, −60 W, 5000 s) starts at 0 and frees 60 W there;
//   - C, as A, now fits at 0 (110 W free). A memo that kept A's answer
//     would start C's search at 1000.
func TestPowerMemoClearedByNegativePower(t *testing.T) {
	for _, full := range []bool{false, true} {
		c := &Conservative{full: full}
		c.p.reset(0, 10, 150)
		c.p.reserve(0, 1000, 1, 100)
		place := func(procs int, w, est float64) float64 {
			return c.place(0, &QueuedJob{Procs: procs, Est: est, Power: w})
		}
		if a := place(1, 100, 100); a != 1000 {
			t.Fatalf("full=%v: A starts at %v, want 1000", full, a)
		}
		if b := place(1, -60, 5000); b != 0 {
			t.Fatalf("full=%v: B starts at %v, want 0", full, b)
		}
		if got := place(1, 100, 100); got != 0 {
			t.Fatalf("full=%v: C starts at %v, want 0 (the headroom B gave back)", full, got)
		}
		// After the reset the memo serves dominated searches again: D
		// (2 processors, 100 W, 100 s) cannot start before C's answer, 0,
		// and does not fit there (C left 10 W over [0, 100)); it starts
		// at 100, where 110 W are free until A's start at 1000.
		if d := place(2, 100, 100); d != 100 {
			t.Fatalf("full=%v: D starts at %v, want 100", full, d)
		}
	}
}
