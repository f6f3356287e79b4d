package scheduler

import "math"

// waitQueue holds the queued jobs in queue order. Started jobs leave a
// tombstone instead of shifting the array, and every block of 64 entries
// keeps the smallest processor count in it, so next can jump over whole
// blocks of jobs too large for the free processors: a backfill scan on a
// nearly full machine costs O(Q/64), not O(Q).
type waitQueue struct {
	slots []int32   // job slots; -1 marks a tombstone
	procs []int32   // processors per entry; math.MaxInt32 for tombstones
	est   []float64 // lower bound of the estimate at start (s; Engine.estLow)
	bmin  []int32   // per block of 64 entries: a lower bound of its procs
	best  []float64 // per block: a lower bound of its estimates
	stale []bool    // per block: an entry at a bound left; tighten before use
	live  int
	head  int // no live entry before this index
}

const blockShift = 6

func (w *waitQueue) Len() int { return w.live }

// push appends slot at the end.
func (w *waitQueue) push(slot int32, procs int, est float64) {
	i := len(w.slots)
	if w.live == 0 {
		w.head = i
	}
	w.slots = append(w.slots, slot)
	w.procs = append(w.procs, int32(procs))
	w.est = append(w.est, est)
	if b := i >> blockShift; b == len(w.bmin) {
		w.bmin = append(w.bmin, int32(procs))
		w.best = append(w.best, est)
		w.stale = append(w.stale, false)
	} else {
		w.bmin[b] = min(w.bmin[b], int32(procs))
		w.best[b] = min(w.best[b], est)
	}
	w.live++
}

// remove tombstones entry i. Block minimums stay valid lower bounds.
func (w *waitQueue) remove(i int) {
	p, e := w.procs[i], w.est[i]
	w.slots[i] = -1
	w.procs[i] = math.MaxInt32
	w.est[i] = math.Inf(1)
	w.live--
	if b := i >> blockShift; p == w.bmin[b] || e == w.best[b] {
		// Keep the bounds tight so scans skip drained blocks, but only
		// when a scan next reaches the block: a pass often starts several
		// jobs of one block.
		w.stale[b] = true
	}
	for w.head < len(w.slots) && w.slots[w.head] < 0 {
		w.head++
	}
}

// refresh recomputes block b's bounds from its entries.
func (w *waitQueue) refresh(b int) {
	w.stale[b] = false
	lo, hi := b<<blockShift, min((b+1)<<blockShift, len(w.procs))
	mp, me := int32(math.MaxInt32), math.Inf(1)
	for k := lo; k < hi; k++ {
		mp, me = min(mp, w.procs[k]), min(me, w.est[k])
	}
	w.bmin[b], w.best[b] = mp, me
}

// minProcs returns a lower bound of the processors any live entry needs
// (math.MaxInt32 for an empty queue).
func (w *waitQueue) minProcs() int {
	m := int32(math.MaxInt32)
	for _, b := range w.bmin[w.head>>blockShift:] {
		m = min(m, b)
	}
	return int(m)
}

// suffixMinProcs fills *buf with, per block, a lower bound of the
// processors of every live entry in that block and the blocks after it,
// and returns it.
func (w *waitQueue) suffixMinProcs(buf *[]int32) []int32 {
	s := append((*buf)[:0], w.bmin...)
	for b := len(s) - 2; b >= 0; b-- {
		s[b] = min(s[b], s[b+1])
	}
	*buf = s
	return s
}

// next returns the first index ≥ i of a live entry needing at most
// maxProcs processors, or -1.
func (w *waitQueue) next(i, maxProcs int) int {
	i = max(i, w.head)
	n := len(w.slots)
	mp := int32(min(maxProcs, math.MaxInt32-1))
	for i < n {
		if i&(1<<blockShift-1) == 0 {
			b := i >> blockShift
			if w.stale[b] {
				w.refresh(b)
			}
			if w.bmin[b] > mp {
				i += 1 << blockShift
				continue
			}
		}
		if w.procs[i] <= mp {
			return i
		}
		i++
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

// compact drops tombstones and rebuilds the block minimums.
func (w *waitQueue) compact() {
	k := 0
	for i, s := range w.slots {
		if s >= 0 {
			w.slots[k], w.procs[k], w.est[k] = s, w.procs[i], w.est[i]
			k++
		}
	}
	w.slots, w.procs, w.est = w.slots[:k], w.procs[:k], w.est[:k]
	w.head = 0
	w.rebuild()
}

func (w *waitQueue) rebuild() {
	w.bmin, w.best, w.stale = w.bmin[:0], w.best[:0], w.stale[:0]
	for i, p := range w.procs {
		if i&(1<<blockShift-1) == 0 {
			w.bmin = append(w.bmin, p)
			w.best = append(w.best, w.est[i])
			w.stale = append(w.stale, false)
			continue
		}
		b := len(w.bmin) - 1
		w.bmin[b] = min(w.bmin[b], p)
		w.best[b] = min(w.best[b], w.est[i])
	}
}

// nextBackfill returns the first index ≥ i of a live entry that needs at
// most free processors and either at most extra processors or an estimate
// of at most window (top-level seconds), or -1. It is next with EASY's
// backfill condition folded into the block skip.
func (w *waitQueue) nextBackfill(i, free, extra int, window float64) int {
	i = max(i, w.head)
	n := len(w.slots)
	fp, xp := int32(min(free, math.MaxInt32-1)), int32(min(extra, math.MaxInt32-1))
	for i < n {
		if i&(1<<blockShift-1) == 0 {
			b := i >> blockShift
			if w.stale[b] {
				w.refresh(b)
			}
			if w.bmin[b] > fp || (w.bmin[b] > xp && w.best[b] > window) {
				i += 1 << blockShift
				continue
			}
		}
		if p := w.procs[i]; p <= fp && (p <= xp || w.est[i] <= window) {
			return i
		}
		i++
	}
	return -1
}

// insert puts slot at index i of a compacted queue.
func (w *waitQueue) insert(i int, slot int32, procs int, est float64) {
	w.slots = append(w.slots, 0)
	w.procs = append(w.procs, 0)
	w.est = append(w.est, 0)
	copy(w.slots[i+1:], w.slots[i:])
	copy(w.procs[i+1:], w.procs[i:])
	copy(w.est[i+1:], w.est[i:])
	w.slots[i], w.procs[i], w.est[i] = slot, int32(procs), est
	w.live++
	w.head = 0
	w.rebuild()
}
