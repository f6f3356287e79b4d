package scheduler

import (
	"cmp"
	"math"
	"slices"
)

// Staircases of the wait queue's groups and blocks.
//
// A range's bounds (the least processors and the least estimate in it)
// rule it out of a backfill scan only when one of them fails: on an
// overloaded machine most ranges hold both a small job with a long
// estimate and a short job on many processors, so the scan enters them
// and reads every entry to find none that fits. CEA-Curie under
// --powercap powersave (a queue of weeks): 220 M entries read in 13.9 M
// groups entered, for 287 k candidates. EASY's backfill condition is
// p ≤ free and (p ≤ extra or e ≤ window); its second half needs, over
// the entries of at most free processors, the least estimate: a step
// function of free, a staircase. Each group and block keeps the first
// points of its staircase (stairK of them exactly; beyond those only the
// range's least estimate), built once scans have entered the range and
// left it without a candidate stairWaste times (only scans of queues of
// stairQueue jobs or more use them), updated by each entry that joins the
// range, and dropped when entries move or their values are rewritten
// (rebuildFrom, rebuildEst). A block's is built from its groups'. A start leaves its entry in the staircases: a point of a
// job that left can only make the least estimates lower, so a staircase
// stays a lower bound and rules out no range that holds a candidate.
// The entries' power (the room test) is not in it: that only rules out
// more.

// stairK is the number of staircase points a range keeps exactly (the
// staircase of 16 random entries has 3.4 points on the average, of 256
// entries 6.1).
const stairK = 6

// stair is one range's staircase: p[k] ascending, e[k] the least
// estimate of the range's entries with at most p[k] processors, strictly
// decreasing; the n points kept cover every entry with fewer processors
// than cut, and emin is at most the least estimate of all. Entries with a
// NaN estimate, which never pass e ≤ window, are left out. As a function,
// the least estimate over entries of at most fp processors is at least
// lb(fp) = min{e : a point (p, e) with p ≤ fp, or (cut, emin)}.
type stair struct {
	p    [stairK]int32
	e    [stairK]float64
	emin float64
	cut  int32
	n    int8
	ok   bool // built, and a lower bound
	// loose says an entry that may have made a point left: still a lower
	// bound, but it may rule out less than a new one would.
	loose bool
	// waste counts the scans that entered the range and left it without
	// a candidate while the staircase was loose or missing (wasted).
	waste uint8
}

// stairQueue is the number of queued jobs from which backfill scans use
// the staircases (a block's worth).
const stairQueue = 1 << blockShift

// stairWaste is the number of wasted scans of a range after which its
// loose or missing staircase is built: a build costs about as much as
// eight scans of a group's entries, and on a queue that is not
// overloaded most ranges are scanned in vain only now and then (building
// at the first one cost plain EASY on CTC-SP2 8 %).
const stairWaste = 8

// wasted records a scan that entered range k of sts and left it without
// a candidate while its staircase was loose or missing, and builds it at
// the stairWaste-th.
func (w *waitQueue) wasted(sts []stair, k int, build func(*waitQueue, int, *stair)) {
	if s := &sts[k]; s.waste < stairWaste-1 {
		s.waste++
	} else {
		build(w, k, s)
	}
}

// stairPt is a point (processors, estimate) of a staircase being built.
type stairPt struct {
	p int32
	e float64
}

// lb returns a lower bound of the least estimate among the range's
// entries of at most fp processors (+Inf if there are none).
func (s *stair) lb(fp int32) float64 {
	if fp >= s.cut {
		return s.emin
	}
	lb := math.Inf(1)
	for k := range int(s.n) {
		if s.p[k] > fp {
			break
		}
		lb = s.e[k]
	}
	return lb
}

// from builds s from pts, sorted by processors and then estimate.
func (s *stair) from(pts []stairPt) {
	*s = stair{emin: math.Inf(1), cut: math.MaxInt32, ok: true}
	for _, q := range pts {
		s.emin = min(s.emin, q.e)
		if s.cut != math.MaxInt32 || s.n > 0 && !(q.e < s.e[s.n-1]) {
			continue // past the points kept, or not below a point with no more processors
		}
		if int(s.n) == stairK {
			s.cut = q.p // the first point not kept
			continue
		}
		s.p[s.n], s.e[s.n] = q.p, q.e
		s.n++
	}
}

// insert adds an entry of p processors and estimate e (not NaN).
func (s *stair) insert(p int32, e float64) {
	s.emin = min(s.emin, e)
	if p >= s.cut {
		return // covered by emin
	}
	n := int(s.n)
	k := 0
	for k < n && s.p[k] < p {
		k++
	}
	if k > 0 && s.e[k-1] <= e || k < n && s.p[k] == p && s.e[k] <= e {
		return // a point with no more processors is as low
	}
	// (p, e) goes at k; the points after it that it is as low as go
	j := k
	for j < n && s.e[j] >= e {
		j++
	}
	// points k..j-1 are dropped, (p, e) inserted at k, the rest shifted
	var ps [stairK + 1]int32
	var es [stairK + 1]float64
	m := copy(ps[:], s.p[:k])
	copy(es[:], s.e[:k])
	ps[m], es[m] = p, e
	m++
	m += copy(ps[m:], s.p[j:n])
	copy(es[k+1:], s.e[j:n])
	if m > stairK {
		m = stairK
		s.cut = ps[stairK] // the last point leaves: emin covers it
	}
	copy(s.p[:], ps[:m])
	copy(s.e[:], es[:m])
	s.n = int8(m)
}

