package scheduler

import (
	"math"
	"slices"
)

// Incremental conservative passes.
//
// A finish makes conservative backfilling recompute every reservation
// (View.Changed), but when a job ends before its estimate, the new pass's
// profile differs from the one the previous pass placed on only by the
// finished job's processors from now to its estimated end (D). The new
// pass places the queue's first jobs exactly where the previous one did
// as long as none of them can move earlier into D: the profile before
// the k-th placement is then the old one plus D (jobs started by the old
// pass hold in the new base what their reservations held), its old start
// still fits, and any earlier start that now fits must use D's
// processors. So a pass that reuses keeps the old profile (all the old
// reservations), adds D, and checks the old placements in queue order;
// at the first one that may move (or whose job is no longer where it
// was), it takes back the reservations from there on and places the rest
// as a rebuilt pass would, on the same profile.
//
// The walk over the kept placements is the one a rebuilt pass makes: it
// steps through the wait queue as View.Next does (whose skips over
// tombstones tighten the queue's bounds, which later passes read for
// their cutoff and the engine for its test for a pass) and stops where
// that pass would (the free processors below the suffix bound, with the
// bounds taken before the walk, as that pass takes them), so the pass
// leaves the bounds and the profile's validity as a rebuilt one would.
// (Without this, under --overrun extend a later pass could keep a
// profile that a rebuilding run recomputes: TestConservativeReuseWalk.)
// One case is not mirrored: a rebuilt pass that ends early inside the
// kept placements (no later job could start now: deferFrom) walks the
// rest of the queue even when the cutoff would have stopped it later,
// while this pass stops at the cutoff, so bounds past it may stay looser
// than that pass leaves them. Knowing whether the rebuilt pass would end
// early there needs its profile at each group of the queue, which the
// walk does not have; no test or shared trace has reached the case.
//
// Whether a placement may move is decided from a certificate its search
// left: the blocking steps it met, each with how many processors short of
// the job it was (the deficit, a lower bound over a run of steps). Every
// start before the placement's start was ruled out by one of them (starts
// before the search's lower bound by the certificates of earlier
// placements of the class, which are checked first). D lifts a step by at
// most its processors on [now, end); a part D cannot lift to the job's
// size still blocks, and an earlier start stays ruled out while its window
// touches a part that still blocks. So the placement stands if every
// start whose window touches a part D may lift also touches one it
// cannot (stands); otherwise it is placed again (possibly at the same
// start). A kept placement's deficits are lowered by the lift, so they
// stay bounds for the next pass (a part may so stop blocking for good).
//
// It is used only where the profile is the processor-only one with
// estimates known at enqueue, without node power saving or node loads,
// while the running list changes between passes only by removals (read
// from the running list's change log, runLog, through conservative's own
// cursor) and the free processors are accounted for by them.
//
// A job started with another estimated end than its reservation's (node
// speeds: the reservation used the estimate, the run the speed of the
// nodes it got) keeps its reservation in the profile, as in the pass that
// started it, while a rebuilt profile holds its estimated end. Each such
// start is recorded (rs.adj, noteStart), and the next reusing pass turns
// the records into the differences between the two: for a job that ended,
// D runs to its reservation's end (what the profile held); for one still
// running, an estimated end before the reservation's frees its processors
// over the rest of the reservation (a gain, which lifts certificates as D
// does: gainLift), and one after it takes them from the reservation's end
// on (a loss). The kept profile gets both; a loss can only block more, so
// certificates stay bounds, but a kept group whose window a loss meets is
// kept only if it still fits there (lossFits: on the kept profile, no step
// of its window below zero free; on the profile before it, its
// processors). A walk that itself started such a job keeps the profile
// rather than rebuilding it from the running jobs (walkAdj).
//
// With partitions (partition.go) each
// partition's conservative instance keeps its own groups: its wait queue,
// running list (and so its change log and cursor) and free processors
// are the partition's, bound in the engine's fields while it runs.

// resGroup is one reservation of the profile: n jobs (not started) of
// procs processors and estimate est from at, the jobs' slots ending at
// slotEnd in reuseState.slots and the search's certificate, segments
// [certFrom, certTo) of blockProfile.segs (certstore.go), whose first
// part starts at x0 (+Inf: none; kept here for mayLift, which reads it
// for every group). pos is the queue position of its first slot when
// the reuse walk last found its slots at consecutive positions from
// there (noPos: not so found, or recorded since): the wait queue's
// chgLo tells the next walk whether they can have moved.
type resGroup struct {
	procs, n         int32
	slotEnd          int32
	certFrom, certTo int32
	pos              int32
	est, at, x0      float64
}

// noPos is resGroup.pos when the group's slots are not known to be at
// consecutive queue positions.
const noPos = math.MinInt32

// setCert makes segments segs[from:to] of p gr's certificate.
func (gr *resGroup) setCert(p *blockProfile, from, to int) {
	gr.certFrom, gr.certTo, gr.x0 = int32(from), int32(to), math.Inf(1)
	if from < to {
		gr.x0 = p.cert[p.segs[from].from].x
	}
}

// reuseState is what a pass leaves for the next one to reuse.
type reuseState struct {
	// rec says the groups describe every reservation the profile holds
	// for queued jobs, in queue order.
	rec    bool
	groups []resGroup
	slots  []int32
	free   int        // View.Free() at the end of the last pass
	estGen uint64     // the engine's estGen at the end of the last pass
	blocks int        // the profile's blocks at the end of the last rebuilt pass
	d      []runEntry // scratch: D, (end, processors) with end > now
	dEnd   float64    // the last end in d, or of a gain window if later
	// adj lists the jobs started since the profile was last made from the
	// running jobs, or last kept by a reusing pass, whose estimated end
	// differs from their reservation's (node speeds): the profile holds
	// the reservation. A reusing pass turns them into D (those that
	// ended), gains and losses (windows the running job frees or takes
	// beyond its reservation), and empties it; walkAdj says a start of
	// the current reuse walk added to it.
	adj     []adjStart
	walkAdj bool
	gains   []adjWin
	losses  []adjWin
	lifts   []liftPt // scratch: D's ends, latest first, with running sums (lift)
	// chgLo is the wait queue's chgLo before the reuse walk's starts.
	chgLo int
	// atMin is the earliest start of the groups from index atFrom on
	// (keepSearched; atFrom < 0: none known in this pass).
	atFrom int
	atMin  float64
	// movesEarlier says the last keepSearched found its group an
	// earlier start.
	movesEarlier bool
	later        []laterWin // scratch: keepLifted
	edges        resvEdges  // scratch: the kept groups' edges (rebuildKept)
	cert0        int32      // certificate start (in blockProfile.segs) of the current run
	cbuf         []certIv   // scratch: a certificate's parts (stands)
	// certKept and segsKept are the parts and segments left by the last
	// compaction (compactCert); sbuf and live are its scratch.
	certKept, segsKept int
	sbuf               []certSeg
	live               []int32
}

