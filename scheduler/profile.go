package scheduler

import (
	"math"
	"slices"
)

// blkCap is the most steps a block of a blockProfile holds; blkFill is how
// many release appends put in one before starting the next, leaving room
// for the splits reservations make.
const (
	blkCap  = 32
	blkFill = 24
)

// blockProfile is the processor-only availability profile of conservative
// backfilling: a step function of free processors over time, free from
// the step's time until the next step's (the last step lasts forever).
// It describes the same function, with the same step times, as the plain
// array profile when no power limit is in force, but keeps the steps in
// blocks of at most blkCap consecutive steps. Each block has a lazy
// addend and the smallest and largest value of its steps, so a search can
// jump over whole blocks in which no step can fit (or block) a job, and a
// reservation adds to whole blocks in O(1) each. Searches and reservations
// cost O(K/blkCap + blkCap) for K steps instead of O(K).
//
// Blocks are numbered by id; block id b keeps its steps in
// t[b*blkCap:b*blkCap+n] and f[...], and the per-position arrays (ord, first,
// n, add, lo, hi) list the blocks in time order. All storage is reused
// across resets, so steady-state use does not allocate.
type blockProfile struct {
	t []float64 // step times by block id
	f []int     // step values without their block's addend, by block id

	ord   []int32   // block ids in time order
	first []float64 // time of each block's first step
	n     []int32   // steps in each block
	add   []int     // lazy addend of each block
	lo    []int     // smallest f of each block (without add)
	hi    []int     // largest f of each block (without add)

	spare []int32 // block ids not in use
	nid   int32   // block ids allocated so far

	// hitPos and hitK locate the start the last successful earliest
	// returned (or the last reservation's start); reserve uses them when
	// that step still starts at its from (step times are distinct, so the
	// check is exact), or walks on from it when it starts before.
	hitPos, hitK int

	// rec asks earliest to record its searches' certificates: the parts
	// in cert, each certificate a list of segments in segs (certstore.go,
	// consreuse.go). certPass marks the parts recorded now (certIv.pass).
	rec      bool
	cert     []certIv
	segs     []certSeg
	certPass uint32

	// ruled lists searches whose answers bound later ones' (searchmemo.go).
	ruled searchMemo

	// room is the last window found to have room (keepRoom, roomKept);
	// resFrom is the earliest start of the reservations made since
	// (-Inf after anything else that changes the free processors:
	// reset, release, advance).
	room    roomWin
	resFrom float64
}

// roomWin is a window [at, end) with procs processors free at every
// step in it (fitsFrom's test), if ok.
type roomWin struct {
	ok      bool
	procs   int
	at, end float64
}

// keepRoom records that procs processors are free from at until end (as
// fitsFrom reports), for roomKept.
func (p *blockProfile) keepRoom(at float64, procs int, end float64) {
	p.room = roomWin{ok: true, procs: procs, at: at, end: end}
	p.resFrom = math.Inf(1)
}

// roomKept reports whether the last window keepRoom recorded is
// [at, end) for procs processors and no reservation since starts before
// end, nor anything else changed the profile: then fitsFrom(at, procs,
// end) is still true, as a window's answer depends on the free
// processors over it alone. (Conservative's candidate check asks it
// at each group of the queue, mostly for the same job.)
func (p *blockProfile) roomKept(at float64, procs int, end float64) bool {
	r := &p.room
	return r.ok && at == r.at && end == r.end && procs == r.procs && p.resFrom >= end
}

// reset makes the profile a single step of free processors from now on.
func (p *blockProfile) reset(now float64, free int) {
	p.ruled.clear()
	p.resFrom = math.Inf(-1)
	p.spare = append(p.spare, p.ord...)
	p.ord, p.first, p.n, p.add, p.lo, p.hi = p.ord[:0], p.first[:0], p.n[:0], p.add[:0], p.lo[:0], p.hi[:0]
	p.appendBlock(len(p.ord), now, free)
}

// newID returns an unused block id.
func (p *blockProfile) newID() int32 {
	if k := len(p.spare); k > 0 {
		id := p.spare[k-1]
		p.spare = p.spare[:k-1]
		return id
	}
	id := p.nid
	p.nid++
	p.t = append(p.t, make([]float64, blkCap)...)
	p.f = append(p.f, make([]int, blkCap)...)
	return id
}

