package scheduler

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// randRuns returns a random running list (estimated ends from before now
// on, often equal) and the free processors now.
func randRuns(r *rand.Rand, now float64) (*runList, int) {
	var runs runList
	at := now - float64(r.IntN(3))*10
	n := r.IntN(6)
	if r.IntN(3) == 0 {
		n = r.IntN(400) // several blocks
	}
	for i := range n {
		at = randTime(r, at)
		runs.insert(runEntry{estEnd: at, seq: uint64(i), procs: int32(r.IntN(6))})
	}
	return &runs, r.IntN(8)
}

// randGroups returns random kept groups after now (their starts and ends
// often on the running jobs' ends or on each other's).
func randGroups(r *rand.Rand, now float64, runs *runList) []resGroup {
	gs := make([]resGroup, r.IntN(40))
	for k := range gs {
		at := now + 1 + float64(r.IntN(300))
		if runs.Len() > 0 && r.IntN(3) == 0 {
			at = math.Max(now+1, runs.at(r.IntN(runs.Len())).estEnd)
		} else if k > 0 && r.IntN(3) == 0 {
			at = gs[r.IntN(k)].at + gs[r.IntN(k)].est
		}
		gs[k] = resGroup{procs: int32(r.IntN(4)), n: int32(1 + r.IntN(3)), at: at, est: randDur(r)}
	}
	return gs
}

// TestBuildWithMatchesReserves compares buildWith with build followed by
// one reservation per group (as reuse made them) on random running lists
// and groups: the same steps (times and values), every block within its
// capacity, its first time its first step's, its bounds its exact
// smallest and largest value; and the same answers, as the reference
// profile's, to searches from random lower bounds that rule out no
// answer.
func TestBuildWithMatchesReserves(t *testing.T) {
	var want, got blockProfile
	var ref refProfile
	var edges resvEdges
	var wt, gt []float64
	var wf, gf []int
	for seed := range 3000 {
		r := rand.New(rand.NewPCG(uint64(seed), 41))
		now := float64(r.IntN(100))
		runs, free := randRuns(r, now)
		gs := randGroups(r, now, runs)
		want.build(now, free, runs)
		for _, gr := range gs {
			want.reserve(gr.at, gr.at+gr.est, int(gr.n)*int(gr.procs))
		}
		got.buildWith(now, free, runs, gs, &edges)
		wt, wf = want.steps(wt[:0], wf[:0])
		gt, gf = got.steps(gt[:0], gf[:0])
		if !slices.Equal(gt, wt) || !slices.Equal(gf, wf) {
			t.Fatalf("seed %d: steps\n%v %v\nwant\n%v %v", seed, gt, gf, wt, wf)
		}
		for pos := range got.blk {
			b, n := got.base(pos), int(got.blk[pos].n)
			fs := got.f[b : b+n]
			if n < 1 || n > blkCap || got.blk[pos].first != got.t[b] || got.blk[pos].add != 0 ||
				got.blk[pos].lo != slices.Min(fs) || got.blk[pos].hi != slices.Max(fs) {
				t.Fatalf("seed %d: block %d: %d steps, first %v (step %v), add %d, bounds [%d, %d] of %v",
					seed, pos, n, got.blk[pos].first, got.t[b], got.blk[pos].add, got.blk[pos].lo, got.blk[pos].hi, fs)
			}
		}
		ref.t, ref.free = append(ref.t[:0], wt...), append(ref.free[:0], wf...)
		ref.room = ref.room[:0]
		for range wt {
			ref.room = append(ref.room, math.Inf(1))
		}
		for range 20 {
			procs, dur := r.IntN(20), randDur(r)
			at := ref.earliest(procs, 0, dur)
			lb := now
			if !math.IsInf(at, 1) && r.IntN(2) == 0 {
				lb = now + r.Float64()*(at-now)
			}
			if a, _ := got.earliest(procs, dur, lb); a != at {
				t.Fatalf("seed %d: earliest(%d, %v, lb %v) = %v, want %v", seed, procs, dur, lb, a, at)
			}
		}
	}
}
