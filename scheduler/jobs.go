package scheduler

import (
	"fmt"
	"math"
	"slices"

	"drsim/results"
	"drsim/workloads"
)

// DropReasons name why the engine dropped a source job (Stats.DroppedBy).
var DropReasons = [nDropReasons]string{"no processors", "larger than the machine", "no run time",
	"no such partition", "larger than its partition", "GPUs on a partition without GPUs", "GPUs in a shared-core partition",
	"over the partition's time limit"} // the last five: partition.go

const nDropReasons = 8

// dropReason returns the index in DropReasons of why w cannot run on a
// machine of procs processors, or -1 if it can.
func dropReason(w *workloads.Job, procs int) int {
	switch {
	case w.Procs <= 0:
		return 0
	case int(w.Procs) > procs:
		return 1
	case w.Run <= 0:
		return 2
	}
	return -1
}

// maxKeptRanges bounds the allocation capacity a reused job slot keeps.
const maxKeptRanges = 1 << 10

// submit admits a source job into the wait queue.
func (e *Engine) submit(w *workloads.Job) {
	seq := int64(e.stats.Submitted + e.stats.Dropped)
	// The trace readers drop these already, with their reasons in the read
	// report; this guards hand-built sources.
	if r := dropReason(w, e.cfg.Procs); r >= 0 {
		e.stats.Dropped++
		e.stats.DroppedBy[r]++
		return
	}
	procs, part, gpus, nodes := int(w.Procs), 0, 0, 0
	if e.parts != nil {
		var r int
		if part, procs, gpus, nodes, r = e.route(w); r >= 0 {
			e.stats.Dropped++
			e.stats.DroppedBy[r]++
			return
		}
		e.bind(part)
	}
	e.stats.Submitted++
	var slot int32
	if n := len(e.freeSlot); n > 0 {
		slot = e.freeSlot[n-1]
		e.freeSlot = e.freeSlot[:n-1]
	} else {
		e.jobs = append(e.jobs, job{})
		slot = int32(len(e.jobs) - 1)
	}
	j := &e.jobs[slot]
	alloc := j.alloc[:0]
	if cap(alloc) > maxKeptRanges { // a scattered job's thousands of ranges: not kept for a queued job
		alloc = nil
	}
	*j = job{
		id: w.ID, seq: seq, submit: w.Submit, run: w.Run, est: w.Estimate, reqTime: w.ReqTime,
		procs: procs, state: stQueued, gen: j.gen + 1, res: math.NaN(), alloc: alloc,
		fixed: -1, ratio: 1, slow: 1, pf: 1,
	}
	if e.parts != nil {
		e.placeInPart(j, part, gpus, nodes)
	}
	if e.cfg.Overrun == OverrunKill && w.ReqTime > 0 && w.Run > w.ReqTime {
		j.run, j.killed = w.ReqTime, true
	}
	if j.est <= 0 {
		j.est = j.run
	}
	if e.hasPower && e.cfg.AppOf != nil {
		j.app = e.cfg.AppOf(w)
		if j.app < 0 || j.app >= len(e.cfg.Apps) {
			j.app = 0
		}
	}
	if e.parts != nil {
		e.gpuAdmit(j) // gpu.go
	}
	if e.hasPower && e.cfg.JobLevel != nil {
		if lv := e.cfg.JobLevel(w); lv >= 0 && lv < len(e.cfg.Apps[j.app].Levels) {
			j.fixed = lv
		}
	}
	if e.prio != nil {
		e.prioAdmit(j, w) // priority.go
	}
	e.enqueue(slot)
}

