package scheduler

import (
	"cmp"
	"fmt"
	"math"
	"slices"
)

// CheckReusePasses makes every pass that reuses (consreuse.go) check,
// where it hands over to placing, its profile and its kept groups against
// a reference: the plain array profile of the running jobs (each released
// at its estimated end, or at its reservation's end if the walk itself
// started it with another estimated end: rs.adj) with the kept groups'
// reservations made in queue order. The block profile must be the same function of time (steps of
// equal value merged: reuse may leave steps split where the free
// processors do not change), and every part of a kept group's
// certificate that is not over must hold on the reference as it stood
// before that group's reservation: each step it overlaps at least its
// deficit short of the group's processors. It returns the number of
// passes checked so far, the first failure ("" if none) and a function
// that removes the check.
func CheckReusePasses() (passes *int, failure *string, restore func()) {
	passes, failure = new(int), new(string)
	var ref refProfile
	var cert []certIv
	var ts []float64
	var fs []int
	var ends []runEntry
	reuseCheck = func(c *Conservative, v *View) {
		*passes++
		if *failure != "" {
			return
		}
		fail := func(format string, a ...any) {
			*failure = fmt.Sprintf("pass at %v: ", v.Now) + fmt.Sprintf(format, a...)
		}
		now := v.Now
		ref.reset(now, v.Free(), math.Inf(1))
		// A job this walk started with another estimated end than its
		// reservation's (node speeds) holds its reservation, as it does
		// in a pass that places and starts it (rs.adj); the releases go
		// in time order.
		ends = ends[:0]
		for i := range v.Running() {
			r := v.e.runs.at(i)
			end := r.estEnd
			for _, a := range c.rs.adj {
				if a.slot == r.slot {
					end = a.resEnd
				}
			}
			ends = append(ends, runEntry{estEnd: math.Max(now, end), procs: r.procs})
		}
		slices.SortStableFunc(ends, func(a, b runEntry) int { return cmp.Compare(a.estEnd, b.estEnd) })
		for _, r := range ends {
			ref.release(r.estEnd, int(r.procs), 0)
		}
		p := &c.bp
		for k := range c.rs.groups {
			gr := &c.rs.groups[k]
			cert = p.flatCert(cert[:0], int(gr.certFrom), int(gr.certTo))
			for _, iv := range cert {
				if !(iv.y > now) {
					continue // over: never read again
				}
				for i := range ref.t {
					end := math.Inf(1)
					if i+1 < len(ref.t) {
						end = ref.t[i+1]
					}
					if ref.t[i] < iv.y && end > iv.x && int(gr.procs)-ref.free[i] < int(iv.def) {
						fail("group %d (%d×%d procs at %v): part %+v claims a deficit of %d, step at %v has %d free",
							k, gr.n, gr.procs, gr.at, iv, iv.def, ref.t[i], ref.free[i])
						return
					}
				}
			}
			ref.reserve(gr.at, gr.at+gr.est, int(gr.n)*int(gr.procs), 0)
		}
		ts, fs = p.steps(ts[:0], fs[:0])
		gt, gf := mergeSteps(ts, fs)
		wt, wf := mergeSteps(slices.Clone(ref.t), slices.Clone(ref.free))
		if !slices.Equal(gt, wt) || !slices.Equal(gf, wf) {
			fail("profile %v %v, reference %v %v", gt, gf, wt, wf)
		}
	}
	return passes, failure, func() { reuseCheck = nil }
}

// mergeSteps drops, in place, every step with the value of the step
// before it.
func mergeSteps(ts []float64, fs []int) ([]float64, []int) {
	w := 0
	for k := range ts {
		if k > 0 && fs[k] == fs[w-1] {
			continue
		}
		ts[w], fs[w] = ts[k], fs[k]
		w++
	}
	return ts[:w], fs[:w]
}

