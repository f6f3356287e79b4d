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
// t[b*blkCap:b*blkCap+n] and f[...], and blk lists the blocks in time
// order with their metadata (one struct per position: a block access is
// one bounds check and one cache line). All storage is reused across
// resets, so steady-state use does not allocate.
type blockProfile struct {
	t []float64 // step times by block id
	f []int     // step values without their block's addend, by block id

	blk []blkMeta // the blocks in time order

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

// blkMeta is a block of a blockProfile, at its position in time order.
type blkMeta struct {
	first  float64 // time of the block's first step
	add    int     // lazy addend
	lo, hi int     // smallest and largest f of the block (without add)
	id     int32   // block id (its steps are in t and f from id*blkCap)
	n      int32   // steps in the block
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
	for i := range p.blk {
		p.spare = append(p.spare, p.blk[i].id)
	}
	p.blk = p.blk[:0]
	p.appendBlock(0, now, free)
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
	p.blk = slices.Insert(p.blk, pos, blkMeta{first: at, lo: v, hi: v, id: id, n: 1})
}

// base returns the offset of the block at position pos in t and f.
func (p *blockProfile) base(pos int) int { return int(p.blk[pos].id) * blkCap }

// value returns the free processors of step k of the block at pos.
func (p *blockProfile) value(pos, k int) int { return p.f[p.base(pos)+k] + p.blk[pos].add }

// release adds procs processors from time at on; at must be ≥ the last
// step's time. It is only used to build the profile, before any
// reservation, so no block has an addend.
func (p *blockProfile) release(at float64, procs int) {
	p.ruled.clear()
	p.resFrom = math.Inf(-1)
	pos := len(p.blk) - 1
	b, n := p.base(pos), int(p.blk[pos].n)
	last := p.f[b+n-1]
	if p.t[b+n-1] == at {
		// lo and hi stay bounds of the block's values, which is all
		// searches need (refresh tightens them).
		p.f[b+n-1] = last + procs
		p.blk[pos].hi = max(p.blk[pos].hi, last+procs)
		p.blk[pos].lo = min(p.blk[pos].lo, last+procs)
		if n == 1 {
			p.blk[pos].lo, p.blk[pos].hi = last+procs, last+procs
		}
		return
	}
	v := last + procs + p.blk[pos].add
	if n >= blkFill {
		p.appendBlock(len(p.blk), at, v)
		return
	}
	p.t[b+n], p.f[b+n] = at, v-p.blk[pos].add
	p.blk[pos].n++
	p.blk[pos].lo, p.blk[pos].hi = min(p.blk[pos].lo, v-p.blk[pos].add), max(p.blk[pos].hi, v-p.blk[pos].add)
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
				p.blk[pos].n = int32(n)
				p.refresh(pos)
				p.appendBlock(len(p.blk), at, last)
				pos, b, n = pos+1, p.base(pos+1), 1
			default:
				p.t[b+n], p.f[b+n] = at, last
				n++
			}
			lastT = at
		}
	}
	p.blk[pos].n = int32(n)
	p.refresh(pos)
}

