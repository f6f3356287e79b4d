package scheduler

import (
	"cmp"
	"slices"
)

// The recompute's walk (recomputePriority): the jobs running at a
// recompute, kept in trace order, add their usage one by one, and each
// user with a waiting job gets its fair-share factor at its first one, as
// Slurm's decay thread walks its job list (priority_multifactor.c).

// prioRun names a started job: its slot and its start (Engine.startSeq),
// which tell a live entry from one whose job ended or restarted.
type prioRun struct {
	slot  int32
	start uint64
}

// prioFirst is a user whose fair-share factor a recompute computes at its
// first waiting job, of trace order seq.
type prioFirst struct {
	seq int64
	u   int32
}

// tracePriority hands Priority.Trace the factors after the recompute at t:
// those computed in its walk, and for the other users what they would be on
// first use (computed here without keeping them, so that a later first use
// still computes its own).
func (e *Engine) tracePriority(t float64) {
	st := e.prio
	if st.cfg.Tree == nil {
		return
	}
	st.trace = st.trace[:0]
	for u := range st.fs {
		f := st.fs[u]
		if st.fsEpoch[u] != st.epoch {
			f = e.fairShareNow(u)
		}
		st.trace = append(st.trace, f)
	}
	st.cfg.Trace(t, st.trace)
}

// walkRuns adds the usage of the jobs running at t, in trace order, and
// computes each user's fair-share factor at its first waiting job
// (recomputePriority); dt is the time since the last recompute, f the
// decay over it.
func (e *Engine) walkRuns(t, dt, f float64) {
	st := e.prio
	e.mergeRuns()
	first := e.firstWaiting()
	k := 0
	for _, r := range st.runs {
		j := &e.jobs[r.slot]
		for k < len(first) && first[k].seq < j.pr.seq {
			e.fairShare(int(first[k].u))
			k++
		}
		if d := t - max(j.pr.usedTo, st.last); d == dt {
			st.addScaled(j.pr.assoc, float64(j.procs)*dt*f)
		} else {
			st.addUsage(j.pr.assoc, float64(j.procs), d)
		}
		j.pr.usedTo = t
	}
	for ; k < len(first); k++ {
		e.fairShare(int(first[k].u))
	}
}

// mergeRuns brings runs up to the jobs running now: it drops the jobs that
// ended, were evicted (a job evicted while its nodes boot is not seen by
// prioEnded) or restarted, and merges in, in trace order, those started
// since the last recompute that still run.
func (e *Engine) mergeRuns() {
	st := e.prio
	n := 0
	for _, r := range st.runs {
		if j := &e.jobs[r.slot]; j.startSeq == r.start && j.pr.inRun && (j.state == stRunning || j.state == stBooting) {
			st.runs[n] = r
			n++
		}
	}
	st.runs = st.runs[:n]
	m := 0
	for _, r := range st.fresh {
		j := &e.jobs[r.slot]
		if j.startSeq != r.start || (j.state != stRunning && j.state != stBooting) || j.pr.inRun {
			continue
		}
		j.pr.inRun = true
		st.fresh[m] = r
		m++
	}
	add := st.fresh[:m]
	if m == 0 {
		st.fresh = st.fresh[:0]
		return
	}
	slices.SortFunc(add, func(a, b prioRun) int { return cmp.Compare(e.jobs[a.slot].pr.seq, e.jobs[b.slot].pr.seq) })
	// Merge from the back into runs grown by m.
	st.runs = slices.Grow(st.runs, m)[:n+m]
	i, k := n-1, m-1
	for w := n + m - 1; k >= 0; w-- {
		if i >= 0 && e.jobs[st.runs[i].slot].pr.seq > e.jobs[add[k].slot].pr.seq {
			st.runs[w] = st.runs[i]
			i--
		} else {
			st.runs[w] = add[k]
			k--
		}
	}
	st.fresh = st.fresh[:0]
}

// firstWaiting returns the users with a waiting job, in the trace order of
// their first one, when a recompute must compute their factors in its walk
// (running jobs add usage); otherwise none.
func (e *Engine) firstWaiting() []prioFirst {
	st := e.prio
	st.first = st.first[:0]
	if len(st.runs) == 0 {
		return st.first
	}
	scan := func() {
		for _, s := range e.wq.slots[e.wq.head:] {
			if s < 0 {
				continue
			}
			j := &e.jobs[s]
			u := j.pr.assoc
			if int(u) >= len(st.firstAt) {
				continue
			}
			if at := st.firstAt[u]; at == 0 {
				st.firstAt[u] = j.pr.seq + 1
				st.first = append(st.first, prioFirst{u: u})
			} else if j.pr.seq+1 < at {
				st.firstAt[u] = j.pr.seq + 1
			}
		}
	}
	if e.parts == nil {
		scan()
	} else {
		prev := e.bind(0)
		for k := range e.parts[:len(e.parts)-1] {
			e.bind(k)
			scan()
		}
		e.bind(prev)
	}
	for i := range st.first {
		u := st.first[i].u
		st.first[i].seq = st.firstAt[u] - 1
		st.firstAt[u] = 0
	}
	slices.SortFunc(st.first, func(a, b prioFirst) int { return cmp.Compare(a.seq, b.seq) })
	return st.first
}
