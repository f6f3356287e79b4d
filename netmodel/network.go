package netmodel

import (
	"fmt"
	"math"
	"slices"
)

// Flow is one directed node-to-node transfer of a job.
type Flow struct{ Src, Dst int32 }

// JobFlows returns the representative concurrent flows of pattern pat among
// the ranks on nodes (rank i on nodes[i]): the bandwidth-heavy phase of each
// algorithm, bounded to at most six flows per rank so large jobs stay cheap.
//
//	p2p, allreduce, broadcast: ring i → i+1 (the large-message algorithms)
//	alltoall: shifts i → i+s for s ∈ {1, P/4, P/2, 3P/4} (a sample of the P−1 shifts)
//	halo3d: the six grid neighbours (fewer on grid axes of size 1 or 2)
func JobFlows(nodes []int32, pat Pattern) []Flow {
	P := len(nodes)
	if P < 2 || pat == NoComm {
		return nil
	}
	var out []Flow
	add := func(i, j int) {
		if nodes[i] != nodes[j] {
			out = append(out, Flow{nodes[i], nodes[j]})
		}
	}
	switch pat {
	case AllToAll:
		shifts := []int{1, P / 4, P / 2, 3 * P / 4}
		slices.Sort(shifts)
		shifts = slices.Compact(shifts)
		for _, s := range shifts {
			if s%P != 0 {
				for i := 0; i < P; i++ {
					add(i, (i+s)%P)
				}
			}
		}
	case Halo3D:
		g := factor3(P)
		dims := [3]int{g.x, g.y, g.z}
		for i := 0; i < P; i++ {
			for dir := 0; dir < 6; dir++ {
				if n := dims[dir/2]; n == 1 || (n == 2 && dir&1 == 1) {
					continue
				}
				add(i, partner(i, P, pHalo, dir, 0, g))
			}
		}
	default:
		for i := 0; i < P; i++ {
			add(i, (i+1)%P)
		}
	}
	return out
}

// Network holds the flows of running jobs and their max-min fair rates.
//
// Granularity: the flows of one job advance together (a bulk-synchronous
// step finishes when its slowest flow does), so each job is one variable x_j
// (its per-flow rate) that loads link l with a_jl = the number of its flows
// crossing l. Progressive filling then solves Σ_j a_jl·x_j ≤ c_l max-min
// fairly over jobs — flow-level max-min with each job's flows tied to one
// rate, the coflow form of SimGrid's LMM system. This keeps a recompute at
// O(R log R) for R = Σ_j (distinct links of j), instead of the total flow
// path length, which made thousand-node jobs cost seconds per event.
// Node links are links too, so each node's injection bandwidth is a cap.
//
// Add and Remove recompute only the connected component of jobs that share
// links with the job added or removed (max-min allocations of link-disjoint
// sets are independent), and report the jobs whose share changed.
//
// Private links: a link that carries one job only bounds that job at the
// constant c_l/a_jl (nothing else is ever subtracted from it), so each job
// keeps the minimum of those as priv, and the solver walks only links
// shared by two or more jobs — on HPC2N-sized jobs 60–93 % of the link
// entries are private. The solver's arithmetic is unchanged (min is exact
// whatever its order; the shared links see the same freezes in the same
// order), so the rates are bit-identical to walking every link; the test
// TestNetworkMatchesReference checks that against the former solver.
//
// Jobs live in a dense table (a map only translates ids at the API), with
// their link lists reused when a slot is reused, so the hot path does not
// allocate. Not safe for concurrent use.
type Network struct {
	t        *Topology
	idx      map[int32]int32 // job id → index in jobs
	jobs     []netJob
	free     []int32   // unused indices of jobs
	linkJobs [][]int32 // per link: indices of jobs with a flow on it
	count    []int32   // scratch: flows per global link while adding a job
	mm       mmScratch

	// component and recompute scratch, reused across calls
	linkStamp []uint32 // per link: stamp of the last component walk to mark it
	local     []int32  // per link: component-local index (valid when stamped)
	jobStamp  []uint32 // per job index: stamp of the last walk to reach it
	stamp     uint32
	queue     []int32
	comp      []int32
	changed   []int32
	route     []int32
	caps      []float64
	coef      []float64
	priv      []float64
	rates     []float64
	flat, off []int32
}