// adjStart is a job started with another estimated end than its
// reservation's: the job's slot, processors, reservation end and
// estimated end.
type adjStart struct {
	slot           int32
	procs          int32
	resEnd, estEnd float64
}

// adjWin is a window over which a running job's estimated end frees
// (gains) or takes (losses) procs processors beyond its reservation.
type adjWin struct {
	at, end float64
	procs   int
}

// noteStart records, when the groups are recorded, that the job in slot
// was started with its reservation ending at resEnd and its estimated
// end at estEnd (View.Start's answer), if they differ.
func (c *Conservative) noteStart(slot int32, procs int, resEnd, estEnd float64) {
	if rs := &c.rs; rs.rec && estEnd != resEnd {
		rs.adj = append(rs.adj, adjStart{slot: slot, procs: int32(procs), resEnd: resEnd, estEnd: estEnd})
	}
}

// takeAdj turns rs.adj into D's parts for the jobs that ended (their
// reservation's end, which the profile holds, rather than their
// estimated end) and gains and losses for the rest, and empties it.
// D's ends are in rs.d already (from ch); those of adjusted jobs are
// replaced.
func (c *Conservative) takeAdj(ch []RunChange, now float64) {
	rs := &c.rs
	rs.gains, rs.losses = rs.gains[:0], rs.losses[:0]
	for _, a := range rs.adj {
		ended := false
		for k := range ch {
			if ch[k].Slot == a.slot {
				ended = true
				break
			}
		}
		switch {
		case ended:
			// D holds [now, its estimated end): make it the reservation's.
			for k := range rs.d {
				if d := &rs.d[k]; d.slot == a.slot {
					rs.d[k] = rs.d[len(rs.d)-1]
					rs.d = rs.d[:len(rs.d)-1]
					break
				}
			}
			if a.resEnd > now {
				rs.d = append(rs.d, runEntry{estEnd: a.resEnd, procs: a.procs, slot: a.slot})
			}
		case a.estEnd < a.resEnd && a.resEnd > now:
			rs.gains = append(rs.gains, adjWin{at: math.Max(a.estEnd, now), end: a.resEnd, procs: int(a.procs)})
		case a.estEnd > a.resEnd && a.estEnd > now:
			rs.losses = append(rs.losses, adjWin{at: math.Max(a.resEnd, now), end: a.estEnd, procs: int(a.procs)})
		}
	}
	rs.adj, rs.walkAdj = rs.adj[:0], false
	rs.dEnd = now
	for _, d := range rs.d {
		rs.dEnd = math.Max(rs.dEnd, d.estEnd)
	}
	for _, w := range rs.gains {
		rs.dEnd = math.Max(rs.dEnd, w.end)
	}
}

// gainLift returns the processors the gains add at most over [x, y).
func (c *Conservative) gainLift(x, y float64) int {
	n := 0
	for _, w := range c.rs.gains {
		if w.at < y && w.end > x {
			n += w.procs
		}
	}
	return n
}

// lossFits reports whether need processors are free over [at, end) on
// the profile when a loss meets the window (the profile is then the kept
// one, or the one before the group; a group the losses do not meet fits
// as it did).
func (c *Conservative) lossFits(at, end float64, need int) bool {
	for _, w := range c.rs.losses {
		if w.at < end && w.end > at {
			return c.bp.fitsFrom(at, need, end)
		}
	}
	return true
}

// reuseEligible reports whether the engine's setup lets passes reuse.
func (c *Conservative) reuseEligible(v *View) bool {
	e := v.e
	return c.fast && !c.full && v.estExact() && e.nl == nil
}

// startRecording begins the groups of a rebuilt profile.
func (c *Conservative) startRecording(v *View) {
	rs := &c.rs
	rs.groups, rs.slots = rs.groups[:0], rs.slots[:0]
	c.bp.clearCert()
	rs.certKept, rs.segsKept = 0, 0
	c.bp.ruled.clear()
	rs.adj, rs.gains, rs.losses, rs.walkAdj = rs.adj[:0], rs.gains[:0], rs.losses[:0], false
	rs.rec = c.reuseEligible(v)
	c.bp.rec = rs.rec
}

// endPass leaves the state the next pass checks.
func (c *Conservative) endPass(v *View, rebuilt bool) {
	rs := &c.rs
	if rebuilt {
		rs.blocks = len(c.bp.blk)
	}
	rs.free = v.Free()
	rs.estGen = v.e.estGen
	v.e.runs.consFollow(rs.rec)
}

