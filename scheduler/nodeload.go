package scheduler

import (
	"fmt"
	"math"
)

// Node-level power (issue 17): load-proportional node power in
// shared-core partitions, and per-node idle power.
//
// Load-proportional power. SimGrid's Idle:Epsilon:AllCores model (Heinrich
// 2019, seed 000 §8.2, lines 1473–1501) gives a node with a fraction u of
// its C cores busy P_static + u·(P_allcores − P_static), and one with no
// work P_idle (below P_static: the idle node sleeps in C-states). The
// engine already charges each busy processor its job's level power
// (P_allcores/C at that level) and each idle processor P_idle/C, so the
// model is exact if the idle processors of a node that has at least one
// busy processor draw P_static/C instead:
//
//	k·P_all/C + (C−k)·P_static/C = P_static + (k/C)·(P_all − P_static).
//
// Part.StaticW is P_static/C (the machine file's static_w / cores). A node
// of a shared-core partition with b busy processors adds its "uplift"
// (C−b)·(StaticW − IdleW) to the meter's idle draw when b > 0, and nothing
// when b = 0; the engine keeps b per node (loadJob, called where jobs
// start, finish and are evicted). Whole-node partitions never have a
// partly busy node, so the model is today's accounting there, and without
// StaticW nothing is tracked at all. The uplift is counted as idle/static
// energy (Meter.IdleJ), not in any job's energy: jobs.csv energies are
// unchanged, the meter's total is Σ job energy + idle/static energy.
//
// One static power per node type: the intercept at the top P-state (the
// machine file takes it from drsim calibrate --format nodepower). The
// busy cores' level power already follows the P-state; the static line's
// own change with frequency is not modelled in this version.
//
// What the governors see. Control.IdlePower is the meter's non-job draw,
// so the dr governor's level choice is exact. Two bounds keep the power
// limit safe where the uplift a decision causes is not known in advance:
// a queued job's Power (power-aware admission, View.Fits) adds the
// largest uplift its start can cause, min(procs, idle nodes)·(C−1)·(StaticW
// − IdleW) (each idle node it touches with k ≥ 1 of its processors adds
// (C−k)·δ ≤ (C−1)·δ; nodes already busy lose uplift); the dr governor's
// eviction budget (allIdleW, evictW, evictWeight) counts δ·C per node busy
// now and each kept job's processors −δ, exact when nothing is evicted.
// EASY's power-aware shadow time still reads a job's power above idle
// (RunningJob.Power) without the uplift its end releases: reservations
// under a limit are estimates, as before.
//
// Per-node idle power. Config.IdleOffsets says that nodes draw W watts
// more (or less) than their type's idle power, e.g. from measured per-node
// idle powers (the node_var CSV's idle_w column); DriftStep.IdleW moves a
// node's offset from a time on (Heinrich saw taurus-12's idle power rise by
// 11 W and taurus-5's fall by 3 W over 29 months: seed 000, §8.2.1, line
// 1501). An offset shifts the node's whole power line (idle, static and
// busy alike, as a machine file's idle_w already shifts a busy
// processor's draw), so it is a constant the meter adds to its idle draw:
// exact for the governors, and free on the hot path. Node power saving
// (Config.SuspendAfter) refuses offsets (an off node draws OffW).
//
// Limits of this version: the uniform governor divides the limit with the
// nominal idle power and refuses static power and offsets (scheduler/sim).

// IdleOffset says that processors [Lo, Hi) (a node) draw W watts more in
// every state than their type's power, W negative for less.
type IdleOffset struct {
	Lo, Hi int
	W      float64
}

// KindIdleDrift applies the idle-power drift steps due (Job −1).
const KindIdleDrift = KindWake + 1

// nodeLoad is the engine's node-level power state; nil without static
// power, idle offsets or idle drift.
type nodeLoad struct {
	busy  []int32  // busy processors per node of the tracked partitions
	parts []nlPart // per partition; sp 0: not tracked
	track bool     // some partition is tracked
	// Idle offsets in force (W): the whole machine's, the limited
	// partition's (Config.LimitPart).
	offW, offScopeW float64
	drift           []int // indices of Config.Drift steps with IdleW ≠ 0, by time
	di              int   // the next of them
}

// nlPart is one partition's load-proportional state.
type nlPart struct {
	lo, base, cores int     // first processor, first node in busy, processors per node
	sp              float64 // StaticW − idle per processor (W); 0: not tracked
	free            int     // nodes with no busy processor
	nodes           int
	busyProcs       int     // Σ busy (Check)
	upW             float64 // Σ over its nodes of their uplift now (W)
}