// enqueue inserts slot into the wait queue at its place in queue order.
// In submit order a new job almost always goes at the end; anything else
// (requeued evictions, other orders) compacts and inserts by binary search.
func (e *Engine) enqueue(slot int32) {
	e.dirty = true
	if _, ok := e.order.(submitOrder); ok {
		// The default order, decided on the job slab without filling two
		// QueuedJobs and calling the Order: a fresh submit goes at the end.
		j := &e.jobs[slot]
		if last := e.wq.last(); last < 0 || e.jobs[last].submit < j.submit || (e.jobs[last].submit == j.submit && e.jobs[last].seq < j.seq) {
			e.wq.push(slot, j.procs, e.estLow(j), e.powerLow(j))
			return
		}
	}
	a, b := &e.qa, &e.qb // engine-owned: locals would escape through Order.Less
	e.fillQueued(a, slot)
	if last := e.wq.last(); last < 0 || e.less(last, a, b) {
		e.wq.push(slot, a.Procs, e.estLow(&e.jobs[slot]), e.powerLow(&e.jobs[slot]))
		return
	}
	e.changed = true
	lo := e.wq.squeeze()
	e.wq.chgLo = 0 // as compact leaves it
	i, _ := slices.BinarySearchFunc(e.wq.slots, slot, func(s, _ int32) int {
		if e.less(s, a, b) {
			return -1
		}
		return 1
	})
	e.wq.insertFrom(lo, i, slot, a.Procs, e.estLow(&e.jobs[slot]), e.powerLow(&e.jobs[slot]))
}

// less reports whether queued slot s comes before the job described by a
// (b is scratch).
func (e *Engine) less(s int32, a, b *QueuedJob) bool {
	e.fillQueued(b, s)
	return e.order.Less(b, a)
}

func (e *Engine) fillQueued(q *QueuedJob, slot int32) {
	j := &e.jobs[slot]
	lv := e.startLevel(j)
	scale := 1.0
	if e.hasPower {
		scale = e.cfg.Apps[j.app].Levels[lv].Scale
	}
	pw := e.powerLow(j)
	if e.hasPower && e.nl != nil {
		pw += e.admitW(j) // nodeload.go: ≥ 0 and state-dependent, so not in the queue's lower bound
	}
	*q = QueuedJob{Slot: slot, Procs: j.procs, Est: j.est * scale, Submit: j.submit, Seq: j.seq, Power: pw, Prio: j.pr.prio}
}

// powerLow is QueuedJob.Power before nodepower.go's boot allowance, which
// only adds to it: the power j adds at its lowest level, 0 without a
// power model. The wait queue keeps it so that backfill scans skip jobs
// that cannot fit the power headroom without filling them.
func (e *Engine) powerLow(j *job) float64 {
	if !e.hasPower {
		return 0
	}
	low := e.cfg.Apps[j.app].Levels[0]
	return float64(j.procs)*(low.Power*e.pfMax-e.cfg.IdleW) + j.gpuW // pfMax: variability.go, 1 without
}

// estLow returns a lower bound of the estimate j will have when it starts
// (QueuedJob.Est): exact when the start level is known in advance (no power
// model, a fixed level or a static governor) or depends only on the limit
// in force (estByLimit: refreshLimitEst re-reads it when the limit
// changes), otherwise the top-level estimate times the smallest runtime
// scale of any level; plus, under node power saving, the boot allowance
// while the queue holds it (a bootEstPolicy's: syncBootEst).
func (e *Engine) estLow(j *job) float64 {
	var est float64
	switch {
	case !e.hasPower:
		est = j.est
	case j.fixed >= 0 || e.govKind != govOther || e.estByLimit:
		est = j.est * e.cfg.Apps[j.app].Levels[e.startLevel(j)].Scale
	default:
		est = j.est * e.minScale
	}
	if e.np != nil && e.np.downEst {
		est += e.cfg.ResumeTime // the boot allowance, as View.Job adds it (nodepower.go)
	}
	return est
}

// refreshLimitEst re-reads the wait queues' estimates after a limit
// change when they depend on the limit (estByLimit), and rebuilds their
// bounds: the bound one (e.wq) and, with partitions, every other
// partition's.
func (e *Engine) refreshLimitEst() {
	if !e.estByLimit || !e.hasPower {
		return
	}
	e.refreshEst(&e.wq)
	for p := range e.parts {
		if p != e.cur {
			e.refreshEst(&e.parts[p].wq)
		}
	}
}