// reuse makes the profile that of a rebuilt pass with the recorded
// groups' reservations made in queue order for as long as they stand,
// and returns the queue position from which placing goes on (-1: none);
// ok is false if the recorded groups cannot be used (the pass rebuilds
// and places everything). The groups before the first one whose
// certificate D may lift (or whose jobs moved) stand. The profile before
// that one is had either from the kept profile (advanced, plus D, minus
// the later groups' reservations) or by rebuilding it and making the
// earlier groups' reservations, whichever takes fewer reservations. From
// there on a group whose certificate D may lift is searched again
// (recording a new certificate) and stands if it finds the same start.
// The kept groups' starts are the class cache's lower bounds, as their
// searches would have left them. suf is the pass's suffix bounds of the
// wait queue (taken before the walk).
func (c *Conservative) reuse(v *View, suf []int32) (from int, rebuilt, ok bool) {
	rs, e := &c.rs, v.e
	if c.noReuse || !rs.rec || !c.fast {
		return 0, false, false
	}
	// The limit changed since the last pass (which set View.Changed): the
	// queue's estimates may be those of the new limit (refreshLimitEst),
	// not the recorded groups', and a limit now in force needs the
	// profile that tracks headroom. Or the boot allowance turned on or
	// off (syncBootEst): every estimate moved.
	if v.e.estGen != rs.estGen {
		return 0, false, false
	}
	// The list's changes since the last pass (which followed them, as
	// rs.rec): removals only, else the profile is not the old one plus D.
	ch := e.runs.consChanges()
	free := rs.free
	for k := range ch {
		if r := &ch[k]; r.Insert || r.InPlace {
			return 0, false, false
		}
		free += int(ch[k].Procs)
	}
	if free != v.Free() {
		return 0, false, false
	}
	now := v.Now
	rs.d, rs.dEnd = rs.d[:0], now
	for k := range ch {
		if r := &ch[k]; r.EstEnd > now {
			rs.d = append(rs.d, runEntry{estEnd: r.EstEnd, procs: r.Procs, slot: r.Slot})
			rs.dEnd = math.Max(rs.dEnd, r.EstEnd)
		}
	}
	if len(rs.adj) > 0 || len(rs.gains) > 0 || len(rs.losses) > 0 {
		c.takeAdj(ch, now)
	}
	c.sortLifts()
	p := &c.bp
	p.certPass++ // a new lowering (stands)
	// The groups that stand without a search: g of them.
	// This walk is walkSlots and mayLift written out in the loop, which
	// visits every kept group at every pass after a finish (a call per
	// group made it spill and reload its state: with the second loop's,
	// lublin_256 conservative 835 → 793 M instructions, CTC-SP2 3.66 →
	// 3.61 G).
	i := v.Next(0, v.Total)
	g, si := 0, 0
	w := &e.wq
	mp := int32(min(v.Total, math.MaxInt32-1))
	hasD, dEnd := len(rs.d) > 0 || len(rs.gains) > 0, rs.dEnd
	hasLoss := len(rs.losses) > 0
	// A group whose slots end at or before lim is where it was checked if
	// it is there (slots[a:b] with b ≤ chgLo are as at the last pass's
	// walk) and the suffix bound passes at its last entry (sufCut).
	rs.chgLo = w.chgLo // as it was before the walk's starts (startKept)
	lim := min(w.chgLo, sufCut(suf, free))
	kept := false // the profile is the kept one (keepSearched)
	moves := -1   // the group keepSearched found an earlier start for
	rs.atFrom = -1
	if hasLoss {
		// The losses' fit tests read the kept profile.
		c.keepProfile(now)
		kept = true
	}
	if reuseWalkCheck != nil {
		reuseWalkCheck(c, v)
	}
	started := 0 // groups whose start is now, started by startKept
	// cut is the position at which a rebuilt pass stops at the
	// free-processor cutoff, once the walk is past it (-1: not yet).
	cut, gcut := -1, 0
	gs := rs.groups // the walk changes the groups, not the slice
walk:
	for ; g < len(gs); g++ {
		gr := &gs[g]
		if !(gr.at > now) {
			break
		}
		// i is the position after the last group, before walkStep's
		// skip. A group where it was checked, with nothing there
		// changed since, is where it was: entry i is then live and
		// within the machine, and the skip stays where it is. Else
		// (or past the cutoff) it is compared (keptAt) or walked.
		j, sj := i+int(gr.slotEnd)-si, int(gr.slotEnd)
		if same := int(gr.pos) == i && j <= lim; !same {
			if i >= 0 && i < len(w.procs) && w.procs[i] > mp { // walkStep
				i = walkSkip(w, i, v.Total)
				j = i + int(gr.slotEnd) - si
			}
			if int(gr.pos) == i && j <= lim {
			} else if want := rs.slots[si:sj]; keptAt(w, want, i, free, suf) {
				gr.pos = int32(i)
			} else {
				gr.pos = noPos
				if j, sj = walkSlotsEach(w, want, i, si, v.Total, free, suf); sj < 0 {
					// Stopped at the cutoff, the groups on stand
					// as they would without it (walkPast).
					if j < 0 || j >= len(w.slots) || free >= int(suf[j>>groupShift]) {
						break
					}
					// The groups from here on: walkPastFrom.
					cut, gcut = j, g
					break
				}
			}
		}
		if hasLoss && !c.lossFits(gr.at, gr.at+gr.est, 0) {
			break // no longer fits where it was: placed again
		}
		if hasD && gr.x0 < dEnd && !c.stands(gr, now) && !c.keepSearched(v, g, &kept) { // mayLift
			if c.rs.movesEarlier {
				moves = g
			}
			break
		}
		i, si = j, sj // walkStep deferred to the next group
		c.seen.put(int(gr.procs), gr.est, gr.at)
	}
	// A group whose start is now is started (the loop above stops at it,
	// and goes on after it: its own branch there cost the loop more than
	// it saved on CEA-Curie). The starts make tombstones before the later
	// groups only: chgLo as it was still tells where they can have moved.
	if cut < 0 && g < len(rs.groups) && rs.groups[g].at == now && (!hasLoss || c.lossFits(now, now+rs.groups[g].est, 0)) &&
		c.startKept(v, g, &i, &si, suf) {
		started++
		g++
		free = v.Free()
		lim = min(rs.chgLo, sufCut(suf, free))
		goto walk
	}
	if cut >= 0 {
		g, si = c.walkPastFrom(v, g, i, si, rs.chgLo, &kept, &moves)
	}
	if reuseWalkEnd != nil {
		past := 0
		if cut >= 0 {
			past = g - gcut
		}
		reuseWalkEnd(started, past)
	}
	if cut >= 0 {
		i = cut // the pass stops there
	} else if i >= 0 && i < len(w.procs) && w.procs[i] > mp { // the deferred walkStep
		i = walkSkip(w, i, v.Total)
	}
	if started > 0 {
		si = c.dropStarted(g, now)
		g -= started
		if moves >= 0 {
			moves -= started
		}
		rs.atFrom = -1
	}
	// Rebuilding from the running jobs holds each at its estimated end,
	// which is its reservation's end unless a start of this walk
	// (startKept) got another (walkAdj: node speeds). The rest of the
	// pass must see the reservation, as a rebuilt pass that placed and
	// started the job does: the kept profile holds it, so it is kept
	// then.
	if undo := len(rs.groups) - g; !rs.walkAdj && (2*undo > g+v.Running()/8 || len(p.blk) > 2*rs.blocks+8) {
		c.rebuildKept(v, g)
		if !c.fast {
			return 0, false, false
		}
		rebuilt = true
	} else {
		if !kept {
			c.keepProfile(now)
		}
		// The later groups are taken back, their steps left as they
		// are: those that stand are reserved again below at the same
		// steps, and only the rest's steps are merged (mergeLeft).
		for k := g; k < len(rs.groups); k++ {
			gr := &rs.groups[k]
			if end := gr.at + gr.est; end > now {
				p.reserve(math.Max(gr.at, now), end, -int(gr.n)*int(gr.procs))
			}
		}
	}
	taken := len(rs.groups) // groups from g on are out of the profile (not rebuilt)
	// The groups from g on, each searched again if D may lift it (its
	// new certificate goes at the end of cert).
	cand, qg := len(e.wq.slots)-1, -1
	for ; cut < 0 && g < len(rs.groups); g++ {
		gr := &rs.groups[g]
		if !(gr.at > now) {
			break
		}
		// Once no later job can start now, the rest is left to the
		// pass, which defers it (Schedule's early end). Checked at each
		// new group of the queue, as the pass does.
		if i>>groupShift != qg {
			qg = i >> groupShift
			if cand = c.lastCandidate(v, i, cand); cand < i {
				break
			}
		}
		j, sj := i+int(gr.slotEnd)-si, int(gr.slotEnd) // walkSlots, written out as above
		if int(gr.pos) == i && j <= lim {
		} else if want := rs.slots[si:sj]; keptAt(w, want, i, free, suf) {
			gr.pos = int32(i)
		} else {
			gr.pos = noPos
			if j, sj = walkSlotsEach(w, want, i, si, v.Total, free, suf); sj < 0 {
				break
			}
		}
		if j < len(w.procs) && w.procs[j] > mp { // walkStep
			j = walkSkip(w, j, v.Total)
		}
		procs, est := int(gr.procs), gr.est
		if g == moves {
			break // keepSearched found it an earlier start
		}
		if hasLoss && !c.lossFits(gr.at, gr.at+est, int(gr.n)*procs) {
			break // no longer fits where it was: placed again
		}
		if hasD && gr.x0 < dEnd && !c.stands(gr, now) { // mayLift
			lb := now
			if at, ok := c.seen.get(procs, est); ok {
				lb = at
			}
			pf, sf := len(p.cert), len(p.segs)
			t, _ := p.earliest(procs, est, lb)
			if t != gr.at {
				p.truncCert(pf, sf)
				p.ruled.clear()
				break
			}
			gr.setCert(p, sf, len(p.segs))
		}
		c.seen.put(procs, est, gr.at)
		p.reserve(gr.at, gr.at+est, int(gr.n)*procs)
		i, si = j, sj
	}
	if g > 0 {
		v.backfill = true // jobs were reserved before any start of this pass
	}
	if !rebuilt {
		c.mergeLeft(g, taken, now)
	}
	rs.groups, rs.slots = rs.groups[:g], rs.slots[:si]
	w.markClean() // every kept group's pos was checked above
	c.compactCert()
	if reuseCheck != nil {
		reuseCheck(c, v)
	}
	return i, rebuilt, true
}

