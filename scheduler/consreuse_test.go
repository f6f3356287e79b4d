package scheduler

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestConservativeReuseCertificate checks stands on hand-made
// certificates: a job of estimate est placed at 50, whose search met a
// too-full part [10, 20) 2 processors short and [30, 40) 5 short, after
// a finish that frees procs processors from now (0) to 25 (to 45 in the
// last case). A part D lifts to the job's size is dropped once the
// placement stands; the deficits of the parts before D's last end are
// lowered by D whether or not it stands (the parts are shared).
func TestConservativeReuseCertificate(t *testing.T) {
	cases := []struct {
		procs  int32
		est    float64
		stands bool
		after  []certIv // the certificate after the check
	}{
		{1, 15, true, []certIv{{x: 10, y: 20, def: 1}, {x: 30, y: 40, def: 5}}},    // D lifts no part to the job's size
		{3, 15, false, []certIv{{x: 10, y: 20, def: -1}, {x: 30, y: 40, def: 5}}},  // [10, 20) may fit: starts in [0, 15] touch no blocking part
		{3, 25, false, []certIv{{x: 10, y: 20, def: -1}, {x: 30, y: 40, def: 5}}},  // starts in [0, 5] still do not reach [30, 40)
		{3, 31, true, []certIv{{x: 30, y: 40, def: 5}}},                            // every start before 20 reaches [30, 40), which D cannot lift
		{3, 30, false, []certIv{{x: 10, y: 20, def: -1}, {x: 30, y: 40, def: 5}}},  // a start at 0 ends at 30: its window stops before [30, 40)
		{8, 31, false, []certIv{{x: 10, y: 20, def: -6}, {x: 30, y: 40, def: -3}}}, // D lifts both parts
	}
	for k, tc := range cases {
		c := &Conservative{}
		c.rs.d = []runEntry{{estEnd: 25, procs: tc.procs}}
		c.rs.dEnd = 25
		if tc.procs == 8 {
			c.rs.d[0].estEnd, c.rs.dEnd = 45, 45
		}
		c.sortLifts()
		gr := &resGroup{procs: 4, n: 1, est: tc.est, at: 50}
		setTestCert(c, gr, []certIv{{x: 10, y: 20, def: 2}, {x: 30, y: 40, def: 5}})
		c.bp.certPass++ // a new pass: the parts have not been lowered in it
		if got := c.stands(gr, 0); got != tc.stands {
			t.Fatalf("case %d: stands %v, want %v", k, got, tc.stands)
		}
		if got := testCert(c, gr); !slices.Equal(got, tc.after) {
			t.Fatalf("case %d: certificate %v after the check, want %v", k, got, tc.after)
		}
	}
}

// TestConservativeLiftMatchesSum compares lift, read from D's ends sorted
// with running sums, with the sum it stands for (the processors of D's
// parts ending after max(x, now), none from D's last end on) on random
// D's with tied ends, at the ends themselves and between them.
func TestConservativeLiftMatchesSum(t *testing.T) {
	rng := rand.New(rand.NewPCG(18, 0))
	for trial := range 2000 {
		c := &Conservative{}
		now := float64(rng.IntN(5))
		c.rs.dEnd = now
		for range rng.IntN(5) {
			end := now + 1 + float64(rng.IntN(8))
			c.rs.d = append(c.rs.d, runEntry{estEnd: end, procs: int32(1 + rng.IntN(6))})
			c.rs.dEnd = max(c.rs.dEnd, end)
		}
		c.sortLifts()
		for x := now - 2; x <= now+10; x += 0.5 {
			want := 0
			if x < c.rs.dEnd {
				for _, r := range c.rs.d {
					if r.estEnd > max(x, now) {
						want += int(r.procs)
					}
				}
			}
			if got := c.lift(x, now); got != want {
				t.Fatalf("trial %d: D %v, now %v: lift(%v) = %d, want %d", trial, c.rs.d, now, x, got, want)
			}
		}
	}
}

