package scheduler

import (
	"math"

	"drsim/cluster"
)

// GPU jobs on shared-core partitions (docs/machine.md, "Allocation"). A
// partition that shares its nodes by core and whose nodes have GPUs
// places jobs with cluster.Gres: per node, both cores and GPUs, as Slurm's
// select/cons_tres places gres/gpu. A job asking for G GPUs and N
// processors on K nodes (sacct NNodes; SWF: 0) runs on
//
//	nodes = max(K, ⌈N / cores⌉, ⌈G / GPUs per node⌉)
//
// nodes, each with ⌈N / nodes⌉ of its cores and ⌈G / nodes⌉ of its GPUs
// (sacct's AllocTRES cpu=2,node=2,gres/gpu=4 is 1 core and 2 GPUs on each
// of 2 nodes); its size in jobs.csv is nodes × ⌈N / nodes⌉ and it holds
// nodes × ⌈G / nodes⌉ GPUs. Jobs without GPUs take cores anywhere, placed
// as the contiguous placement places them.
//
// The fit tests count GPUs: View.Fits asks the placement for nodes with
// enough free cores and GPUs, and EASY's head reservation, when the head
// needs GPUs, is the earliest estimated end at which, releasing the
// running jobs' cores and GPUs node by node, enough nodes have both
// (gresShadow); a job backfilled past that time must leave the head
// fitting on the nodes free then (gresKeeps). fcfs and easy run GPU jobs
// this way, and slurm-backfill (slurmGres: its node plan counts GPUs); under
// conservative (its profile counts processors only), or with a placement
// other than contiguous, such jobs are dropped
// with the reason "GPUs in a shared-core partition", as before.
//
// A GPU job's GPUs draw Part.GPUBusyW each above idle while it runs (a
// constant draw, counted as its GPU energy by gpu.go), its cores the CPU
// level of its application: the GPU pair tables (docs/gpu-dr.md) model a
// job on whole nodes.

// gresRuns reports whether partition p places GPU jobs per node (a
// shared-core partition with GPUs, under a placement and policy that
// support it).
func gresRuns(p *Part, placement, policy string) bool {
	return !p.Exclusive && p.GPUs > 0 && placement == "contiguous" && (policy == "fcfs" || policy == "easy")
}

// gresSplit returns the nodes of a job asking for procs processors and
// gpus GPUs on reqNodes nodes (0: as few as fit) of cores cores and gpn
// GPUs each, and its cores and GPUs per node.
func gresSplit(reqNodes, procs, gpus, cores, gpn int) (nodes, perNode, gpusPerNode int) {
	nodes = max(reqNodes, ceilDiv(procs, cores), ceilDiv(gpus, gpn), 1)
	return nodes, ceilDiv(procs, nodes), ceilDiv(gpus, nodes)
}

// gresAlloc is an allocator that places GPU jobs per node: partAlloc over
// a cluster.Gres, and the checker around it.
type gresAlloc interface {
	AllocNodes(k, perNode, gpus int, dst []cluster.Range) ([]cluster.Range, bool)
	ReleaseNodes(rs []cluster.Range, gpus int)
}

// allocGres allocates GPU job j on the bound partition.
func (e *Engine) allocGres(j *job) ([]cluster.Range, bool) {
	return e.alloc.(gresAlloc).AllocNodes(int(j.gresNodes), int(j.gresCores), int(j.gresGPUs), j.alloc[:0])
}

// release gives back job j's processors (and a GPU job's GPUs).
func (e *Engine) release(j *job) {
	if j.gresNodes > 0 {
		e.alloc.(gresAlloc).ReleaseNodes(j.alloc, int(j.gresGPUs))
		return
	}
	e.alloc.Release(j.alloc)
}

func (a *partAlloc) AllocNodes(k, perNode, gpus int, dst []cluster.Range) ([]cluster.Range, bool) {
	before := len(dst)
	dst, ok := a.inner.(*cluster.Gres).AllocNodes(k, perNode, gpus, dst)
	for i := before; i < len(dst); i++ {
		dst[i] = cluster.Range{Lo: a.lo + dst[i].Lo, Hi: a.lo + dst[i].Hi}
	}
	return dst, ok
}

func (a *partAlloc) ReleaseNodes(rs []cluster.Range, gpus int) {
	a.tmp = a.tmp[:0]
	for _, r := range rs {
		a.tmp = append(a.tmp, cluster.Range{Lo: r.Lo - a.lo, Hi: r.Hi - a.lo})
	}
	a.inner.(*cluster.Gres).ReleaseNodes(a.tmp, gpus)
}

// gresFits reports whether GPU job j fits the bound partition's free
// nodes now.
func (e *Engine) gresFits(j *job) bool {
	return e.parts[e.cur].gres.FitsNodes(int(j.gresNodes), int(j.gresCores), int(j.gresGPUs))
}

