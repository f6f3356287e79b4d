package cluster

// Gres is the placement of a shared-core partition whose nodes have GPUs,
// the way Slurm's select/cons_tres (CR_Core) places a job's cores and its
// gres/gpu per node:
//
//   - a job without GPUs (Alloc) is placed exactly as Contiguous places it
//     (the first free run that holds it, otherwise the lowest free
//     processors), wherever its cores fall;
//   - a job with GPUs (AllocNodes) asks for k nodes with perNode free cores
//     and gpus free GPUs each, and gets the first k such nodes in node
//     order, on each its perNode lowest free processors and gpus GPUs.
//
// It counts each node's free cores and free GPUs; the processor set is the
// contiguous placement's free list, so a run whose jobs ask for no GPUs
// places every job where Contiguous would. GPUs are counted, not named:
// which of a node's GPUs a job holds does not matter to the simulation.
type Gres struct {
	Contiguous
	cores, gpus int32   // per node
	freeCores   []int32 // per node
	freeGPUs    []int32 // per node
	gpuFree     int
	only        []bool // non-nil: FitsNodes and AllocNodes use only these nodes (Only)
}

var _ Allocator = (*Gres)(nil)

// NewGres returns the placement over procs processors in nodes of cores
// processors and gpus GPUs; procs must be a multiple of cores.
func NewGres(procs, cores, gpus int) *Gres {
	n := procs / cores
	g := &Gres{Contiguous: Contiguous{newFreeList(procs)}, cores: int32(cores), gpus: int32(gpus),
		freeCores: make([]int32, n), freeGPUs: make([]int32, n), gpuFree: n * gpus}
	for i := range n {
		g.freeCores[i], g.freeGPUs[i] = int32(cores), int32(gpus)
	}
	return g
}

// Nodes returns the number of nodes.
func (g *Gres) Nodes() int { return len(g.freeCores) }

// NodeFree returns node n's free cores and free GPUs.
func (g *Gres) NodeFree(n int) (cores, gpus int) { return int(g.freeCores[n]), int(g.freeGPUs[n]) }

// FreeGPUs returns the free GPUs of all nodes.
func (g *Gres) FreeGPUs() int { return g.gpuFree }

// PerNode returns the cores and GPUs of one node.
func (g *Gres) PerNode() (cores, gpus int) { return int(g.cores), int(g.gpus) }

// Alloc places a job of n processors without GPUs (as Contiguous).
func (g *Gres) Alloc(n int, dst []Range) ([]Range, bool) {
	before := len(dst)
	dst, ok := g.Contiguous.Alloc(n, dst)
	if ok {
		g.count(dst[before:], -1)
	}
	return dst, ok
}

// Release gives back a job's processors (a job without GPUs).
func (g *Gres) Release(rs []Range) {
	g.Contiguous.Release(rs)
	g.count(rs, 1)
}

// count adds sign × the processors of rs to their nodes' free cores.
func (g *Gres) count(rs []Range, sign int32) {
	for _, r := range rs {
		for lo := r.Lo; lo < r.Hi; {
			n := lo / g.cores
			hi := min(r.Hi, (n+1)*g.cores)
			g.freeCores[n] += sign * (hi - lo)
			lo = hi
		}
	}
}

// Only limits FitsNodes and AllocNodes to the nodes n with nodes[n] true
// (nil: every node), as Slurm's backfill starts a job on the nodes its plan
// chose; the caller clears it after the allocation.
func (g *Gres) Only(nodes []bool) { g.only = nodes }

// usable reports whether node n may take a GPU job (Only).
func (g *Gres) usable(n int) bool { return g.only == nil || g.only[n] }

// FitsNodes reports whether k nodes each have perNode free cores and gpus
// free GPUs.
func (g *Gres) FitsNodes(k, perNode, gpus int) bool {
	if k*gpus > g.gpuFree || k*perNode > g.free {
		return false
	}
	for n := range g.freeCores {
		if int(g.freeCores[n]) >= perNode && int(g.freeGPUs[n]) >= gpus && g.usable(n) {
			if k--; k == 0 {
				return true
			}
		}
	}
	return false
}

// AllocNodes places a job that needs k nodes of perNode cores and gpus
// GPUs each: the first k nodes that have them, on each its perNode lowest
// free processors. It appends the processors to dst in ascending order and
// reports false, changing nothing, when fewer than k nodes fit.
func (g *Gres) AllocNodes(k, perNode, gpus int, dst []Range) ([]Range, bool) {
	if k <= 0 || perNode <= 0 || perNode > int(g.cores) || gpus > int(g.gpus) || !g.FitsNodes(k, perNode, gpus) {
		return dst, false
	}
	for n := 0; k > 0; n++ {
		if int(g.freeCores[n]) < perNode || int(g.freeGPUs[n]) < gpus || !g.usable(n) {
			continue
		}
		k--
		dst = g.takeNode(int32(n)*g.cores, int32(n+1)*g.cores, int32(perNode), dst)
		g.freeCores[n] -= int32(perNode)
		g.freeGPUs[n] -= int32(gpus)
		g.gpuFree -= gpus
	}
	return dst, true
}

// ReleaseNodes gives back a job placed by AllocNodes: its processors rs
// and gpus GPUs on each node they touch.
func (g *Gres) ReleaseNodes(rs []Range, gpus int) {
	g.Release(rs)
	last := int32(-1)
	for _, r := range rs {
		for n := r.Lo / g.cores; n <= (r.Hi-1)/g.cores; n++ {
			if n != last {
				g.freeGPUs[n] += int32(gpus)
				g.gpuFree += gpus
				last = n
			}
		}
	}
}