// up is the uplift of a node with b busy processors.
func (p *nlPart) up(b int32) float64 {
	if b <= 0 {
		return 0
	}
	return float64(int32(p.cores)-b) * p.sp
}

// initNodeLoad checks Part.StaticW, Config.IdleOffsets and the drift
// steps' idle changes and builds e.nl when any is in use.
func (e *Engine) initNodeLoad() error {
	nl := &nodeLoad{}
	on := len(e.cfg.IdleOffsets) > 0
	if e.parts != nil {
		nl.parts = make([]nlPart, len(e.parts)-1)
		nodes := 0
		for i := range nl.parts {
			s := &e.parts[i].Part
			idle := s.IdleW
			if idle == 0 {
				idle = e.cfg.IdleW
			}
			switch {
			case s.StaticW < 0 || math.IsNaN(s.StaticW) || math.IsInf(s.StaticW, 0):
				return fmt.Errorf("scheduler: partition %q has static power %v W per processor; need a finite value ≥ 0", s.Name, s.StaticW)
			case s.StaticW > 0 && s.StaticW < idle:
				return fmt.Errorf("scheduler: partition %q has static power %v W per processor, below its idle power %v W", s.Name, s.StaticW, idle)
			}
			p := &nl.parts[i]
			p.lo, p.cores, p.nodes = s.Lo, s.Cores, s.Procs/s.Cores
			p.free = p.nodes
			if s.StaticW > idle && !s.Exclusive {
				p.sp, p.base = s.StaticW-idle, nodes
				nodes += p.nodes
				nl.track = true
			}
		}
		nl.busy = make([]int32, nodes)
	}
	for i, o := range e.cfg.IdleOffsets {
		if o.Lo < 0 || o.Hi > e.cfg.Procs || o.Lo >= o.Hi || math.IsNaN(o.W) || math.IsInf(o.W, 0) {
			return fmt.Errorf("scheduler: idle offset %d of %v W covers processors [%d, %d) of %d", i, o.W, o.Lo, o.Hi, e.cfg.Procs)
		}
	}
	for i, d := range e.cfg.Drift {
		if d.IdleW == 0 {
			continue
		}
		if math.IsNaN(d.IdleW) || math.IsInf(d.IdleW, 0) {
			return fmt.Errorf("scheduler: drift step %d changes idle power by %v W", i, d.IdleW)
		}
		nl.drift = append(nl.drift, i)
	}
	if !on && !nl.track && len(nl.drift) == 0 {
		return nil
	}
	if e.cfg.SuspendAfter > 0 && (on || len(nl.drift) > 0) {
		return fmt.Errorf("scheduler: per-node idle power (offsets, idle drift) does not work with node power saving yet")
	}
	e.nl = nl
	return nil
}

// startNodeLoad applies the idle offsets and the drift steps due at t0 to
// the meters, and arms the next drift step.
func (e *Engine) startNodeLoad(t0 float64) {
	for _, o := range e.cfg.IdleOffsets {
		e.offsetIdle(o.Lo, o.W)
	}
	e.idleDrift(t0)
}

// offsetIdle adds w watts of idle offset on the node at processor lo.
func (e *Engine) offsetIdle(lo int, w float64) {
	nl := e.nl
	nl.offW += w
	e.meter.ChangeIdle(w)
	if e.scope >= 0 {
		if s := &e.parts[e.scope]; lo >= s.Lo && lo < s.Lo+s.Procs {
			nl.offScopeW += w
			e.lim.ChangeIdle(w)
		}
	}
}

// idleDrift applies the idle drift steps due by now and arms the next.
func (e *Engine) idleDrift(now float64) {
	nl := e.nl
	for ; nl.di < len(nl.drift) && e.cfg.Drift[nl.drift[nl.di]].T <= now; nl.di++ {
		d := &e.cfg.Drift[nl.drift[nl.di]]
		e.offsetIdle(d.Lo, d.IdleW)
	}
	if nl.di < len(nl.drift) {
		e.q.Push(Event{T: e.cfg.Drift[nl.drift[nl.di]].T, Kind: KindIdleDrift, Seq: uint64(nl.di), Job: -1})
	}
}

// idleDriftStale reports a drift event that would only stretch the run:
// no job is left to run, wait or come.
func (e *Engine) idleDriftStale() bool {
	if e.haveNext {
		return false
	}
	if e.parts != nil {
		_, running := e.machineBusy()
		return running == 0 && e.machineQueued() == 0
	}
	return e.runs.Len() == 0 && e.wq.Len() == 0
}

