package scheduler

import (
	"cmp"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// leastEst is the staircase by definition: the least estimate among pts
// of at most fp processors (+Inf if none; NaN estimates left out).
func leastEst(pts []stairPt, fp int32) float64 {
	m := math.Inf(1)
	for _, q := range pts {
		if q.p <= fp && q.e == q.e {
			m = min(m, q.e)
		}
	}
	return m
}

func sortPts(pts []stairPt) {
	slices.SortFunc(pts, func(a, b stairPt) int {
		if c := cmp.Compare(a.p, b.p); c != 0 {
			return c
		}
		return cmp.Compare(a.e, b.e)
	})
}

// A staircase built from points, and one grown by inserting them one at a
// time, bound the least estimate from below at every processor count, and
// equal it where they keep every point (cut unset). Truncated staircases
// (more than stairK points) must be met often, and so must exact ones.
func TestStairBoundsLeastEstimate(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	cut, exact := 0, 0
	for trial := range 20000 {
		n := 1 + rng.IntN(24)
		maxP := 1 + rng.IntN(40)
		pts := make([]stairPt, n)
		falling := trial%2 == 0 // estimates falling with processors: long staircases
		for k := range pts {
			p := 1 + rng.IntN(maxP)
			e := float64(rng.IntN(60))
			if falling {
				e = float64(4*(maxP-p) + rng.IntN(6))
			}
			switch rng.IntN(40) {
			case 0:
				e = math.Inf(1)
			case 1:
				e = math.NaN()
			}
			pts[k] = stairPt{int32(p), e}
		}
		var built, grown stair
		sorted := slices.Clone(pts)
		sortPts(sorted)
		var clean []stairPt // from's input has no NaN (buildGroupStair leaves them out)
		for _, q := range sorted {
			if q.e == q.e {
				clean = append(clean, q)
			}
		}
		built.from(clean)
		grown.from(nil)
		for _, q := range pts {
			if q.e == q.e {
				grown.insert(q.p, q.e)
			}
		}
		for _, s := range []*stair{&built, &grown} {
			if s.cut != math.MaxInt32 {
				cut++
			} else {
				exact++
			}
			for k := 1; k < int(s.n); k++ {
				if !(s.p[k-1] < s.p[k] && s.e[k-1] > s.e[k]) {
					t.Fatalf("trial %d: points not a staircase: %v %v (n %d)", trial, s.p, s.e, s.n)
				}
			}
			for fp := int32(0); fp <= int32(maxP)+1; fp++ {
				want, got := leastEst(pts, fp), s.lb(fp)
				if got > want || s.cut == math.MaxInt32 && got != want {
					t.Fatalf("trial %d (%d points, cut %d): lb(%d) = %v, least estimate %v\npoints %v", trial, n, s.cut, fp, got, want, pts)
				}
			}
		}
	}
	if cut < 1000 || exact < 1000 {
		t.Fatalf("%d truncated and %d exact staircases: the test needs many of both", cut, exact)
	}
}

// nextBackfill on an overloaded queue (most entries too large for the
// free processors or too long for the window, few within the extra
// processors, so that the staircases decide) agrees with a linear scan
// after random pushes, removals, compactions, out-of-order inserts and
// estimate rewrites (up and down, as syncBootEst and the priority sort
// do), and every range a staircase rules out holds no entry the condition
// takes. The staircases must rule out many ranges, loose ones among them.
func TestWaitQueueStairsMatchScan(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 14))
	outs, looseOuts, scans, long := 0, 0, 0, 0
	for trial := range 40 {
		var w waitQueue
		maxP := 8 + rng.IntN(120)
		steps := 1500 + rng.IntN(3000)
		for step := range steps {
			switch x := rng.IntN(100); {
			case x < 55:
				w.push(int32(step), 1+rng.IntN(maxP), float64(rng.IntN(1000)), float64(rng.IntN(100)))
			case x < 70 && w.live > 0:
				i := w.next(w.head+rng.IntN(len(w.slots)-w.head), math.MaxInt32-1)
				for k := rng.IntN(4); i >= 0 && k >= 0; k-- {
					w.remove(i)
					i = w.next(i+1+rng.IntN(8), math.MaxInt32-1)
				}
			case x < 72:
				// estimates re-read (syncBootEst, refreshEst): some up,
				// some down
				for i, s := range w.slots {
					if s >= 0 && rng.IntN(3) == 0 {
						w.est[i] = max(0, w.est[i]+float64(rng.IntN(400)-200))
					}
				}
				if rng.IntN(2) == 0 {
					w.rebuildEst()
				} else {
					w.rebuild()
				}
			case x < 73:
				// a new queue order (the priority sort): squeeze, shuffle,
				// rebuild
				w.squeeze()
				live := len(w.slots)
				for i := live - 1; i > 0; i-- {
					j := rng.IntN(i + 1)
					w.slots[i], w.slots[j] = w.slots[j], w.slots[i]
					w.procs[i], w.procs[j] = w.procs[j], w.procs[i]
					w.est[i], w.est[j] = w.est[j], w.est[i]
					w.pw[i], w.pw[j] = w.pw[j], w.pw[i]
				}
				w.rebuild()
			case x < 75:
				w.compact()
			case x < 78:
				lo := w.squeeze()
				i := rng.IntN(len(w.slots) + 1)
				w.insertFrom(lo, i, int32(step), 1+rng.IntN(maxP), float64(rng.IntN(1000)), float64(rng.IntN(100)))
			}
			// an overloaded pass: few free processors, fewer extra, a
			// short window
			fp := 1 + rng.IntN(maxP)
			xp := rng.IntN(1 + fp/4)
			win := float64(rng.IntN(300))
			room := math.Inf(1)
			if rng.IntN(4) == 0 {
				room = float64(rng.IntN(120))
			}
			from := 0
			if len(w.slots) > 0 {
				from = rng.IntN(len(w.slots))
			}
			qualifies := func(i int) bool {
				p := int(w.procs[i])
				return w.slots[i] >= 0 && p <= fp && (p <= xp || w.est[i] <= win) && !(w.pw[i] > room)
			}
			for {
				want := -1
				for i := max(from, w.head); i < len(w.slots); i++ {
					if qualifies(i) {
						want = i
						break
					}
				}
				if w.live >= stairQueue {
					long++ // a scan that uses the staircases
				}
				got := w.nextBackfill(from, fp, xp, win, room)
				scans++
				if got != want {
					t.Fatalf("trial %d step %d: nextBackfill(%d, %d, %d, %v, %v) = %d, want %d", trial, step, from, fp, xp, win, room, got, want)
				}
				if got < 0 {
					break
				}
				from = got + 1
			}
			// every range a staircase rules out holds no candidate
			for _, r := range []struct {
				sts   *[]stair
				shift int
				b     *bounds
				build func(*waitQueue, int, *stair)
			}{{&w.stairs, groupShift, &w.group, buildGroupStair}, {&w.bstairs, blockShift, &w.block, buildBlockStair}} {
				for k := range r.b.procs {
					loose := k < len(*r.sts) && (*r.sts)[k].ok && (*r.sts)[k].loose
					if k < len(*r.sts) && !(*r.sts)[k].ok && rng.IntN(2) == 0 {
						r.build(&w, k, &(*r.sts)[k]) // as a scan's pending build
					}
					var pend int
					out := w.stairRulesOut(r.sts, k, r.b.procs[k], int32(fp), int32(xp), win, &pend)
					if !out {
						continue
					}
					outs++
					if loose {
						looseOuts++
					}
					for i := k << r.shift; i < min((k+1)<<r.shift, len(w.slots)); i++ {
						if p := int(w.procs[i]); w.slots[i] >= 0 && p <= fp && (p <= xp || w.est[i] <= win) {
							t.Fatalf("trial %d step %d: range %d (shift %d) ruled out, but entry %d (%d procs, est %v) qualifies for free %d, extra %d, window %v",
								trial, step, k, r.shift, i, p, w.est[i], fp, xp, win)
						}
					}
				}
			}
		}
	}
	if outs < 50000 || looseOuts < 1000 || long < scans/4 {
		t.Fatalf("staircases ruled out %d ranges (%d loose ones) in %d scans, %d on queues long enough to use them: the test needs many", outs, looseOuts, scans, long)
	}
	if testing.Verbose() {
		t.Logf("%d scans (%d on queues long enough to use staircases), %d ranges ruled out by staircases (%d loose)", scans, long, outs, looseOuts)
	}
}
