package scheduler

import (
	"math"
	"slices"
)

// Conservative is conservative backfilling: every queued job, in queue
// order, gets the earliest reservation that delays no earlier
// reservation, computed on an availability profile in which running jobs
// release their processors at their estimated ends. Jobs whose reservation
// is now start now. Reservations are recomputed from scratch at every pass,
// so they only ever move earlier when jobs end before their estimates.
//
// Under a power-aware governor with a limit in force the profile also
// tracks power headroom under the limit in force now: running jobs release
// their power above idle at their estimated ends, and each reservation
// takes the job's power at its lowest level (QueuedJob.Power) for its
// duration, so a reservation is processor- and power-feasible. A job that
// cannot fit under the current limit even on an empty machine gets no
// reservation (it is deferred until the limit changes) and holds nothing
// back. Without a limit the headroom is +Inf and the rule is the
// processor-only one.
//
// Once no later job in the queue fits in the processors free now (a lower
// bound of their sizes, from the wait queue's block bounds, exceeds them),
// none can start in this pass, so the scan stops: the remaining
// reservations would only be recomputed at the next pass anyway.
//
// Implementation (the schedule is that of the plain array profile; see
// profile_ref_test.go): without a limit in force the profile is a
// blockProfile, which finds earliest starts and makes reservations by
// skipping whole blocks of steps. Consecutive jobs of one class
// (processors, estimate) search from the previous one's start, and while
// the previous window has room for them they take the same start without
// a search; their reservations are then made as one (integer processors,
// so exactly as many single ones), and on keyed passes such a run is read
// straight from the wait queue's arrays (extendRun). A rebuild writes the
// profile in one pass over the running list (blockProfile.build). Under a
// limit the plain profile, which
// also tracks headroom in floating point, is kept op for op; it uses the
// search-from-the-previous-start shortcut and the early end of a pass
// with its deferrals (below; conspower.go), not reuse.
//
// Where processors and estimates come from the wait queue (keyed passes)
// a pass also ends early: at each new group of the queue it finds the last
// queued job that the profile could still start now (its processors free
// from now until now plus its estimate: the running minimum of the
// profile, frontier), and once the scan is past it no later job can start
// in this pass. Reservations are still those of placing every job: the
// jobs left out are placed at the next pass, on the profile as this pass
// left it and from this pass's time, if that pass keeps the profile, and
// dropped if it rebuilds (TestConservativeEarlyEndKeepsSchedule). An
// arrival pass none of whose new jobs can start even without them (on
// RICC, 74,678 of 79,358 such passes) leaves them unplaced too and defers
// its own jobs after them, so deferred jobs wait, segment by segment, for
// the first pass that needs them (most are dropped by the next finish's
// rebuild or reuse: 3.16 M placements of deferred jobs become 0.81 M,
// RICC conservative 5.6 → 4.9 s of CPU). Searches
// also start from the last start of the job's class in the pass
// (classCache), not only of the previous job: the profile only loses
// processors within a pass.
//
// After a finish, a keyed pass does not place every job again: it keeps
// the reservations of the previous passes in queue order for as long as
// the processors released early cannot move them earlier (each search
// leaves a certificate of the steps that ruled out earlier starts), and
// places from the first that may move as a rebuilt pass would
// (consreuse.go; TestConservativeReuseKeepsSchedule).
type Conservative struct {
	// fast says the profile is bp, the processor-only one: no power limit
	// was in force when it was built, so every headroom is +Inf and every
	// power fits. Otherwise it is p, which also tracks power headroom.
	fast bool
	bp   blockProfile
	p    profile
	// valid says the profile holds the reservation of every queued job as
	// of the last pass. If nothing has changed since (View.Changed), those
	// reservations stand and only jobs queued since need one.
	valid bool
	run   classRun
	seen  classCache // same-class search starts beyond consecutive runs
	def   deferred   // reservations a pass left for the next one
	front []frontPt  // scratch: running minimum of the profile from now
	// pfront is front on the power profile, pm its search memo
	// (conspower.go).
	pfront powerFront
	pm     powerMemo
	suf    []int32 // scratch: suffix minimums of the wait queue's block bounds
	// roomPos is the queue position of the last candidate found to fit
	// (lastCandidateAt; its window is bp.room).
	roomPos int
	// full turns off the early end of keyed passes (tests compare the
	// two: the end and its deferrals must not change the schedule).
	full bool
	// noReuse turns off incremental passes (tests compare the two).
	noReuse bool
	rs      reuseState // consreuse.go
	now     float64    // the time reservations are made from in this pass
	lz      lazyTail   // conslazy.go
}

// classRun is the last reservation made in a pass, shared by consecutive
// jobs of the same class (processors, estimate, power). The profile only
// loses processors and power within a pass, so a job of the same class
// cannot start before the previous one: its search starts at the previous
// reservation. In the processor-only profile, while the previous window
// still has room (left more jobs of the class), the next job goes at the
// same start, and the run's reservations are made at once (pending jobs).
type classRun struct {
	ok      bool
	procs   int
	est, w  float64
	at      float64 // the reservation's start (+Inf: deferred)
	left    int     // more jobs that surely fit at the same start
	pending int     // jobs reserved at the start but not yet in the profile
}