// locate returns the position and index of the step in force at time t
// (the last step starting at or before it; the first step if t is before
// every step).
func (p *blockProfile) locate(t float64) (pos, k int) {
	if t <= p.blk[0].first || len(p.blk) == 1 && p.blk[0].n == 1 {
		return 0, 0 // a search from now
	}
	// Profiles are mostly a few blocks long, and the step is found by
	// stepping on rather than by binary searches, whose branches were
	// mispredicted about every other step; a long profile's blocks are
	// still searched.
	if bs := p.blk; len(bs) > locateLinear {
		pos = max(0, sortSearchBlk(bs, t)-1)
	} else {
		for pos+1 < len(bs) && bs[pos+1].first <= t {
			pos++
		}
	}
	b := p.base(pos)
	return pos, lastLE((*[blkCap]float64)(p.t[b:b+blkCap]), int(p.blk[pos].n), t)
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

// sortSearchBlk returns the number of blocks of a (in time order) whose
// first step is at or before t.
func sortSearchBlk(a []blkMeta, t float64) int {
	lo, hi := 0, len(a)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if a[m].first <= t {
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
	for w := 0; pos+1 < len(p.blk) && p.blk[pos+1].first <= t; w++ {
		if w == 4 { // far on: search the rest
			pos, k = pos+sortSearchBlk(p.blk[pos+1:], t), 0
			break
		}
		pos, k = pos+1, 0
	}
	// The step in force at t: lastLE's search has no branch to mispredict
	// (a scan on from k mispredicted its exit about once a call, a
	// branching binary search about every other step).
	b := p.base(pos)
	return p.splitAt(t, pos, lastLE((*[blkCap]float64)(p.t[b:b+blkCap]), int(p.blk[pos].n), t))
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
	if p.blk[pos].n == blkCap {
		p.splitBlock(pos)
		halved = pos
		if k >= blkCap/2 {
			pos, k = pos+1, k-blkCap/2
		}
		b = p.base(pos)
	}
	// Both arrays move in one loop: memmove's dispatch on the length
	// mispredicted once or more per call.
	n := int(p.blk[pos].n)
	v := p.f[b+k] // the new step has the value in force at t
	ts := p.t[b+k+1 : b+n+1]
	fs := p.f[b+k+1 : b+n+1]
	fs = fs[:len(ts)]
	for i := len(ts) - 1; i > 0; i-- {
		ts[i], fs[i] = ts[i-1], fs[i-1]
	}
	ts[0], fs[0] = t, v
	p.blk[pos].n++
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
	p.blk[pos].n, p.blk[pos+1].n = h, h
	p.blk[pos+1].add = p.blk[pos].add
	p.refresh(pos)
	p.refresh(pos + 1)
}

// refresh recomputes the block at pos's smallest and largest value.
// Between refreshes lo and hi are only bounds: lo ≤ every value ≤ hi.
func (p *blockProfile) refresh(pos int) {
	b, n := p.base(pos), int(p.blk[pos].n)
	lo, hi := p.f[b], p.f[b]
	for _, v := range p.f[b+1 : b+n] {
		lo, hi = min(lo, v), max(hi, v)
	}
	p.blk[pos].lo, p.blk[pos].hi = lo, hi
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
	if pa >= len(p.blk) || ka >= int(p.blk[pa].n) {
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
	p.addRange(pa, ka, int(p.blk[pa].n), -procs)
	for pos := pa + 1; pos < pb; pos++ {
		p.blk[pos].add -= procs
	}
	p.addRange(pb, 0, kb, -procs)
}

// addRange adds d to steps [i, j) of the block at pos.
func (p *blockProfile) addRange(pos, i, j, d int) {
	if i >= j {
		return
	}
	n := int(p.blk[pos].n)
	if i == 0 && j == n {
		p.blk[pos].add += d
		return
	}
	// The steps are shifted by shiftUp or shiftDown, inlined here, by
	// d's sign at each site (one shift taking both signs was a call per
	// site and mispredicted its test of the sign).
	if 2*(j-i) > n {
		// Most of the block changes: add d to the whole block through its
		// addend and take it back from the steps outside [i, j).
		p.blk[pos].add += d
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
	hi := p.blk[pos].hi
	for x, v := range fs {
		fs[x] = v + d
		hi = max(hi, v+d)
	}
	p.blk[pos].hi = hi
}

// shiftDown adds d ≤ 0 to f over steps [i, j) of the block at pos, as
// shiftUp with lo following the new values (nextFit tightens hi).
func (p *blockProfile) shiftDown(pos, i, j, d int) {
	fs := p.f[p.base(pos)+i:][:j-i]
	lo := p.blk[pos].lo
	for x, v := range fs {
		fs[x] = v + d
		lo = min(lo, v+d)
	}
	p.blk[pos].lo = lo
}

// advance drops the steps before the one in force at now and moves that
// step's time to now.
func (p *blockProfile) advance(now float64) {
	p.ruled.clear()
	p.resFrom = math.Inf(-1)
	pos, k := p.locate(now)
	if pos > 0 {
		for i := range pos {
			p.spare = append(p.spare, p.blk[i].id)
		}
		p.blk = append(p.blk[:0], p.blk[pos:]...)
	}
	b, n := p.base(0), int(p.blk[0].n)
	if k > 0 {
		copy(p.t[b:b+n-k], p.t[b+k:b+n])
		copy(p.f[b:b+n-k], p.f[b+k:b+n])
		p.blk[0].n = int32(n - k)
		p.refresh(0)
	}
	p.t[b], p.blk[0].first = now, now
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
	cf, whole, cost := len(p.segs), !(lb > p.blk[0].first), 0
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
	if cost += its; whole && cost >= memoMinCost && t > p.blk[0].first && !math.IsInf(t, 1) {
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
	if pos >= len(p.blk) || k >= int(p.blk[pos].n) || p.t[p.base(pos)+k] != lb {
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
		if k == int(p.blk[pos].n) {
			pos, k = pos+1, 0
			if pos == len(p.blk) {
				return math.Inf(1), 0, its
			}
		}
	}
}

// nextFit returns the first step at or after (pos, k) with at least procs
// free processors, or -1.
func (p *blockProfile) nextFit(pos, k, procs int) (int, int) {
	for ; pos < len(p.blk); pos, k = pos+1, 0 {
		m := &p.blk[pos]
		need := procs - m.add
		if m.hi < need {
			continue
		}
		b := int(m.id) * blkCap
		fs := p.f[b : b+int(m.n)]
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
		m.hi = hi // the whole block was read: tighten its bound
	}
	return -1, 0
}

// nextFitRec is nextFit recording the steps it skips as certSkip (the
// tests' reference) does: one part per block, the block's bound for a
// block skipped whole, the largest value of the steps read otherwise,
// in the same pass over them.
func (p *blockProfile) nextFitRec(pos, k, procs int) (int, int) {
	for ; pos < len(p.blk); pos, k = pos+1, 0 {
		m := &p.blk[pos]
		a := m.add
		need, b, n := procs-a, int(m.id)*blkCap, int(m.n)
		if k >= n {
			continue // no step left in the block
		}
		if m.hi < need {
			hi, x := m.hi, m.first // first is t[b]: no load of the block's times
			if k > 0 {
				hi, x = math.MinInt, p.t[b+k]
				for _, v := range p.f[b+k : b+n] {
					hi = max(hi, v)
				}
			}
			p.cert = append(p.cert, certIv{x: x, y: p.blockEnd(pos), def: int32(procs - (hi + a)), pass: p.certPass})
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
			m.hi = hi // the whole block was read: tighten its bound
		}
		p.cert = append(p.cert, certIv{x: p.t[b+k0], y: p.blockEnd(pos), def: int32(procs - (hi + a)), pass: p.certPass})
	}
	return -1, 0
}

// blockEnd returns the time the block at pos ends: the next block's
// first step, or +Inf for the last block. (nextFitRec reads it only for
// the parts that reach it, not on its way to the step it returns.)
func (p *blockProfile) blockEnd(pos int) float64 {
	if pos+1 < len(p.blk) {
		return p.blk[pos+1].first
	}
	return math.Inf(1)
}

// nextBlock returns the first step after (pos, k) that starts before end
// and has fewer than procs free processors, or -1 and a lower bound of
// the free processors over [start of (pos, k), end).
func (p *blockProfile) nextBlock(pos, k, procs int, end float64) (int, int, int) {
	low := p.value(pos, k)
	k++
	for ; pos < len(p.blk); pos, k = pos+1, 0 {
		bm := &p.blk[pos]
		b, n := int(bm.id)*blkCap, int(bm.n)
		t0 := bm.first // t[b]: a block passed whole loads none of its steps
		if k > 0 {
			if k >= n {
				continue
			}
			t0 = p.t[b+k]
		}
		if t0 >= end {
			break
		}
		a := bm.add
		if bm.lo+a >= procs {
			low = min(low, bm.lo+a)
			continue
		}
		if pos+1 < len(p.blk) && p.blk[pos+1].first <= end {
			// Every step of the block starts before end: no time checks.
			need, m := procs-a, math.MaxInt
			for j, v := range p.f[b+k : b+n] {
				if v < need {
					return pos, k + j, 0
				}
				m = min(m, v)
			}
			if k == 0 {
				bm.lo = m // the whole block was read: tighten its bound
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
	for pos := range p.blk {
		b, n := p.base(pos), int(p.blk[pos].n)
		ts = append(ts, p.t[b:b+n]...)
		for _, v := range p.f[b : b+n] {
			fs = append(fs, v+p.blk[pos].add)
		}
	}
	return ts, fs
}

// fitsFirst reports whether procs processors are free in the first step
// and in every later step that starts before end: whether a job could run
// from the first step's time until end.
func (p *blockProfile) fitsFirst(procs int, end float64) bool {
	return p.fitsFrom(p.blk[0].first, procs, end)
}

// fitsFrom reports whether procs processors are free in the step in force
// at at and in every later step that starts before end: whether a job
// could run from at until end. Blocks that fit whole are skipped.
func (p *blockProfile) fitsFrom(at float64, procs int, end float64) bool {
	pos0, k0 := p.locate(at)
	for pos := pos0; pos < len(p.blk); pos++ {
		if pos > pos0 && p.blk[pos].first >= end {
			return true
		}
		a := p.blk[pos].add
		if p.blk[pos].lo+a >= procs {
			continue
		}
		b, n := p.base(pos), int(p.blk[pos].n)
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
	return p.frontierFrom(p.blk[0].first, dst)
}

// frontierFrom is frontier from the step in force at at (which comes
// first, with its own time): the running minimum of every window from at.
// Blocks that cannot lower it are skipped.
func (p *blockProfile) frontierFrom(at float64, dst []frontPt) []frontPt {
	pos0, k0 := p.locate(at)
	m := math.MaxInt
	for pos := pos0; pos < len(p.blk); pos++ {
		a := p.blk[pos].add
		if p.blk[pos].lo+a >= m {
			continue
		}
		b, n := p.base(pos), int(p.blk[pos].n)
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