// loadJob counts job j's processors as busy (sign +1, after its
// allocation) or free again (−1, after its release) on their nodes, and
// moves the meters' idle draw by the nodes' change of uplift.
func (e *Engine) loadJob(j *job, sign int32) {
	nl := e.nl
	if !nl.track || e.parts == nil {
		return
	}
	p := &nl.parts[j.part]
	if p.sp == 0 {
		return
	}
	dw := 0.0
	c := p.cores
	for _, r := range j.alloc {
		for q := int(r.Lo); q < int(r.Hi); {
			k := (q - p.lo) / c
			end := min(int(r.Hi), p.lo+(k+1)*c)
			b := &nl.busy[p.base+k]
			b0 := *b
			b1 := b0 + sign*int32(end-q)
			dw += p.up(b1) - p.up(b0)
			switch {
			case b0 == 0 && b1 > 0:
				p.free--
			case b0 > 0 && b1 == 0:
				p.free++
			}
			if e.cfg.Check && (b1 < 0 || b1 > int32(c)) {
				e.violate("node %d of partition %q has %d busy processors; it has %d", k, e.parts[j.part].Name, b1, c)
			}
			*b = b1
			q = end
		}
	}
	p.upW += dw
	p.busyProcs += int(sign) * j.procs
	if e.cfg.Check && e.cur == int(j.part) {
		if used := e.alloc.Total() - e.alloc.Free(); used != p.busyProcs {
			e.violate("partition %q: nodes count %d busy processors, its allocator %d", e.parts[j.part].Name, p.busyProcs, used)
		}
	}
	if dw == 0 {
		return
	}
	e.meter.ChangeIdle(dw)
	if e.lim != e.meter && int(j.part) == e.scope {
		e.lim.ChangeIdle(dw)
	}
}

// admitW is the most a start of queued job j can add to the uplift (see
// the top of this file); 0 outside tracked partitions.
func (e *Engine) admitW(j *job) float64 {
	nl := e.nl
	if !nl.track || e.parts == nil {
		return 0
	}
	p := &nl.parts[j.part]
	if p.sp == 0 {
		return 0
	}
	return float64(min(j.procs, p.free)*(p.cores-1)) * p.sp
}

// evictW is what the dr governor's eviction budget adds to the all-idle
// power of the governed processors: their idle offsets, and C·δ for every
// node busy now (δ = StaticW − IdleW a processor). With evictWeight
// lowering each job's weight by procs·δ, the budget is safe for any kept
// subset K: its uplift is Σ over nodes with kept work of (C − b_K)·δ =
// δ·C·(nodes with kept work) − δ·Σ_K procs ≤ δ·C·(busy nodes) − δ·Σ_K
// procs, and exact when every job is kept.
func (e *Engine) evictW() float64 {
	nl := e.nl
	w := nl.offW
	if e.scope >= 0 {
		w = nl.offScopeW
	}
	for i := range nl.parts {
		if p := &nl.parts[i]; p.sp > 0 && (e.scope < 0 || e.scope == i) {
			w += float64((p.nodes-p.free)*p.cores) * p.sp
		}
	}
	return w
}

// evictWeight is running job slot's weight w in the dr governor's
// eviction knapsack less procs·δ in a tracked partition (see evictW),
// floored at 0 (a larger weight only makes the budget safer).
func (e *Engine) evictWeight(slot int32, w float64) float64 {
	j := &e.jobs[slot]
	if !e.nl.track || e.parts == nil || e.nl.parts[j.part].sp == 0 {
		return w
	}
	return max(0, w-float64(j.procs)*e.nl.parts[j.part].sp)
}

// checkNodeLoad (Check, at the end of the run): every node's busy count is
// back to 0 and so is every partition's uplift.
func (e *Engine) checkNodeLoad() {
	nl := e.nl
	for i := range nl.parts {
		p := &nl.parts[i]
		if p.sp == 0 {
			continue
		}
		n := 0
		for _, b := range nl.busy[p.base : p.base+p.nodes] {
			if b != 0 {
				n++
			}
		}
		if n != 0 || p.free != p.nodes || p.busyProcs != 0 || math.Abs(p.upW) > 1e-6 {
			e.violate("partition %q: %d nodes still busy (%d counted free of %d, %d processors), uplift %v W after the last job ended",
				e.parts[i].Name, n, p.free, p.nodes, p.busyProcs, p.upW)
		}
	}
}
