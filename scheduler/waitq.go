package scheduler

import "math"

// waitQueue holds the queued jobs in queue order. Started jobs leave a
// tombstone instead of shifting the array. Every group of 16 entries and
// every block of 256 entries (16 groups) keeps lower bounds of the
// processors and of the estimates in it, so scans jump over whole groups
// and blocks of jobs that cannot qualify: a backfill scan on a nearly full
// machine costs O(Q/256) plus the groups it enters, not O(Q).
type waitQueue struct {
	slots []int32   // job slots; -1 marks a tombstone
	procs []int32   // processors per entry; math.MaxInt32 for tombstones
	est   []float64 // lower bound of the estimate at start (s; Engine.estLow)
	pw    []float64 // lower bound of the power a start adds (W; Engine.powerLow; -Inf: none)
	group bounds    // per group of 16 entries
	block bounds    // per block of 16 groups
	// stairs and bstairs are the groups' and blocks' staircases of
	// processors and estimates (waitq_stair.go), built after backfill
	// scans on long queues entered a range in vain a few times.
	stairs, bstairs []stair
	stairBuf        []stairPt // scratch (buildBlockStair)
	// stairHi and bstairHi are past the last group and block whose
	// staircase was built (dropStairs visits no range past them).
	stairHi, bstairHi int
	live              int
	head              int // no live entry before this index
	// dead is the lowest index of a tombstone (math.MaxInt when none; the
	// zero value is also read as "maybe one at 0"). The bounds of the
	// groups and blocks that end before it are what rebuild would give:
	// nothing there has left since the last compact (push and
	// refreshGroup keep a range's bounds exact; only remove makes them
	// stale). So compact and insert recompute the bounds from the
	// first range that changed only (rebuildFrom).
	dead int
	// chgLo is the lowest index whose slot changed (a remove, insert or
	// compact) since the last markClean: slots[a:b] with b ≤ chgLo are
	// as they were then (push changes no existing index). Zero until the
	// first markClean. Conservative's reuse walk reads it (consreuse.go).
	chgLo int
}

// markClean starts a new record of changed indices (chgLo).
func (w *waitQueue) markClean() { w.chgLo = math.MaxInt }

// bounds are per-range lower bounds of the processors and estimates of the
// entries in each range. A bound is stale when an entry at it left; it is
// still a lower bound, and is tightened only when a scan next reaches it,
// since a pass often starts several jobs of one range.
type bounds struct {
	procs []int32
	est   []float64
	stale []bool
}

func (b *bounds) add(k int, procs int32, est float64) {
	if k == len(b.procs) {
		b.procs = append(b.procs, procs)
		b.est = append(b.est, est)
		b.stale = append(b.stale, false)
		return
	}
	b.procs[k] = min(b.procs[k], procs)
	b.est[k] = min(b.est[k], est)
}

func (b *bounds) reset() { b.procs, b.est, b.stale = b.procs[:0], b.est[:0], b.stale[:0] }

// resizeFrom keeps the first k ranges and makes n in all, none of the
// others stale; their bounds are for the caller to set.
func (b *bounds) resizeFrom(k, n int) {
	b.procs, b.est, b.stale = b.procs[:k], b.est[:k], b.stale[:k]
	b.procs, b.est, b.stale = append(b.procs, make([]int32, n-k)...), append(b.est, make([]float64, n-k)...), append(b.stale, make([]bool, n-k)...)
}

// rulesOut reports whether range k holds no entry with at most fp
// processors and either at most xp processors or an estimate of at most
// window.
func (b *bounds) rulesOut(k int, fp, xp int32, window float64) bool {
	p := b.procs[k]
	return p > fp || (p > xp && b.est[k] > window)
}

const (
	groupShift = 4 // 16 entries per group
	blockShift = 8 // 256 entries per block
)

func (w *waitQueue) Len() int { return w.live }

// push appends slot at the end; pw is a lower bound of the power its
// start adds (math.Inf(-1) when unknown).
func (w *waitQueue) push(slot int32, procs int, est, pw float64) {
	i := len(w.slots)
	if w.live == 0 {
		w.head = i
	}
	w.slots = append(w.slots, slot)
	w.procs = append(w.procs, int32(procs))
	w.est = append(w.est, est)
	w.pw = append(w.pw, pw)
	w.group.add(i>>groupShift, int32(procs), est)
	w.block.add(i>>blockShift, int32(procs), est)
	w.pushStairs(i, int32(procs), est)
	w.live++
}

