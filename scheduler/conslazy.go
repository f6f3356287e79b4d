package scheduler

import "math"

// lazyTail lets a keyed pass on a long queue leave jobs without a
// reservation (DESIGN.md, "Conservative on an overloaded machine"). A
// pass's only output is the jobs it starts now; reservations only decide
// them. From the first job whose start is later than now (at queue
// position i0), each later job is searched on the profile without the
// skipped jobs' reservations (P̂, which has at least the true free
// processors, so its answer is a lower bound of the job's true start)
// and skipped if that answer is later than now; h is the least such
// bound. Over [now, h) P̂ is the true profile (no skipped reservation
// starts before h), so:
//
//   - a job whose answer is now and whose window ends by h starts now, as
//     the full pass would start it;
//   - any other job whose answer is now makes the pass place the skipped
//     jobs whose bound is before the job's window's end first, in queue
//     order (materialise), and then the job on the true profile;
//   - when the pass's last candidate (the last job that may start now) is
//     such a job, the skipped jobs are placed before the candidate is
//     asked again, on the true profile, so the pass ends where the full
//     pass ends;
//   - jobs still skipped when the pass ends are deferred from the first
//     of them (the deferral's segment): placed later, on a profile that
//     also holds the jobs started since, each lands where the full pass
//     put it (its windows start at or after h, after every such job's
//     window ends; earlier windows failed on P̂ already).
//
// A skipped job's search stops at h (searchBefore) and records no
// certificate; a job with no fewer processors and no shorter estimate
// than a class already found to have no start before h needs no search
// (fails; RICC with --estimate run, where the queue holds many such
// jobs: 5.3 → 3.4 s); a run of identical jobs after it, up to the end of its
// queue group, is skipped with it (takeRun, which steps through the queue
// as the pass's scan does). On short queues the kept reservations are
// worth more than the searches skipping saves (the next pass's walk keeps
// most of them without a search), so a pass skips only when at least
// lazyMinQueue jobs wait.
type lazyTail struct {
	on      bool // this pass may skip
	active  bool // it has skipped since i0
	rec     bool // bp.rec before skipping
	i0      int
	h       float64
	skipped []lazySkip
	slots   []int32 // the skipped jobs' slots, in queue order

	// fails are classes (processors, estimate) with no start before h
	// on P̂ (a skipped job's search found none before h, or found e,
	// which h then is at most), its least ones (none dominates another):
	// a job of at least as many processors and as long an estimate has
	// none either (each of its windows holds a window of theirs, short
	// of their processors), so it is skipped with bound h without a
	// search, the bound its search would give. Valid while h does not
	// grow (P̂ only loses processors within a pass): emptied when the
	// skipping starts and when materialise sets h again.
	fails []lazyFail

	nSkip, nStart, nMat int // this pass's skipped, started and materialised jobs (tests)
	nFailHits           int // searches the fails saved (tests)
}

// lazyFail is a class with no start before h on P̂.
type lazyFail struct {
	procs int
	est   float64
}

// lazyFailsMax bounds the classes kept in lazyTail.fails.
const lazyFailsMax = 16

// failed reports whether a kept class dominates (procs, est).
func (lz *lazyTail) failed(procs int, est float64) bool {
	for _, f := range lz.fails {
		if f.procs <= procs && f.est <= est {
			return true
		}
	}
	return false
}

// addFail keeps (procs, est), a class with no start before h, dropping
// the kept classes it dominates; when lazyFailsMax are kept and it
// dominates none, it replaces the first.
func (lz *lazyTail) addFail(procs int, est float64) {
	fs := lz.fails[:0]
	for _, f := range lz.fails {
		if !(procs <= f.procs && est <= f.est) {
			fs = append(fs, f)
		}
	}
	if len(fs) == lazyFailsMax {
		copy(fs, fs[1:])
		fs = fs[:len(fs)-1]
	}
	lz.fails = append(fs, lazyFail{procs, est})
}

// lazySkip is a skipped job, or a run of identical ones: their slots
// (slots[s0:s1] of the lazy tail), class, a lower bound e of their start,
// and the queue position of the first.
type lazySkip struct {
	procs, pos, s0, s1 int32
	est, e             float64
}

// lazyMinQueue is the fewest waiting jobs for which a pass skips (a
// variable for tests).
var lazyMinQueue = 1000