// refreshEst re-reads w's estimates (estLow) and rebuilds its bounds.
func (e *Engine) refreshEst(w *waitQueue) {
	for i, s := range w.slots {
		if s >= 0 {
			w.est[i] = e.estLow(&e.jobs[s])
		}
	}
	w.rebuild()
}

func (e *Engine) startLevel(j *job) int {
	switch {
	case !e.hasPower:
		return 0
	case j.fixed >= 0:
		return j.fixed
	case e.govKind == govTop, e.scope >= 0 && int(j.part) != e.scope && e.govKind == govOther:
		// With Config.LimitPart the governor governs that partition only.
		return len(e.cfg.Apps[j.app].Levels) - 1
	case e.govKind == govBottom:
		return 0
	}
	return e.gov.StartLevel(e, j.app)
}

// Static governors, recognised once in New so that the hot path skips the
// interface call.
const (
	govOther = iota
	govTop
	govBottom
)

// scale returns the runtime scale of j's current level.
func (e *Engine) scale(j *job) float64 {
	if !e.hasPower {
		return j.slow
	}
	return e.cfg.Apps[j.app].Levels[j.level].Scale * j.slow // slow: variability.go, 1 without
}

// start starts slot at now and returns its estimated end.
func (e *Engine) start(slot int32, now float64) float64 {
	j := &e.jobs[slot]
	if e.vary && e.driftIdx < len(e.cfg.Drift) {
		e.applyDrift(now) // variability.go
	}
	var ok bool
	if j.gresNodes > 0 {
		j.alloc, ok = e.allocGres(j) // gres.go
	} else {
		j.alloc, ok = e.alloc.Alloc(j.procs, j.alloc[:0])
	}
	if !ok {
		panic("scheduler: allocator refused a job the view said fits")
	}
	ready := now
	if e.np != nil {
		ready = e.nodesAllocated() // nodepower.go: boots off nodes
	}
	if e.cfg.Check {
		if now < j.submit {
			e.violate("job %d started at %v before its submit %v", j.id, now, j.submit)
		}
		if j.state != stQueued {
			e.violate("job %d started while not queued (state %d)", j.id, j.state)
		}
		if e.checkRes && !math.IsNaN(j.res) && now > j.res+1e-6 {
			e.violate("job %d started at %v, after its first reservation %v", j.id, now, j.res)
		}
		if busy := e.alloc.Total() - e.alloc.Free(); busy > e.cfg.Procs {
			e.violate("%d processors in use on a %d-processor machine", busy, e.cfg.Procs)
		}
	}
	e.startSeq++
	j.state, j.start, j.startSeq, j.last, j.alpha = stRunning, now, e.startSeq, now, 0
	if e.prio != nil {
		e.prioStarted(slot) // priority.go
	}
	j.startedInDR = !math.IsInf(e.meter.Limit, 1)
	j.level = e.startLevel(j)
	if e.vary {
		e.varyStart(j) // variability.go
	}
	if e.hasPower {
		j.power = float64(j.procs)*e.cfg.Apps[j.app].Levels[j.level].Power*j.pf + j.extraW
		e.gpuSet(j, ready <= now) // gpu.go
	}
	if e.cfg.Network != nil {
		j.comm, j.ratio = e.cfg.Network.Started(slot, j.app, j.procs, j.alloc)
	}
	m := j.multiplier(e.scale(j))
	j.dur = j.run * m
	j.estEnd = now + j.est*m
	if ready > now {
		return e.startBooting(slot, ready, m)
	}
	e.meter.Change(j.power, j.procs)
	if e.parts != nil {
		e.partMeter(j, j.power, j.procs) // partition.go
	}
	if e.nl != nil {
		e.loadJob(j, 1) // nodeload.go
	}
	e.insertRunning(slot)
	j.evT = now + j.dur
	j.endT = j.evT
	e.q.Push(Event{T: j.evT, Kind: KindFinish, Seq: j.startSeq, Job: slot, Gen: j.gen})
	return j.estEnd
}