// CheckReuseWalk makes every pass that reuses check, before its walk
// over the kept groups, what lets the walk skip a group's compare: every
// kept group with a position (resGroup.pos) whose slots end at or below
// the wait queue's chgLo has its slots at consecutive positions from pos.
// It returns the number of groups that met the condition (and were
// checked), the first failure ("" if none) and a function that removes
// the check.
func CheckReuseWalk() (checked *int, failure *string, restore func()) {
	checked, failure = new(int), new(string)
	reuseWalkCheck = func(c *Conservative, v *View) {
		w, rs := &v.e.wq, &c.rs
		si := 0
		for k := range rs.groups {
			gr := &rs.groups[k]
			want := rs.slots[si:gr.slotEnd]
			si = int(gr.slotEnd)
			if gr.pos == noPos || int(gr.pos)+len(want) > w.chgLo {
				continue
			}
			*checked++
			if *failure == "" && !slices.Equal(w.slots[gr.pos:int(gr.pos)+len(want)], want) {
				*failure = fmt.Sprintf("pass at %v: group %d at %d (chgLo %d): slots %v, queue %v",
					v.Now, k, gr.pos, w.chgLo, want, w.slots[gr.pos:int(gr.pos)+len(want)])
			}
		}
	}
	return checked, failure, func() { reuseWalkCheck = nil }
}

// CheckKeepSearched makes every keepSearched (consreuse.go) check its
// answer against a reference, the plain array profile of the running jobs
// (each released at its estimated end) with the reservations of the
// groups before the group: a group it keeps has its start as the earliest
// start of one of its jobs there, with room for all of them; one it finds
// an earlier start for (movesEarlier) has an earlier one there. It returns
// how many groups were kept and dropped so far, the first failure (""
// if none) and a function that removes the check.
func CheckKeepSearched() (kept, dropped *int, failure *string, restore func()) {
	kept, dropped, failure = new(int), new(int), new(string)
	var ref refProfile
	keepSearchedCheck = func(c *Conservative, v *View, g int, ok bool) {
		if ok {
			*kept++
		} else {
			*dropped++
		}
		if *failure != "" || !ok && !c.rs.movesEarlier {
			return
		}
		now := v.Now
		ref.reset(now, v.Free(), math.Inf(1))
		for i := range v.Running() {
			r := v.RunningJob(i)
			ref.release(math.Max(now, r.EstEnd), r.Procs, 0)
		}
		for _, gr := range c.rs.groups[:g] {
			if gr.at > now { // the walk started those at now (startKept): they run
				ref.reserve(gr.at, gr.at+gr.est, int(gr.n)*int(gr.procs), 0)
			}
		}
		gr := &c.rs.groups[g]
		if t := ref.earliest(int(gr.procs), 0, gr.est); !ok {
			if !(t < gr.at) {
				*failure = fmt.Sprintf("pass at %v: group %d (%d×%d procs over %v) at %v found to move earlier, reference earliest start %v", now, g, gr.n, gr.procs, gr.est, gr.at, t)
			}
		} else if t != gr.at {
			*failure = fmt.Sprintf("pass at %v: group %d (%d×%d procs over %v) kept at %v, reference earliest start %v", now, g, gr.n, gr.procs, gr.est, gr.at, t)
		} else if low := ref.windowMin(gr.at, gr.at+gr.est); low < int(gr.n)*int(gr.procs) {
			*failure = fmt.Sprintf("pass at %v: group %d (%d×%d procs) kept at %v, reference has %d free there", now, g, gr.n, gr.procs, gr.at, low)
		}
	}
	return kept, dropped, failure, func() { keepSearchedCheck = nil }
}

// CountReuseWalkEnds counts, over every reuse walk from now on, the kept
// groups the walk started (startKept) and kept past the free-processor
// cutoff (walkPast); restore removes the count.
func CountReuseWalkEnds() (started, past *int, restore func()) {
	started, past = new(int), new(int)
	reuseWalkEnd = func(s, p int) { *started += s; *past += p }
	return started, past, func() { reuseWalkEnd = nil }
}