// appendBlock inserts, at position pos, a block holding the single step
// (at, v) (v without addend).
func (p *blockProfile) appendBlock(pos int, at float64, v int) {
	id := p.newID()
	p.t[int(id)*blkCap], p.f[int(id)*blkCap] = at, v
	p.ord = slices.Insert(p.ord, pos, id)
	p.first = slices.Insert(p.first, pos, at)
	p.n = slices.Insert(p.n, pos, 1)
	p.add = slices.Insert(p.add, pos, 0)
	p.lo = slices.Insert(p.lo, pos, v)
	p.hi = slices.Insert(p.hi, pos, v)
}

// base returns the offset of the block at position pos in t and f.
func (p *blockProfile) base(pos int) int { return int(p.ord[pos]) * blkCap }

// value returns the free processors of step k of the block at pos.
func (p *blockProfile) value(pos, k int) int { return p.f[p.base(pos)+k] + p.add[pos] }

// release adds procs processors from time at on; at must be ≥ the last
// step's time. It is only used to build the profile, before any
// reservation, so no block has an addend.
func (p *blockProfile) release(at float64, procs int) {
	p.ruled.clear()
	p.resFrom = math.Inf(-1)
	pos := len(p.ord) - 1
	b, n := p.base(pos), int(p.n[pos])
	last := p.f[b+n-1]
	if p.t[b+n-1] == at {
		// lo and hi stay bounds of the block's values, which is all
		// searches need (refresh tightens them).
		p.f[b+n-1] = last + procs
		p.hi[pos] = max(p.hi[pos], last+procs)
		p.lo[pos] = min(p.lo[pos], last+procs)
		if n == 1 {
			p.lo[pos], p.hi[pos] = last+procs, last+procs
		}
		return
	}
	v := last + procs + p.add[pos]
	if n >= blkFill {
		p.appendBlock(len(p.ord), at, v)
		return
	}
	p.t[b+n], p.f[b+n] = at, v-p.add[pos]
	p.n[pos]++
	p.lo[pos], p.hi[pos] = min(p.lo[pos], v-p.add[pos]), max(p.hi[pos], v-p.add[pos])
}

// build makes the profile of free processors from now on plus, for each
// running job of runs in list order (estimated end), its processors from
// max(now, its estimated end) on: the profile reset and one release per
// job make, steps and blocks alike, written in one pass.
func (p *blockProfile) build(now float64, free int, runs *runList) {
	p.reset(now, free)
	pos, b, n := 0, p.base(0), 1
	last, lastT := free, now
	for _, blk := range runs.blocks {
		for i := range blk {
			at := blk[i].estEnd
			if !(at > now) {
				at = math.Max(now, at) // math.Max is not inlined; most ends are after now
			}
			last += int(blk[i].procs)
			switch {
			case at == lastT:
				p.f[b+n-1] = last
			case n >= blkFill:
				p.n[pos] = int32(n)
				p.refresh(pos)
				p.appendBlock(len(p.ord), at, last)
				pos, b, n = pos+1, p.base(pos+1), 1
			default:
				p.t[b+n], p.f[b+n] = at, last
				n++
			}
			lastT = at
		}
	}
	p.n[pos] = int32(n)
	p.refresh(pos)
}

// locate returns the position and index of the step in force at time t
// (the last step starting at or before it; the first step if t is before
// every step).
func (p *blockProfile) locate(t float64) (pos, k int) {
	if t <= p.first[0] || len(p.ord) == 1 && p.n[0] == 1 {
		return 0, 0 // a search from now
	}
	// Profiles are mostly a few blocks long, and the step is found by
	// stepping on rather than by binary searches, whose branches were
	// mispredicted about every other step; a long profile's blocks are
	// still searched.
	if fs := p.first; len(fs) > locateLinear {
		pos = max(0, sortSearchF(fs, t)-1)
	} else {
		for pos+1 < len(fs) && fs[pos+1] <= t {
			pos++
		}
	}
	b := p.base(pos)
	return pos, lastLE((*[blkCap]float64)(p.t[b:b+blkCap]), int(p.n[pos]), t)
}