// lazyPassEnd, if set (tests only), is called at the end of every pass
// that could skip with its counts.
var lazyPassEnd func(skipped, started, materialised, failHits int)

// lazyStart begins a pass; ok says it is keyed and may end early, live is
// the number of waiting jobs.
func (c *Conservative) lazyStart(ok bool, live int) {
	lz := &c.lz
	lz.active, lz.skipped, lz.slots = false, lz.skipped[:0], lz.slots[:0]
	lz.nSkip, lz.nStart, lz.nMat, lz.nFailHits = 0, 0, 0, 0
	lz.on = ok && !c.full && live >= lazyMinQueue
}

// skip records the jobs whose slots were appended to lz.slots from s0 on
// (the first at queue position pos) as skipped with start bound e.
func (lz *lazyTail) skip(s0 int, procs int, est, e float64, pos int) {
	lz.skipped = append(lz.skipped, lazySkip{procs: int32(procs), pos: int32(pos), s0: int32(s0), s1: int32(len(lz.slots)), est: est, e: e})
	lz.h = min(lz.h, e) // no bound is NaN
	lz.nSkip += len(lz.slots) - s0
}

// lazyPlace takes job i's answer t from placeFast and reports whether the
// job is skipped; if not, it returns the start the pass goes on with (t,
// or the job's answer on the true profile after materialising).
func (c *Conservative) lazyPlace(v *View, i int, t float64) (float64, bool) {
	lz := &c.lz
	if math.IsInf(t, 1) {
		return t, false
	}
	if t > v.Now {
		if !lz.active {
			lz.active, lz.i0, lz.h = true, i, t
			lz.rec, c.bp.rec = c.bp.rec, false
			lz.fails = lz.fails[:0]
		}
		c.run.pending-- // placeFast counted it in its run: no reservation
		s0 := len(lz.slots)
		lz.slots = append(lz.slots, v.e.wq.slots[i])
		lz.skip(s0, v.Procs(i), v.EstLow(i), t, i)
		return t, true
	}
	end := v.Now + v.EstLow(i)
	if !lz.active || end <= lz.h && v.Fits(i) {
		if lz.active {
			lz.nStart++
		}
		return t, false
	}
	if !v.Fits(i) {
		end = math.Inf(1) // reserved now but not started: the full pass's case
	}
	c.run.pending-- // placeFast counted it at now: it is placed again after the skipped jobs
	c.materialise(v, end)
	return c.lazyPlace(v, i, c.placeFast(v.Now, v.Procs(i), v.EstLow(i), 0))
}

// lazyProbe is lazyPlace for a pass that skips already: job i is searched
// on P̂ only up to h, from the class cache's bound, and skipped with the
// identical jobs after it in its queue group unless it finds now. It
// returns the position the pass goes on after and whether it skipped; if
// not, the job's start as lazyPlace gives it.
func (c *Conservative) lazyProbe(v *View, i int, suf []int32) (float64, int, bool) {
	lz := &c.lz
	procs, est := v.Procs(i), v.EstLow(i)
	lb := v.Now
	if at, ok := c.seen.get(procs, est); ok {
		if math.IsInf(at, 1) {
			return at, i, false // fits nowhere: the pass's case
		}
		lb = at
	}
	if lb < lz.h {
		if lz.failed(procs, est) {
			lb = lz.h // searchBefore's +Inf, taken to h
			lz.nFailHits++
			if v.e.cfg.Check {
				// The claim, checked by the search it saves (from now).
				if e := c.bp.searchBefore(procs, est, v.Now, lz.h); e < lz.h {
					v.e.violate("conservative: a job of %d processors and estimate %v was skipped as dominated by a class with no start before %v, but starts at %v on the profile without the skipped jobs", procs, est, lz.h, e)
				}
			}
		} else {
			e := c.bp.searchBefore(procs, est, lb, lz.h)
			if e == v.Now {
				t, skip := c.lazyPlace(v, i, c.placeFast(v.Now, procs, est, 0))
				return t, i, skip
			}
			// No start before min(e, h), which h is about to be at
			// most (skip).
			lz.addFail(procs, est)
			lb = min(e, lz.h)
		}
		c.seen.put(procs, est, lb) // a bound for later jobs on P̂, which only loses processors
	}
	w := &v.e.wq
	s0 := len(lz.slots)
	lz.slots = append(lz.slots, w.slots[i])
	// The run stops at the end of the queue group, where the pass asks
	// for its last candidate again.
	const gMask = 1<<groupShift - 1
	last, _, slots := takeRun(w, i, min(len(w.slots), (i|gMask)+1), math.MaxInt, int32(procs), est, v.Total, v.Free(), suf, lz.slots, true)
	lz.slots = slots
	lz.skip(s0, procs, est, lb, i)
	return lb, last, true
}