var _ Policy = (*Conservative)(nil)

func (*Conservative) Name() string { return "conservative" }

// bootEstInQueue: conservative reads the queue's estimates as exact
// (keyed passes) and keeps reservations made with them (nodepower.go).
func (*Conservative) bootEstInQueue() bool { return true }

func (c *Conservative) Schedule(v *View) {
	from := 0
	// Under node power saving a queued job's estimate holds the boot
	// allowance while some node is down (View.Job): the wait queue's
	// estimates hold it too, and a pass after it turned on or off
	// (syncBootEst) is not quick (a node event set View.Changed) and does
	// not reuse (estGen). A job started on nodes that are up ends its
	// estimate before its reservation (which held the allowance): the
	// profile holds the reservation until a reusing pass turns it into
	// the running job's window (rs.adj), so a quick pass, which would
	// place on the reservation, waits for that; without recorded groups
	// every pass rebuilds, as before the queue held the allowance. Nor
	// under the extend rule, where a reservation may start at the
	// estimated end of a job that runs on (no event then), which a quick
	// pass leaves where a rebuilt one places it again (power saving's
	// passes always rebuilt, and still do there).
	quick := !v.Changed() && c.valid && (v.e.np == nil || c.rs.rec && len(c.rs.adj) == 0 && v.e.cfg.Overrun == OverrunKill)
	if quick && c.def.ok {
		if c.extendDeferral(v) {
			return
		}
		quick = c.placeDeferred(v)
	}
	c.def.ok, c.def.segs = false, c.def.segs[:0]
	c.now = v.Now
	c.run = classRun{}
	c.seen.next()
	c.pm.reset()
	rebuilt := false
	// The wait queue's suffix bounds, taken before any walk of the queue
	// in the pass (reuse walks it before placing).
	var suf []int32
	if !quick {
		suf = v.e.wq.suffixMinProcs(&c.suf)
	}
	if quick {
		if c.fast {
			c.bp.advance(v.Now)
		} else {
			c.p.advance(v.Now)
		}
		from = v.NewFrom()
		if w := &v.e.wq; w.Len() > len(w.slots)-from {
			// The jobs before from hold the last passes' reservations: a
			// start of this pass is a backfill decision (--check's
			// priority test). Every entry from from on is a new submit.
			v.backfill = true
		}
	} else if f, rb, ok := c.reuse(v, suf); ok {
		from, rebuilt = f, rb
	} else {
		c.rebuild(v)
		c.startRecording(v)
		rebuilt = true
	}
	c.valid = true
	if suf == nil {
		suf = c.suffixFrom(&v.e.wq, from)
	}
	// On the processor-only profile with estimates known at enqueue
	// (View.estExact), a job's processors and estimate come from the wait
	// queue itself: no QueuedJob is filled for jobs that only get a
	// reservation, which on a long queue is most of them.
	keyed := c.fast && v.estExact()
	// On the power profile a pass ends early too (powerEnd), where a
	// deferred job's QueuedJob is the same at a later pass.
	early := !c.full && (keyed || c.powerEnd(v))
	// On the power profile, where the queue's arrays hold a job's
	// processors, estimate and power exactly (powerEnd's conditions: the
	// power is powerLow's, with no node-load allowance), they are read
	// from there too (queueJob).
	arrays := !keyed && c.powerEnd(v)
	c.lazyStart(keyed && early, v.e.wq.Len())
	// cand is the last queue position that may hold a job able to start
	// now (see lastCandidate), checked at each new group.
	cand, group := len(v.e.wq.slots)-1, -1
	for i := v.Next(from, v.Total); i >= 0; i = v.Next(i+1, v.Total) {
		if v.Free() < int(suf[i>>groupShift]) {
			c.valid = false // later jobs keep no reservation in the profile
			break
		}
		if early && i>>groupShift != group {
			group = i >> groupShift
			if keyed {
				cand = c.lazyCandidate(v, i, c.lastCandidate(v, i, cand))
			} else {
				cand = c.lastCandidatePower(v, i, cand)
			}
			if cand < i {
				c.flush()
				c.deferFrom(v, i, suf, c.lazyFrom(i))
				c.endPass(v, rebuilt)
				return
			}
		}
		var t float64
		switch {
		case keyed && c.lz.active:
			var skip bool
			if t, i, skip = c.lazyProbe(v, i, suf); skip {
				continue
			}
		case keyed:
			t = c.placeFast(v.Now, v.Procs(i), v.EstLow(i), 0)
			if c.lz.on {
				var skip bool
				if t, skip = c.lazyPlace(v, i, t); skip {
					continue
				}
			}
		case arrays:
			procs, est, pw := queueJob(v, i)
			t = c.placeJob(v.Now, procs, est, pw)
		default:
			t = c.place(v.Now, v.Job(i))
		}
		if math.IsInf(t, 1) {
			continue // deferred: does not fit under the current limit
		}
		if t == v.Now {
			if !v.Fits(i) {
				c.valid = false // reserved now but not started: recompute next time
				c.rs.rec = false
			} else {
				// Its profile entry is its reservation, not its estimated
				// end if that differs (noteStart, consreuse.go).
				est, slot, procs := v.EstLow(i), v.e.wq.slots[i], v.Procs(i)
				c.noteStart(slot, procs, t+est, v.Start(i))
			}
		}
		v.Reserve(i, t)
		if c.rs.rec && t > v.Now {
			c.rs.slots = append(c.rs.slots, v.e.wq.slots[i])
		}
		if keyed && t > v.Now {
			i = c.extendRun(v, i, len(v.e.wq.slots), suf)
		}
	}
	c.flush()
	if c.valid {
		c.lazyDefer(v)
	}
	c.lazyEnd()
	c.endPass(v, rebuilt)
}