// startKept starts the jobs of groups[g], whose start is now, as a
// rebuilt pass would (its search finds now: nothing starts earlier, and
// its window fits on the profile before it, which holds as many free
// processors as the kept one or more), when its slots are at consecutive
// positions from *i (after the deferred walkStep) and the pass's checks
// pass at each of them: the free processors (which fall by the group's
// processors at each start) at least the suffix bound suf and the job's
// processors. It then makes the pass's calls for each job (Start, then
// Reserve), advances *i and *si past the group and reports true; the
// group's reservation is now its jobs' running entries, with the same
// window, so the profile is unchanged (the caller drops the group:
// dropStarted). Otherwise it changes nothing but the walkStep and reports
// false (the walk stops there, as before).
func (c *Conservative) startKept(v *View, g int, i, si *int, suf []int32) bool {
	rs, w := &c.rs, &v.e.wq
	gr := &rs.groups[g]
	pos := *i
	if pos >= 0 && pos < len(w.procs) && w.procs[pos] > int32(min(v.Total, math.MaxInt32-1)) { // walkStep
		pos = walkSkip(w, pos, v.Total)
		*i = pos
	}
	sj := int(gr.slotEnd)
	want := rs.slots[*si:sj]
	n, procs, free := len(want), int(gr.procs), v.Free()
	if pos < 0 || n == 0 || pos+n > len(w.slots) || free < n*procs ||
		free-(n-1)*procs < int(suf[(pos+n-1)>>groupShift]) || !slices.Equal(w.slots[pos:pos+n], want) {
		return false
	}
	if g > 0 {
		v.backfill = true // the earlier groups' jobs were reserved
	}
	now := v.Now
	for k := pos; k < pos+n; k++ {
		est, slot := v.EstLow(k), w.slots[k]
		if end := v.Start(k); end != now+est && rs.rec {
			c.noteStart(slot, procs, now+est, end) // its profile entry is not its reservation
			rs.walkAdj = true
		}
		v.Reserve(k, now)
	}
	c.seen.put(procs, gr.est, now)
	*i, *si = pos+n, sj
	return true
}

// walkPastFrom is the reuse walk from groups[g] (whose slots start at
// slot index si, and at queue position i less walkStep's skip) on, once
// it has met the free-processor cutoff: each group is compared with the
// queue by walkPast (or passed where it was found at the last walk, when
// nothing from there to its end changed since: chgLo as it was before the
// walk's starts) and kept as the walk keeps any group (it stands, or a
// search on the kept profile finds its start: keepSearched). It returns
// the index of the first group not kept and the slot index after the
// last kept one; moves is set as the walk sets it.
func (c *Conservative) walkPastFrom(v *View, g, i, si, chgLo int, kept *bool, moves *int) (int, int) {
	rs, w, now := &c.rs, &v.e.wq, v.Now
	mp := int32(min(v.Total, math.MaxInt32-1))
	hasD, dEnd := len(rs.d) > 0 || len(rs.gains) > 0, rs.dEnd
	hasLoss := len(rs.losses) > 0
	for ; g < len(rs.groups); g++ {
		gr := &rs.groups[g]
		if !(gr.at > now) {
			break // a rebuilt pass would not start it: it stopped
		}
		j, sj := i+int(gr.slotEnd)-si, int(gr.slotEnd)
		if int(gr.pos) != i || j > chgLo {
			if j, sj = c.walkPast(w, gr, i, si, mp); sj < 0 {
				break
			}
		}
		if hasLoss && !c.lossFits(gr.at, gr.at+gr.est, 0) {
			break // no longer fits where it was
		}
		if hasD && gr.x0 < dEnd && !c.stands(gr, now) && !c.keepSearched(v, g, kept) { // mayLift
			if rs.movesEarlier {
				*moves = g
			}
			break
		}
		i, si = j, sj
		c.seen.put(int(gr.procs), gr.est, gr.at)
	}
	return g, si
}

