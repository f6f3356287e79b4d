package scheduler

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// refCompact is compact as it was before squeeze: every entry moved down
// over the tombstones and every bound computed again.
func refCompact(w *waitQueue) {
	k := 0
	for i, s := range w.slots {
		if s >= 0 {
			w.slots[k], w.procs[k], w.est[k], w.pw[k] = s, w.procs[i], w.est[i], w.pw[i]
			k++
		}
	}
	w.slots, w.procs, w.est, w.pw = w.slots[:k], w.procs[:k], w.est[:k], w.pw[:k]
	w.head = 0
	refRebuild(w)
}

// refRebuild sets every bound by adding the entries one by one.
func refRebuild(w *waitQueue) {
	w.group.reset()
	w.block.reset()
	w.stairs, w.bstairs, w.stairHi, w.bstairHi = nil, nil, 0, 0 // built again from the entries when needed
	for i, p := range w.procs {
		w.group.add(i>>groupShift, p, w.est[i])
		w.block.add(i>>blockShift, p, w.est[i])
	}
}

// refInsert is insert as it was: the entry put at i, every bound computed
// again.
func refInsert(w *waitQueue, i int, slot int32, procs int, est, pw float64) {
	w.slots = slices.Insert(w.slots, i, slot)
	w.procs = slices.Insert(w.procs, i, int32(procs))
	w.est = slices.Insert(w.est, i, est)
	w.pw = slices.Insert(w.pw, i, pw)
	w.live++
	w.head = 0
	refRebuild(w)
}

// TestWaitQueueSqueezeMatchesCompact runs random pushes, removals, scans
// (which tighten stale bounds), estimate changes, compactions and
// out-of-order inserts (squeeze, then insertFrom, as Engine.enqueue does)
// on one queue, and the same operations on a copy that compacts and
// inserts by moving every entry and computing every bound again: the
// entries, head, live count and every group and block bound stay equal.
// The bounds before the first tombstone are what a rebuild gives, so
// rebuilding from the first entry that moved loses nothing.
func TestWaitQueueSqueezeMatchesCompact(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	partial := 0 // squeezes that left a prefix unmoved (not vacuous)
	for trial := range 60 {
		var w, r waitQueue
		r.dead = math.MaxInt // unused by the reference
		maxP := 1 + rng.IntN(64)
		steps := 200 + rng.IntN(3000)
		for step := range steps {
			switch x := rng.IntN(100); {
			case x < 40:
				p, e := 1+rng.IntN(maxP), float64(rng.IntN(50))
				w.push(int32(step), p, e, 0)
				r.push(int32(step), p, e, 0)
			case x < 65 && w.live > 0:
				i := w.head + rng.IntN(len(w.slots)-w.head)
				if w.slots[i] >= 0 {
					w.remove(i)
					r.remove(i)
				}
			case x < 75:
				from, fp := rng.IntN(len(w.slots)+1), rng.IntN(maxP+1)
				if a, b := w.next(from, fp), r.next(from, fp); a != b {
					t.Fatalf("trial %d step %d: next %d and %d", trial, step, a, b)
				}
			case x < 80:
				from, fp, xp, win := rng.IntN(len(w.slots)+1), rng.IntN(maxP+1), rng.IntN(maxP+1), float64(rng.IntN(60))
				if a, b := w.nextBackfill(from, fp, xp, win, math.Inf(1)), r.nextBackfill(from, fp, xp, win, math.Inf(1)); a != b {
					t.Fatalf("trial %d step %d: nextBackfill %d and %d", trial, step, a, b)
				}
			case x < 82:
				// estimates re-read (syncBootEst): the entries and the
				// estimates' bounds only
				d := float64(rng.IntN(3))
				for i, s := range w.slots {
					if s >= 0 {
						w.est[i] += d
						r.est[i] += d
					}
				}
				w.rebuildEst()
				r.rebuildEst()
			case x < 85:
				w.compact()
				refCompact(&r)
			case x < 97:
				dead := w.dead
				lo := w.squeeze()
				refCompact(&r)
				if lo > 0 && dead != 0 {
					partial++
				}
				i, p, e := rng.IntN(len(w.slots)+1), 1+rng.IntN(maxP), float64(rng.IntN(50))
				w.insertFrom(lo, i, int32(step), p, e, 0)
				refInsert(&r, i, int32(step), p, e, 0)
			}
			if !slices.Equal(w.slots, r.slots) || !slices.Equal(w.procs, r.procs) || !slices.Equal(w.est, r.est) ||
				w.head != r.head || w.live != r.live {
				t.Fatalf("trial %d step %d: entries differ", trial, step)
			}
			if !slices.Equal(w.group.procs, r.group.procs) || !slices.Equal(w.group.est, r.group.est) ||
				!slices.Equal(w.block.procs, r.block.procs) || !slices.Equal(w.block.est, r.block.est) {
				t.Fatalf("trial %d step %d: bounds differ:\n group %v %v\n  ref  %v %v\n block %v %v\n  ref  %v %v",
					trial, step, w.group.procs, w.group.est, r.group.procs, r.group.est,
					w.block.procs, w.block.est, r.block.procs, r.block.est)
			}
		}
	}
	if partial < 1000 {
		t.Fatalf("only %d squeezes left a prefix unmoved", partial)
	}
}

// The four-chain minima of a group equal the one-at-a-time loop's, bit for
// bit, on groups with NaNs, both zeros, infinities and short groups.
func TestGroupMinima(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	special := []float64{math.NaN(), math.Copysign(0, -1), 0, math.Inf(1), math.Inf(-1), 1, 2}
	for trial := range 20000 {
		n := 16
		if trial%4 == 0 {
			n = rng.IntN(17)
		}
		es, ps := make([]float64, n), make([]int32, n)
		for i := range es {
			es[i] = special[rng.IntN(len(special))]
			if rng.IntN(3) == 0 {
				es[i] = rng.Float64()
			}
			ps[i] = int32(rng.IntN(200)) - 100
		}
		me, mp := math.Inf(1), int32(math.MaxInt32)
		for i := range es {
			me, mp = min(me, es[i]), min(mp, ps[i])
		}
		if got := min16(es, math.Inf(1)); math.Float64bits(got) != math.Float64bits(me) && !(math.IsNaN(got) && math.IsNaN(me)) {
			t.Fatalf("min16(%v) = %v, the loop gives %v", es, got, me)
		}
		if got := min16(ps, math.MaxInt32); got != mp {
			t.Fatalf("min16(%v) = %v, the loop gives %v", ps, got, mp)
		}
	}
}