type netJob struct {
	id     int32
	links  []int32   // distinct links crossed, sorted
	load   []float64 // flows of the job on each of links
	shared []int32   // positions in links of the links other jobs use too
	alone  float64   // x_j with the job alone: min_l c_l / a_jl
	priv   float64   // min c_l / a_jl over the private links (+Inf: none)
	share  float64
	dirty  bool // shared and priv need recomputing (a link's sharing changed)
}

// NewNetwork returns an empty network on t.
func NewNetwork(t *Topology) *Network {
	L := len(t.links)
	return &Network{t: t, idx: map[int32]int32{}, linkJobs: make([][]int32, L),
		count: make([]int32, L), linkStamp: make([]uint32, L), local: make([]int32, L)}
}

// Share is the job's bandwidth share in (0,1]: its rate with all jobs over
// its rate alone on the network, so contention from other jobs only. 1 for
// unknown jobs and jobs without flows. Pass it to CommRatio or AppRatio.
func (n *Network) Share(job int32) float64 {
	if k, ok := n.idx[job]; ok {
		return n.jobs[k].share
	}
	return 1
}

// Len is the number of jobs in the network.
func (n *Network) Len() int { return len(n.idx) }

// AddJob is Add(job, JobFlows(nodes, pat)) after checking the nodes.
func (n *Network) AddJob(job int32, nodes []int32, pat Pattern) ([]int32, error) {
	if err := n.t.CheckNodes(nodes); err != nil {
		return nil, err
	}
	return n.Add(job, JobFlows(nodes, pat))
}

// Add routes the job's flows, recomputes the rates of the jobs it shares
// links with (transitively), and returns the ids of the jobs whose share
// changed, sorted, always including job itself. The returned slice is
// valid until the next Add or Remove.
func (n *Network) Add(job int32, flows []Flow) ([]int32, error) {
	if _, dup := n.idx[job]; dup {
		return nil, fmt.Errorf("netmodel: job %d is already in the network", job)
	}
	var k int32
	if f := len(n.free); f > 0 {
		k, n.free = n.free[f-1], n.free[:f-1]
	} else {
		k = int32(len(n.jobs))
		n.jobs = append(n.jobs, netJob{})
		n.jobStamp = append(n.jobStamp, 0)
	}
	j := &n.jobs[k]
	*j = netJob{id: job, links: j.links[:0], load: j.load[:0], shared: j.shared[:0], share: 1, alone: math.Inf(1)}
	for _, f := range flows {
		if f.Src < 0 || f.Src >= n.t.nodes || f.Dst < 0 || f.Dst >= n.t.nodes {
			for _, l := range j.links {
				n.count[l] = 0
			}
			n.free = append(n.free, k)
			return nil, fmt.Errorf("netmodel: job %d flow %d→%d: node out of range [0,%d)", job, f.Src, f.Dst, n.t.nodes)
		}
		n.route = n.t.Route(f.Src, f.Dst, n.route[:0])
		for _, l := range n.route {
			if n.count[l] == 0 {
				j.links = append(j.links, l)
			}
			n.count[l]++
		}
	}
	slices.Sort(j.links)
	for _, l := range j.links {
		load := float64(n.count[l])
		j.load = append(j.load, load)
		n.count[l] = 0
		j.alone = math.Min(j.alone, n.t.links[l].BW/load)
		if lj := n.linkJobs[l]; len(lj) == 1 {
			n.jobs[lj[0]].dirty = true // l was private to lj[0]
		}
		n.linkJobs[l] = append(n.linkJobs[l], k)
	}
	n.idx[job] = k
	j.dirty = true
	n.queue = append(n.queue[:0], k)
	changed := n.recompute(n.component(n.queue))
	if !slices.Contains(changed, job) {
		changed = append(changed, job)
		slices.Sort(changed)
	}
	n.changed = changed
	return changed, nil
}

