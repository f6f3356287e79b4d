package scheduler

import "slices"

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
	e.ctl.e = e
	e.gov.Adjust(&e.ctl)
	if e.stats.Evictions != ev {
		e.pass()
		e.gov.Adjust(&e.ctl)
	}
}

// pass runs the policy once over the wait queue.
func (e *Engine) pass() {
	if e.wq.Len() == 0 || e.alloc.Free() == 0 {
		return // nothing can start
	}
	e.stats.Passes++
	e.view.reset(e)
	e.policy.Schedule(&e.view)
	if dead := len(e.wq.slots) - e.wq.Len(); dead > 64 && dead > e.wq.Len() {
		e.wq.compact()
	}
	e.changed, e.newFrom = false, len(e.wq.slots)
}

// runningLess orders running jobs by estimated end, ties by start order.
func (e *Engine) runningCmp(a, b int32) int {
	ja, jb := &e.jobs[a], &e.jobs[b]
	switch {
	case ja.estEnd < jb.estEnd:
		return -1
	case ja.estEnd > jb.estEnd:
		return 1
	case ja.startSeq < jb.startSeq:
		return -1
	case ja.startSeq > jb.startSeq:
		return 1
	}
	return 0
}

func (e *Engine) insertRunning(slot int32) {
	i, _ := slices.BinarySearchFunc(e.running, slot, e.runningCmp)
	e.running = slices.Insert(e.running, i, slot)
}

func (e *Engine) removeRunning(slot int32) {
	i, found := slices.BinarySearchFunc(e.running, slot, e.runningCmp)
	if !found {
		panic("scheduler: running job not in the running list")
	}
	e.running = slices.Delete(e.running, i, i+1)
}
