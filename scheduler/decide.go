package scheduler

// decide runs the policy, then lets a dynamic governor adjust running jobs.
// If the governor evicted jobs, the policy runs once more so that the freed
// processors are used, and the governor adjusts again.
func (e *Engine) decide() {
	e.dirty = false
	e.pass()
	e.applyNetwork()
	if !e.hasPower {
		return
	}
	ev := e.stats.Evictions
	if e.parts != nil {
		e.bindGovernor() // partition.go: the whole machine, or the limited partition
	}
	e.ctl.e = e
	e.gov.Adjust(&e.ctl)
	if e.stats.Evictions != ev {
		e.pass()
		e.gov.Adjust(&e.ctl)
	}
}

// pass runs the policy once over the wait queue (once per partition's
// queue on a partitioned machine).
func (e *Engine) pass() {
	if e.parts != nil {
		e.passParts()
		return
	}
	e.passPool()
}

// passPool runs the policy once over the bound pool's wait queue.
func (e *Engine) passPool() {
	if e.np != nil {
		e.syncBootEst() // nodepower.go
	}
	if e.wq.Len() == 0 || e.wq.minProcs() > e.alloc.Free() {
		// Nothing can start. The flags stay set, so the next pass still
		// sees what changed since the last one that ran.
		return
	}
	e.stats.Passes++
	e.view.reset(e)
	e.policy.Schedule(&e.view)
	if dead := len(e.wq.slots) - e.wq.Len(); dead > 64 && dead > e.wq.Len() {
		e.wq.compact()
	}
	e.changed, e.newFrom = false, len(e.wq.slots)
}

// insertRunning adds slot to the running list with its current estimated
// end, processors and power.
func (e *Engine) insertRunning(slot int32) {
	e.runs.insert(e.runEntry(slot))
	if e.parts != nil {
		e.partRunning(0, slot)
	}
}

// removeRunning takes slot off the running list; call it before changing
// the job's estimated end.
func (e *Engine) removeRunning(slot int32) {
	j := &e.jobs[slot]
	if !e.runs.remove(j.estEnd, j.startSeq) {
		panic("scheduler: running job not in the running list")
	}
	if e.parts != nil {
		e.partRunning(1, slot)
	}
}

// moveRunning moves slot's entry after its estimated end changed from
// old: removeRunning at old, then insertRunning.
func (e *Engine) moveRunning(slot int32, old float64) {
	j := &e.jobs[slot]
	if e.parts != nil {
		end := j.estEnd
		j.estEnd = old
		e.removeRunning(slot)
		j.estEnd = end
		e.insertRunning(slot)
		return
	}
	if !e.runs.move(old, j.startSeq, e.runEntry(slot)) {
		panic("scheduler: running job not in the running list")
	}
}

// refreshRunning updates slot's entry after its processors or power
// changed in place.
func (e *Engine) refreshRunning(slot int32) {
	j := &e.jobs[slot]
	bi, o, ok := e.runs.find(j.estEnd, j.startSeq)
	if !ok {
		panic("scheduler: running job not in the running list")
	}
	e.runs.set(bi, o, e.runEntry(slot))
	if e.parts != nil {
		e.partRunning(2, slot)
	}
}

func (e *Engine) runEntry(slot int32) runEntry {
	j := &e.jobs[slot]
	r := runEntry{estEnd: j.estEnd, seq: j.startSeq, procs: int32(j.procs), slot: slot}
	if e.hasPower {
		r.power = j.power - float64(j.procs)*e.cfg.IdleW - j.idleAdjW
	}
	return r
}