// suffixFrom returns, per group of the wait queue (index i>>groupShift),
// a lower bound of the processors of every live entry in that group and
// the groups after it (the wait queue's suffixMinProcs), filled only for
// the groups from position from's on: a pass reads it at positions from
// its start on, and an arrival pass starts at the end of a long queue.
func (c *Conservative) suffixFrom(w *waitQueue, from int) []int32 {
	gp := w.group.procs
	n := len(gp)
	s := c.suf
	if cap(s) < n {
		s = make([]int32, n, 2*n)
	}
	s = s[:n]
	if g0 := from >> groupShift; n > 0 && g0 < n {
		s[n-1] = gp[n-1]
		for g := n - 2; g >= g0; g-- {
			s[g] = min(gp[g], s[g+1])
		}
	}
	c.suf = s
	return s
}

// extendRun gives the live queue entries after position i (up to end)
// that are of the current run's class the run's start, while its window
// has room for them, as placeFast would one by one, and returns the last
// position it reserved (i if none). It reads the wait queue's arrays
// directly: long queues hold long runs of identical jobs. Positions are
// walked as the loop's v.Next(i+1, v.Total) calls would (tombstones
// through the wait queue's skips, which tighten its bounds), and the run
// stops before a position at which the loop would stop (free processors
// below the suffix bound suf, when suf is not nil).
func (c *Conservative) extendRun(v *View, i, end int, suf []int32) int {
	r := &c.run
	if r.left <= 0 || !(r.at > v.Now) {
		return i
	}
	e, rs := v.e, &c.rs
	// Most runs end at the next entry, a live job of another class:
	// takeRun would take nothing there (runStops; its call and setup cost
	// CEA-Curie about 200 instructions per pass placement).
	if runStops(&e.wq, i, end, int32(r.procs), r.est, v.Total) {
		return i
	}
	keep := rs.rec || e.checkRes
	s0 := len(rs.slots)
	last, n, slots := takeRun(&e.wq, i, end, r.left, int32(r.procs), r.est, v.Total, v.Free(), suf, rs.slots, keep)
	if n == 0 {
		return i
	}
	if e.checkRes { // v.Reserve's record, for EASY's check
		for _, slot := range slots[s0:] {
			e.reserve(slot, r.at)
		}
	}
	if !rs.rec {
		slots = slots[:s0]
	}
	rs.slots = slots
	v.backfill = true // v.Reserve's mark
	r.left -= n
	r.pending += n
	return last
}

// runStops reports whether takeRun(w, i, end, left, procs, est, total,
// …) surely takes nothing (for any left > 0, free and suf): position
// i+1 is at or past end, or holds a live job within the machine's total
// processors (which View.Next returns without a skip) of another class
// than (procs, est). It may report false where takeRun takes nothing
// all the same.
func runStops(w *waitQueue, i, end int, procs int32, est float64, total int) bool {
	j := i + 1
	if j >= end {
		return true
	}
	p := w.procs[j]
	return p <= int32(min(total, math.MaxInt32-1)) && (p != procs || w.est[j] != est)
}

// takeRun is extendRun's walk: from position i on, up to end and for at
// most left entries, it takes the live entries of the class (procs, est)
// the loop's scan would meet next (View.Next over a machine of total
// processors, stopping where free is below the suffix bound suf, if not
// nil), and returns the last one taken (i if none), how many it took, and
// slots with theirs appended if keep. It reads a stretch of consecutive
// entries at a time (an entry of the class is live and within the
// machine's size, as the run's processors are), and the suffix bound once
// per group of the queue, as it is the same for all its entries; the
// tests' reference (takeRunEach) walks one entry at a time.
func takeRun(w *waitQueue, i, end, left int, procs int32, est float64, total, free int, suf, slots []int32, keep bool) (last, n int, _ []int32) {
	const gMask = 1<<groupShift - 1
	mp := int32(min(total, math.MaxInt32-1))
	last = i
	for j := i + 1; left > 0 && j < end; {
		if w.procs[j] > mp {
			if j = w.next(j, total); j < 0 || j >= end {
				break
			}
		}
		lim := end
		if left < end-j { // left may be math.MaxInt (a run of no processors)
			lim = j + left
		}
		ps, es := w.procs[j:lim], w.est[j:lim]
		es = es[:len(ps)]
		m := 0
		for m < len(ps) {
			if suf != nil && free < int(suf[(j+m)>>groupShift]) {
				break
			}
			g := min(len(ps), ((j+m)|gMask)+1-j) // the end of the group
			for m < g && ps[m] == procs && es[m] == est {
				m++
			}
			if m < g {
				break
			}
		}
		if m == 0 {
			break // another class, or the suffix bound stops the scan
		}
		if keep {
			slots = append(slots, w.slots[j:j+m]...)
		}
		left -= m
		n += m
		last, j = j+m-1, j+m
	}
	return last, n, slots
}

