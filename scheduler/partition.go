package scheduler

import (
	"fmt"
	"math"
	"slices"

	"drsim/cluster"
	"drsim/workloads"
)

// Partitions (Config.Parts, from a machine file) split the machine into
// disjoint blocks of processors, each scheduled the way Slurm schedules a
// partition: one queue in priority order, each job against its own
// partition's nodes. With disjoint partitions that is the same as giving
// each partition its own wait queue, allocator, running list and policy
// instance and running the policy once per partition, in partition order.
//
// The policies (fcfs.go, easy.go, conservative.go) and the View read the
// engine's fields wq, runs, alloc, policy, changed, newFrom and total.
// Rather than add an indirection to that hot path, the engine keeps one
// partition's state bound in those fields and swaps it with bind: a pass
// binds each partition in turn, a job operation (submit, finish, re-time,
// evict) binds the job's partition, and a governor's Adjust binds the
// machine-wide pseudo-partition, whose running list holds every running
// job (every insert and removal is mirrored there) and whose allocator
// sums the free processors. Without partitions nothing is ever bound and
// the single-pool path is the one it always was.
//
// Limits of this version: node power saving, the network model and the
// topology placement need a single pool (New refuses them; the run refuses
// malleable jobs); the uniform governor divides the limit with
// Config.IdleW, not each partition's idle power. The dr governor is exact:
// Control.IdlePower and its eviction budget (allIdleW, gpuW) count each
// partition's idle draw and the jobs' GPU draw.

// Part is one partition of the machine.
type Part struct {
	Name      string
	Lo, Procs int     // its processors are [Lo, Lo+Procs)
	Cores     int     // processors per node
	GPUs      int     // GPUs per node
	Exclusive bool    // jobs get whole nodes (and all their GPUs)
	MaxTime   float64 // s; jobs requesting more are dropped; 0 = no limit
	IdleW     float64 // draw of one idle processor of its nodes, GPUs' idle share included (W); 0 = Config.IdleW
	GPUBusyW  float64 // draw of one busy GPU above its idle draw (W)
	StaticW   float64 // draw of an idle processor of a node with work, shared-core partitions (nodeload.go); 0 = IdleW
}

// partState is a partition's scheduling state; the bound one lives in the
// engine's own fields (bind).
type partState struct {
	Part
	wq      waitQueue
	runs    runList
	alloc   cluster.Allocator
	policy  Policy
	changed bool
	newFrom int
	checked *checkedAlloc
	done    PartStat          // finished jobs so far (PartStats)
	gres    *cluster.Gres     // a shared-core partition with GPUs that runs GPU jobs (gres.go); nil otherwise
	cons    *cluster.ConsTres // a shared-core partition without GPUs under slurm-backfill (slurmCores); nil otherwise
}

// PartStat sums a partition's finished jobs.
type PartStat struct {
	Name  string
	Procs int
	Jobs  int     // finished
	Wait  float64 // Σ waiting time of the finishing runs (s)
	Work  float64 // Σ processors × run time of the finishing runs (processor-s)
}

// PartStats returns each partition's sums (nil without partitions).
func (e *Engine) PartStats() []PartStat {
	if e.parts == nil {
		return nil
	}
	out := make([]PartStat, 0, len(e.parts)-1)
	for _, s := range e.parts[:len(e.parts)-1] {
		st := s.done
		st.Name, st.Procs = s.Name, s.Procs
		out = append(out, st)
	}
	return out
}

// partDone counts a job finishing now in its partition's sums.
func (e *Engine) partDone(j *job) {
	d := &e.parts[j.part].done
	d.Jobs++
	d.Wait += j.start - j.submit
	d.Work += float64(j.procs) * (e.now - j.start)
}

// Drop reasons of partitioned machines (indices into DropReasons).
const (
	dropNoPartition = 3 + iota
	dropPartitionSize
	dropNoGPUs
	dropGPUsShared
	dropPartitionTime
)

