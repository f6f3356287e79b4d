package scheduler

import (
	"fmt"
	"math"

	"drsim/cluster"
)

// Node power states, like Slurm's power saving (SuspendTime,
// ResumeTimeout). With Config.SuspendAfter > 0 the machine's processors
// are grouped into nodes of Config.ProcsPerNode (node k holds processors
// [k·ppn, (k+1)·ppn)), each idle, busy, off or booting:
//
//   - A node whose processors have all been free for SuspendAfter seconds
//     powers off (a KindSuspend event per node, armed when the node
//     becomes fully free and carrying the node's generation, which changes
//     when the node is used again, so reuse makes the timer stale; the
//     timers wait outside the heap, suspendq.go). This includes nodes idle
//     from the first submit on. An off node draws OffW.
//   - A job allocated processors on an off node boots it: the node draws
//     BootW for ResumeTime seconds (transition energy, Meter.TransJ) and its
//     processors draw nothing else. The job holds its allocation meanwhile
//     and starts executing when the last of its nodes is up (a KindBoot
//     event per job): only then does it draw its power and make progress.
//     A job placed on a node another job is booting waits for that boot.
//     Its processors on nodes that are already up draw idle power while it
//     waits. Its recorded start is when execution starts, so its wait
//     includes the boot. ResumeTime 0 boots at once (no wait, no energy).
//   - Node boots complete at KindBoot events with Job −1 (one per distinct
//     boot end; boots end in the order they started, since every boot lasts
//     ResumeTime), which come before the job boot events of the same time.
//
// Events at one instant apply in the order finishes, limit changes, node
// events (boot completions, then job boot ends in start order, then
// suspends in node order), submits; the policy runs after all of them.
//
// Placement ignores power states (first fit over processors, as the
// Allocator decides): it does not prefer powered-on nodes.
//
// What policies see while some node is off or booting (View.Job): a
// waiting job's Est grows by ResumeTime (it may have to boot), so EASY
// never backfills a job that would delay the head's reservation by its
// boot (the wait queue's estimates grow with it, syncBootEst, so that
// conservative keeps its reservations between passes as without power
// saving); and its Power, under a power-aware governor, grows by
// min(nodes down, procs) × max(0, max(BootW, ppn·IdleW) − OffW), a bound on
// what the nodes it may boot add while booting and once up, whatever the
// placement. A booting job is in the running list (estimated end = boot
// end + estimate), counted by Control.Running at its level's power (it
// will draw it), re-levelled without re-timing anything but its estimated
// end, evicted without wasted energy; Control.IdlePower is the meter's
// non-job power (idle processors, off and booting nodes).
//
// The PowerObserver (power.csv) counts a booting job's processors as busy
// and the job as running; its power is the meter's, boot power included.
//
// Approximations: a malleable job that grows onto an off node boots it but
// does not wait (sim rejects malleable jobs with power saving); a booting
// job's network ratio is the one at allocation until it executes.
//
// Node events stop once the workload is done (nothing to submit, queue and
// running list empty): they never extend a run past its last job.
//
// With SuspendAfter 0 (the default) none of this exists: no node
// bookkeeping, no events, and the engine's results are unchanged.

// stBooting: allocated, waiting for its nodes to boot.
const stBooting = stRunning + 1

// nodePower is the engine's node power-state bookkeeping.
type nodePower struct {
	nodes    *cluster.Nodes
	queueEst bool         // the wait queue's estimates follow the boot allowance (a policy that reads them as exact: bootEstPolicy)
	downEst  bool         // they hold it now (syncBootEst)
	susp     suspendQueue // armed suspend timers (suspendq.go)
	booting  []int32      // booting nodes in boot order, which is boot-end order
	head     int
	lastEnd  float64 // boot end of the last node-completion event pushed
}

// initNodePower validates the power-saving fields and wraps the allocator.
func (e *Engine) initNodePower() error {
	c := &e.cfg
	for _, f := range []struct {
		name string
		v    float64
	}{{"SuspendAfter", c.SuspendAfter}, {"ResumeTime", c.ResumeTime}, {"BootW", c.BootW}, {"OffW", c.OffW}} {
		if !(f.v >= 0) || math.IsInf(f.v, 1) {
			return fmt.Errorf("scheduler: %s is %v; need a finite value ≥ 0", f.name, f.v)
		}
	}
	if c.SuspendAfter == 0 {
		return nil
	}
	nodes := cluster.NewNodes(e.alloc, c.Procs, c.ProcsPerNode)
	e.np = &nodePower{nodes: nodes, lastEnd: math.Inf(-1)}
	if p, ok := e.policy.(bootEstPolicy); ok && p.bootEstInQueue() {
		e.np.queueEst = true
	}
	e.alloc = nodes
	return nil
}