// lastCandidate returns the last queue position from i to cand whose job
// may get a reservation now on the current profile, or i-1 if none may:
// only if the profile has its processors free from now until now plus its
// estimate. The test reads the profile alone, not View.Free: after jobs
// overran their estimates a kept profile shows their processors free, and
// a job reserved now that does not fit must still be met by the loop,
// which then drops the profile. Positions after cand were ruled out earlier in the pass, and
// the profile only loses processors within a pass, so they stay ruled
// out. cand itself is checked on the profile directly; the running
// minimum of the profile from now (c.front), which answers for any
// estimate at once, is built only when cand is ruled out.
//
// Once the frontier is built, a whole block or group of the queue that
// ends at cand and lies after i is ruled out at once when its lower bounds
// of processors and estimate do (frontMin falls as the end grows, so no
// job of the range fits if the smallest size does not fit the shortest
// window). The bounds are read, never tightened: the wait queue's scans
// alone tighten them.
//
// The candidate found last is asked again at the next group of the
// queue: while no reservation since starts before its window's end, its
// answer stands without reading the profile (blockProfile.roomKept).
func (c *Conservative) lastCandidate(v *View, i, cand int) int {
	return c.lastCandidateAt(v, i, cand, v.Now)
}

// lastCandidateAt is lastCandidate for starts at at (≥ the profile's
// first step) rather than at the profile's first step, now.
func (c *Conservative) lastCandidateAt(v *View, i, cand int, at float64) int {
	got := c.lastCandidateScan(v, i, cand, at)
	if lastCandCheck != nil {
		lastCandCheck(c, v, i, cand, at, got)
	}
	return got
}

// lastCandCheck, if set (tests only), is called with every answer of
// lastCandidateAt and its arguments.
var lastCandCheck func(c *Conservative, v *View, i, cand int, at float64, got int)

// lastCandidateScan is lastCandidateAt's scan, in two loops: each entry
// on the profile itself until the frontier is built, then the frontier's
// loop, which tests a block's or group's bounds at its last entry and
// scans the entries of a group not ruled out in an inner loop (one test
// of the position per group rather than per entry).
func (c *Conservative) lastCandidateScan(v *View, i, cand int, at float64) int {
	const gMask, bMask = 1<<groupShift - 1, 1<<blockShift - 1
	w := &v.e.wq
	var p int
	for ; ; cand-- {
		if cand < i {
			return cand
		}
		// A tombstone's processors are math.MaxInt32: skipped.
		if p = int(w.procs[cand]); p > math.MaxInt32-1 {
			continue
		}
		end := at + w.est[cand]
		if cand == c.roomPos && c.bp.roomKept(at, p, end) {
			return cand // its window is as it was when it had room
		}
		if c.bp.fitsFrom(at, p, end) {
			c.roomPos = cand
			c.bp.keepRoom(at, p, end)
			return cand
		}
		break
	}
	c.front = c.bp.frontierFrom(at, c.front[:0])
	// most is the frontier's first point, the most processors any window
	// from at has: a job or range above it is ruled out without frontMin.
	// One test skips a tombstone and a job too large for the frontier.
	most := c.front[0].min
	// fm is frontMin's answer for the window end fe (NaN: none yet).
	fe, fm := math.NaN(), 0
	if p <= most {
		fe = at + w.est[cand]
		if fm = frontMin(c.front, fe); p <= fm {
			c.roomPos = cand
			c.bp.keepRoom(at, p, fe)
			return cand
		}
	}
	for cand--; cand >= i; {
		if cand&gMask == gMask {
			if cand&bMask == bMask && cand-bMask >= i {
				b := cand >> blockShift
				if bp := int(w.block.procs[b]); bp > most || bp > frontMin(c.front, at+w.block.est[b]) {
					cand -= bMask + 1
					continue
				}
			}
			if cand-gMask >= i {
				g := cand >> groupShift
				if gp := int(w.group.procs[g]); gp > most || gp > frontMin(c.front, at+w.group.est[g]) {
					cand -= gMask + 1
					continue
				}
			}
		}
		for lo := max(cand&^gMask, i); cand >= lo; cand-- {
			p := int(w.procs[cand])
			if p > most {
				continue
			}
			// Runs of identical jobs ask frontMin the same end over and over.
			if end := at + w.est[cand]; end != fe {
				fe, fm = end, frontMin(c.front, end)
			}
			if p <= fm {
				c.roomPos = cand
				c.bp.keepRoom(at, p, fe)
				return cand
			}
		}
	}
	return cand
}