// TestWalkSlotsMatchesEach compares walkSlots (a whole group at once when
// it is where it was) with the walk one entry at a time on random wait
// queues with tombstones and jobs larger than the machine: the same
// answers, and the same bounds left in the queue (the walk's skips
// tighten them).
func TestWalkSlotsMatchesEach(t *testing.T) {
	rng := rand.New(rand.NewPCG(18, 1))
	const total = 64
	for trial := range 3000 {
		w, want, i, ok := randWalkGroup(rng, total)
		if !ok {
			continue
		}
		var buf []int32
		suf := w.suffixMinProcs(&buf)
		free := rng.IntN(total + 1)
		w2 := cloneWaitQueue(w)
		j, sj := walkSlots(w, want, i, 7, total, free, suf)
		j2, sj2 := walkSlotsEach(w2, want, i, 7, total, free, suf)
		if j != j2 || sj != sj2 {
			t.Fatalf("trial %d: walkSlots from %d = (%d, %d), one at a time (%d, %d)", trial, i, j, sj, j2, sj2)
		}
		if !sameBounds(&w.group, &w2.group) || !sameBounds(&w.block, &w2.block) {
			t.Fatalf("trial %d: the walks left different bounds", trial)
		}
	}
}

// randWalkGroup draws a wait queue of up to 120 jobs on a machine of
// total processors (some jobs larger than it, some entries removed), a
// group of consecutive live entries from a random start as a reuse walk
// looks for it (at times with a job that is not where it was, or whose
// last job has since started) and the position to walk from; ok is false
// when the queue has no live entry there. TestWalkSlotsMatchesEach and
// TestWalkPastMatchesEach draw their cases from it.
func randWalkGroup(rng *rand.Rand, total int) (w *waitQueue, want []int32, from int, ok bool) {
	w = new(waitQueue)
	n := 1 + rng.IntN(120)
	for k := range n {
		procs := 1 + rng.IntN(total)
		if rng.IntN(10) == 0 {
			procs = total + 1 + rng.IntN(8) // never returned by View.Next
		}
		w.push(int32(k), procs, float64(1+rng.IntN(100)), 0)
	}
	for range rng.IntN(n) {
		if k := rng.IntN(n); w.slots[k] >= 0 && rng.IntN(3) == 0 {
			w.remove(k)
		}
	}
	// The live entries View.Next returns, from a random start.
	var order []int32
	for i := w.next(rng.IntN(n), total); i >= 0; i = w.next(i+1, total) {
		order = append(order, w.slots[i])
	}
	if len(order) == 0 {
		return nil, nil, 0, false
	}
	a := rng.IntN(len(order))
	want = slices.Clone(order[a:min(len(order), a+1+rng.IntN(20))])
	switch rng.IntN(4) {
	case 0: // a job that is not where it was (recorded jobs are within the machine's size)
		if s := int32(rng.IntN(n)); int(w.procs[s]) <= total || w.slots[s] < 0 {
			want[rng.IntN(len(want))] = s
		}
	case 1: // a group whose last job has since started
		if k := slices.Index(w.slots, want[len(want)-1]); rng.IntN(2) == 0 {
			w.remove(k)
		}
	}
	from = slices.Index(w.slots, order[a])
	if from < 0 {
		from = rng.IntN(n)
	}
	return w, want, from, true
}

func cloneWaitQueue(w *waitQueue) *waitQueue {
	c := *w
	c.slots, c.procs, c.est, c.pw = slices.Clone(w.slots), slices.Clone(w.procs), slices.Clone(w.est), slices.Clone(w.pw)
	for _, b := range []*bounds{&c.group, &c.block} {
		b.procs, b.est, b.stale = slices.Clone(b.procs), slices.Clone(b.est), slices.Clone(b.stale)
	}
	return &c
}

func sameBounds(a, b *bounds) bool {
	return slices.Equal(a.procs, b.procs) && slices.Equal(a.est, b.est) && slices.Equal(a.stale, b.stale)
}