// walkPast checks that gr's slots (from slot index si on) are the live
// queue entries of w from position i on, as walkSlotsEach does, for a
// group after the position at which a rebuilt pass stops at the
// free-processor cutoff. That pass would leave such groups without
// reservations and the next one would place them again, on the profile
// before them: as no job after the cutoff can start in this pass, keeping
// them (each standing as any kept group, on the profile before it plus
// what the passes since freed early) leaves the reservations a pass
// without the cutoff would, which the next pass keeps or places again as
// it would place them. That pass makes no wait-queue call past the
// cutoff, so this walk skips entries above the machine's processors
// (mp: tombstones) itself, without the wait queue's skips (which tighten
// its bounds). It returns the position after the group and the slot index
// after it, or sj < 0 if the slots are not there; the group's position
// is kept when its slots are consecutive.
func (c *Conservative) walkPast(w *waitQueue, gr *resGroup, i, si int, mp int32) (j, sj int) {
	want := c.rs.slots[si:gr.slotEnd]
	n := len(w.slots)
	for i >= 0 && i < n && w.procs[i] > mp {
		i++
	}
	if j := i + len(want); i >= 0 && j <= n && slices.Equal(w.slots[i:j], want) {
		gr.pos = int32(i) // consecutive (recorded slots are live)
		return j, si + len(want)
	}
	i0 := i
	for _, s := range want {
		for i >= 0 && i < n && w.procs[i] > mp {
			i++
		}
		if i < 0 || i >= n || w.slots[i] != s {
			gr.pos = noPos
			return i, -1
		}
		i++
	}
	gr.pos = noPos
	if i-i0 == len(want) {
		gr.pos = int32(i0)
	}
	return i, si + len(want)
}

// dropStarted removes from the groups those before index g whose start is
// not after now (startKept started them), with their slots, and returns
// the slot index after the groups left before g.
func (c *Conservative) dropStarted(g int, now float64) int {
	rs := &c.rs
	gs := rs.groups
	// wg groups kept so far; drop slots dropped so far; prev the
	// original slot end of the group before k.
	wg, drop, prev := 0, 0, 0
	for k := 0; k < len(gs); {
		if k < g && !(gs[k].at > now) {
			drop += int(gs[k].slotEnd) - prev
			prev = int(gs[k].slotEnd)
			k++
			continue
		}
		// A run of groups kept, [k, e), moved down at once.
		e := k + 1
		for e < g && gs[e].at > now {
			e++
		}
		if e >= g {
			e = len(gs)
		}
		end := int(gs[e-1].slotEnd)
		if drop > 0 {
			copy(rs.slots[prev-drop:], rs.slots[prev:end])
			copy(gs[wg:], gs[k:e])
			for t := wg; t < wg+e-k; t++ {
				gs[t].slotEnd -= int32(drop)
			}
		}
		wg += e - k
		prev = end
		k = e
	}
	n := len(rs.slots)
	copy(rs.slots[prev-drop:], rs.slots[prev:])
	rs.groups, rs.slots = gs[:wg], rs.slots[:n-drop]
	// The groups before g less the started ones.
	if kg := g - (len(gs) - wg); kg > 0 {
		return int(rs.groups[kg-1].slotEnd)
	}
	return 0
}

// keepProfile makes the profile the kept one: the last pass's, advanced
// to now, plus D.
func (c *Conservative) keepProfile(now float64) {
	p := &c.bp
	p.advance(now)
	rs := &c.rs
	for _, r := range rs.d {
		p.reserve(now, r.estEnd, -int(r.procs))
	}
	for _, w := range rs.gains {
		p.reserve(w.at, w.end, -w.procs)
	}
	for _, w := range rs.losses {
		p.reserve(w.at, w.end, w.procs)
	}
	for _, r := range rs.d {
		p.mergeAt(r.estEnd)
	}
	for _, ws := range [2][]adjWin{rs.gains, rs.losses} {
		for _, w := range ws {
			p.mergeAt(w.at)
			p.mergeAt(w.end)
		}
	}
}

// keepSearched reports whether groups[g], whose certificate D may lift
// (stands is false), keeps its start, found by a search on the kept
// profile with every group still in it, and if so gives it that search's
// certificate. The profile before the group (the kept one less the later
// groups' reservations) has at least as many processors free everywhere,
// and as many where no later group's window reaches, and its start still
// fits there. So when the search finds the group's start and every part
// of its certificate ends by the earliest start of the later groups
// (atMin), the same parts rule out every earlier start on the profile
// before the group, with the same deficits: it is where a search there
// would place it, and the certificate is one that search could have left.
// Otherwise the search is dropped (the walk goes on as before: it takes
// the group and those after it back and searches it again). kept says
// the profile is already the kept one.
func (c *Conservative) keepSearched(v *View, g int, kept *bool) bool {
	rs, p, now := &c.rs, &c.bp, v.Now
	if !*kept {
		c.keepProfile(now)
		*kept = true
	}
	gr := &rs.groups[g]
	procs, est := int(gr.procs), gr.est
	lb := now
	if at, ok := c.seen.get(procs, est); ok {
		lb = at
	}
	// The group's own reservation is taken back for the search and
	// made again after it, whatever it finds.
	need := int(gr.n) * procs
	p.reserve(gr.at, gr.at+est, -need)
	pf, sf := len(p.cert), len(p.segs)
	t, _ := p.earliest(procs, est, lb)
	p.reserve(gr.at, gr.at+est, need)
	// Its start fits on the kept profile without it (the later groups
	// were placed around it), so t ≤ its start; an earlier t fits on the
	// profile before it too, which has at least as many free: it moves.
	rs.movesEarlier = t < gr.at
	ok := false
	if t == gr.at {
		y := p.certEnd(sf, len(p.segs))
		ok = c.laterFrom(g+1, y) || c.keepLifted(g, pf, sf, y, now)
	}
	if ok {
		gr.setCert(p, sf, len(p.segs))
	} else {
		p.truncCert(pf, sf)
		p.ruled.clear()
	}
	if keepSearchedCheck != nil {
		keepSearchedCheck(c, v, g, ok)
	}
	return ok
}

