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
		// Rank i = x + gx·(y + gy·z) of the grid walked in rank order, its
		// neighbours +x, −x, +y, −y, +z, −z (partner's pHalo directions
		// 0…5, a minus left out on an axis of 2, both on an axis of 1)
		// found from the coordinates kept, without partner's divisions.
		g := factor3(P)
		gx, gy, gz := g.x, g.y, g.z
		sy, sz := gx, gx*gy // rank strides of y and z
		i := 0
		for z := 0; z < gz; z++ {
			for y := 0; y < gy; y++ {
				for x := 0; x < gx; x++ {
					if gx > 1 {
						add(i, i-x+wrap(x+1, gx))
						if gx > 2 {
							add(i, i-x+wrap(x-1, gx))
						}
					}
					if gy > 1 {
						add(i, i+sy*(wrap(y+1, gy)-y))
						if gy > 2 {
							add(i, i+sy*(wrap(y-1, gy)-y))
						}
					}
					if gz > 1 {
						add(i, i+sz*(wrap(z+1, gz)-z))
						if gz > 2 {
							add(i, i+sz*(wrap(z-1, gz)-z))
						}
					}
					i++
				}
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
// sets are independent), and report the jobs whose share changed. The
// components are kept between calls (netcomp.go): an add joins the
// components of the jobs on the new job's shared links without walking
// them, and a remove learns how its component split from a union-find that
// the solve of the rest of the component builds in its first pass.
//
// Why solves are not skipped: a job's ratio is re-priced when a solve moves
// its share by more than 1e-12 relative, so which jobs are re-priced
// depends on every intermediate solve, not only on the last (sub-1e-12
// moves do occur: hundreds per run on each trace); merging a remove's solve
// into the next add's would change which jobs are re-priced. What is cut
// instead is the work per solve, and the solves that provably move no
// rate by a rounding (netskip.go: k's shared links have room above every
// rate on them; a remove then solves nothing, an add only k, when its rate
// follows from the others').
//
// Slack links: a shared link whose starting level is above the rate alone
// of each of its jobs never bounds one (netslack.go); it is left out of the
// jobs' shared lists, so fills and components follow the tight links only.
// Shadowed links: a tight link whose jobs and flows another listed link of
// no more bandwidth carries too is never below that link's level
// (netshadow.go); it is left out as well.
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
// Jobs live in a dense table (jobIndex only translates ids at the API), with
// their link lists reused when a slot is reused, so the hot path does not
// allocate. Not safe for concurrent use.
type Network struct {
	t      *Topology
	finite bool     // every link bandwidth is finite: no level is ever NaN (netsolve.go)
	idx    jobIndex // job id → index in jobs (netindex.go)
	jobs   []netJob
	free   []int32 // unused indices of jobs
	// Links are numbered densely in the order the network first routes
	// over them (dense maps a topology link to that number, −1: not yet),
	// and every per-link array below is indexed by that number: a machine
	// that uses a corner of a large topology keeps its working set small.
	dense    []int32
	glink    []int32     // per link: its topology link (dense's inverse)
	links    []netLink   // per link: capacity, load and the solve's state
	amax     []float64   // per shared link: at least the largest rate alone of its jobs (netslack.go)
	tight    []bool      // per link: shared and not slack (netslack.go), so on its jobs' shared lists unless shadowed
	shadow   []int32     // per link: 1 + the link that dominates it (netshadow.go), 0: none
	lvl      []float64   // per link: the solve's level rem/lsum (valid as links[l].rem)
	linkJobs [][]linkUse // per link: the jobs with a flow on it, in no particular order
	count    []int32     // scratch: flows per topology link while adding a job
	cache    []routeEntry
	// cacheBytes is the memory of the cache entries' lists (routeEntry.bytes).
	cacheBytes int

	// components (netcomp.go): members of each, id<<32 | index sorted
	comps    [][]int64
	freeComp []int32
	loose    []bool // per component: maybe not connected (a remove that skipped its solve)
	skipped  [2]int // solves skipped (netskip.go): adds, removes
	undone   int    // remove solves undone (netundo.go)
	solves   uint32 // stamp of the last solve (netundo.go)

	// walk and solve scratch, reused across calls (netsolve.go)
	compStamp []uint32 // per component: stamp of the last join to reach it
	stamp     uint32
	mm        mmScratch
	uf        []int32     // per solve index: union-find parent (remove solves)
	classes   int         // the number of union-find classes after a remove solve
	pieceComp []int32     // per solve index of a class root: the class's component
	pieces    []int32     // scratch: component ids an add joins
	pairs     []pairLink  // scratch: an add's links turned shared by two jobs (netshadow.go)
	joined    []pairLink  // scratch: shadowed links an add joins, u.k their dominator (netshadow.go)
	pclass    []pairClass // scratch: rejoin's classes
	ptab      []pairSlot  // scratch: listPairs' classes, by hash
	pst       uint32      // stamp of listPairs' last call
	changed   []int32
	route     []int32
	flows     []Flow
	rates     []float64
}

type netJob struct {
	id     int32
	comp   int32   // its component
	links  []int32 // distinct links crossed (dense numbers), in route order
	load   []int32 // flows of the job on each of links
	shared []int32 // the links of links that other jobs use too, tight ones only (netslack.go)
	coef   []int32 // the job's load on each of shared
	alone  float64 // x_j with the job alone: min_l c_l / a_jl
	priv   float64 // min c_l / a_jl over the private links (+Inf: none)
	privN  int32   // the private links whose c_l / a_jl is priv
	rate   float64 // x_j of the last solve that included the job (netskip.go)
	prev   float64 // x_j before that solve (netundo.go)
	solved uint32  // stamp of that solve (netundo.go)
	undo   uint32  // stamp of the job's add solve when a remove may undo it, else 0 (netundo.go)
	usize  int32   // the jobs of that solve
	share  float64
	dirty  bool // shared, coef and priv need recomputing (a link's sharing changed)
}

// NewNetwork returns an empty network on t.
func NewNetwork(t *Topology) *Network {
	dense := make([]int32, len(t.links))
	for i := range dense {
		dense[i] = -1
	}
	finite := true
	for _, l := range t.links {
		finite = finite && !math.IsInf(l.BW, 0) && !math.IsNaN(l.BW)
	}
	return &Network{t: t, dense: dense, count: make([]int32, len(t.links)), cache: make([]routeEntry, routeCacheSize), finite: finite}
}

// denseOf returns the dense number of topology link l, numbering it on
// first sight.
func (n *Network) denseOf(l int32) int32 {
	if d := n.dense[l]; d >= 0 {
		return d
	}
	return n.newDense(l)
}

// newDense numbers topology link l, not numbered yet: denseOf's rare
// path, a call of its own so that denseOf inlines.
//
//go:noinline
func (n *Network) newDense(l int32) int32 {
	d := int32(len(n.links))
	n.dense[l] = d
	n.links = append(n.links, netLink{bw: n.t.links[l].BW})
	n.lvl = append(n.lvl, 0)
	n.glink = append(n.glink, l)
	n.amax = append(n.amax, 0)
	n.tight = append(n.tight, false)
	n.shadow = append(n.shadow, 0)
	n.linkJobs = append(n.linkJobs, nil)
	return d
}

// Share is the job's bandwidth share in (0,1]: its rate with all jobs over
// its rate alone on the network, so contention from other jobs only. 1 for
// unknown jobs and jobs without flows. Pass it to CommRatio or AppRatio.
func (n *Network) Share(job int32) float64 {
	if k, ok := n.idx.get(job); ok {
		return n.jobs[k].share
	}
	return 1
}

// Len is the number of jobs in the network.
func (n *Network) Len() int { return n.idx.len() }

// AddJob is Add(job, JobFlows(nodes, pat)) after checking the nodes. The
// links of recent placements are cached by canonical form and pattern
// (direct-mapped by a hash of both), so a job placed where an earlier one
// ran, or on a translate of its placement (Topology.Canonical), is not
// routed again: the cached links are moved to its corner.
func (n *Network) AddJob(job int32, nodes []int32, pat Pattern) ([]int32, error) {
	if _, dup := n.idx.get(job); dup {
		return nil, fmt.Errorf("netmodel: job %d is already in the network", job)
	}
	if err := n.t.CheckNodes(nodes); err != nil {
		return nil, err
	}
	var lo uint64
	var shift int32
	if len(nodes) > 0 {
		lo, shift = n.t.corner(nodes)
	}
	h := uint64(14695981039346656037) ^ uint64(pat)
	for _, v := range nodes {
		h = (h ^ uint64(uint32(v-shift))) * 1099511628211
	}
	e := &n.cache[h&(routeCacheSize-1)]
	if e.used && e.pat == pat && sameShifted(e.nodes, nodes, shift) {
		k := n.alloc(job)
		j := &n.jobs[k]
		if e.lo != lo {
			// A translate: Add would route the translated flows, whose
			// links are the cached ones moved, first seen in the same
			// order, with the same loads (and bandwidths, so alone).
			n.t.moveLinks(e.glinks, e.lo, lo)
			e.lo = lo
			for i, gl := range e.glinks {
				e.links[i] = n.denseOf(gl)
			}
		}
		j.links, j.load, j.alone = append(j.links, e.links...), append(j.load, e.load...), e.alone
		return n.insert(k), nil
	}
	n.flows = appendJobFlows(n.flows[:0], nodes, pat)
	// The flows join checked nodes: Add's check is left out.
	k := n.alloc(job)
	changed := n.route1(k, n.flows)
	j := &n.jobs[k]
	// The cache holds at most routeCacheBytes of node and link lists: a
	// placement that would take it past that is not kept (and the entry
	// it would replace is let go), so a large machine's many large
	// placements do not hold hundreds of MB (CEA-Curie in nodes of 16
	// on hopper: 522 → 287 MB of peak RSS, the same time).
	old := e.bytes()
	lists := 2 // links and load
	if n.t.translates() {
		lists = 3 // and glinks
	}
	if n.cacheBytes-old+4*(len(nodes)+lists*len(j.links)) > routeCacheBytes {
		n.dropRoute(e) // what would replace it would not fit
		return changed, nil
	}
	e.used, e.pat, e.alone, e.lo = true, pat, j.alone, lo
	e.nodes = slices.Grow(e.nodes[:0], len(nodes))[:len(nodes)]
	for i, v := range nodes {
		e.nodes[i] = v - shift
	}
	e.links = append(e.links[:0], j.links...)
	if n.t.translates() { // else no hit moves the links
		// route1 counted the topology links into n.route
		// (torus.countFlows), in j.links' order: they are j.links before
		// the dense numbering.
		e.glinks = append(e.glinks[:0], n.route...)
	}
	e.load = append(e.load[:0], j.load...)
	if n.cacheBytes += e.bytes() - old; n.cacheBytes > routeCacheBytes {
		n.dropRoute(e) // the lists' capacities took it over
	}
	return changed, nil
}

// dropRoute empties route cache entry e, counted in cacheBytes, and lets
// its lists go.
func (n *Network) dropRoute(e *routeEntry) {
	n.cacheBytes -= e.bytes()
	*e = routeEntry{}
}

// bytes is the memory of the entry's lists (their capacities).
func (e *routeEntry) bytes() int {
	return 4 * (cap(e.nodes) + cap(e.links) + cap(e.glinks) + cap(e.load))
}

// routeCacheBytes bounds the memory of the route cache's lists (a
// variable for tests).
var routeCacheBytes = 32 << 20

// sameShifted reports whether canon is nodes less shift, node by node.
func sameShifted(canon, nodes []int32, shift int32) bool {
	if shift == 0 || len(canon) != len(nodes) {
		return slices.Equal(canon, nodes) // a vector compare (always, off tori)
	}
	for i, v := range nodes {
		if canon[i] != v-shift {
			return false
		}
	}
	return true
}

// routeEntry is the link set of one placement's canonical form and a
// pattern, as routed on the translate with corner lo.
type routeEntry struct {
	used   bool
	pat    Pattern
	alone  float64
	lo     uint64  // the corner of the translate links and glinks are of
	nodes  []int32 // the canonical form
	links  []int32 // dense numbers of glinks
	glinks []int32 // topology links
	load   []int32
}

const routeCacheSize = 1 << 12 // placements, a power of two

// Add routes the job's flows, recomputes the rates of the jobs it shares
// links with (transitively), and returns the ids of the jobs whose share
// changed, sorted, always including job itself. The returned slice is
// valid until the next Add or Remove.
func (n *Network) Add(job int32, flows []Flow) ([]int32, error) {
	if _, dup := n.idx.get(job); dup {
		return nil, fmt.Errorf("netmodel: job %d is already in the network", job)
	}
	for _, f := range flows {
		if f.Src < 0 || f.Src >= n.t.nodes || f.Dst < 0 || f.Dst >= n.t.nodes {
			return nil, fmt.Errorf("netmodel: job %d flow %d→%d: node out of range [0,%d)", job, f.Src, f.Dst, n.t.nodes)
		}
	}
	return n.route1(n.alloc(job), flows), nil
}

// route1 routes the flows, all valid, of job k (just allocated), sets its
// links, loads and alone, and inserts it (see Add).
func (n *Network) route1(k int32, flows []Flow) []int32 {
	j := &n.jobs[k]
	// j.links collects topology links first, counted by topology link,
	// and is numbered densely at the end (in the same order, so links are
	// numbered as when each step was numbered as it came). A torus counts
	// the steps as it walks them (torus.countFlows).
	if s, ok := n.t.shape.(*torus); ok && s.packed != nil {
		j.links = s.countFlows(flows, n.count, j.links)
		// the topology links, for AddJob's route cache (translates)
		n.route = append(n.route[:0], j.links...)
	} else {
		for _, f := range flows {
			n.route = n.t.Route(f.Src, f.Dst, n.route[:0])
			for _, gl := range n.route {
				j.links = countLink(n.count, j.links, gl)
			}
		}
	}
	// The order of links does not matter: the solver takes minima (exact in
	// any order) and sums integer loads (exact in any order).
	// In locals, so the loop keeps them in registers (j's fields may alias
	// the stores).
	links, count, alone := j.links, n.count, j.alone
	loads := slices.Grow(j.load[:0], len(links))[:len(links)]
	for i, gl := range links {
		load := count[gl]
		count[gl] = 0
		l := n.denseOf(gl)
		links[i] = l
		loads[i] = load
		alone = min(alone, n.links[l].bw/float64(load)) // builtin min: math.Min's rules, inlined
	}
	j.load, j.alone = loads, alone
	return n.insert(k)
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
	}
	j := &n.jobs[k]
	*j = netJob{id: job, comp: -1, links: j.links[:0], load: j.load[:0], shared: j.shared[:0], coef: j.coef[:0], share: 1, alone: math.Inf(1)}
	return k
}

// insert puts job k, with its links, loads and alone set, on its links and
// recomputes its component; see Add.
func (n *Network) insert(k int32) []int32 {
	j := &n.jobs[k]
	// classify(j) in the same pass: a link is shared once k joins it iff
	// another job was on it.
	j.shared, j.coef, j.priv, j.privN, j.dirty = j.shared[:0], j.coef[:0], math.Inf(1), 0, false
	loads := j.load[:len(j.links)] // one bounds check, not one per link
	alone := j.alone
	n.pairs, n.joined = n.pairs[:0], n.joined[:0]
	for i, l := range j.links {
		ljp := &n.linkJobs[l]
		lj := *ljp
		load := loads[i]
		p := &n.links[l]
		if len(lj) == 0 {
			// private to k: it bounds priv (as classify). A link without
			// jobs keeps no load (Remove leaves it as it was): set it.
			p.load = load
			if v := p.bw / float64(load); v < j.priv {
				j.priv, j.privN = v, 1
			} else if v == j.priv {
				j.privN++
			}
		} else {
			// shared once k joins it; tight or slack (netslack.go)
			p.load += load
			var a float64
			if len(lj) == 1 { // amax is kept while a link is shared
				a = max(n.jobs[lj[0].k].alone, alone)
			} else {
				a = max(n.amax[l], alone)
			}
			n.amax[l] = a
			t := n.isTight(p, a)
			if len(lj) == 1 {
				if t { // listed or shadowed after the loop (netshadow.go)
					n.pairs = append(n.pairs, pairLink{p.bw, l, lj[0], load, 0})
				} else {
					n.nowShared(lj[0], l, false)
				}
			} else if r := n.shadow[l]; r != 0 {
				// a shadowed link (tight, so t) gains k: decided after
				// the loop (netshadow.go)
				n.joined = append(n.joined, pairLink{p.bw, l, linkUse{r - 1, 0}, load, 0})
			} else if t && !n.tight[l] {
				// turned tight: listed or shadowed after the loop, with
				// the shadowed links k joins (netshadow.go)
				if n.finite {
					n.joined = append(n.joined, pairLink{p.bw, l, linkUse{-1, 0}, load, 0})
				} else {
					for _, u := range lj {
						n.nowTight(u, l)
					}
					j.shared = append(j.shared, l)
					j.coef = append(j.coef, load)
				}
			} else if t {
				j.shared = append(j.shared, l)
				j.coef = append(j.coef, load)
			}
			n.tight[l] = t
		}
		*ljp = append(*ljp, linkUse{k, load}) // in place: the length only, unless it grows
	}
	if len(n.joined) > 0 {
		n.rejoin(k)
	}
	if len(n.pairs) > 0 {
		n.listPairs(k)
	}
	n.idx.set(j.id, k)
	comp := n.join(k)
	if len(j.shared) > 0 && n.inert(k) {
		// No other rate can move (netskip.go), and k's may follow from
		// theirs.
		if x, ok := n.afterRate(k); ok {
			n.skipped[0]++
			j.rate, j.share = x, min(1, x/j.alone)
			n.changed = append(n.changed[:0], j.id)
			return n.changed
		}
	}
	c := j.comp
	loose := n.loose[c]
	changed := n.recompute(comp, loose)
	if loose {
		n.split(c, comp)
	} else if len(n.pieces) == 1 {
		// k joined one component, connected: its remove may undo this
		// solve (netundo.go)
		j.undo, j.usize = n.solves, int32(len(comp))
	}
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
	k, ok := n.idx.get(job)
	if !ok {
		return nil
	}
	n.idx.del(job)
	n.free = append(n.free, k)
	j := &n.jobs[k]
	if j.dirty {
		n.classify(j)
	}
	skip := n.inert(k) // before k leaves its links: their loads include it
	loads := j.load[:len(j.links)]
	for i, l := range j.links {
		// Swap-delete k's entry, found by a scan: a link's list is short
		// (2.5 jobs on the average shared link of an HPC2N replay), and
		// the scan reads the memory the delete writes, where keeping each
		// entry's position in its job cost a store into the moved entry's
		// job, a cache miss per link. On a private link (most of them)
		// k's is the one entry: the list is emptied without reading it.
		// A link left without jobs keeps its load (the next insert sets
		// it): its record is not touched.
		ljp := &n.linkJobs[l]
		lj := *ljp
		last := len(lj) - 1
		if last == 0 {
			*ljp = lj[:0] // in place: a store of the length only
			continue
		}
		q := 0
		for lj[q].k != k {
			q++
		}
		lj[q] = lj[last]
		*ljp = lj[:last]
		lj = lj[:last]
		p := &n.links[l]
		p.load -= loads[i]
		if last == 1 {
			// a shadowed link is listed on no job (netshadow.go)
			n.nowPrivate(lj[0], l, n.tight[l] && n.shadow[l] == 0)
			n.tight[l], n.shadow[l] = false, 0
		} else if last > 1 && n.tight[l] && !n.isTight(p, n.amax[l]) {
			// a lower load: tight may turn slack, never back (netslack.go)
			n.tight[l] = false
			if n.shadow[l] == 0 {
				for _, u := range lj {
					n.nowSlack(u, l)
				}
			}
			n.shadow[l] = 0
		}
	}
	c := j.comp
	comp := n.leave(k)
	j.id, j.comp = -1, -1
	if comp == nil {
		return nil
	}
	if n.undoable(k, c, comp) {
		// The component as before k's add, with its rates then
		// (netundo.go).
		n.undone++
		return n.restore(comp)
	}
	if skip {
		// No rate moves (netskip.go); the pieces are found by the next
		// solve of the component.
		n.loose[c] = true
		n.skipped[1]++
		n.changed = n.changed[:0]
		return n.changed
	}
	changed := n.recompute(comp, true)
	n.split(c, comp)
	return changed
}

// classify recomputes which of j's links are shared and the bound of its
// private ones.
func (n *Network) classify(j *netJob) {
	j.shared, j.coef = j.shared[:0], j.coef[:0]
	j.priv, j.privN = math.Inf(1), 0
	loads := j.load[:len(j.links)]
	for i, l := range j.links {
		if len(n.linkJobs[l]) > 1 {
			if n.tight[l] && n.shadow[l] == 0 { // a slack link bounds nothing (netslack.go), a shadowed one no more than its dominator (netshadow.go)
				j.shared = append(j.shared, l)
				j.coef = append(j.coef, loads[i])
			}
		} else if v := n.links[l].bw / float64(loads[i]); v < j.priv { // math.Min of positive values
			j.priv, j.privN = v, 1
		} else if v == j.priv {
			j.privN++
		}
	}
	j.dirty = false
}

// linkUse is a job (index k) with n flows on a link.
type linkUse struct{ k, n int32 }

// nowShared updates job u.k when its private link l gains a second job: l
// joins its shared links if tight (netslack.go), and priv is recomputed
// (by classify) only if l was its one minimum: a bound c_l / a_jl equal to
// priv leaves it where another private link has that bound too (privN
// counts them; on tori many links have the same bandwidth and load).
func (n *Network) nowShared(u linkUse, l int32, tight bool) {
	j := &n.jobs[u.k]
	if j.dirty {
		return
	}
	if tight {
		j.shared, j.coef = append(j.shared, l), append(j.coef, u.n)
	}
	if v := n.links[l].bw / float64(u.n); v <= j.priv {
		if v == j.priv && j.privN > 1 {
			j.privN--
		} else {
			j.dirty = true
		}
	}
}

// nowPrivate updates job u.k when its shared link l is left to it alone: l
// leaves its shared links if it was tight (order does not matter to the
// solver) and bounds priv.
func (n *Network) nowPrivate(u linkUse, l int32, tight bool) {
	j := &n.jobs[u.k]
	if j.dirty {
		return
	}
	if tight {
		j.dropShared(l)
	}
	if v := n.links[l].bw / float64(u.n); v < j.priv {
		j.priv, j.privN = v, 1
	} else if v == j.priv {
		j.privN++
	}
}