// TestConservativeMayLift checks the shortcut around stands on random
// certificates (parts in time order) and D's: wherever mayLift says there
// is nothing to check, stands reports that the placement stands and
// leaves its certificate as it was.
func TestConservativeMayLift(t *testing.T) {
	rng := rand.New(rand.NewPCG(18, 2))
	skipped := 0
	for trial := range 5000 {
		c := &Conservative{}
		x := float64(rng.IntN(10))
		var cert []certIv
		for range rng.IntN(4) {
			y := x + 1 + float64(rng.IntN(5))
			cert = append(cert, certIv{x: x, y: y, def: int32(1 + rng.IntN(6))})
			x = y + float64(rng.IntN(3))
		}
		c.rs.dEnd = 0
		for range rng.IntN(3) {
			end := 1 + float64(rng.IntN(20))
			c.rs.d = append(c.rs.d, runEntry{estEnd: end, procs: int32(1 + rng.IntN(6))})
			c.rs.dEnd = max(c.rs.dEnd, end)
		}
		c.sortLifts()
		gr := &resGroup{procs: 6, n: 1, est: float64(1 + rng.IntN(10)), at: x + 5}
		setTestCert(c, gr, cert)
		c.bp.certPass++
		if c.mayLift(gr) {
			continue
		}
		skipped++
		before := testCert(c, gr)
		if !c.stands(gr, 0) || !slices.Equal(testCert(c, gr), before) {
			t.Fatalf("trial %d: mayLift false, but stands changes the placement or its certificate (%v, D %v)", trial, before, c.rs.d)
		}
	}
	if skipped == 0 {
		t.Fatal("no trial had nothing to check")
	}
}

// setTestCert makes parts (in time order) gr's certificate: parts of
// its own in c's profile, one segment.
func setTestCert(c *Conservative, gr *resGroup, parts []certIv) {
	p := &c.bp
	pf, sf := len(p.cert), len(p.segs)
	p.cert = append(p.cert, parts...)
	p.ownCert(pf)
	gr.setCert(p, sf, len(p.segs))
}

// testCert returns gr's certificate as parts with their deficits (the
// passes they were lowered in left out).
func testCert(c *Conservative, gr *resGroup) []certIv {
	cert := c.bp.flatCert(nil, int(gr.certFrom), int(gr.certTo))
	for k := range cert {
		cert[k].pass = 0
	}
	return cert
}

// TestSplitStepsKeepAnswers backs mergeLeft: a profile whose steps are
// split where the free processors do not change (as reuse leaves the
// steps of groups taken back until mergeLeft) answers every search as the
// reference profile without the splits does, from random lower bounds
// that rule out no earlier start, and records certificates that hold on
// the reference (checkCertificate).
func TestSplitStepsKeepAnswers(t *testing.T) {
	var ref refProfile
	var bp blockProfile
	bp.rec = true
	splits := 0
	for seed := range 3000 {
		r := rand.New(rand.NewPCG(uint64(seed), 43))
		now, total := buildPair(r, &ref, &bp)
		bp.clearCert()
		bp.ruled.clear()
		for op := range r.IntN(150) {
			if r.IntN(3) == 0 {
				// A reservation of no processors: steps split at its
				// start and end, the function unchanged.
				from := randTime(r, now)
				if r.IntN(2) == 0 && len(ref.t) > 1 {
					from = math.Max(now, ref.t[r.IntN(len(ref.t))]+float64(r.IntN(3)-1))
				}
				bp.reserve(from, from+randDur(r), 0)
				splits++
				continue
			}
			procs, dur := r.IntN(total+2), randDur(r)
			want := ref.earliest(procs, 0, dur)
			lb := now
			if !math.IsInf(want, 1) && r.IntN(2) == 0 {
				lb = now + r.Float64()*(want-now)
				if r.IntN(3) == 0 {
					lb = want
				}
			}
			cf := len(bp.segs)
			got, _ := bp.earliest(procs, dur, lb)
			if got != want {
				t.Fatalf("seed %d op %d: earliest(%d, %v, lb %v) = %v, want %v", seed, op, procs, dur, lb, got, want)
			}
			if math.IsInf(want, 1) {
				continue
			}
			checkCertificate(t, seed, op, &ref, bp.flatCert(nil, cf, len(bp.segs)), procs, dur, lb, want)
			if r.IntN(3) > 0 {
				ref.reserve(want, want+dur, procs, 0)
				bp.reserve(want, want+dur, procs)
			}
		}
	}
	if splits < 10000 {
		t.Fatalf("only %d splits", splits)
	}
}