// deferred records the jobs keyed passes left without a reservation
// because none of them could start, as segments in queue order. A
// segment is the live queue entries from position pos (holding slot) to
// the next segment's first (the last: to the end of the queue at the
// pass that made it), left by a pass at at. The profile holds the
// reservations of the jobs before the first segment, and has not been
// advanced since that segment's pass. If a later pass keeps the profile,
// it first makes their reservations exactly as those passes would have
// (segment by segment, each from its own pass's time on the profile
// advanced to it), so the schedule is that of placing every job at every
// pass; if it rebuilds, they are dropped.
//
// An arrival pass that keeps the profile and whose new jobs cannot start
// either (checked on the profile without the segments' reservations,
// which only take processors) does not make them: it adds its own jobs
// as one more segment (extendDeferral).
type deferred struct {
	ok   bool
	segs []deferSeg
}

type deferSeg struct {
	at   float64
	pos  int
	slot int32
}

// deferFrom ends a keyed pass at queue position i, from which no job can
// start now. The remaining jobs would have taken reservations and, unless
// the free-processor cutoff stops the scan first, left the profile valid:
// then they are deferred, from position from: i, or the first job the
// pass skipped (conslazy.go). Their scan is walked all the same, since the
// wait queue tightens the bounds a scan passes (later passes read them).
func (c *Conservative) deferFrom(v *View, i int, suf []int32, from int) {
	c.walkScan(v, i)
	if c.scanCutOff(v, i, suf) {
		c.valid = false // the scan would have stopped at a job after i
		c.lazyEnd()
		return
	}
	c.def.ok = true
	c.def.segs = append(c.def.segs, deferSeg{at: v.Now, pos: from, slot: v.e.wq.slots[from]})
	c.lazyEnd()
}

// walkScan makes the wait-queue calls the loop's scan from position i on
// would make: v.Next(j+1, v.Total) after each entry j it returns. One that
// starts at an entry does nothing else, and one that starts at a
// tombstone inside a group only steps on until the group's end: only the
// calls at group starts holding a tombstone are made (they are the ones
// that skip and tighten bounds), each from where the last left.
func (c *Conservative) walkScan(v *View, i int) {
	const gMask = 1<<groupShift - 1
	w := &v.e.wq
	mp := int32(min(v.Total, math.MaxInt32-1))
	for g := (i + 1 + gMask) &^ gMask; g < len(w.slots); g += gMask + 1 {
		if w.procs[g] <= mp {
			continue
		}
		k := w.next(g, v.Total)
		if k < 0 {
			break
		}
		g = k &^ gMask
	}
}

// scanCutOff reports whether the loop's scan from position i on would
// stop at the free-processor cutoff: its last stop is the last entry it
// would return, and suf only grows along the queue, so the cutoff would
// have stopped it by there.
func (c *Conservative) scanCutOff(v *View, i int, suf []int32) bool {
	w := &v.e.wq
	mp := int32(min(v.Total, math.MaxInt32-1))
	last := len(w.slots) - 1
	for last > i && w.procs[last] > mp {
		last--
	}
	return v.Free() < int(suf[last>>groupShift])
}

// extendDeferral handles an arrival pass (the profile kept) while jobs
// are deferred: if none of the new jobs can start now even on the
// profile without the deferred reservations, the pass would have made
// those reservations, advanced the profile and then deferred the new jobs
// at its first check (Schedule's early end): it defers them as one more
// segment instead and reports true. Otherwise (a new job may start, or
// the pass would stop at the free-processor cutoff, or the pass could not
// end early: neither keyed nor on a power profile that allows it,
// powerDeferrable) it reports false and changes nothing. The test reads
// the profile from now, where the profile advanced to now is the same.
func (c *Conservative) extendDeferral(v *View) bool {
	if c.full || !v.estExact() || !c.fast && !c.powerDeferrable(v) {
		return false
	}
	i := v.Next(v.NewFrom(), v.Total)
	if i < 0 {
		// No new job: the pass would only have made the deferred
		// reservations and advanced the profile, which the next one does.
		c.endPass(v, false)
		return true
	}
	suf := c.suffixFrom(&v.e.wq, i)
	if v.Free() < int(suf[i>>groupShift]) {
		return false
	}
	last := len(v.e.wq.slots) - 1
	if c.fast {
		last = c.lastCandidateAt(v, i, last, v.Now)
	} else {
		last = c.lastCandidatePowerAt(v, i, last, v.Now)
	}
	if last >= i || c.scanCutOff(v, i, suf) {
		return false
	}
	c.walkScan(v, i)
	c.def.segs = append(c.def.segs, deferSeg{at: v.Now, pos: i, slot: v.e.wq.slots[i]})
	c.endPass(v, false)
	return true
}