// keepLifted is keepSearched's test when a later group starts before the
// end of the certificate its search left (parts cert[pf:], its own: the
// take-back cleared the memo, so it inherits none). The profile before
// the group has, over a part, at most the processors of the later groups
// whose windows meet it more than the kept profile: each part's deficit
// is lowered by them, and the group keeps its start if every start whose
// window touches a part that no longer blocks also touches one that still
// does (covered, as in stands); its certificate is then the parts that
// still block. At most maxLater later groups are taken into account
// (more: it reports false).
func (c *Conservative) keepLifted(g, pf, sf int, y, now float64) bool {
	rs, p := &c.rs, &c.bp
	ls := rs.later[:0]
	for _, lg := range rs.groups[g+1:] {
		if lg.at < y {
			if len(ls) == maxLater {
				rs.later = ls
				return false
			}
			ls = append(ls, laterWin{at: lg.at, end: lg.at + lg.est, procs: int32(int(lg.n) * int(lg.procs))})
		}
	}
	rs.later = ls
	parts := p.cert[pf:]
	for k := range parts {
		iv := &parts[k]
		for _, l := range ls {
			if l.at < iv.y && l.end > iv.x {
				iv.def -= l.procs
			}
		}
	}
	gr := &rs.groups[g]
	if !c.covered(parts, now, gr.est, gr.at) {
		return false
	}
	w := pf
	for _, iv := range parts {
		if iv.def > 0 {
			p.cert[w] = iv
			w++
		}
	}
	p.cert, p.segs = p.cert[:w], p.segs[:sf]
	p.ownCert(pf)
	p.ruled.clear() // it may hold this search's certificate as it was
	return true
}

// laterWin is a later group's window and processors (keepLifted).
type laterWin struct {
	at, end float64
	procs   int32
}

// maxLater is the most later groups keepLifted takes into account.
const maxLater = 32

// keepSearchedCheck, if set (tests only), is called at every
// keepSearched with its answer.
var keepSearchedCheck func(c *Conservative, v *View, g int, kept bool)

// certEnd returns the latest end of the parts of certificate
// segs[from:to] (-Inf: none).
func (p *blockProfile) certEnd(from, to int) float64 {
	y := math.Inf(-1)
	for _, sg := range p.segs[from:to] {
		for _, iv := range p.cert[sg.from:sg.to] {
			y = max(y, iv.y)
		}
	}
	return y
}

// laterFrom reports whether no group from index k on starts before y.
// The earliest start of the groups from atFrom on is kept for the rest
// of the pass (their starts do not change in it): a later k with y by
// it needs no scan.
func (c *Conservative) laterFrom(k int, y float64) bool {
	rs := &c.rs
	if rs.atFrom >= 0 && k >= rs.atFrom && y <= rs.atMin {
		return true
	}
	m := math.Inf(1)
	for _, gr := range rs.groups[k:] {
		if gr.at < y {
			return false
		}
		m = min(m, gr.at)
	}
	rs.atFrom, rs.atMin = k, m
	return true
}

// rebuildKept is rebuild followed by the reservations of the first g
// groups, made in the same pass as the profile (blockProfile.buildWith)
// on the processor-only profile.
func (c *Conservative) rebuildKept(v *View, g int) {
	if !math.IsInf(v.PowerHeadroom(), 1) {
		c.rebuild(v)
		return
	}
	c.fast = true
	c.bp.buildWith(v.Now, v.Free(), &v.e.runs, c.rs.groups[:g], &c.rs.edges)
}

// reuseWalkCheck, if set (tests only), is called by every pass that
// reuses before its walk over the kept groups.
var reuseWalkCheck func(c *Conservative, v *View)

// reuseWalkEnd, if set (tests only), is called at the end of every
// reuse walk with the groups it started (startKept) and kept past the
// free-processor cutoff (walkPast).
var reuseWalkEnd func(started, past int)

// reuseCheck, if set (tests only), is called at the end of every pass
// that reuses, with the profile and the kept groups as the pass goes on
// from them.
var reuseCheck func(c *Conservative, v *View)

// mergeLeft merges the steps at the starts and ends of groups[from:to],
// taken back by reuse and not reserved again, where the free processors
// are the same either side (mergeAt).
//
// Reuse takes back every group from the first that may move, but those
// that stand are reserved again at once, at the same steps: merging
// their steps after the take-back (as it once did) only made the
// reservation split them again, inserting two steps (and at times a
// block) per kept group. The profile's function is the same either way;
// until mergeLeft runs it may have steps with the value of the step
// before them, which change no search's answer. A search answers the
// earliest step start from which procs processors are free for dur, and
// no start before its lower bound fits (its caller's guarantee, which
// then holds for every instant, not only step starts). If a step is split
// at s and s fits, so does the start of its first part (the same free
// processors up to s, and a window that ends earlier), which is a step
// start of both profiles: s is never the answer of the split profile, and
// the unsplit profile's answer is one of its starts. Only certificates'
// parts may be cut at such a step; each still holds for the instants it
// covers (TestSplitStepsKeepAnswers, TestConservativeReuseProfile).
func (c *Conservative) mergeLeft(from, to int, now float64) {
	p := &c.bp
	for _, gr := range c.rs.groups[from:to] {
		if end := gr.at + gr.est; end > now {
			if gr.at > now {
				p.mergeAt(gr.at)
			}
			p.mergeAt(end)
		}
	}
}