// initParts builds the partitions' allocators, queues and policies.
func (e *Engine) initParts() error {
	c := &e.cfg
	if c.PartOf == nil {
		return fmt.Errorf("scheduler: %d partitions but no PartOf rule", len(c.Parts))
	}
	switch {
	case c.SuspendAfter > 0:
		return fmt.Errorf("scheduler: node power saving (suspend_after) does not work with partitions yet")
	case c.Network != nil:
		return fmt.Errorf("scheduler: the network model does not work with partitions yet")
	case c.Placement == "topology":
		return fmt.Errorf("scheduler: the topology placement does not work with partitions yet")
	}
	end := 0
	for i, p := range c.Parts {
		switch {
		case p.Procs <= 0 || p.Cores <= 0 || p.Procs%p.Cores != 0 || p.GPUs < 0:
			return fmt.Errorf("scheduler: partition %q has %d processors in nodes of %d and %d GPUs per node", p.Name, p.Procs, p.Cores, p.GPUs)
		case p.Lo < end || p.Lo+p.Procs > c.Procs:
			return fmt.Errorf("scheduler: partition %q at processors [%d,%d) overlaps the one before or leaves the %d-processor machine", p.Name, p.Lo, p.Lo+p.Procs, c.Procs)
		case p.IdleW < 0 || p.GPUBusyW < 0 || math.IsNaN(p.IdleW+p.GPUBusyW) || math.IsInf(p.IdleW+p.GPUBusyW, 0):
			return fmt.Errorf("scheduler: partition %q has idle %v W per processor and %v W per busy GPU", p.Name, p.IdleW, p.GPUBusyW)
		}
		end = p.Lo + p.Procs
		unit, pc := 1, cluster.PlacementConfig{Procs: p.Procs, ProcsPerNode: p.Cores, Seed: c.Seed + uint64(i)}
		if p.Exclusive {
			unit, pc.Procs, pc.ProcsPerNode = p.Cores, p.Procs/p.Cores, 1
		}
		pc.Slow = e.procSlow(p.Lo, p.Procs, unit) // variability.go
		inner, err := cluster.Placements.New(defaultStr(c.Placement, "contiguous"), pc)
		if err != nil {
			return err
		}
		e.watchFactors(inner) // variability.go
		s := partState{Part: p, changed: true}
		if s.policy, err = Policies.New(defaultStr(c.Policy, "easy")); err != nil {
			return err
		}
		if gresRuns(&p, defaultStr(c.Placement, "contiguous"), s.policy.Name()) || slurmGres(&p, defaultStr(c.Placement, "contiguous"), s.policy.Name()) { // gres.go, slurmbf_nodes.go
			s.gres = cluster.NewGres(p.Procs, p.Cores, p.GPUs)
			inner = s.gres
		} else if slurmCores(&p, defaultStr(c.Placement, "contiguous"), s.policy.Name()) { // slurmbf_nodes.go
			s.cons = cluster.NewConsTres(p.Procs, p.Cores)
			inner = s.cons
		}
		s.alloc = &partAlloc{inner: inner, lo: int32(p.Lo), unit: int32(unit)}
		if e.cfg.Check {
			s.checked = newCheckedAlloc(e, s.alloc)
			s.checked.part(&s.Part, e.held())
			if s.gres != nil {
				s.checked.gresPart(s.gres)
			}
			s.alloc = s.checked
		}
		e.parts = append(e.parts, s)
	}
	// The machine-wide pseudo-partition, bound while governors run.
	e.parts = append(e.parts, partState{Part: Part{Name: "(machine)", Procs: c.Procs}, alloc: &machineAlloc{e}})
	if c.LimitPart != "" {
		e.scope = slices.IndexFunc(e.parts[:len(e.parts)-1], func(s partState) bool { return s.Name == c.LimitPart })
		if e.scope < 0 {
			return fmt.Errorf("scheduler: power limits apply to partition %q, which the machine does not have", c.LimitPart)
		}
	}
	e.cur = -1
	e.bind(0)
	e.policy = e.parts[0].policy
	return nil
}