// remove tombstones entry i. The bounds stay valid lower bounds; those the
// entry was at are marked stale. A block bound is never above the bounds
// of its groups, so an entry at its block's bound is at its group's too.
func (w *waitQueue) remove(i int) {
	p, e := w.procs[i], w.est[i]
	w.slots[i] = -1
	w.chgLo = min(w.chgLo, i)
	w.dead = min(w.dead, i)
	w.procs[i] = math.MaxInt32
	w.est[i] = math.Inf(1)
	w.live--
	w.removeStairs(i, p, e)
	if g := i >> groupShift; p == w.group.procs[g] || e == w.group.est[g] {
		w.group.stale[g] = true
		if b := i >> blockShift; p == w.block.procs[b] || e == w.block.est[b] {
			w.block.stale[b] = true
		}
	}
	for w.head < len(w.slots) && w.slots[w.head] < 0 {
		w.head++
	}
}

// refreshGroup recomputes group g's bounds from its entries. If a bound
// of its block came from this group, the block is marked stale, so that it
// tightens too when a scan next reaches it.
func (w *waitQueue) refreshGroup(g int) {
	w.group.stale[g] = false
	lo, hi := g<<groupShift, min((g+1)<<groupShift, len(w.procs))
	mp, me := int32(math.MaxInt32), math.Inf(1)
	for k := lo; k < hi; k++ {
		mp, me = min(mp, w.procs[k]), min(me, w.est[k])
	}
	b := g >> (blockShift - groupShift)
	if w.group.procs[g] == w.block.procs[b] || w.group.est[g] == w.block.est[b] {
		w.block.stale[b] = true
	}
	w.group.procs[g], w.group.est[g] = mp, me
}

// refreshBlock recomputes block b's bounds from its groups' bounds (a
// stale group bound is still a lower bound).
func (w *waitQueue) refreshBlock(b int) {
	w.block.stale[b] = false
	const per = blockShift - groupShift
	lo, hi := b<<per, min((b+1)<<per, len(w.group.procs))
	mp, me := int32(math.MaxInt32), math.Inf(1)
	for g := lo; g < hi; g++ {
		mp, me = min(mp, w.group.procs[g]), min(me, w.group.est[g])
	}
	w.block.procs[b], w.block.est[b] = mp, me
}

// minProcs returns a lower bound of the processors any live entry needs
// (math.MaxInt32 for an empty queue).
func (w *waitQueue) minProcs() int {
	m := int32(math.MaxInt32)
	for _, b := range w.block.procs[w.head>>blockShift:] {
		m = min(m, b)
	}
	return int(m)
}

// suffixMinProcs fills *buf with, per group (index i>>groupShift), a lower
// bound of the processors of every live entry in that group and the groups
// after it, and returns it.
func (w *waitQueue) suffixMinProcs(buf *[]int32) []int32 {
	s := append((*buf)[:0], w.group.procs...)
	for g := len(s) - 2; g >= 0; g-- {
		s[g] = min(s[g], s[g+1])
	}
	*buf = s
	return s
}

// next returns the first index ≥ i of a live entry needing at most
// maxProcs processors, or -1.
func (w *waitQueue) next(i, maxProcs int) int {
	const gMask, bMask = 1<<groupShift - 1, 1<<blockShift - 1
	i = max(i, w.head)
	n := len(w.slots)
	mp := int32(min(maxProcs, math.MaxInt32-1))
	for i < n {
		if p := w.procs[i]; p <= mp {
			return i
		}
		// Skip the rest of the entry's group or block when their bounds
		// rule them out; the bounds only count from their first entry on.
		switch {
		case i&bMask == 0:
			b := i >> blockShift
			if w.block.stale[b] {
				w.refreshBlock(b)
			}
			if w.block.procs[b] > mp {
				i += bMask + 1
				continue
			}
			fallthrough
		case i&gMask == 0:
			g := i >> groupShift
			if w.group.stale[g] {
				w.refreshGroup(g)
			}
			if w.group.procs[g] > mp {
				i += gMask + 1
				continue
			}
		}
		i++
	}
	return -1
}