// sync brings slot's progress and energy up to now.
func (e *Engine) sync(j *job) {
	e.progress(j)
	// Finish times are rounded to the clock's resolution at now, which is
	// worth ulp(now)/dur of the work: a short job re-timed late in a trace
	// may overshoot by a few 1e-9 without any work being lost.
	if e.cfg.Check && j.alpha > 1+1e-9+4*(math.Nextafter(e.now, math.Inf(1))-e.now)/j.dur {
		e.violate("job %d has done %.12f of its work (remaining work negative)", j.id, j.alpha)
	}
}

// progress brings j's work done and energy up to now: sync without the
// invariant check, small enough to inline where a caller syncs every
// running job (Control.SyncState).
func (e *Engine) progress(j *job) {
	if dt := e.now - j.last; dt > 0 {
		j.alpha += dt / j.dur
		j.energy += j.power * dt
		j.gpuJ += j.gpuPow * dt
		j.last = e.now
	}
}

// finish ends a running job whose work is done.
func (e *Engine) finish(slot int32) error {
	j := &e.jobs[slot]
	e.sync(j)
	if e.cfg.Check {
		if j.state != stRunning {
			e.violate("job %d ended while not running (state %d)", j.id, j.state)
		}
		if e.now != j.endT || j.evT != j.endT {
			e.violate("job %d ended at %v, its finish time %v (event at %v)", j.id, e.now, j.endT, j.evT)
		}
		e.jobJ += j.energy + j.wasted
		e.jobGPUJ += j.gpuJ + j.gpuWasted
	}
	e.gpuStop(j) // gpu.go
	e.meter.Change(-j.power, -j.procs)
	if e.parts != nil {
		e.partMeter(j, -j.power, -j.procs)
	}
	e.release(j) // gres.go
	if e.nl != nil {
		e.loadJob(j, -1) // nodeload.go
	}
	e.removeRunning(slot)
	if e.cfg.Network != nil {
		e.cfg.Network.Finished(slot)
	}
	if e.prio != nil {
		e.prioEnded(j) // priority.go
	}
	e.stats.Finished++
	e.slurmMain.endAt = e.now // slurmbf.go: an end runs Slurm's main scheduler at once
	e.dirty, e.changed = true, true
	if e.parts != nil {
		e.partDone(j) // partition.go
	}

	r := &e.rec
	*r = results.Record{
		ID: j.id, Seq: j.seq, Workload: e.cfg.Workload, Submit: j.submit, Procs: int64(j.procs), ReqTime: j.reqTime,
		State: results.StateCompleted, Start: j.start, End: e.now, Alloc: j.alloc,
		Energy: -1, Evictions: j.evictions, StartedInDR: j.startedInDR,
	}
	if j.killed {
		r.State = results.StateWalltime
	}
	if e.hasPower {
		r.Energy, r.Wasted = j.energy, j.wasted
	}
	if e.gpuOn {
		r.GPUEnergy, r.GPUWasted = j.gpuJ, j.gpuWasted
	}
	j.state = 0
	j.gen++
	e.freeSlot = append(e.freeSlot, slot)
	if e.cfg.Recorder != nil {
		return e.cfg.Recorder.Record(r)
	}
	return nil
}

// retime moves a running job to level lv from now on, re-timing its
// remaining work exactly.
func (e *Engine) retime(slot int32, lv int) {
	j := &e.jobs[slot]
	if lv == j.level || j.fixed >= 0 {
		return
	}
	if j.state == stBooting {
		e.relevelBooting(slot, lv)
		return
	}
	e.sync(j)
	oldM := j.multiplier(e.scale(j))
	newPower := float64(j.procs)*e.cfg.Apps[j.app].Levels[lv].Power*j.pf + j.extraW
	e.meter.Change(newPower-j.power, 0)
	if e.parts != nil {
		e.partMeter(j, newPower-j.power, 0)
	}
	j.power, j.level = newPower, lv
	e.gpuSet(j, true) // gpu.go
	e.refreshRunning(slot)
	e.retimeTo(slot, oldM)
}