// placeDeferred makes the reservations c.def left out, on the profile as
// the deferring passes left it, and reports whether it could (false: the
// jobs are no longer where they were, so the profile must be rebuilt).
// The wait queue may have been compacted since, which keeps the order of
// live entries and puts the jobs queued since after NewFrom: each
// segment's first job is then found before the next segment's.
func (c *Conservative) placeDeferred(v *View) bool {
	w, segs := &v.e.wq, c.def.segs
	end := v.NewFrom()
	for k := len(segs) - 1; k >= 0; k-- {
		d := &segs[k]
		if d.pos >= end || w.slots[d.pos] != d.slot {
			pos := end - 1
			for pos >= 0 && w.slots[pos] != d.slot {
				pos--
			}
			if pos < 0 {
				return false
			}
			d.pos = pos
		}
		end = d.pos
	}
	for k := range segs {
		d := &segs[k]
		end := v.NewFrom()
		if k+1 < len(segs) {
			end = segs[k+1].pos
		}
		c.run = classRun{}
		c.seen.next()
		c.pm.reset()
		c.now = d.at
		if !c.fast {
			if k > 0 {
				c.p.advance(d.at)
			}
			c.placeDeferredPower(v, d.pos, end, d.at)
			continue
		}
		if k > 0 {
			c.bp.advance(d.at)
		}
		for i := v.Next(d.pos, v.Total); i >= 0 && i < end; i = v.Next(i+1, v.Total) {
			t := c.placeFast(d.at, v.Procs(i), v.EstLow(i), 0)
			v.Reserve(i, t)
			if c.rs.rec && t > d.at {
				c.rs.slots = append(c.rs.slots, w.slots[i])
			}
			i = c.extendRun(v, i, end, nil)
		}
		c.flush()
	}
	return true
}

// rebuild computes the profile from the running jobs alone.
func (c *Conservative) rebuild(v *View) {
	room := v.PowerHeadroom()
	c.fast = math.IsInf(room, 1)
	if c.fast {
		c.bp.build(v.Now, v.Free(), &v.e.runs) // the running jobs in estimated-end order
		return
	}
	c.p.reset(v.Now, v.Free(), room)
	for i := 0; i < v.Running(); i++ {
		r := v.RunningJob(i)
		c.p.release(math.Max(v.Now, r.EstEnd), r.Procs, r.Power)
	}
}

// place gives q its earliest reservation, records it in the profile (or
// in the pending run) and returns its start (+Inf: deferred, no
// reservation).
func (c *Conservative) place(now float64, q *QueuedJob) float64 {
	return c.placeJob(now, q.Procs, q.Est, q.Power)
}

// placeJob is place for a job of procs processors, estimate est and
// power w.
func (c *Conservative) placeJob(now float64, procs int, est, w float64) float64 {
	if c.fast {
		return c.placeFast(now, procs, est, w)
	}
	r := &c.run
	lb := now
	if r.ok && r.procs == procs && r.est == est && r.w == w {
		if math.IsInf(r.at, 1) {
			return r.at
		}
		if w >= 0 { // a reservation that frees power may let later jobs start earlier
			lb = r.at
		}
	}
	if !c.full {
		lb = max(lb, c.pm.lower(procs, w, est)) // conspower.go
	}
	t := c.p.earliestFrom(procs, w, est, lb)
	keep := !c.full
	if !math.IsInf(t, 1) {
		c.p.reserve(t, t+est, procs, w)
		if !(w >= 0) { // the profile gained headroom: the memo's answers may move
			c.pm.reset()
			keep = false
		}
	}
	if keep {
		c.pm.put(procs, w, est, t)
	}
	*r = classRun{ok: true, procs: procs, est: est, w: w, at: t}
	return t
}

// queueJob returns queued job i's processors, estimate and power from the
// wait queue's arrays, which hold them exactly as View.Job does under
// powerEnd's conditions. Under --check it compares them with View.Job's
// (which also checks the queue's bounds).
func queueJob(v *View, i int) (int, float64, float64) {
	w := &v.e.wq
	procs, est, pw := int(w.procs[i]), w.est[i], w.pw[i]
	if v.e.cfg.Check {
		if q := v.Job(i); q.Procs != procs || q.Est != est || q.Power != pw {
			v.e.violate("queued job %d: the wait queue holds %d processors, estimate %v and power %v; its record %d, %v and %v",
				v.e.jobs[w.slots[i]].id, procs, est, pw, q.Procs, q.Est, q.Power)
		}
	}
	return procs, est, pw
}