// gresState is EASY's picture of a shared-core GPU partition at the head's
// shadow time: each node's free cores and GPUs, and how many nodes have
// what the head needs on each.
type gresState struct {
	on                  bool // the pass's head needs GPUs on a shared-core partition
	cores, gpus         []int32
	k, per, gpn, good   int
	use                 []cluster.Range // scratch: a candidate's trial placement
	lo                  int32           // the partition's first processor
	nodeCores, nodeGPUs int32
}

// fitsNode reports whether node n has what the head needs.
func (s *gresState) fitsNode(n int32) bool {
	return int(s.cores[n]) >= s.per && int(s.gpus[n]) >= s.gpn
}

// add adds sign × (the processors rs, gpus GPUs on each node they touch)
// to the free state, keeping good.
func (s *gresState) add(rs []cluster.Range, gpus, sign int32) {
	last := int32(-1)
	for _, r := range rs {
		for lo := r.Lo - s.lo; lo < r.Hi-s.lo; {
			n := lo / s.nodeCores
			hi := min(r.Hi-s.lo, (n+1)*s.nodeCores)
			was := s.fitsNode(n)
			s.cores[n] += sign * (hi - lo)
			if n != last {
				s.gpus[n] += sign * gpus
				last = n
			}
			if now := s.fitsNode(n); now != was {
				if now {
					s.good++
				} else {
					s.good--
				}
			}
			lo = hi
		}
	}
}

// gresHead reports whether queue position head is a GPU job on a
// shared-core partition (its reservation then needs gresShadow).
func (v *View) gresHead(head int) bool {
	e := v.e
	return e.parts != nil && e.jobs[e.wq.slots[head]].gresNodes > 0
}

// gresShadow is shadowTime (easy.go) for a head that needs GPUs on a
// shared-core partition: the earliest estimated end at which, releasing
// the running jobs' cores and GPUs on their nodes, enough nodes have the
// head's cores and GPUs and needW watts fit under the limit in force. It
// keeps the free state at that time for gresKeeps. extra is the free
// processors then beyond the head's, an upper bound for backfill.
func (v *View) gresShadow(head int, needW float64) (shadow float64, extra int, extraW float64) {
	e, s := v.e, &v.gres
	g, h := e.parts[e.cur].gres, &e.jobs[e.wq.slots[head]]
	n := g.Nodes()
	if cap(s.cores) < n {
		s.cores, s.gpus = make([]int32, n), make([]int32, n)
	}
	s.cores, s.gpus = s.cores[:n], s.gpus[:n]
	c, gp := g.PerNode()
	s.on, s.k, s.per, s.gpn, s.good = true, int(h.gresNodes), int(h.gresCores), int(h.gresGPUs), 0
	s.lo, s.nodeCores = int32(e.parts[e.cur].Lo), int32(c)
	s.nodeGPUs = int32(gp)
	for i := range n {
		fc, fg := g.NodeFree(i)
		s.cores[i], s.gpus[i] = int32(fc), int32(fg)
		if s.fitsNode(int32(i)) {
			s.good++
		}
	}
	avail, room, now := v.Free(), v.PowerHeadroom(), v.Now
	shadow = now
	short := s.good < s.k || !powerOK(needW, room)
walk:
	for _, b := range e.runs.blocks {
		for i := range b {
			r := &b[i]
			end := max(r.estEnd, now)
			if !short && end > shadow {
				break walk // jobs estimated to end at the shadow time itself release too
			}
			j := &e.jobs[r.slot]
			s.add(j.alloc, j.gresGPUs, 1)
			avail += int(r.procs)
			room += r.power
			if short {
				shadow = end
				short = s.good < s.k || !powerOK(needW, room)
			}
		}
	}
	if short {
		s.on = false // never fits under the limit in force: no reservation
		return math.Inf(1), 0, 0
	}
	return shadow, avail - s.k*s.per, room - needW
}

// gresKeeps reports whether starting Job(i) now, to run past the head's
// shadow time, leaves the head fitting on the nodes free then; if so the
// job's cores and GPUs are taken from that state (the caller starts it).
// Without a GPU head it is always true: the processor count decides.
func (v *View) gresKeeps(i int) bool {
	s := &v.gres
	if !s.on {
		return true
	}
	e := v.e
	g, j := e.parts[e.cur].gres, &e.jobs[e.wq.slots[i]]
	// Where the job would go now: the placement is deterministic, so a
	// trial allocation released at once is where Start puts it.
	var ok bool
	if j.gresNodes > 0 {
		s.use, ok = g.AllocNodes(int(j.gresNodes), int(j.gresCores), int(j.gresGPUs), s.use[:0])
		if ok {
			g.ReleaseNodes(s.use, int(j.gresGPUs))
		}
	} else {
		s.use, ok = g.Alloc(j.procs, s.use[:0])
		if ok {
			g.Release(s.use)
		}
	}
	if !ok {
		return false
	}
	for k := range s.use { // partition-relative to machine processors, as add expects
		s.use[k].Lo += s.lo
		s.use[k].Hi += s.lo
	}
	s.add(s.use, j.gresGPUs, -1)
	if s.good < s.k {
		s.add(s.use, j.gresGPUs, 1)
		return false
	}
	return true
}