// retimeTo re-times a synchronised running job whose duration multiplier
// changed from oldM to its current one: the remaining work keeps its
// fraction, the finish time moves, and the estimated end scales. A finish
// moved earlier is pushed as a new event (the old one goes stale); one
// moved later keeps its event, which is pushed on when it comes up
// (Engine.skip).
func (e *Engine) retimeTo(slot int32, oldM float64) {
	j := &e.jobs[slot]
	m := j.multiplier(e.scale(j))
	j.dur = j.run * m
	if old := j.estEnd; old > e.now {
		j.estEnd = e.now + (old-e.now)*m/oldM
		e.moveRunning(slot, old)
	}
	e.changed = true
	end := e.now + (1-j.alpha)*j.dur
	if end < e.now {
		end = e.now
	}
	j.endT = end
	if end >= j.evT {
		return
	}
	j.gen++
	j.evT = end
	e.q.Push(Event{T: end, Kind: KindFinish, Seq: j.startSeq, Job: slot, Gen: j.gen})
}

// evict stops a running job, wastes its energy and puts it back in the
// queue with its original submit time; it will restart from scratch.
func (e *Engine) evict(slot int32) {
	j := &e.jobs[slot]
	if j.state == stBooting {
		e.evictBooting(slot)
		return
	}
	e.sync(j)
	e.gpuStop(j) // gpu.go
	e.meter.Change(-j.power, -j.procs)
	if e.parts != nil {
		e.partMeter(j, -j.power, -j.procs)
	}
	e.release(j) // gres.go
	if e.nl != nil {
		e.loadJob(j, -1) // nodeload.go
	}
	e.removeRunning(slot)
	if e.cfg.Network != nil {
		e.cfg.Network.Finished(slot)
	}
	j.gpuWasted += j.gpuJ
	j.gpuJ = 0
	if e.prio != nil {
		e.prioEnded(j) // its usage so far counts (priority.go)
	}
	j.wasted += j.energy
	j.energy, j.alpha, j.power = 0, 0, 0
	j.evictions++
	e.changed = true
	j.state = stQueued
	j.gen++
	e.stats.Evictions++
	e.slurmMain.endAt = e.now
	e.enqueue(slot)
}

func (e *Engine) setLimit(w float64) {
	e.meter.SetLimit(w)
	if e.lim != e.meter {
		e.lim.SetLimit(w)
	}
	e.dirty, e.changed = true, true
	e.estGen++
	e.refreshLimitEst()
}

// reserve records slot's first reservation.
func (e *Engine) reserve(slot int32, t float64) {
	if j := &e.jobs[slot]; math.IsNaN(j.res) {
		j.res = t
	}
}

func (e *Engine) violate(format string, a ...any) {
	e.stats.NViolations++
	if len(e.stats.Violations) < 20 {
		e.stats.Violations = append(e.stats.Violations, fmt.Sprintf("t=%v: ", e.now)+fmt.Sprintf(format, a...))
	}
}

// observePower reports the cluster state when it changed.
func (e *Engine) observePower() error {
	e.meter.Observe()
	if e.lim != e.meter {
		e.lim.Observe()
	}
	if e.cfg.Check && e.govAware && e.lim.Power() > e.lim.Limit*(1+1e-9)+1e-6 {
		e.violate("power %.3f W above the limit %.3f W", e.lim.Power(), e.lim.Limit)
	}
	if e.cfg.Power == nil {
		return nil
	}
	busy, running := e.cfg.Procs-e.alloc.Free(), e.runs.Len()
	if e.parts != nil {
		busy, running = e.machineBusy()
	}
	cur := [4]float64{e.lim.Power(), e.lim.Limit, float64(busy), float64(running)} // lim: the limited partition's with Config.LimitPart
	if e.gpuOn {
		if ok, err := e.observeDevices(cur, busy, running); ok { // gpu.go
			return err
		}
	}
	if cur == e.lastPow {
		return nil
	}
	e.lastPow = cur
	return e.cfg.Power.Power(e.now, cur[0], cur[1], busy, running)
}
