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
// sets are independent), and report the jobs whose share changed. Not safe
// for concurrent use.
type Network struct {
	t        *Topology
	jobs     map[int32]*netJob
	linkJobs [][]int32 // per link: ids of jobs with a flow on it
	local    []int32   // scratch: global link → component-local index, −1
	count    []int32   // scratch: flows per global link while adding a job
	mm       mmScratch
	// recompute scratch, reused across calls
	caps, coef, rates []float64
	used, flat, off   []int32
}

type netJob struct {
	links []int32   // distinct links crossed, sorted
	load  []float64 // flows of the job on each of links
	alone float64   // x_j with the job alone: min_l c_l / a_jl
	share float64
}

// NewNetwork returns an empty network on t.
func NewNetwork(t *Topology) *Network {
	n := &Network{t: t, jobs: map[int32]*netJob{}, linkJobs: make([][]int32, len(t.links)),
		local: make([]int32, len(t.links)), count: make([]int32, len(t.links))}
	for i := range n.local {
		n.local[i] = -1
	}
	return n
}

// Share is the job's bandwidth share in (0,1]: its rate with all jobs over
// its rate alone on the network, so contention from other jobs only. 1 for
// unknown jobs and jobs without flows. Pass it to CommRatio or AppRatio.
func (n *Network) Share(job int32) float64 {
	if j, ok := n.jobs[job]; ok {
		return j.share
	}
	return 1
}

// Len is the number of jobs in the network.
func (n *Network) Len() int { return len(n.jobs) }

// AddJob is Add(job, JobFlows(nodes, pat)) after checking the nodes.
func (n *Network) AddJob(job int32, nodes []int32, pat Pattern) ([]int32, error) {
	if err := n.t.CheckNodes(nodes); err != nil {
		return nil, err
	}
	return n.Add(job, JobFlows(nodes, pat))
}

// Add routes the job's flows, recomputes the rates of the jobs it shares
// links with (transitively), and returns the ids of the jobs whose share
// changed, sorted, always including job itself.
func (n *Network) Add(job int32, flows []Flow) ([]int32, error) {
	if _, dup := n.jobs[job]; dup {
		return nil, fmt.Errorf("netmodel: job %d is already in the network", job)
	}
	j := &netJob{share: 1, alone: math.Inf(1)}
	var buf []int32
	for _, f := range flows {
		if f.Src < 0 || f.Src >= n.t.nodes || f.Dst < 0 || f.Dst >= n.t.nodes {
			for _, l := range j.links {
				n.count[l] = 0
			}
			return nil, fmt.Errorf("netmodel: job %d flow %d→%d: node out of range [0,%d)", job, f.Src, f.Dst, n.t.nodes)
		}
		buf = n.t.Route(f.Src, f.Dst, buf[:0])
		for _, l := range buf {
			if n.count[l] == 0 {
				j.links = append(j.links, l)
			}
			n.count[l]++
		}
	}
	slices.Sort(j.links)
	j.load = make([]float64, len(j.links))
	for i, l := range j.links {
		j.load[i] = float64(n.count[l])
		n.count[l] = 0
		j.alone = math.Min(j.alone, n.t.links[l].BW/j.load[i])
	}
	n.jobs[job] = j
	for _, l := range j.links {
		n.linkJobs[l] = append(n.linkJobs[l], job)
	}
	changed := n.recompute(n.component([]int32{job}))
	if !slices.Contains(changed, job) {
		changed = append(changed, job)
		slices.Sort(changed)
	}
	return changed, nil
}

// Remove deletes the job's flows and returns the ids of the remaining jobs
// whose share changed, sorted. Removing an unknown job is a no-op.
func (n *Network) Remove(job int32) []int32 {
	j, ok := n.jobs[job]
	if !ok {
		return nil
	}
	delete(n.jobs, job)
	var seeds []int32
	for _, l := range j.links {
		lj := n.linkJobs[l]
		if i := slices.Index(lj, job); i >= 0 {
			lj = slices.Delete(lj, i, i+1)
		}
		n.linkJobs[l] = lj
		seeds = append(seeds, lj...)
	}
	slices.Sort(seeds)
	return n.recompute(n.component(slices.Compact(seeds)))
}

// component returns the sorted ids of jobs connected to seeds through shared
// links. Each link's job list is scanned once (links are marked through the
// local scratch array, which is restored before returning).
func (n *Network) component(seeds []int32) []int32 {
	seen := make(map[int32]bool, len(seeds))
	queue := append([]int32(nil), seeds...)
	for _, s := range seeds {
		seen[s] = true
	}
	var marked []int32
	for len(queue) > 0 {
		id := queue[len(queue)-1]
		queue = queue[:len(queue)-1]
		for _, l := range n.jobs[id].links {
			if n.local[l] == -2 {
				continue
			}
			n.local[l] = -2
			marked = append(marked, l)
			for _, o := range n.linkJobs[l] {
				if !seen[o] {
					seen[o] = true
					queue = append(queue, o)
				}
			}
		}
	}
	for _, l := range marked {
		n.local[l] = -1
	}
	comp := make([]int32, 0, len(seen))
	for id := range seen {
		comp = append(comp, id)
	}
	slices.Sort(comp)
	return comp
}

// recompute solves max-min over the component's jobs, updates shares and
// returns the jobs whose share changed.
func (n *Network) recompute(comp []int32) []int32 {
	if len(comp) == 0 {
		return nil
	}
	caps, coef, used, flat := n.caps[:0], n.coef[:0], n.used[:0], n.flat[:0]
	off := append(n.off[:0], 0)
	for _, id := range comp {
		j := n.jobs[id]
		for i, l := range j.links {
			if n.local[l] < 0 {
				n.local[l] = int32(len(caps))
				caps = append(caps, n.t.links[l].BW)
				used = append(used, l)
			}
			flat = append(flat, n.local[l])
			coef = append(coef, j.load[i])
		}
		off = append(off, int32(len(flat)))
	}
	for _, l := range used {
		n.local[l] = -1
	}
	rates := resize(n.rates, len(comp))
	n.mm.solve(caps, off, flat, coef, rates)
	n.caps, n.coef, n.used, n.flat, n.off, n.rates = caps, coef, used, flat, off, rates
	var changed []int32
	for k, id := range comp {
		j := n.jobs[id]
		share := 1.0
		if len(j.links) > 0 {
			share = math.Min(1, rates[k]/j.alone)
		}
		if math.Abs(share-j.share) > 1e-12*j.share {
			changed = append(changed, id)
		}
		j.share = share
	}
	return changed
}