// nextBackfill returns the first index ≥ i of a live entry that needs at
// most free processors, adds at most room watts by its power lower bound
// (an entry above it cannot pass View.Fits), and either at most extra
// processors or an estimate of at most window (s), or -1. It is EASY's
// backfill condition folded into the block and group skips.
func (w *waitQueue) nextBackfill(i, free, extra int, window, room float64) int {
	const (
		gSize, bSize = 1 << groupShift, 1 << blockShift
		gMask, bMask = gSize - 1, bSize - 1
	)
	i = max(i, w.head)
	n := len(w.slots)
	fp, xp := int32(min(free, math.MaxInt32-1)), int32(min(extra, math.MaxInt32-1))
	// A range with a loose or missing staircase (waitq_stair.go) that
	// the scan enters and then leaves without a candidate is a wasted
	// scan (pb, pg); its staircase is built after a few.
	pb, pg := -1, -1
	// On a short queue the bounds do well enough: the staircases' tests
	// and builds cost CTC-SP2's plain EASY (queues of 48 jobs on the
	// average) 7 %.
	stairs := w.live >= stairQueue
	// A start inside a block or group is checked against its bounds too.
	for check := i < n && i&bMask != 0; i < n; check = false {
		if i&bMask == 0 || check {
			if pg >= 0 { // the scan left it (a boundary, or a skip to one)
				w.wasted(w.stairs, pg, buildGroupStair)
				pg = -1
			}
			if pb >= 0 {
				w.wasted(w.bstairs, pb, buildBlockStair)
				pb = -1
			}
			b := i >> blockShift
			if w.block.stale[b] {
				w.refreshBlock(b)
			}
			if w.block.rulesOut(b, fp, xp, window) {
				i = (i | bMask) + 1
				continue
			}
			if stairs && w.stairRulesOut(&w.bstairs, b, w.block.procs[b], fp, xp, window, &pb) {
				i = (i | bMask) + 1
				continue
			}
		}
		if i&gMask == 0 || check {
			if pg >= 0 {
				w.wasted(w.stairs, pg, buildGroupStair)
				pg = -1
			}
			g := i >> groupShift
			if w.group.stale[g] {
				w.refreshGroup(g)
			}
			if w.group.rulesOut(g, fp, xp, window) {
				i = (i | gMask) + 1
				continue
			}
			if stairs && w.stairRulesOut(&w.stairs, g, w.group.procs[g], fp, xp, window, &pg) {
				i = (i | gMask) + 1
				continue
			}
		}
		if p := w.procs[i]; p <= fp && (p <= xp || w.est[i] <= window) && !(w.pw[i] > room) {
			return i
		}
		i++
	}
	if pg >= 0 {
		w.wasted(w.stairs, pg, buildGroupStair)
	}
	if pb >= 0 {
		w.wasted(w.bstairs, pb, buildBlockStair)
	}
	return -1
}

// last returns the slot of the last live entry, or -1.
func (w *waitQueue) last() int32 {
	for i := len(w.slots) - 1; i >= 0; i-- {
		if w.slots[i] >= 0 {
			return w.slots[i]
		}
	}
	return -1
}

// compact drops tombstones and rebuilds the bounds: the same entries and
// bounds as dropping them all and calling rebuild.
func (w *waitQueue) compact() {
	w.rebuildFrom(w.squeeze())
	w.chgLo = 0 // also covers priority.go's sort of the compacted slots
}

// squeeze drops the tombstones without touching the bounds and returns the
// lowest index whose entry moved (len(w.slots) when none did). The
// entries before it were not moved: the caller rebuilds from its group
// (rebuildFrom).
//
// The live entries move a run at a time (copy, a memmove): after the
// first tombstones, near the head where jobs start, a long queue is one
// long run (CEA-Curie under --order sef --dvfs powersave, where every
// submit lands inside a queue of weeks: squeeze was 29 % of the run,
// moving each entry field by field).
func (w *waitQueue) squeeze() int {
	n := len(w.slots)
	lo := min(w.dead, n)
	k := lo
	slots := w.slots[:n]
	for i := lo; i < n; {
		for i < n && slots[i] < 0 {
			i++
		}
		j := i
		for j < n && slots[j] >= 0 {
			j++
		}
		if k != i {
			copy(slots[k:], slots[i:j])
			copy(w.procs[k:], w.procs[i:j])
			copy(w.est[k:], w.est[i:j])
			copy(w.pw[k:], w.pw[i:j])
		}
		k += j - i
		i = j
	}
	w.slots, w.procs, w.est, w.pw = w.slots[:k], w.procs[:k], w.est[:k], w.pw[:k]
	w.head = 0
	w.dead = math.MaxInt
	return lo
}