// placeFast is place on the processor-only profile, where every power
// fits (the headroom is +Inf) except a NaN one, so the class of a job is
// its processors and estimate.
func (c *Conservative) placeFast(now float64, procs int, est, power float64) float64 {
	if !powerOK(power, math.Inf(1)) {
		return math.Inf(1) // NaN power: fits nowhere, as on the full profile
	}
	r := &c.run
	lb := now
	if r.ok && r.procs == procs && r.est == est {
		if r.left > 0 {
			r.left--
			r.pending++
			return r.at
		}
		if math.IsInf(r.at, 1) {
			return r.at
		}
		lb = r.at
	} else if at, ok := c.seen.get(procs, est); ok {
		if math.IsInf(at, 1) {
			return at
		}
		lb = at
	}
	c.flush()
	c.rs.cert0 = int32(len(c.bp.segs))
	t, low := c.bp.earliest(procs, est, lb)
	c.seen.put(procs, est, t)
	*r = classRun{ok: true, procs: procs, est: est, at: t}
	if !math.IsInf(t, 1) {
		r.pending = 1
		r.left = math.MaxInt
		if procs > 0 {
			r.left = low/procs - 1
		}
	}
	return t
}

// classCache remembers, per class (processors, estimate), the start the
// last search of the current round found, in a small direct-mapped table
// (a collision just forgets a class). The profile only loses processors
// while reservations are made, so a later job of the class cannot start
// before it: it is a valid lower bound for the next search, also when
// jobs of other classes came between (classRun covers consecutive ones).
// A new round (next) forgets every entry at once.
type classCache struct {
	round uint32
	e     [classSlots]classEntry
}

const classSlots = 256

type classEntry struct {
	round uint32
	procs int32
	est   float64
	at    float64
}

func classSlot(procs int, est float64) int {
	h := math.Float64bits(est)*0x9E3779B97F4A7C15 + uint64(procs)*0xC2B2AE3D27D4EB4F
	return int(h >> 56) // classSlots = 256
}

// next starts a new round: no entry is valid in it.
func (cc *classCache) next() {
	cc.round++
	if cc.round == 0 { // wrapped: clear the stamps so none matches
		cc.e = [classSlots]classEntry{}
		cc.round = 1
	}
}

func (cc *classCache) get(procs int, est float64) (float64, bool) {
	e := &cc.e[classSlot(procs, est)]
	if e.round != cc.round || int(e.procs) != procs || e.est != est {
		return 0, false
	}
	return e.at, true
}

func (cc *classCache) put(procs int, est, at float64) {
	if procs > math.MaxInt32 {
		return
	}
	cc.e[classSlot(procs, est)] = classEntry{round: cc.round, procs: int32(procs), est: est, at: at}
}

// flush makes the pending reservations of the current run in the
// processor-only profile: pending jobs of the same class at the same start
// take pending times their processors, as many single reservations would.
func (c *Conservative) flush() {
	r := &c.run
	if r.pending > 0 {
		c.bp.reserve(r.at, r.at+r.est, r.pending*r.procs)
		c.recordGroup()
		r.pending = 0
	}
	r.left = 0
}

// advance drops the part of the profile before now, keeping the step in
// force at now.
func (p *profile) advance(now float64) {
	p.hint = false
	k, found := slices.BinarySearch(p.t, now)
	if !found {
		k-- // the step in force at now starts before it
	}
	if k <= 0 {
		p.t[0] = now
		return
	}
	p.t = append(p.t[:0], p.t[k:]...)
	p.free = append(p.free[:0], p.free[k:]...)
	p.room = append(p.room[:0], p.room[k:]...)
	p.t[0] = now
}

// profile is a step function of free processors and power headroom over
// time: free[k] processors and room[k] W from t[k] until t[k+1] (the last
// step lasts forever).
type profile struct {
	t    []float64
	free []int
	room []float64
	// hint is set by earliestFrom's answer, for the reservation that
	// follows it (place): the answer's step hk and, after it, hm, the
	// first step at or after the window's end hEnd (len(t): none). Any
	// other change of the steps clears it.
	hint   bool
	hk, hm int
	hEnd   float64
}

func (p *profile) reset(now float64, free int, room float64) {
	p.hint = false
	p.t = append(p.t[:0], now)
	p.free = append(p.free[:0], free)
	p.room = append(p.room[:0], room)
}

// release adds procs and w watts of headroom from time at on; at must be ≥
// the last step's time.
func (p *profile) release(at float64, procs int, w float64) {
	p.hint = false
	n := len(p.t)
	if p.t[n-1] == at {
		p.free[n-1] += procs
		p.room[n-1] += w
		return
	}
	p.t = append(p.t, at)
	p.free = append(p.free, p.free[n-1]+procs)
	p.room = append(p.room, p.room[n-1]+w)
}

// fits reports whether step k has procs processors and w watts free.
func (p *profile) fits(k, procs int, w float64) bool {
	return p.free[k] >= procs && powerOK(w, p.room[k])
}