// lazyCandidate is called with the pass's last candidate cand (≥ i, a job
// that may start now on P̂): if its window passes h, the skipped jobs are
// placed and the candidate asked again, on the true profile.
func (c *Conservative) lazyCandidate(v *View, i, cand int) int {
	if lz := &c.lz; lz.active && cand >= i && v.Now+v.EstLow(cand) > lz.h {
		c.materialise(v, math.Inf(1))
		cand = c.lastCandidate(v, i, cand)
	}
	return cand
}

// materialise places the skipped jobs in queue order, as the full pass
// placed them, up to the last whose bound is before end; the rest stay
// skipped (their bounds, and so h, are at or after end).
func (c *Conservative) materialise(v *View, end float64) {
	lz := &c.lz
	sk := lz.skipped
	m := len(sk)
	for m > 0 && sk[m-1].e >= end {
		m--
	}
	c.flush()
	c.seen.next() // bounds found for later jobs bound no earlier one
	c.run = classRun{}
	c.bp.rec = lz.rec
	for k := range sk[:m] {
		s := &sk[k]
		for _, slot := range lz.slots[s.s0:s.s1] {
			t := c.placeFast(v.Now, int(s.procs), s.est, 0)
			v.backfill = true // View.Reserve's mark
			if v.e.checkRes {
				v.e.reserve(slot, t)
			}
			if c.rs.rec && t > v.Now {
				c.rs.slots = append(c.rs.slots, slot)
			}
		}
		lz.nMat += int(s.s1 - s.s0)
	}
	c.flush()
	if m == len(sk) {
		lz.active, lz.skipped, lz.slots = false, sk[:0], lz.slots[:0]
		return
	}
	// The rest stay skipped (their slot ranges stay where they are).
	n := copy(sk, sk[m:])
	lz.skipped = sk[:n]
	lz.i0, lz.h = int(sk[0].pos), math.Inf(1)
	for _, s := range sk[:n] {
		lz.h = min(lz.h, s.e)
	}
	lz.fails = lz.fails[:0] // h may have grown
	c.bp.rec = false
}

// lazyFrom returns where the pass's deferral starts if it ends at i: the
// first skipped job, or i.
func (c *Conservative) lazyFrom(i int) int {
	if c.lz.active {
		return c.lz.i0
	}
	return i
}

// lazyDefer defers the skipped jobs at the end of a pass that scanned the
// whole queue and left its profile valid.
func (c *Conservative) lazyDefer(v *View) {
	if lz := &c.lz; lz.active {
		c.def.ok = true
		c.def.segs = append(c.def.segs, deferSeg{at: v.Now, pos: lz.i0, slot: v.e.wq.slots[lz.i0]})
	}
}

// lazyEnd ends skipping for the pass.
func (c *Conservative) lazyEnd() {
	lz := &c.lz
	if lz.active {
		c.bp.rec = lz.rec
		lz.active = false
	}
	if lz.on && lazyPassEnd != nil {
		lazyPassEnd(lz.nSkip, lz.nStart, lz.nMat, lz.nFailHits)
	}
	lz.on = false
}

// searchBefore is search without certificates nor memo, for a start
// before stop: the earliest step start from the step in force at lb on
// from which procs processors are free for dur seconds if it is before
// stop, else +Inf.
func (p *blockProfile) searchBefore(procs int, dur, lb, stop float64) float64 {
	pos, k := p.locate(lb)
	for {
		if pos, k = p.nextFit(pos, k, procs); pos < 0 {
			return math.Inf(1)
		}
		start := p.t[p.base(pos)+k]
		if start >= stop {
			return math.Inf(1)
		}
		mpos, mk, _ := p.nextBlock(pos, k, procs, start+dur)
		if mpos < 0 {
			return start
		}
		pos, k = mpos, mk+1
		if k == int(p.blk[pos].n) {
			if pos, k = pos+1, 0; pos == len(p.blk) {
				return math.Inf(1)
			}
		}
	}
}