// rebuildEst is rebuild for the estimates' bounds only (the estimates
// moved; the processors' bounds stay as the scans left them).
func (w *waitQueue) rebuildEst() {
	w.dropStairs(0)
	n := len(w.est)
	ng := (n + 1<<groupShift - 1) >> groupShift
	for g := range ng {
		me := math.Inf(1)
		for _, e := range w.est[g<<groupShift : min((g+1)<<groupShift, n)] {
			me = min(me, e)
		}
		w.group.est[g] = me
	}
	const per = blockShift - groupShift
	for b := range (ng + 1<<per - 1) >> per {
		me := math.Inf(1)
		for _, e := range w.group.est[b<<per : min((b+1)<<per, ng)] {
			me = min(me, e)
		}
		w.block.est[b] = me
	}
}

// rebuild recomputes every bound from the entries (the minima that add
// would give, a group or block at a time).
func (w *waitQueue) rebuild() { w.rebuildFrom(0) }

// rebuildFrom is rebuild for the groups from the one holding entry lo and
// the blocks from the one holding that group: those before keep their
// bounds (the caller knows them to be what rebuild gives) and their stale
// marks.
func (w *waitQueue) rebuildFrom(lo int) {
	n := len(w.procs)
	ng := (n + 1<<groupShift - 1) >> groupShift
	g0 := min(lo>>groupShift, ng, len(w.group.procs))
	w.group.resizeFrom(g0, ng)
	w.dropStairs(g0)
	for g := g0; g < ng; g++ {
		lo, hi := g<<groupShift, min((g+1)<<groupShift, n)
		w.group.procs[g], w.group.est[g] = min16(w.procs[lo:hi], math.MaxInt32), min16(w.est[lo:hi], math.Inf(1))
	}
	const per = blockShift - groupShift
	nb := (ng + 1<<per - 1) >> per
	b0 := min(g0>>per, nb, len(w.block.procs))
	w.block.resizeFrom(b0, nb)
	for b := b0; b < nb; b++ {
		lo, hi := b<<per, min((b+1)<<per, ng)
		mp, me := int32(math.MaxInt32), math.Inf(1)
		for _, p := range w.group.procs[lo:hi] {
			mp = min(mp, p)
		}
		for _, e := range w.group.est[lo:hi] {
			me = min(me, e)
		}
		w.block.procs[b], w.block.est[b] = mp, me
	}
}

// min16 is the least of xs (empty when xs is). A whole group is read in
// four interleaved chains of minima, which the processor overlaps (one
// chain waits on each compare). Go's min over a set does not depend on
// the order it is taken in (NaN if any value is, -0 below +0), so the
// chains give the one-at-a-time loop's value exactly.
func min16[T int32 | float64](xs []T, empty T) T {
	if len(xs) == 1<<groupShift {
		xs := (*[1 << groupShift]T)(xs)
		a, b, c, d := min(xs[0], xs[1]), min(xs[2], xs[3]), min(xs[4], xs[5]), min(xs[6], xs[7])
		a, b, c, d = min(a, xs[8]), min(b, xs[9]), min(c, xs[10]), min(d, xs[11])
		a, b, c, d = min(a, xs[12]), min(b, xs[13]), min(c, xs[14]), min(d, xs[15])
		return min(a, b, c, d)
	}
	m := empty
	for _, x := range xs {
		m = min(m, x)
	}
	return m
}

// insert puts slot at index i of a compacted queue.
func (w *waitQueue) insert(i int, slot int32, procs int, est, pw float64) {
	w.insertFrom(i, i, slot, procs, est, pw)
}

// insertFrom is insert after a squeeze that moved the entries from lo on:
// the bounds are rebuilt from min(lo, i).
func (w *waitQueue) insertFrom(lo, i int, slot int32, procs int, est, pw float64) {
	w.slots = append(w.slots, 0)
	w.procs = append(w.procs, 0)
	w.est = append(w.est, 0)
	w.pw = append(w.pw, 0)
	copy(w.slots[i+1:], w.slots[i:])
	copy(w.procs[i+1:], w.procs[i:])
	copy(w.est[i+1:], w.est[i:])
	copy(w.pw[i+1:], w.pw[i:])
	w.slots[i], w.procs[i], w.est[i], w.pw[i] = slot, int32(procs), est, pw
	w.chgLo = min(w.chgLo, i)
	w.live++
	w.head = 0
	w.rebuildFrom(min(lo, i))
}