// initLimitMeter gives a limited partition (Config.LimitPart) a meter of
// its own, all idle at t0.
func (e *Engine) initLimitMeter(t0 float64) {
	if e.scope < 0 {
		return
	}
	s := &e.parts[e.scope]
	e.lim = cluster.NewMeter(s.Procs, e.cfg.IdleW, t0)
	if s.IdleW > 0 {
		e.lim.ChangeIdle(float64(s.Procs) * (s.IdleW - e.cfg.IdleW))
	}
}

// bindGovernor binds what a governor's Adjust sees: the whole machine, or
// the limited partition alone.
func (e *Engine) bindGovernor() {
	if e.scope >= 0 {
		e.bind(e.scope)
		return
	}
	e.bind(len(e.parts) - 1)
}

// partMeter records a job's power change dw and processor change dp in
// what the meter needs besides Change: the idle power its processors stop
// (dp > 0) or start (dp < 0) drawing beyond Config.IdleW, and, in the
// limited partition, the limit's meter.
func (e *Engine) partMeter(j *job, dw float64, dp int) {
	adj := 0.0
	switch {
	case dp > 0:
		adj = -j.idleAdjW
	case dp < 0:
		adj = j.idleAdjW
	}
	if adj != 0 {
		e.meter.ChangeIdle(adj)
	}
	if e.lim != e.meter && int(j.part) == e.scope {
		e.lim.Change(dw, dp)
		if adj != 0 {
			e.lim.ChangeIdle(adj)
		}
	}
}

// LimitMeter returns the meter the power limit applies to: Meter, or the
// limited partition's (Config.LimitPart). Valid after Run.
func (e *Engine) LimitMeter() *cluster.Meter { return e.lim }

// held returns the processor ownership map shared by the partitions'
// checkers.
func (e *Engine) held() []bool {
	for _, s := range e.parts {
		if s.checked != nil {
			return s.checked.held
		}
	}
	return make([]bool, e.cfg.Procs)
}

// bind makes partition p the one the engine's fields hold and returns the
// one bound before. len(parts)-1 is the machine-wide pseudo-partition.
func (e *Engine) bind(p int) int {
	prev := e.cur
	if p == prev {
		return prev
	}
	if prev >= 0 {
		s := &e.parts[prev]
		s.wq, s.runs, s.alloc, s.policy, s.changed, s.newFrom = e.wq, e.runs, e.alloc, e.policy, e.changed, e.newFrom
	}
	s := &e.parts[p]
	e.wq, e.runs, e.alloc, e.policy, e.changed, e.newFrom, e.total = s.wq, s.runs, s.alloc, s.policy, s.changed, s.newFrom, s.Procs
	e.cur = p
	if e.scope >= 0 {
		e.powerAware = e.govAware && p == e.scope // the limit binds its partition only
	}
	return prev
}

// machineRuns returns the machine-wide running list (not bound: a job
// operation binds its partition first).
func (e *Engine) machineRuns() *runList { return &e.parts[len(e.parts)-1].runs }

// passParts runs the policy once per partition. Under a power-aware
// governor a start in one partition takes power headroom from the others,
// so every partition's pass starts as if something had changed.
func (e *Engine) passParts() {
	for p := range len(e.parts) - 1 {
		e.bind(p)
		if e.powerAware {
			e.changed = true
		}
		e.passPool()
	}
}