// Nodes returns the node power states, or nil without power saving.
func (e *Engine) Nodes() *cluster.Nodes {
	if e.np == nil {
		return nil
	}
	return e.np.nodes
}

// startNodePower arms every node's suspend timer at t0.
func (e *Engine) startNodePower(t0 float64) {
	e.meter.OffW, e.meter.BootW = e.cfg.OffW, e.cfg.BootW
	for k := range e.np.nodes.Len() {
		e.armSuspend(int32(k), t0)
	}
}

// staleNode reports whether a node event no longer applies: a suspend
// timer of a node used since, a boot of a job evicted since, or any node
// event once the workload is done (no job to come, queued or running), so
// that power saving never extends a run past its last job.
func (e *Engine) staleNode(ev *Event) bool {
	if e.workDone() {
		return true
	}
	if ev.Kind == KindSuspend {
		// a run marker is never applied (suspendq.go)
		return ev.Job == markerJob || e.np.nodes.Gen(ev.Job) != ev.Gen
	}
	return ev.Job >= 0 && (e.jobs[ev.Job].gen != ev.Gen || e.jobs[ev.Job].state != stBooting)
}

// workDone reports whether the workload is done: nothing to submit,
// queued or running.
func (e *Engine) workDone() bool {
	return !e.haveNext && e.runs.Len() == 0 && e.wq.Len() == 0
}

// nodeEvent applies a KindBoot or KindSuspend event.
func (e *Engine) nodeEvent(ev *Event) {
	switch {
	case ev.Kind == KindSuspend:
		e.suspendNode(ev.Job)
		if e.np.susp.merge {
			e.suspMerge() // suspendq.go
		}
	case ev.Job < 0:
		e.nodesUp()
	default:
		e.bootDone(ev.Job)
	}
}

// suspendNode powers node k off if it is idle.
func (e *Engine) suspendNode(k int32) {
	if suspendHook != nil {
		suspendHook(e.now, k)
	}
	n := e.np.nodes
	if n.Suspend(k) {
		e.meter.NodeChange(1, 0, -n.Size(k))
		e.stats.Suspends++
		e.dirty, e.changed = true, true
	}
}

// nodesUp brings up every booting node whose boot has ended by now.
func (e *Engine) nodesUp() {
	np := e.np
	for np.head < len(np.booting) && np.nodes.BootEnd(np.booting[np.head]) <= e.now {
		k := np.booting[np.head]
		np.head++
		np.nodes.Up(k)
		e.meter.NodeChange(0, -1, np.nodes.Size(k))
		if np.nodes.Used(k) == 0 {
			e.armSuspend(k, e.now)
		}
	}
	if np.head == len(np.booting) {
		np.booting, np.head = np.booting[:0], 0
	}
	e.dirty, e.changed = true, true
}

// bootWoken boots the off nodes allocations took since the last call and
// reports whether there were any.
func (e *Engine) bootWoken() bool {
	np := e.np
	wake := np.nodes.Wake()
	if len(wake) == 0 {
		return false
	}
	end := e.now + e.cfg.ResumeTime
	for _, k := range wake {
		if np.nodes.Boot(k, end) {
			e.meter.NodeChange(-1, 1, 0)
			e.stats.Boots++
			np.booting = append(np.booting, k)
		}
	}
	np.nodes.ClearWake()
	if e.cfg.ResumeTime == 0 {
		e.nodesUp()
	} else if end != np.lastEnd {
		np.lastEnd = end
		e.q.Push(Event{T: end, Kind: KindBoot, Job: -1})
	}
	return true
}

// nodesAllocated boots the off nodes the job just allocated took and
// returns when all of its nodes are up.
func (e *Engine) nodesAllocated() float64 {
	ready := e.now
	if e.bootWoken() {
		ready += e.cfg.ResumeTime
	}
	return math.Max(ready, e.np.nodes.Wait())
}

// startBooting makes slot, allocated at now, wait for its nodes until
// ready (see start); m is its duration multiplier.
func (e *Engine) startBooting(slot int32, ready, m float64) float64 {
	j := &e.jobs[slot]
	j.state, j.start, j.last = stBooting, ready, ready
	j.estEnd = ready + j.est*m
	e.insertRunning(slot)
	e.q.Push(Event{T: ready, Kind: KindBoot, Seq: j.startSeq, Job: slot, Gen: j.gen})
	return j.estEnd
}

