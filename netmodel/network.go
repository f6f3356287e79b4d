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
	return appendJobFlows(nil, nodes, pat)
}

// appendJobFlows appends JobFlows(nodes, pat) to out.
func appendJobFlows(out []Flow, nodes []int32, pat Pattern) []Flow {
	P := len(nodes)
	if P < 2 || pat == NoComm {
		return out
	}
	add := func(i, j int) {
		if nodes[i] != nodes[j] {
			out = append(out, Flow{nodes[i], nodes[j]})
		}
	}
	switch pat {
	case AllToAll:
		shifts := [...]int{1, P / 4, P / 2, 3 * P / 4}
		slices.Sort(shifts[:])
		for k, s := range shifts {
			if k > 0 && s == shifts[k-1] {
				continue // slices.Compact
			}
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
	free     []int32     // unused indices of jobs
	linkJobs [][]linkUse // per link: the jobs with a flow on it
	count    []int32     // scratch: flows per global link while adding a job
	mm       mmScratch
	cache    []routeEntry

	// component and recompute scratch, reused across calls
	linkStamp []uint32  // per link: stamp of the last component walk to mark it
	jobStamp  []uint32  // per job index: stamp of the last walk to reach it
	rem, lsum []float64 // per link: capacity left and Σ a_jl of unfrozen jobs (valid on the component's shared links)
	lvl       []float64 // per link: rem/lsum, +Inf once lsum is 0
	stamp     uint32
	queue     []int32
	comp      []int64 // id<<32 | index, sorted: the component in id order
	changed   []int32
	route     []int32
	flows     []Flow
	rates     []float64
}

type netJob struct {
	id     int32
	links  []int32   // distinct links crossed, in route order
	load   []float64 // flows of the job on each of links
	shared []int32   // the links of links that other jobs use too
	coef   []float64 // the job's load on each of shared
	alone  float64   // x_j with the job alone: min_l c_l / a_jl
	priv   float64   // min c_l / a_jl over the private links (+Inf: none)
	share  float64
	dirty  bool // shared, coef and priv need recomputing (a link's sharing changed)
}

// NewNetwork returns an empty network on t.
func NewNetwork(t *Topology) *Network {
	L := len(t.links)
	return &Network{t: t, idx: map[int32]int32{}, linkJobs: make([][]linkUse, L),
		count: make([]int32, L), linkStamp: make([]uint32, L), rem: make([]float64, L), lsum: make([]float64, L), lvl: make([]float64, L),
		cache: make([]routeEntry, routeCacheSize)}
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

// AddJob is Add(job, JobFlows(nodes, pat)) after checking the nodes. The
// links of recent placements are cached (direct-mapped by a hash of nodes
// and pat), so a job placed where an earlier one ran is not routed again.
func (n *Network) AddJob(job int32, nodes []int32, pat Pattern) ([]int32, error) {
	if _, dup := n.idx[job]; dup {
		return nil, fmt.Errorf("netmodel: job %d is already in the network", job)
	}
	h := uint64(14695981039346656037) ^ uint64(pat)
	for _, v := range nodes {
		h = (h ^ uint64(uint32(v))) * 1099511628211
	}
	e := &n.cache[h&(routeCacheSize-1)]
	if e.used && e.pat == pat && slices.Equal(e.nodes, nodes) {
		k := n.alloc(job)
		j := &n.jobs[k]
		j.links, j.load, j.alone = append(j.links, e.links...), append(j.load, e.load...), e.alone
		return n.insert(k), nil
	}
	if err := n.t.CheckNodes(nodes); err != nil {
		return nil, err
	}
	n.flows = appendJobFlows(n.flows[:0], nodes, pat)
	changed, err := n.Add(job, n.flows)
	if err == nil {
		j := &n.jobs[n.idx[job]]
		e.used, e.pat, e.alone = true, pat, j.alone
		e.nodes = append(e.nodes[:0], nodes...)
		e.links = append(e.links[:0], j.links...)
		e.load = append(e.load[:0], j.load...)
	}
	return changed, err
}

// routeEntry is the link set of one placement and pattern.
type routeEntry struct {
	used  bool
	pat   Pattern
	alone float64
	nodes []int32
	links []int32
	load  []float64
}

const routeCacheSize = 1 << 12 // placements, a power of two

// Add routes the job's flows, recomputes the rates of the jobs it shares
// links with (transitively), and returns the ids of the jobs whose share
// changed, sorted, always including job itself. The returned slice is
// valid until the next Add or Remove.
func (n *Network) Add(job int32, flows []Flow) ([]int32, error) {
	if _, dup := n.idx[job]; dup {
		return nil, fmt.Errorf("netmodel: job %d is already in the network", job)
	}
	k := n.alloc(job)
	j := &n.jobs[k]
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
	// The order of links does not matter: the solver takes minima (exact in
	// any order) and sums integer loads (exact in any order).
	for _, l := range j.links {
		load := float64(n.count[l])
		j.load = append(j.load, load)
		n.count[l] = 0
		j.alone = math.Min(j.alone, n.t.links[l].BW/load)
	}
	return n.insert(k), nil
}

// alloc takes a free entry of the job table for job, emptied but keeping
// its slices' capacity.
func (n *Network) alloc(job int32) int32 {
	var k int32
	if f := len(n.free); f > 0 {
		k, n.free = n.free[f-1], n.free[:f-1]
	} else {
		k = int32(len(n.jobs))
		n.jobs = append(n.jobs, netJob{})
		n.jobStamp = append(n.jobStamp, 0)
	}
	j := &n.jobs[k]
	*j = netJob{id: job, links: j.links[:0], load: j.load[:0], shared: j.shared[:0], coef: j.coef[:0], share: 1, alone: math.Inf(1)}
	return k
}

// insert puts job k, with its links, loads and alone set, on its links and
// recomputes its component; see Add.
func (n *Network) insert(k int32) []int32 {
	j := &n.jobs[k]
	for i, l := range j.links {
		if lj := n.linkJobs[l]; len(lj) == 1 {
			n.nowShared(lj[0], l)
		}
		n.linkJobs[l] = append(n.linkJobs[l], linkUse{k, int32(j.load[i])})
	}
	n.idx[j.id] = k
	j.dirty = true
	n.queue = append(n.queue[:0], k)
	changed := n.recompute(n.component(n.queue))
	if id := j.id; !slices.Contains(changed, id) {
		changed = append(changed, id)
		slices.Sort(changed)
	}
	n.changed = changed
	return changed
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
		for i, u := range lj {
			if u.k == k {
				lj = slices.Delete(lj, i, i+1)
				break
			}
		}
		n.linkJobs[l] = lj
		if len(lj) == 1 {
			n.nowPrivate(lj[0], l)
		}
		for _, u := range lj {
			seeds = append(seeds, u.k)
		}
	}
	j.id = -1
	if len(seeds) == 0 {
		n.queue = seeds
		return nil
	}
	return n.recompute(n.component(seeds))
}

// component returns the jobs connected to seeds (job indices, duplicates
// allowed; the slice is used as the walk's queue) through shared links, as
// id<<32|index sorted, so in id order. Each link's job list is scanned once.
func (n *Network) component(seeds []int32) []int64 {
	st := n.nextStamp()
	comp := n.comp[:0]
	queue := seeds
	for _, s := range seeds {
		if n.jobStamp[s] != st {
			n.jobStamp[s] = st
			comp = append(comp, int64(n.jobs[s].id)<<32|int64(s))
		}
	}
	queue = queue[:0]
	for _, c := range comp {
		queue = append(queue, int32(c))
	}
	for len(queue) > 0 {
		k := queue[len(queue)-1]
		queue = queue[:len(queue)-1]
		j := &n.jobs[k]
		if j.dirty {
			n.classify(j)
		}
		for _, l := range j.shared {
			if n.linkStamp[l] == st {
				continue
			}
			n.linkStamp[l] = st
			// The solver's start on l: every job on l is in the component,
			// so its load is their flow counts' sum (integers: exact in any
			// order), and its level rem/load.
			sum := 0.0
			for _, u := range n.linkJobs[l] {
				sum += float64(u.n)
				if o := u.k; n.jobStamp[o] != st {
					n.jobStamp[o] = st
					comp = append(comp, int64(n.jobs[o].id)<<32|int64(o))
					queue = append(queue, o)
				}
			}
			bw := n.t.links[l].BW
			n.rem[l], n.lsum[l], n.lvl[l] = bw, sum, bw/sum
		}
	}
	n.queue = queue
	slices.Sort(comp)
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
	j.shared, j.coef = j.shared[:0], j.coef[:0]
	j.priv = math.Inf(1)
	for i, l := range j.links {
		if len(n.linkJobs[l]) > 1 {
			j.shared = append(j.shared, l)
			j.coef = append(j.coef, j.load[i])
		} else if v := n.t.links[l].BW / j.load[i]; v < j.priv { // math.Min of positive values
			j.priv = v
		}
	}
	j.dirty = false
}

// linkUse is a job (index k) with n flows on a link.
type linkUse struct{ k, n int32 }

// nowShared updates job u.k when its private link l gains a second job: l
// joins its shared links, and priv is recomputed (by classify) only if l
// may have been its minimum.
func (n *Network) nowShared(u linkUse, l int32) {
	j := &n.jobs[u.k]
	if j.dirty {
		return
	}
	c := float64(u.n)
	j.shared, j.coef = append(j.shared, l), append(j.coef, c)
	if n.t.links[l].BW/c <= j.priv {
		j.dirty = true
	}
}

// nowPrivate updates job u.k when its shared link l is left to it alone: l
// leaves its shared links (order does not matter to the solver) and bounds
// priv.
func (n *Network) nowPrivate(u linkUse, l int32) {
	j := &n.jobs[u.k]
	if j.dirty {
		return
	}
	i := slices.Index(j.shared, l)
	last := len(j.shared) - 1
	j.shared[i], j.coef[i] = j.shared[last], j.coef[last]
	j.shared, j.coef = j.shared[:last], j.coef[:last]
	if v := n.t.links[l].BW / float64(u.n); v < j.priv {
		j.priv = v
	}
}

// recompute solves max-min over the component's jobs, updates shares and
// returns the ids of the jobs whose share changed.
func (n *Network) recompute(comp []int64) []int32 {
	rates := resize(n.rates, len(comp))
	n.solve(comp, rates)
	n.rates = rates
	changed := n.changed[:0]
	for f, c := range comp {
		j := &n.jobs[int32(c)]
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

// solve is mmScratch.solve (see there) for the component's jobs, variable f
// being job comp[f], on the jobs' shared links with their priv bounds,
// working in per-link arrays indexed by global link id instead of a
// flattened copy. Same operations in the same order, so the same rates.
func (n *Network) solve(comp []int64, rates []float64) {
	rem, lsum, lvl := n.rem, n.lsum, n.lvl // set on the shared links by component
	s := &n.mm
	s.heap = s.heap[:0]
	for f, c := range comp {
		j := &n.jobs[int32(c)]
		if len(j.shared) == 0 {
			rates[f] = j.priv // no shared link: nothing ever lowers its level
			continue
		}
		s.push(mmItem{levelOf(j.priv, j.shared, lvl), int32(f)})
	}
	for len(s.heap) > 0 {
		it := s.pop()
		f := it.link
		j := &n.jobs[int32(comp[f])]
		lv := levelOf(j.priv, j.shared, lvl)
		if lv > it.key*(1+1e-12) {
			s.push(mmItem{lv, f})
			continue
		}
		rates[f] = lv
		for i, l := range j.shared {
			c := j.coef[i]
			// math.Max(0, v) without the call: −0 and negatives give +0, NaN stays.
			if v := rem[l] - c*lv; v <= 0 {
				rem[l] = 0
			} else {
				rem[l] = v
			}
			lsum[l] -= c
			if d := lsum[l]; d > 0 {
				lvl[l] = rem[l] / d
			} else {
				lvl[l] = math.Inf(1) // no unfrozen job left: level skips it
			}
		}
	}
}

// levelOf is level with each link's rem/load read from lvl (+Inf where
// the load is 0), the same quotients level divides out.
func levelOf(lv float64, ls []int32, lvl []float64) float64 {
	for _, l := range ls {
		if v := lvl[l]; v < lv || v != v {
			lv = v
		}
	}
	return lv
}