// lastLE returns the index of the last of the first n steps of a block,
// whose times are ts, that starts at or before t; the first starts at or
// before t. It has no branch (a scan stopping at the answer mispredicted
// its exit about once a call) and a short chain of dependent loads: the
// slots 4, 8, ..., 28 are compared at once, each comparison made a number
// (SETcc) and masked by whether the slot is one of the n, and their sum
// picks the run of four slots holding the answer, whose last three are
// compared the same way. (A binary search written out level by level,
// 16, 8, 4, 2, 1, has the same instruction count but five loads each
// waiting on the one before: 39 against 25 ns a call when the next call
// waits on the answer, BenchmarkLastLE.)
func lastLE(ts *[blkCap]float64, n int, t float64) int {
	q := le(ts[4], t)&lt(4, n) + le(ts[8], t)&lt(8, n) + le(ts[12], t)&lt(12, n) +
		le(ts[16], t)&lt(16, n) + le(ts[20], t)&lt(20, n) + le(ts[24], t)&lt(24, n) +
		le(ts[28], t)&lt(28, n)
	b := (q * 4) & (blkCap - 4) // q*4 < blkCap: the mask only drops the bounds checks
	s := (*[4]float64)(ts[b : b+4])
	m := n - b
	return b + le(s[1], t)&lt(1, m) + le(s[2], t)&lt(2, m) + le(s[3], t)&lt(3, m)
}

// le is 1 if a ≤ b, else 0, without a branch (SETcc).
func le(a, b float64) int {
	if a <= b {
		return 1
	}
	return 0
}

// lt is 1 if a < b, else 0, without a branch (SETcc).
func lt(a, b int) int {
	if a < b {
		return 1
	}
	return 0
}

// locateLinear is the most blocks locate walks rather than searches.
const locateLinear = 8