// stairRulesOut reports whether range k of sts surely holds no entry with
// at most fp processors and either at most xp processors or an estimate
// of at most window; lo is a lower bound of the range's processors (its
// bound). When it does not rule the range out and the staircase is loose
// or missing, it sets *pend to k: the caller records a wasted scan
// (wasted) if it then leaves the range without a candidate.
func (w *waitQueue) stairRulesOut(sts *[]stair, k int, lo, fp, xp int32, window float64, pend *int) bool {
	if lo <= xp {
		return false // an entry of at most xp (≤ fp) processors may be there
	}
	if k >= len(*sts) {
		*sts = append(*sts, make([]stair, k+1-len(*sts))...)
	}
	s := &(*sts)[k]
	if !s.ok {
		// Not built: built only after scans have entered the range and
		// found nothing (wasted), as a loose one is. Most ranges a scan
		// enters on a queue that is not overloaded hold a candidate.
		*pend = k
		return false
	}
	if !(s.lb(fp) <= window) {
		return true
	}
	if s.loose {
		*pend = k
	}
	return false
}

// buildGroupStair computes group g's staircase from its entries.
func buildGroupStair(w *waitQueue, g int, s *stair) {
	w.stairHi = max(w.stairHi, g+1)
	lo, hi := g<<groupShift, min((g+1)<<groupShift, len(w.procs))
	var pts [1 << groupShift]stairPt
	n := 0
	for k := lo; k < hi; k++ {
		p, e := w.procs[k], w.est[k]
		if p == math.MaxInt32 || e != e {
			continue // a tombstone, or a NaN estimate (never within a window)
		}
		j := n // insertion by processors, then estimate
		for j > 0 && (pts[j-1].p > p || pts[j-1].p == p && pts[j-1].e > e) {
			pts[j] = pts[j-1]
			j--
		}
		pts[j] = stairPt{p, e}
		n++
	}
	s.from(pts[:n])
}

// buildBlockStair computes block b's staircase from its groups': the
// points each group keeps, and (cut, emin) for one that keeps only the
// first, bound the block's least estimates from below as the group's
// own staircase bounds its own.
func buildBlockStair(w *waitQueue, b int, s *stair) {
	w.bstairHi = max(w.bstairHi, b+1)
	const per = blockShift - groupShift
	lo, hi := b<<per, min((b+1)<<per, len(w.group.procs))
	pts := w.stairBuf[:0]
	for g := lo; g < hi; g++ {
		if g >= len(w.stairs) {
			w.stairs = append(w.stairs, make([]stair, g+1-len(w.stairs))...)
		}
		gs := &w.stairs[g]
		if !gs.ok || gs.loose {
			buildGroupStair(w, g, gs)
		}
		for k := range int(gs.n) {
			pts = append(pts, stairPt{gs.p[k], gs.e[k]})
		}
		if gs.cut != math.MaxInt32 {
			pts = append(pts, stairPt{gs.cut, gs.emin})
		}
	}
	slices.SortFunc(pts, func(a, b stairPt) int {
		if c := cmp.Compare(a.p, b.p); c != 0 {
			return c
		}
		return cmp.Compare(a.e, b.e)
	})
	s.from(pts)
	w.stairBuf = pts
}

// pushStairs adds an entry at index i to its group's and block's
// staircases, where built.
func (w *waitQueue) pushStairs(i int, p int32, e float64) {
	if e != e {
		return
	}
	if g := i >> groupShift; g < len(w.stairs) && w.stairs[g].ok {
		w.stairs[g].insert(p, e)
	}
	if b := i >> blockShift; b < len(w.bstairs) && w.bstairs[b].ok {
		w.bstairs[b].insert(p, e)
	}
}

// holds reports whether entry (p, e) may be what makes a point of s or
// its emin: if not, s without it is s.
func (s *stair) holds(p int32, e float64) bool {
	if p >= s.cut || e == s.emin {
		return true
	}
	for k := range int(s.n) {
		if s.p[k] == p && s.e[k] == e {
			return true
		}
	}
	return false
}

// removeStairs marks loose the staircases of the group and block of
// entry i, of p processors and estimate e, which leaves, if it may be one
// of their points: a staircase with a point no entry has is still a lower
// bound, but a scan may enter its range for nothing (on an overloaded
// queue, half the entries the scans read were tombstones), so a loose
// staircase that does not rule its range out is built again.
func (w *waitQueue) removeStairs(i int, p int32, e float64) {
	if g := i >> groupShift; g < len(w.stairs) && w.stairs[g].ok && w.stairs[g].holds(p, e) {
		w.stairs[g].loose = true
	}
	if b := i >> blockShift; b < len(w.bstairs) && w.bstairs[b].ok && w.bstairs[b].holds(p, e) {
		w.bstairs[b].loose = true
	}
}

// dropStairs forgets the staircases of the groups from g0 on and of the
// blocks that hold them.
// Only the ranges below the marks of the last built ones are visited: on
// a queue that is not overloaded few staircases are built, and the loop
// over every group from g0 on cost weighted multifactor on RICC (an
// insert inside the queue at most submits) 6 % of its run.
func (w *waitQueue) dropStairs(g0 int) {
	for g := g0; g < w.stairHi; g++ {
		w.stairs[g].ok = false
	}
	w.stairHi = min(w.stairHi, g0)
	b0 := g0 >> (blockShift - groupShift)
	for b := b0; b < w.bstairHi; b++ {
		w.bstairs[b].ok = false
	}
	w.bstairHi = min(w.bstairHi, b0)
}