// route decides job w's partition and its size there in processors and
// GPUs (and, for a GPU job on a shared-core partition, its nodes: gres.go),
// or returns a drop reason (≥ 0).
func (e *Engine) route(w *workloads.Job) (part, procs, gpus, nodes, reason int) {
	p := e.cfg.PartOf(w)
	if p < 0 || p >= len(e.parts)-1 {
		return 0, 0, 0, 0, dropNoPartition
	}
	s := &e.parts[p].Part
	if s.MaxTime > 0 && w.ReqTime > s.MaxTime {
		return 0, 0, 0, 0, dropPartitionTime
	}
	procs, gpus = int(w.Procs), int(max(w.GPUs, 0))
	switch {
	case gpus > 0 && s.GPUs == 0:
		return 0, 0, 0, 0, dropNoGPUs
	case gpus > 0 && !s.Exclusive && e.parts[p].gres == nil:
		return 0, 0, 0, 0, dropGPUsShared
	case gpus > 0 && !s.Exclusive:
		nodes, per, gpn := gresSplit(int(w.Nodes), procs, gpus, s.Cores, s.GPUs) // gres.go
		if nodes > s.Procs/s.Cores {
			return 0, 0, 0, 0, dropPartitionSize
		}
		return p, nodes * per, nodes * gpn, nodes, -1
	case s.Exclusive:
		nodes := max(int(w.Nodes), ceilDiv(procs, s.Cores))
		if s.GPUs > 0 {
			nodes = max(nodes, ceilDiv(gpus, s.GPUs))
		}
		procs = nodes * s.Cores
	}
	if procs > s.Procs {
		return 0, 0, 0, 0, dropPartitionSize
	}
	return p, procs, gpus, 0, -1
}

func ceilDiv(a, b int) int { return (a + b - 1) / b }

// placeInPart fills the partition fields of a job just admitted to
// partition p with procs processors and gpus busy GPUs (on nodes nodes, a
// GPU job on a shared-core partition; 0 otherwise).
func (e *Engine) placeInPart(j *job, p, gpus, nodes int) {
	s := &e.parts[p].Part
	j.part = int32(p)
	if nodes > 0 {
		j.gresNodes, j.gresCores, j.gresGPUs = int32(nodes), int32(j.procs/nodes), int32(gpus/nodes)
	}
	if s.IdleW > 0 {
		j.idleAdjW = float64(j.procs) * (s.IdleW - e.cfg.IdleW)
	}
	j.gpuW = float64(gpus) * s.GPUBusyW
	j.extraW = j.idleAdjW + j.gpuW
}

// partIdleAdjW is Σ over the partitions' processors of their idle draw
// above Config.IdleW: the meter's idle adjustment when every processor is
// idle.
func (e *Engine) partIdleAdjW() float64 {
	w := 0.0
	for _, s := range e.parts[:len(e.parts)-1] {
		if s.IdleW > 0 {
			w += float64(s.Procs) * (s.IdleW - e.cfg.IdleW)
		}
	}
	return w
}

// machineBusy returns the busy processors and running jobs of the whole
// machine.
func (e *Engine) machineBusy() (busy, running int) {
	for i := range len(e.parts) - 1 {
		a := e.parts[i].alloc
		if i == e.cur {
			a = e.alloc
		}
		busy += a.Total() - a.Free()
	}
	if e.cur == len(e.parts)-1 {
		return busy, e.runs.Len()
	}
	return busy, e.machineRuns().Len()
}

// machineQueued returns the waiting jobs of every partition.
func (e *Engine) machineQueued() int {
	n := 0
	for i := range len(e.parts) - 1 {
		if i == e.cur {
			n += e.wq.Len()
		} else {
			n += e.parts[i].wq.Len()
		}
	}
	return n
}

// governorIdleW is Control.IdlePower on a partitioned machine: everything
// the governors' level choices do not change, i.e. the meter's power less
// Σ procs × level power over the running jobs, so that a governor that
// budgets Σ procs × level power ≤ limit − IdlePower stays under the limit
// whatever the partitions' idle and GPU draws.
func (e *Engine) governorIdleW() float64 {
	w := e.lim.NonJobW() // the limited partition's, bound in Adjust
	rl := e.machineRuns()
	if e.cur == len(e.parts)-1 || e.cur == e.scope {
		rl = &e.runs
	} else if e.scope >= 0 {
		rl = &e.parts[e.scope].runs
	}
	for _, b := range rl.blocks {
		for i := range b {
			w += e.jobs[b[i].slot].extraW
		}
	}
	return w
}

// partAlloc is a partition's allocator: a placement over the partition's
// nodes (whole-node partitions, one unit per node) or processors, shifted
// to the partition's place in the machine.
type partAlloc struct {
	inner    cluster.Allocator
	lo, unit int32
	tmp      []cluster.Range
}