// walkSlots checks that the live queue entries of w from position i on
// (as View.Next walks them, skipping jobs larger than the machine's total
// processors) are the slots want (a group's, from slot index si on), and
// returns the position after them and the slot index after them, or
// sj < 0 if they are not or if a rebuilt pass would stop at one of them
// (free processors below the suffix bound suf: that pass leaves no valid
// profile).
//
// Most groups are where they were, at consecutive positions: then no
// entry between them is a tombstone (recorded slots are live ones, and
// were reserved, so within the machine's size), View.Next steps one by
// one, and the suffix bound, which only grows along the queue, passes at
// all of them when it passes at the last. Otherwise the queue is walked
// one entry at a time (walkSlotsEach, the reference). The reuse walk
// writes this function out (keptAt, walkStep's test, walkSkip).
func walkSlots(w *waitQueue, want []int32, i, si, total, free int, suf []int32) (j, sj int) {
	if keptAt(w, want, i, free, suf) {
		return walkStep(w, i+len(want)-1, total), si + len(want)
	}
	return walkSlotsEach(w, want, i, si, total, free, suf)
}

// keptAt reports whether want (not empty) is at positions i, i+1, … of w
// and the suffix bound suf passes at its last: walkSlots's whole-group
// case.
func keptAt(w *waitQueue, want []int32, i, free int, suf []int32) bool {
	j := i + len(want)
	return i >= 0 && len(want) > 0 && j <= len(w.slots) && free >= int(suf[(j-1)>>groupShift]) && slices.Equal(w.slots[i:j], want)
}

// sufCut returns the first queue position whose group's suffix bound
// suf (which only grows along the queue) is above free, as a position
// bound: free >= suf[(j-1)>>groupShift] for 0 < j exactly when
// j <= sufCut(suf, free) (math.MaxInt when no bound is above free).
func sufCut(suf []int32, free int) int {
	lo, hi := 0, len(suf)
	for lo < hi {
		if m := int(uint(lo+hi) >> 1); int(suf[m]) > free {
			hi = m
		} else {
			lo = m + 1
		}
	}
	if lo == len(suf) {
		return math.MaxInt
	}
	return lo << groupShift
}

// walkSlotsEach is walkSlots one entry at a time. It writes walkStep
// out: on RICC conservative, walkSlotsEach and the walkStep it called
// once per entry cost 1.02 + 0.63 G instructions, written out 0.89 G.
func walkSlotsEach(w *waitQueue, want []int32, i, si, total, free int, suf []int32) (j, sj int) {
	n := len(w.slots)
	mp := int32(min(total, math.MaxInt32-1))
	for _, s := range want {
		if i < 0 || i >= n || w.slots[i] != s || free < int(suf[i>>groupShift]) {
			return i, -1
		}
		if i++; i < len(w.procs) && w.procs[i] > mp { // walkStep
			i = walkSkip(w, i, total)
		}
	}
	return i, si + len(want)
}

// walkStep returns the position after entry i as v.Next(i+1, total)
// finds it (len(w.slots) for none): its skips over tombstones tighten
// the wait queue's bounds.
func walkStep(w *waitQueue, i, total int) int {
	if i++; i < len(w.procs) && w.procs[i] > int32(min(total, math.MaxInt32-1)) {
		return walkSkip(w, i, total)
	}
	return i
}

// walkSkip is walkStep's skip from the entry at i, which View.Next does
// not return.
func walkSkip(w *waitQueue, i, total int) int {
	if i = w.next(i, total); i < 0 {
		i = len(w.slots)
	}
	return i
}

// mayLift reports whether stands has anything to check for gr: whether
// the first part of its certificate, where stands starts reading, starts
// before D's last end. Otherwise stands finds no part D may lift and
// reports that gr stands, its certificate unchanged.
func (c *Conservative) mayLift(gr *resGroup) bool {
	return (len(c.rs.d) > 0 || len(c.rs.gains) > 0) && gr.x0 < c.rs.dEnd
}

// stands reports whether gr's placement stands on the new profile (the
// old one plus D) by its certificate alone. Deficits are lowered by what
// D adds over each part, so they stay bounds for the next pass: the
// parts are shared between certificates (certstore.go), so each part
// with y > now that starts before D's last end is lowered where it is
// first read in the pass (whether or not gr stands: a certificate that
// holds it and is kept reads it too). A part whose lowered deficit is
// no longer positive (D may cover it: what D adds at the part's start,
// its largest lift over the part, reaches the deficit) no longer blocks.
// Every start from the search's first step to the placement's start had
// a window touching a part (its own step, or a too-full step the search
// met in its window), and a start whose window touches a part that
// still blocks is still ruled out. So the placement stands if every
// start in [now, at) whose window touches a part that no longer blocks
// also touches one that still does: the starts t whose window
// [t, t+est) touches [x, y) are those in (x-est, y), and the blocking
// parts' such ranges must cover the others' (a cover check over the
// parts in time order). The subtraction x-est is taken with a margin
// that shrinks the blocking ranges and widens the others, so rounding
// can only make the check more cautious. Starts before the search's lower
// bound were ruled out by the class's earlier placements, checked first.
// Parts that no longer block are then dropped (the certificate is
// written again as parts of its own), so every part of a kept
// certificate blocks: one that D cannot reach still does.
func (c *Conservative) stands(gr *resGroup, now float64) bool {
	p := &c.bp
	if !c.lower(gr, now) {
		return true
	}
	cert := p.flatCert(c.rs.cbuf[:0], int(gr.certFrom), int(gr.certTo))
	c.rs.cbuf = cert
	if !c.covered(cert, now, gr.est, gr.at) {
		return false
	}
	// Parts that no longer block are dropped (every start they ruled out
	// still touches one that does), as are parts over before now: the
	// certificate up to the last of them is written as parts of its own,
	// the rest stays shared.
	last := -1
	for k, iv := range cert {
		if !(iv.y > now) || iv.def <= 0 {
			last = k
		}
	}
	pf, sf := len(p.cert), len(p.segs)
	for _, iv := range cert[:last+1] {
		if iv.y > now && iv.def > 0 {
			iv.pass = p.certPass
			p.cert = append(p.cert, iv)
		}
	}
	p.ownCert(pf)
	k := last + 1 // the first part kept shared
	for s := gr.certFrom; s < gr.certTo; s++ {
		sg := p.segs[s]
		if n := int(sg.to - sg.from); k >= n {
			k -= n
			continue
		}
		sg.from += int32(k)
		k = 0
		p.segs = append(p.segs, sg)
	}
	gr.setCert(p, sf, len(p.segs))
	return true
}