// bootDone starts executing slot, whose nodes are all up.
func (e *Engine) bootDone(slot int32) {
	j := &e.jobs[slot]
	if e.cfg.Check {
		for _, r := range j.alloc {
			for p := r.Lo; p < r.Hi; p++ {
				if st := e.np.nodes.State(p / int32(max(e.cfg.ProcsPerNode, 1))); st != cluster.NodeBusy {
					e.violate("job %d starts executing with a node %s", j.id, st)
					break
				}
			}
		}
	}
	j.state, j.last = stRunning, e.now
	j.startedInDR = !math.IsInf(e.meter.Limit, 1)
	e.meter.Change(j.power, j.procs)
	j.evT = e.now + j.dur
	j.endT = j.evT
	e.q.Push(Event{T: j.evT, Kind: KindFinish, Seq: j.startSeq, Job: slot, Gen: j.gen})
	e.dirty, e.changed = true, true
}

// relevelBooting moves booting slot to level lv: nothing runs yet, so
// only its power-to-be, duration and estimated end change.
func (e *Engine) relevelBooting(slot int32, lv int) {
	j := &e.jobs[slot]
	j.power, j.level = float64(j.procs)*e.cfg.Apps[j.app].Levels[lv].Power*j.pf, lv
	e.gpuSet(j, false) // gpu.go
	m := j.multiplier(e.scale(j))
	j.dur = j.run * m
	old := j.estEnd
	j.estEnd = j.start + j.est*m
	e.moveRunning(slot, old)
	e.changed = true
}

// evictBooting gives booting slot's processors back (its nodes finish
// booting) and requeues it; it has used no energy.
func (e *Engine) evictBooting(slot int32) {
	j := &e.jobs[slot]
	e.alloc.Release(j.alloc)
	e.removeRunning(slot)
	if e.cfg.Network != nil {
		e.cfg.Network.Finished(slot)
	}
	j.power = 0
	j.evictions++
	j.state = stQueued
	j.gen++
	e.stats.Evictions++
	e.slurmMain.endAt = e.now
	e.changed = true
	e.enqueue(slot)
}

// nodeSync, at the end of an instant, boots nodes taken outside start and
// arms the suspend timers of the nodes left idle.
func (e *Engine) nodeSync() {
	e.bootWoken()
	n := e.np.nodes
	for _, k := range n.Freed() {
		if n.State(k) == cluster.NodeIdle && n.Used(k) == 0 {
			e.armSuspend(k, e.now)
		}
	}
	n.ClearFreed()
}

// bootEstPolicy is a policy that reads the wait queue's estimates as
// every queued job's Est (conservative's keyed passes and the
// reservations it keeps between passes): under node power saving the
// queue's estimates then follow the boot allowance (syncBootEst). Other
// policies read them as lower bounds only, and the queue keeps them
// without it: its bounds, which decide whether the engine runs a pass,
// stay as they were.
type bootEstPolicy interface{ bootEstInQueue() bool }

// syncBootEst makes the wait queue's estimates hold the boot allowance
// (ResumeTime) iff some node is down, as View.Job's do, before a pass
// reads them (for a bootEstPolicy): when that changed since the last
// sync, it re-reads them and counts an estimate change (estGen). Nothing
// in a pass changes it: a start boots off nodes (off to booting: as many
// down), and nodes come up only at their boot events, or at once with
// ResumeTime 0, whose allowance is 0. Only the estimates and their bounds
// are re-read: the processors' bounds stay as they were.
func (e *Engine) syncBootEst() {
	np := e.np
	if !np.queueEst {
		return
	}
	if down := np.nodes.Down() > 0 && e.cfg.ResumeTime > 0; down != np.downEst {
		np.downEst = down
		w := &e.wq
		for i, s := range w.slots {
			if s >= 0 {
				w.est[i] = e.estLow(&e.jobs[s])
			}
		}
		w.rebuildEst()
		e.estGen++
	}
}

// bootAllowance adds to a waiting job's view what it may pay for booting
// nodes (see the package notes above).
func (e *Engine) bootAllowance(q *QueuedJob) {
	down := e.np.nodes.Down()
	if down == 0 {
		return
	}
	q.Est += e.cfg.ResumeTime
	if !e.hasPower {
		return
	}
	per := math.Max(e.cfg.BootW, float64(max(e.cfg.ProcsPerNode, 1))*e.cfg.IdleW) - e.cfg.OffW
	if per > 0 {
		q.Power += float64(min(down, q.Procs)) * per
	}
}