// Remove deletes the job's flows and returns the ids of the remaining jobs
// whose share changed, sorted (valid until the next Add or Remove).
// Removing an unknown job is a no-op.
func (n *Network) Remove(job int32) []int32 {
	k, ok := n.idx[job]
	if !ok {
		return nil
	}
	delete(n.idx, job)
	n.free = append(n.free, k)
	j := &n.jobs[k]
	seeds := n.queue[:0]
	for _, l := range j.links {
		lj := n.linkJobs[l]
		if i := slices.Index(lj, k); i >= 0 {
			lj = slices.Delete(lj, i, i+1)
		}
		n.linkJobs[l] = lj
		if len(lj) == 1 {
			n.jobs[lj[0]].dirty = true // l is private to lj[0] now
		}
		seeds = append(seeds, lj...)
	}
	j.id = -1
	if len(seeds) == 0 {
		n.queue = seeds
		return nil
	}
	return n.recompute(n.component(seeds))
}

// component returns the job indices connected to seeds (job indices,
// duplicates allowed; the slice is used as the walk's queue) through shared
// links, sorted by job id. Each link's job list is scanned once.
func (n *Network) component(seeds []int32) []int32 {
	st := n.nextStamp()
	comp := n.comp[:0]
	queue := seeds
	for _, s := range seeds {
		if n.jobStamp[s] != st {
			n.jobStamp[s] = st
			comp = append(comp, s)
		}
	}
	queue = append(queue[:0], comp...)
	for len(queue) > 0 {
		k := queue[len(queue)-1]
		queue = queue[:len(queue)-1]
		j := &n.jobs[k]
		if j.dirty {
			n.classify(j)
		}
		for _, p := range j.shared {
			l := j.links[p]
			if n.linkStamp[l] == st {
				continue
			}
			n.linkStamp[l] = st
			for _, o := range n.linkJobs[l] {
				if n.jobStamp[o] != st {
					n.jobStamp[o] = st
					comp = append(comp, o)
					queue = append(queue, o)
				}
			}
		}
	}
	n.queue = queue
	slices.SortFunc(comp, func(a, b int32) int { return int(n.jobs[a].id) - int(n.jobs[b].id) })
	n.comp = comp
	return comp
}

// nextStamp returns a stamp no link or job carries yet.
func (n *Network) nextStamp() uint32 {
	n.stamp++
	if n.stamp == 0 { // wrapped: clear the stamps once every 2³² walks
		clear(n.linkStamp)
		clear(n.jobStamp)
		n.stamp = 1
	}
	return n.stamp
}

// classify recomputes which of j's links are shared and the bound of its
// private ones.
func (n *Network) classify(j *netJob) {
	j.shared = j.shared[:0]
	j.priv = math.Inf(1)
	for i, l := range j.links {
		if len(n.linkJobs[l]) > 1 {
			j.shared = append(j.shared, int32(i))
		} else {
			j.priv = math.Min(j.priv, n.t.links[l].BW/j.load[i])
		}
	}
	j.dirty = false
}

// recompute solves max-min over the component's jobs (indices sorted by
// id), updates shares and returns the ids of the jobs whose share changed.
func (n *Network) recompute(comp []int32) []int32 {
	caps, coef, flat, priv := n.caps[:0], n.coef[:0], n.flat[:0], n.priv[:0]
	off := append(n.off[:0], 0)
	st := n.nextStamp()
	for _, k := range comp {
		j := &n.jobs[k]
		for _, p := range j.shared {
			l := j.links[p]
			if n.linkStamp[l] != st { // first visit in this recompute
				n.linkStamp[l] = st
				n.local[l] = int32(len(caps))
				caps = append(caps, n.t.links[l].BW)
			}
			flat = append(flat, n.local[l])
			coef = append(coef, j.load[p])
		}
		off = append(off, int32(len(flat)))
		priv = append(priv, j.priv)
	}
	rates := resize(n.rates, len(comp))
	n.mm.solve(caps, off, flat, coef, priv, rates)
	n.caps, n.coef, n.flat, n.priv, n.off, n.rates = caps, coef, flat, priv, off, rates
	changed := n.changed[:0]
	for f, k := range comp {
		j := &n.jobs[k]
		share := 1.0
		if len(j.links) > 0 {
			share = math.Min(1, rates[f]/j.alone)
		}
		if math.Abs(share-j.share) > 1e-12*j.share {
			changed = append(changed, j.id)
		}
		j.share = share
	}
	n.changed = changed
	return changed
}