// lower lowers the deficits of gr's certificate by what D adds over
// each part, for the parts with y > now not yet lowered in this pass
// (see stands), and reports whether one of them no longer blocks. Every
// part blocked at the last pass (deficit > 0); D adds nothing from its
// last end on, so the parts from there on still block and are not read.
func (c *Conservative) lower(gr *resGroup, now float64) (open bool) {
	p, dEnd := &c.bp, c.rs.dEnd
	for _, sg := range p.segs[gr.certFrom:gr.certTo] {
		ps := p.cert[sg.from:sg.to]
		for k := range ps {
			iv := &ps[k]
			if !(iv.x < dEnd) {
				return open
			}
			if iv.y > now {
				if iv.pass != p.certPass {
					iv.def -= int32(c.lift(iv.x, now) + c.gainLift(iv.x, iv.y))
					iv.pass = p.certPass
				}
				if iv.def+sg.add <= 0 {
					open = true
				}
			}
		}
	}
	return open
}

// liftPt is one end of D in the order lift reads them: D's parts ending
// at end or later add sum processors up to end.
type liftPt struct {
	end float64
	sum int
}

// sortLifts fills rs.lifts from rs.d: the ends, latest first (D has a
// few parts, the jobs that ended at one instant), each with the
// processors of the parts ending there or later.
func (c *Conservative) sortLifts() {
	rs := &c.rs
	rs.lifts = rs.lifts[:0]
	for _, r := range rs.d {
		k := len(rs.lifts)
		rs.lifts = append(rs.lifts, liftPt{end: r.estEnd, sum: int(r.procs)})
		for ; k > 0 && rs.lifts[k-1].end < r.estEnd; k-- {
			rs.lifts[k], rs.lifts[k-1] = rs.lifts[k-1], rs.lifts[k]
		}
	}
	for k := 1; k < len(rs.lifts); k++ {
		rs.lifts[k].sum += rs.lifts[k-1].sum
	}
}

// lift returns the processors D adds at max(x, now), the most it adds
// anywhere from there on (D's parts all start at now): the parts ending
// after it, a prefix of rs.lifts.
func (c *Conservative) lift(x, now float64) int {
	ls := c.rs.lifts
	if len(ls) == 0 || !(x < ls[0].end) {
		return 0
	}
	// D's ends are all after now (reuse keeps only those), so an end is
	// after max(x, now) exactly when it is after x: the max (16
	// instructions of the builtin's NaN and signed-zero cases) is left out.
	k := 1
	for k < len(ls) && ls[k].end > x {
		k++
	}
	return ls[k-1].sum
}

// covered reports whether every start in [now, at) whose window of est
// touches a part of cert that no longer blocks (deficit, lowered by D,
// not positive; see stands) also touches one that still does.
func (c *Conservative) covered(cert []certIv, now, est, at float64) bool {
	for n := range cert {
		iv := &cert[n]
		if !(iv.y > now) || iv.def > 0 {
			continue
		}
		// The starts to cover: (x-est, min(y, at)), widened by the
		// margin and taken as closed at its low end.
		hi := math.Min(iv.y, at)
		cov := math.Max(iv.x-est-subMargin(iv.x, est), now)
		if !(cov < hi) {
			continue
		}
		// cov is the first start not yet known covered (itself
		// included); blocking ranges in time order extend it.
		for m := range cert {
			jv := &cert[m]
			if !(jv.y > cov) || jv.def <= 0 {
				continue
			}
			if !(jv.x-est+subMargin(jv.x, est) < cov) {
				break // a gap: ranges only start later from here on
			}
			cov = jv.y
			if !(cov < hi) {
				break
			}
		}
		if cov < hi {
			return false
		}
	}
	return true
}

// subMargin bounds the rounding error of x-est (and of t+est against x)
// many times over.
func subMargin(x, est float64) float64 { return (math.Abs(x) + math.Abs(est)) * 1e-12 }

// recordGroup records the run being flushed, if its jobs did not start.
func (c *Conservative) recordGroup() {
	r, rs := &c.run, &c.rs
	if !rs.rec || !(r.at > c.now) {
		return
	}
	rs.groups = append(rs.groups, resGroup{procs: int32(r.procs), n: int32(r.pending), slotEnd: int32(len(rs.slots)), pos: noPos, est: r.est, at: r.at})
	rs.groups[len(rs.groups)-1].setCert(&c.bp, int(rs.cert0), len(c.bp.segs))
}

// certStep records that step (pos, k) had fewer than procs free
// processors.
func (p *blockProfile) certStep(pos, k, procs int) {
	b := p.base(pos)
	y := math.Inf(1)
	switch {
	case k+1 < int(p.blk[pos].n):
		y = p.t[b+k+1]
	case pos+1 < len(p.blk):
		y = p.blk[pos+1].first
	}
	p.cert = append(p.cert, certIv{x: p.t[b+k], y: y, def: int32(procs - p.value(pos, k)), pass: p.certPass})
}

// mergeAt removes the step starting at t, if there is one after the
// first and it has the value of the step before it.
func (p *blockProfile) mergeAt(t float64) {
	if !(t > p.blk[0].first) {
		return
	}
	pos, k := p.locate(t)
	b := p.base(pos)
	if p.t[b+k] != t {
		return
	}
	var prev int
	if k > 0 {
		prev = p.f[b+k-1] + p.blk[pos].add
	} else {
		pb := p.base(pos - 1)
		prev = p.f[pb+int(p.blk[pos-1].n)-1] + p.blk[pos-1].add
	}
	if p.f[b+k]+p.blk[pos].add != prev {
		return
	}
	n := int(p.blk[pos].n)
	if n == 1 {
		p.spare = append(p.spare, p.blk[pos].id)
		p.blk = append(p.blk[:pos], p.blk[pos+1:]...)
		return
	}
	copy(p.t[b+k:b+n-1], p.t[b+k+1:b+n])
	copy(p.f[b+k:b+n-1], p.f[b+k+1:b+n])
	p.blk[pos].n--
	if k == 0 {
		p.blk[pos].first = p.t[b]
	}
}