// earliestFrom returns the earliest step start from which procs
// processors and w watts are free for dur seconds, or +Inf if there is
// none. The caller guarantees that no step start before lb fits, so the
// scan starts at the step in force at lb.
//
// The arrays are read through local slices of one length, and the test
// of a step is fits written out: the loops then keep them in registers
// with no bounds check (through p, each step reloaded the three slices,
// which the stores of reserve might have changed).
//
// The power test is a comparison with the least headroom w fits in
// (roomNeed).
func (p *profile) earliestFrom(procs int, w, dur, lb float64) float64 {
	need := roomNeed(w)
	ts := p.t
	fs, rs := p.free[:len(ts)], p.room[:len(ts)]
	k, found := slices.BinarySearch(ts, lb)
	if !found {
		k = max(0, k-1)
	}
	for k < len(ts) {
		if !(fs[k] >= procs && rs[k] >= need) {
			k++
			continue
		}
		start, end := ts[k], ts[k]+dur
		m := k + 1
		for m < len(ts) && ts[m] < end && fs[m] >= procs && rs[m] >= need {
			m++
		}
		if m == len(ts) || ts[m] >= end {
			p.hint, p.hk, p.hm, p.hEnd = true, k, m, end
			return start
		}
		k = m + 1 // step m is too full; no start before it can work
	}
	return math.Inf(1) // only when the power does not fit even on an empty machine
}

// roomNeed returns the least headroom r with powerOK(w, r): powerOK is
// monotone in r (a product with a positive constant and a sum, each
// rounded to nearest, never decrease as r grows), so for every r other
// than NaN powerOK(w, r) iff r ≥ the answer, and a NaN r fails both. For
// a finite w it starts from the exact inverse, rounded, and steps by
// ulps to the least such r; where that takes more than a few steps (near
// 0, where the 1e-9 W of tolerance absorbs many ulps) it bisects the
// floats in order, as for w = +Inf (which headrooms near the largest
// float fit: their product overflows). w = -Inf fits every headroom but
// NaN (-Inf), and a NaN w fits none: NaN, which no comparison passes.
func roomNeed(w float64) float64 {
	if math.IsInf(w, -1) || w != w {
		return w
	}
	r := (w - 1e-9) / (1 + 1e-12)
	if math.IsInf(r, 0) {
		return roomNeedBisect(w)
	}
	for n := 0; ; n++ {
		if n == 8 {
			return roomNeedBisect(w)
		}
		if powerOK(w, r) {
			if d := math.Nextafter(r, math.Inf(-1)); powerOK(w, d) {
				r = d
				continue
			}
			return r // r fits, the float below does not
		}
		r = math.Nextafter(r, math.Inf(1))
	}
}

// roomNeedBisect is roomNeed's answer found by bisection over the floats
// in order (w finite or +Inf: powerOK(w, -Inf) is false, powerOK(w, +Inf)
// true).
func roomNeedBisect(w float64) float64 {
	lo, hi := floatKey(math.Inf(-1)), floatKey(math.Inf(1)) // fails, fits
	for hi-lo > 1 {
		m := lo + (hi-lo)/2
		if powerOK(w, keyFloat(m)) {
			hi = m
		} else {
			lo = m
		}
	}
	return keyFloat(hi)
}

// floatKey maps the floats other than NaN to integers in the same order
// (-0 just below +0); keyFloat is its inverse.
func floatKey(f float64) uint64 {
	b := math.Float64bits(f)
	if b>>63 == 1 {
		return ^b
	}
	return b | 1<<63
}

func keyFloat(k uint64) float64 {
	if k>>63 == 1 {
		return math.Float64frombits(k &^ (1 << 63))
	}
	return math.Float64frombits(^k)
}

// reserve takes procs processors and w watts over [from, to).
// (Through local slices of one length, as in earliestFrom: the loop
// reloaded p's slices at every step, and it makes most of the cost of
// conservative under a limit: on RICC's first 50,000 jobs under dvfs dr,
// 4.3 M reservations over 451 steps each on average.)
//
// After earliestFrom's answer (its hint), both steps are known: the
// answer's, and where the window's end is or goes; two binary searches
// fewer a reservation.
func (p *profile) reserve(from, to float64, procs int, w float64) {
	var i, j int
	if p.hint && to > from && to == p.hEnd && p.hk < len(p.t) && p.t[p.hk] == from {
		i, j = p.hk, p.hm
		if j == len(p.t) || p.t[j] != to {
			p.insert(j, to)
		}
	} else {
		i = p.split(from)
		j = p.split(to)
	}
	p.hint = false
	fs := p.free[i:j]
	rs := p.room[i:j]
	rs = rs[:len(fs)]
	for k := range fs {
		fs[k] -= procs
		rs[k] -= w
	}
}

// split makes sure a step starts at t and returns its index.
func (p *profile) split(t float64) int {
	k, found := slices.BinarySearch(p.t, t)
	if found {
		return k
	}
	// k > 0: t is after the first step (reservations never start before now).
	p.insert(k, t)
	return k
}

// insert makes a step start at t, between steps k-1 and k, with step
// k-1's values.
func (p *profile) insert(k int, t float64) {
	p.hint = false
	p.t = slices.Insert(p.t, k, t)
	p.free = slices.Insert(p.free, k, p.free[k-1])
	p.room = slices.Insert(p.room, k, p.room[k-1])
}