// sortSearchF returns the number of elements of a (sorted) that are ≤ t.
func sortSearchF(a []float64, t float64) int {
	lo, hi := 0, len(a)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if a[m] <= t {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo
}

// split makes sure a step starts at t (t after the first step's time) and
// returns its position and index.
func (p *blockProfile) split(t float64) (pos, k int) {
	pos, k = p.locate(t)
	pos, k, _ = p.splitAt(t, pos, k)
	return pos, k
}

// splitAfter is split for a t after the step (pos, k) starts: a
// reservation's end, found from its start. Most reservations end in
// their start's block or the next, so the blocks are walked from pos
// rather than searched; the step in force at t within the block it
// stops in is found by lastLE (k, a step known to start before t, is
// not needed by it).
func (p *blockProfile) splitAfter(t float64, pos, k int) (int, int, int) {
	for w := 0; pos+1 < len(p.ord) && p.first[pos+1] <= t; w++ {
		if w == 4 { // far on: search the rest
			pos, k = pos+sortSearchF(p.first[pos+1:], t), 0
			break
		}
		pos, k = pos+1, 0
	}
	// The step in force at t: lastLE's search has no branch to mispredict
	// (a scan on from k mispredicted its exit about once a call, a
	// branching binary search about every other step).
	b := p.base(pos)
	return p.splitAt(t, pos, lastLE((*[blkCap]float64)(p.t[b:b+blkCap]), int(p.n[pos]), t))
}

// splitAt is split once the step in force at t, (pos, k), is known. It
// also returns the position of the block it split in two to make room
// (its second half is then at that position plus one), or -1.
func (p *blockProfile) splitAt(t float64, pos, k int) (int, int, int) {
	b := p.base(pos)
	if p.t[b+k] == t {
		return pos, k, -1
	}
	halved := -1
	if p.n[pos] == blkCap {
		p.splitBlock(pos)
		halved = pos
		if k >= blkCap/2 {
			pos, k = pos+1, k-blkCap/2
		}
		b = p.base(pos)
	}
	// Both arrays move in one loop: memmove's dispatch on the length
	// mispredicted once or more per call.
	n := int(p.n[pos])
	v := p.f[b+k] // the new step has the value in force at t
	ts := p.t[b+k+1 : b+n+1]
	fs := p.f[b+k+1 : b+n+1]
	fs = fs[:len(ts)]
	for i := len(ts) - 1; i > 0; i-- {
		ts[i], fs[i] = ts[i-1], fs[i-1]
	}
	ts[0], fs[0] = t, v
	p.n[pos]++
	return pos, k + 1, halved
}

// splitBlock moves the second half of the full block at pos into a new
// block after it.
func (p *blockProfile) splitBlock(pos int) {
	const h = blkCap / 2
	b := p.base(pos)
	p.appendBlock(pos+1, p.t[b+h], 0)
	nb := p.base(pos + 1)
	copy(p.t[nb:nb+h], p.t[b+h:b+blkCap])
	copy(p.f[nb:nb+h], p.f[b+h:b+blkCap])
	p.n[pos], p.n[pos+1] = h, h
	p.add[pos+1] = p.add[pos]
	p.refresh(pos)
	p.refresh(pos + 1)
}

// refresh recomputes the block at pos's smallest and largest value.
// Between refreshes lo and hi are only bounds: lo ≤ every value ≤ hi.
func (p *blockProfile) refresh(pos int) {
	b, n := p.base(pos), int(p.n[pos])
	lo, hi := p.f[b], p.f[b]
	for _, v := range p.f[b+1 : b+n] {
		lo, hi = min(lo, v), max(hi, v)
	}
	p.lo[pos], p.hi[pos] = lo, hi
}

// reserve takes procs processors over [from, to); from is at or after the
// first step's time.
func (p *blockProfile) reserve(from, to float64, procs int) {
	if procs < 0 {
		p.ruled.clear() // processors come back: earlier searches bound nothing
	}
	if from < p.resFrom {
		p.resFrom = from
	}
	pa, ka := p.hitPos, p.hitK
	if pa >= len(p.ord) || ka >= int(p.n[pa]) {
		pa, ka = p.split(from)
	} else if at := p.t[p.base(pa)+ka]; at < from {
		// A step before from: walk on from it.
		pa, ka, _ = p.splitAfter(from, pa, ka)
	} else if at > from {
		pa, ka = p.split(from)
	}
	pb, kb, halved := p.splitAfter(to, pa, ka)
	if halved == pa && ka >= blkCap/2 { // from's step moved to the second half
		pa, ka = pa+1, ka-blkCap/2
	}
	p.hitPos, p.hitK = pa, ka // the next search of the class starts here
	if pa == pb {
		p.addRange(pa, ka, kb, -procs)
		return
	}
	p.addRange(pa, ka, int(p.n[pa]), -procs)
	for pos := pa + 1; pos < pb; pos++ {
		p.add[pos] -= procs
	}
	p.addRange(pb, 0, kb, -procs)
}

// addRange adds d to steps [i, j) of the block at pos.
func (p *blockProfile) addRange(pos, i, j, d int) {
	if i >= j {
		return
	}
	n := int(p.n[pos])
	if i == 0 && j == n {
		p.add[pos] += d
		return
	}
	// The steps are shifted by shiftUp or shiftDown, inlined here, by
	// d's sign at each site (one shift taking both signs was a call per
	// site and mispredicted its test of the sign).
	if 2*(j-i) > n {
		// Most of the block changes: add d to the whole block through its
		// addend and take it back from the steps outside [i, j).
		p.add[pos] += d
		if d < 0 {
			if i > 0 { // a reservation's first or last block is mostly one of these
				p.shiftUp(pos, 0, i, -d)
			}
			if j < n {
				p.shiftUp(pos, j, n, -d)
			}
			return
		}
		if i > 0 {
			p.shiftDown(pos, 0, i, -d)
		}
		if j < n {
			p.shiftDown(pos, j, n, -d)
		}
		return
	}
	if d > 0 {
		p.shiftUp(pos, i, j, d)
	} else {
		p.shiftDown(pos, i, j, d)
	}
}

// shiftUp adds d > 0 to f over steps [i, j) of the block at pos. The
// block's bound hi follows the new values; lo stays a bound, as the
// values only move away from it (nextBlock tightens lo when it reads a
// whole block).
func (p *blockProfile) shiftUp(pos, i, j, d int) {
	fs := p.f[p.base(pos)+i:][:j-i]
	hi := p.hi[pos]
	for x, v := range fs {
		fs[x] = v + d
		hi = max(hi, v+d)
	}
	p.hi[pos] = hi
}

// shiftDown adds d ≤ 0 to f over steps [i, j) of the block at pos, as
// shiftUp with lo following the new values (nextFit tightens hi).
func (p *blockProfile) shiftDown(pos, i, j, d int) {
	fs := p.f[p.base(pos)+i:][:j-i]
	lo := p.lo[pos]
	for x, v := range fs {
		fs[x] = v + d
		lo = min(lo, v+d)
	}
	p.lo[pos] = lo
}

// advance drops the steps before the one in force at now and moves that
// step's time to now.
func (p *blockProfile) advance(now float64) {
	p.ruled.clear()
	p.resFrom = math.Inf(-1)
	pos, k := p.locate(now)
	if pos > 0 {
		p.spare = append(p.spare, p.ord[:pos]...)
		p.ord = append(p.ord[:0], p.ord[pos:]...)
		p.first = append(p.first[:0], p.first[pos:]...)
		p.n = append(p.n[:0], p.n[pos:]...)
		p.add = append(p.add[:0], p.add[pos:]...)
		p.lo = append(p.lo[:0], p.lo[pos:]...)
		p.hi = append(p.hi[:0], p.hi[pos:]...)
	}
	b, n := p.base(0), int(p.n[0])
	if k > 0 {
		copy(p.t[b:b+n-k], p.t[b+k:b+n])
		copy(p.f[b:b+n-k], p.f[b+k:b+n])
		p.n[0] = int32(n - k)
		p.refresh(0)
	}
	p.t[b], p.first[0] = now, now
}

// earliest returns the earliest step start at or after the step in force
// at lb from which procs processors are free for dur seconds, or +Inf if
// there is none, and the smallest number of free processors over that
// window or a lower bound of it. The caller guarantees that no step start
// before lb fits, so the answer is that of a scan from the first step.
func (p *blockProfile) earliest(procs int, dur, lb float64) (float64, int) {
	// whole says the search rules out every start from the first step
	// (with its certificate, if recorded): it is then remembered for
	// later searches (searchmemo.go).
	cf, whole, cost := len(p.segs), !(lb > p.first[0]), 0
	if p.ruled.n == 0 {
		// Nothing to bound this search by.
	} else if m, ok := p.ruled.bound(procs, dur, lb, p.rec); ok {
		if p.rec {
			// The parts over by lb touch no window this search checks;
			// without them the certificate covers the starts from lb on
			// only.
			cut := math.Inf(-1)
			if !whole {
				cut = lb
			}
			whole = p.inheritCert(m.cf, m.ct, procs-m.procs, cut)
		} else {
			whole = true
		}
		lb, cost = m.at, m.cost
	}
	pf := len(p.cert)
	t, low, its := p.search(procs, dur, lb)
	if p.rec {
		p.ownCert(pf)
	}
	// Answers that took few candidates are not worth the memo's upkeep
	// (nor copying their certificates).
	if cost += its; whole && cost >= memoMinCost && t > p.first[0] && !math.IsInf(t, 1) {
		p.ruled.put(procs, dur, t, cf, len(p.segs), cost, p.rec)
	}
	return t, low
}

// sortSearchEnd returns the number of parts of cert (in time order) that
// end at or before t.
func sortSearchEnd(cert []certIv, t float64) int {
	lo, hi := 0, len(cert)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if cert[m].y <= t {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo
}

// search is earliest without the memo; it also returns how many
// candidate starts it tried.
func (p *blockProfile) search(procs int, dur, lb float64) (float64, int, int) {
	pos, k := p.hitPos, p.hitK // lb is often the last start found (step times are distinct)
	if pos >= len(p.ord) || k >= int(p.n[pos]) || p.t[p.base(pos)+k] != lb {
		pos, k = p.locate(lb)
	}
	for its := 1; ; its++ {
		if p.rec {
			pos, k = p.nextFitRec(pos, k, procs)
		} else {
			pos, k = p.nextFit(pos, k, procs)
		}
		if pos < 0 {
			return math.Inf(1), 0, its
		}
		start := p.t[p.base(pos)+k]
		end := start + dur
		mpos, mk, low := p.nextBlock(pos, k, procs, end)
		if mpos < 0 {
			p.hitPos, p.hitK = pos, k
			return start, low, its
		}
		if p.rec {
			p.certStep(mpos, mk, procs)
		}
		// Step m is too full; no start before it can work.
		pos, k = mpos, mk+1
		if k == int(p.n[pos]) {
			pos, k = pos+1, 0
			if pos == len(p.ord) {
				return math.Inf(1), 0, its
			}
		}
	}
}

// nextFit returns the first step at or after (pos, k) with at least procs
// free processors, or -1.
func (p *blockProfile) nextFit(pos, k, procs int) (int, int) {
	for ; pos < len(p.ord); pos, k = pos+1, 0 {
		need := procs - p.add[pos]
		if p.hi[pos] < need {
			continue
		}
		b := p.base(pos)
		fs := p.f[b : b+int(p.n[pos])]
		if k > 0 {
			for ; k < len(fs); k++ {
				if fs[k] >= need {
					return pos, k
				}
			}
			continue
		}
		hi := math.MinInt
		for k, v := range fs {
			if v >= need {
				return pos, k
			}
			hi = max(hi, v)
		}
		p.hi[pos] = hi // the whole block was read: tighten its bound
	}
	return -1, 0
}

// nextFitRec is nextFit recording the steps it skips as certSkip (the
// tests' reference) does: one part per block, the block's bound for a
// block skipped whole, the largest value of the steps read otherwise,
// in the same pass over them.
func (p *blockProfile) nextFitRec(pos, k, procs int) (int, int) {
	for ; pos < len(p.ord); pos, k = pos+1, 0 {
		a := p.add[pos]
		need, b, n := procs-a, p.base(pos), int(p.n[pos])
		if k >= n {
			continue // no step left in the block
		}
		if p.hi[pos] < need {
			hi := p.hi[pos]
			if k > 0 {
				hi = math.MinInt
				for _, v := range p.f[b+k : b+n] {
					hi = max(hi, v)
				}
			}
			p.cert = append(p.cert, certIv{x: p.t[b+k], y: p.blockEnd(pos), def: int32(procs - (hi + a)), pass: p.certPass})
			continue
		}
		fs := p.f[b : b+n]
		hi, k0 := math.MinInt, k
		for ; k < n; k++ {
			v := fs[k]
			if v >= need {
				if k > k0 {
					p.cert = append(p.cert, certIv{x: p.t[b+k0], y: p.t[b+k], def: int32(procs - (hi + a)), pass: p.certPass})
				}
				return pos, k
			}
			hi = max(hi, v)
		}
		if k0 == 0 {
			p.hi[pos] = hi // the whole block was read: tighten its bound
		}
		p.cert = append(p.cert, certIv{x: p.t[b+k0], y: p.blockEnd(pos), def: int32(procs - (hi + a)), pass: p.certPass})
	}
	return -1, 0
}

// blockEnd returns the time the block at pos ends: the next block's
// first step, or +Inf for the last block. (nextFitRec reads it only for
// the parts that reach it, not on its way to the step it returns.)
func (p *blockProfile) blockEnd(pos int) float64 {
	if pos+1 < len(p.first) {
		return p.first[pos+1]
	}
	return math.Inf(1)
}

// nextBlock returns the first step after (pos, k) that starts before end
// and has fewer than procs free processors, or -1 and a lower bound of
// the free processors over [start of (pos, k), end).
func (p *blockProfile) nextBlock(pos, k, procs int, end float64) (int, int, int) {
	low := p.value(pos, k)
	k++
	for ; pos < len(p.ord); pos, k = pos+1, 0 {
		b, n := p.base(pos), int(p.n[pos])
		if k >= n {
			continue
		}
		if p.t[b+k] >= end {
			break
		}
		a := p.add[pos]
		if p.lo[pos]+a >= procs {
			low = min(low, p.lo[pos]+a)
			continue
		}
		if pos+1 < len(p.ord) && p.first[pos+1] <= end {
			// Every step of the block starts before end: no time checks.
			need, m := procs-a, math.MaxInt
			for j, v := range p.f[b+k : b+n] {
				if v < need {
					return pos, k + j, 0
				}
				m = min(m, v)
			}
			if k == 0 {
				p.lo[pos] = m // the whole block was read: tighten its bound
			}
			low = min(low, m+a)
			continue
		}
		ts := p.t[b : b+n]
		fs := p.f[b : b+len(ts)]
		for ; k < len(ts); k++ {
			if ts[k] >= end {
				return -1, 0, low
			}
			v := fs[k] + a
			if v < procs {
				return pos, k, 0
			}
			low = min(low, v)
		}
	}
	return -1, 0, low
}

// steps appends the profile's steps, in time order, to ts and fs (for
// tests and checks).
func (p *blockProfile) steps(ts []float64, fs []int) ([]float64, []int) {
	for pos := range p.ord {
		b, n := p.base(pos), int(p.n[pos])
		ts = append(ts, p.t[b:b+n]...)
		for _, v := range p.f[b : b+n] {
			fs = append(fs, v+p.add[pos])
		}
	}
	return ts, fs
}

// fitsFirst reports whether procs processors are free in the first step
// and in every later step that starts before end: whether a job could run
// from the first step's time until end.
func (p *blockProfile) fitsFirst(procs int, end float64) bool {
	return p.fitsFrom(p.first[0], procs, end)
}

// fitsFrom reports whether procs processors are free in the step in force
// at at and in every later step that starts before end: whether a job
// could run from at until end. Blocks that fit whole are skipped.
func (p *blockProfile) fitsFrom(at float64, procs int, end float64) bool {
	pos0, k0 := p.locate(at)
	for pos := pos0; pos < len(p.ord); pos++ {
		if pos > pos0 && p.first[pos] >= end {
			return true
		}
		a := p.add[pos]
		if p.lo[pos]+a >= procs {
			continue
		}
		b, n := p.base(pos), int(p.n[pos])
		k := b
		if pos == pos0 { // the step in force at at always counts
			if k = b + k0; p.f[k]+a < procs {
				return false
			}
			k++
		}
		for ; k < b+n; k++ {
			if p.t[k] >= end {
				return true
			}
			if p.f[k]+a < procs {
				return false
			}
		}
	}
	return true
}

// frontPt is a point of the running minimum of a profile from its first
// step: every window from the first step's time to an end after t meets
// at most min free processors.
type frontPt struct {
	t   float64
	min int
}

// frontier appends to dst, in time order, the steps at which the running
// minimum of free processors from the first step decreases (the first
// step always), and returns it.
func (p *blockProfile) frontier(dst []frontPt) []frontPt {
	return p.frontierFrom(p.first[0], dst)
}

// frontierFrom is frontier from the step in force at at (which comes
// first, with its own time): the running minimum of every window from at.
// Blocks that cannot lower it are skipped.
func (p *blockProfile) frontierFrom(at float64, dst []frontPt) []frontPt {
	pos0, k0 := p.locate(at)
	m := math.MaxInt
	for pos := pos0; pos < len(p.ord); pos++ {
		a := p.add[pos]
		if p.lo[pos]+a >= m {
			continue
		}
		b, n := p.base(pos), int(p.n[pos])
		k := b
		if pos == pos0 {
			k = b + k0
		}
		for ; k < b+n; k++ {
			if v := p.f[k] + a; v < m {
				m = v
				dst = append(dst, frontPt{p.t[k], v})
			}
		}
		if m <= 0 {
			break
		}
	}
	return dst
}

// frontMin returns the fewest free processors of the steps of front's
// profile that start before end, the first step always included: whether a
// job can run from the first step's time to end.
func frontMin(front []frontPt, end float64) int {
	lo, hi := 1, len(front) // front[0] always counts
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if front[m].t < end {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return front[lo-1].min
}