func (a *partAlloc) Name() string { return a.inner.Name() }
func (a *partAlloc) Total() int   { return a.inner.Total() * int(a.unit) }
func (a *partAlloc) Free() int    { return a.inner.Free() * int(a.unit) }

func (a *partAlloc) Alloc(n int, dst []cluster.Range) ([]cluster.Range, bool) {
	if n%int(a.unit) != 0 {
		return dst, false
	}
	before := len(dst)
	dst, ok := a.inner.Alloc(n/int(a.unit), dst)
	for i := before; i < len(dst); i++ {
		dst[i] = cluster.Range{Lo: a.lo + dst[i].Lo*a.unit, Hi: a.lo + dst[i].Hi*a.unit}
	}
	return dst, ok
}

func (a *partAlloc) Release(rs []cluster.Range) {
	a.tmp = a.tmp[:0]
	for _, r := range rs {
		a.tmp = append(a.tmp, cluster.Range{Lo: (r.Lo - a.lo) / a.unit, Hi: (r.Hi - a.lo) / a.unit})
	}
	a.inner.Release(a.tmp)
}

// machineAlloc is the machine-wide pseudo-partition's allocator: it only
// counts.
type machineAlloc struct{ e *Engine }

func (m *machineAlloc) Name() string { return "machine" }
func (m *machineAlloc) Total() int   { return m.e.cfg.Procs }
func (m *machineAlloc) Free() int {
	busy, _ := m.e.machineBusy()
	return m.e.cfg.Procs - busy
}
func (m *machineAlloc) Alloc(int, []cluster.Range) ([]cluster.Range, bool) {
	panic("scheduler: a job started on the machine-wide pseudo-partition")
}
func (m *machineAlloc) Release([]cluster.Range) {
	panic("scheduler: a job released on the machine-wide pseudo-partition")
}

// partRunning mirrors a running-list change in the machine-wide list.
func (e *Engine) partRunning(op int, slot int32) {
	if e.cur == len(e.parts)-1 {
		panic("scheduler: running-list change while the machine-wide pseudo-partition is bound")
	}
	rl := e.machineRuns()
	j := &e.jobs[slot]
	switch op {
	case 0:
		rl.insert(e.runEntry(slot))
	case 1:
		if !rl.remove(j.estEnd, j.startSeq) {
			panic("scheduler: running job not in the machine-wide running list")
		}
	default:
		bi, o, ok := rl.find(j.estEnd, j.startSeq)
		if !ok {
			panic("scheduler: running job not in the machine-wide running list")
		}
		rl.set(bi, o, e.runEntry(slot))
	}
}

// PartNames returns the partitions' names in order (nil without
// partitions).
func (e *Engine) PartNames() []string {
	if e.parts == nil {
		return nil
	}
	names := make([]string, 0, len(e.parts)-1)
	for _, s := range e.parts[:len(e.parts)-1] {
		names = append(names, s.Name)
	}
	return slices.Clip(names)
}

// allIdleW is the power of the governed processors (the machine, or the
// limited partition) with every one of them idle, for the dr governor's
// eviction budget: procs × idle on a single pool, and with each
// partition's own idle draw on a partitioned machine. With it and each
// job's weight procs × (lowest − idle) + gpuW, the kept jobs' power at
// their lowest levels is exact whatever the partitions' idle and GPU draws.
func (e *Engine) allIdleW(idle float64) (w float64) {
	if e.nl != nil {
		defer func() { w += e.evictW() }() // nodeload.go
	}
	if e.parts == nil {
		return float64(e.cfg.Procs) * idle
	}
	procs, adj := e.cfg.Procs, e.partIdleAdjW()
	if e.scope >= 0 {
		s := &e.parts[e.scope]
		procs, adj = s.Procs, 0
		if s.IdleW > 0 {
			adj = float64(s.Procs) * (s.IdleW - e.cfg.IdleW)
		}
	}
	return float64(procs)*idle + adj
}
