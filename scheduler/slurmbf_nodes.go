package scheduler

import (
	"math"
	"math/bits"
	"slices"

	"drsim/cluster"
)

// nodePlan is the backfill plan of a partition of whole nodes (a machine
// file's partition, Part.Cores > 1), as Slurm's sched/backfill keeps it:
// running jobs hold cores of specific nodes until their estimated ends, and
// a pending job's reservation holds whole nodes (Slurm's node_space map of
// node bitmaps) from its planned start to its planned end, whatever cores
// it would use on them. A job fits from t if the nodes reserved by no
// earlier job over [t, t+dur) have, each at its fewest over the interval,
// enough free cores between them (on an exclusive partition: enough nodes
// with every core free); its reservation takes those nodes in index order
// (first fit) until its processors are covered, or, on a shared-core
// partition without GPUs, the nodes Slurm's select/cons_tres would give it
// on them at t (cluster.SelectCores: the job kept on one node when it
// fits, else the tightest run of nodes), as Slurm's backfill reserves the
// nodes its select plugin's will-run test chose. A job the pass starts
// starts on those same nodes (cluster.ConsTres.Only), away from the nodes
// reserved over its interval, as Slurm's _start_job excludes them.
//
// On a shared-core partition with GPUs (gres.go) the plan counts each
// node's free GPUs too, as Slurm's cons_tres does for gres/gpu: a running
// GPU job holds its GPUs per node on its nodes until its estimated end,
// and a GPU job (k nodes of c cores and g GPUs each, gresSplit) fits from
// t on the first k nodes, in index order, that nobody reserved over
// [t, t+dur) and that have, at their fewest over it, c free cores and g
// free GPUs; its reservation holds those k nodes whole. Jobs without GPUs
// fit by cores as above, whatever GPUs are free.
//
// Steps: free cores of node n from at[k] to at[k+1] are free[k*nodes+n]
// (free GPUs gfree[k*nodes+n]); bit n%64 of resv[k*words+n/64] marks node
// n reserved over that step; room[k] is the most processors a job could get in step k
// alone: the free cores of the nodes nobody reserved then (on an exclusive
// partition, of those with every core free).
//
// Speed: a query's interval can only fit if every step it covers has room
// for it, so earliest skips past a step without room without merging the
// steps' nodes; fits stops merging once the nodes it would take no longer
// hold the job; and, as in the processor-count plan (bfPlan), a pass's
// answers bound later queries for at least as many processors over at least
// as long (the plan only loses room within a pass). None of these changes
// an answer (TestNodePlanReference).
type nodePlan struct {
	nodes, cores int
	lo           int // the partition's first processor
	exclusive    bool
	at           []float64
	rows         []int32 // each step's row in free, gfree, ok and resv (freeAt)
	free         []int32
	gfree        []int32 // free GPUs, on a shared-core partition with GPUs (else empty)
	gres         bool    // the partition places GPU jobs per node (gfree is kept)
	cons         bool    // the partition places jobs by cluster.SelectCores (slurmCores)
	need         gresNeed
	resv         []uint64
	// ok[k*words+w] holds, bit i%64 of word i/64, whether node i could
	// give cores to a job counted in cores in step k: nobody reserved it
	// and it has a free core (on an exclusive partition, every core).
	// A node holds a job's cores over an interval only if it could in
	// each step, so fits intersects the steps' sets.
	ok          []uint64
	words       int
	room        []int32          // per step (above)
	end         float64          // the window's end: nothing is planned past it
	seen        [bfSeen]bfAnswer // answers of this pass for jobs counted in cores (bfPlan.seen)
	nseen, rr   int
	gseen       [bfSeen]gresAnswer // the same for GPU jobs
	ngseen, grr int
	pick        []int32            // scratch: nodes of the current answer
	both        []uint64           // scratch: the intersection fits takes
	cand        []int32            // scratch: the nodes fits still merges
	minFree     []int32            // scratch: a node's fewest free cores over an interval
	usable      []bool             // scratch: the nodes a backfill start may use (cluster.ConsTres.Only)
	minGPU      []int32            // scratch: a node's fewest free GPUs over an interval
	only        []bool             // scratch: the nodes of pl.pick, for cluster.Gres.Only
	takes       []cluster.NodeTake // scratch: cluster.SelectCores' answer
	real        []cluster.NodeTake // scratch: its answer on the nodes' free cores now (placeable)
	sel         cluster.CoreSelector
	caps        []int    // mayFitNow's bounds, per step from the first
	capAcc      []uint64 // per step of caps, the running intersection of ok up to it
}

// gresAnswer is one earliest answer of the current pass for a GPU job.
type gresAnswer struct {
	need   gresNeed
	dur, t float64
}

// gresNeed is what the job being planned needs per node (gresSplit): nodes
// 0 for a job counted in cores.
type gresNeed struct{ nodes, cores, gpus int }

// slurmGres reports whether slurm-backfill runs GPU jobs on partition p
// per node (a shared-core partition of nodes with GPUs, contiguous
// placement): its plan then counts GPUs (nodePlan), and its starts place
// through cluster.Gres as fcfs and easy do (gresRuns).
func slurmGres(p *Part, placement, policy string) bool {
	return !p.Exclusive && p.GPUs > 0 && p.Cores > 1 && placement == "contiguous" && policy == "slurm-backfill"
}

// slurmCores reports whether slurm-backfill places jobs on partition p as
// Slurm's select/cons_tres chooses nodes (cluster.ConsTres): a shared-core
// partition of multi-core nodes without GPUs, contiguous placement. Its
// plan's reservations and its backfilled starts take the same nodes.
func slurmCores(p *Part, placement, policy string) bool {
	return !p.Exclusive && p.GPUs == 0 && p.Cores > 1 && placement == "contiguous" && policy == "slurm-backfill"
}

// usesNodes reports whether the bound partition is planned by node.
func (e *Engine) usesNodes() bool {
	return e.parts != nil && e.parts[e.cur].Cores > 1
}

// reset starts a plan at now from the bound partition's running jobs, each
// holding its cores until its estimated end rounded up by rnd (ends at or
// past horizon hold them to the window's end).
func (pl *nodePlan) reset(v *View, now, horizon float64, rnd bfRound) {
	e := v.e
	p := &e.parts[e.cur]
	pl.cores, pl.lo, pl.exclusive = p.Cores, p.Lo, p.Exclusive
	pl.gres, pl.need = p.gres != nil, gresNeed{}
	pl.cons = p.cons != nil
	pl.nodes = p.Procs / p.Cores
	pl.end = horizon
	n := pl.nodes
	pl.words = (n + 63) / 64
	// Step 0: every core free, then the running jobs' taken away.
	pl.at, pl.rows = append(pl.at[:0], now), append(pl.rows[:0], 0)
	pl.free, pl.gfree = pl.free[:0], pl.gfree[:0]
	for range n {
		pl.free = append(pl.free, int32(pl.cores))
		if pl.gres {
			pl.gfree = append(pl.gfree, int32(p.GPUs))
		}
	}
	pl.resv = grow64(pl.resv, pl.words)
	clear(pl.resv)
	pl.room = append(pl.room[:0], int32(n*pl.cores))
	pl.ok = grow64(pl.ok, pl.words)
	for w := range pl.ok {
		pl.ok[w] = math.MaxUint64
	}
	if r := n & 63; r != 0 {
		pl.ok[pl.words-1] = 1<<r - 1
	}
	for k := range e.runs.Len() {
		j := &e.jobs[e.runs.at(k).slot]
		pl.addStep(0, j.alloc, j.gresGPUs, -1)
	}
	// Running jobs come in estimated-end order: each end opens a step (a
	// copy of the last), which gets the job's cores back.
	for k := range e.runs.Len() {
		r := e.runs.at(k)
		t := max(rnd.up(r.estEnd), now)
		if t >= horizon {
			break
		}
		last := len(pl.at) - 1
		if pl.at[last] != t {
			pl.at, pl.rows = append(pl.at, t), append(pl.rows, pl.copyRow(last))
			pl.room = append(pl.room, pl.room[last])
			last++
		}
		j := &e.jobs[r.slot]
		pl.addStep(last, j.alloc, j.gresGPUs, 1)
	}
	pl.ready()
	if e.cfg.Check {
		pl.check(e)
	}
}

// derive sets a plan's resv, ok and room from its steps (at, free,
// gfree), nothing reserved: what reset builds step by step (the tests
// build plans with it, and check compares with it).
func (pl *nodePlan) derive() {
	n := pl.nodes
	pl.words = (n + 63) / 64
	if len(pl.rows) != len(pl.at) { // a plan built by hand: rows in step order
		pl.rows = pl.rows[:0]
		for k := range pl.at {
			pl.rows = append(pl.rows, int32(k))
		}
	}
	nrows := len(pl.free) / n
	pl.resv = grow64(pl.resv, nrows*pl.words)
	clear(pl.resv)
	pl.ok = grow64(pl.ok, nrows*pl.words)
	clear(pl.ok)
	pl.room = pl.room[:0]
	for k := range pl.at {
		var room int32
		ok := pl.okAt(k)
		for i, f := range pl.freeAt(k) {
			if pl.gives(f) {
				room += f
				ok[i>>6] |= 1 << (i & 63)
			}
		}
		pl.room = append(pl.room, room)
	}
}

// check (--check) verifies that reset's ok and room are derive's.
func (pl *nodePlan) check(e *Engine) {
	room, ok := slices.Clone(pl.room), slices.Clone(pl.ok)
	pl.derive()
	if !slices.Equal(room, pl.room) || !slices.Equal(ok, pl.ok) {
		e.violate("slurm-backfill's node plan at %v: its room or usable nodes per step differ from those derived from its free cores", pl.at[0])
	}
}

// ready completes a plan whose steps and their derived state are set:
// no answers seen, scratch sized.
func (pl *nodePlan) ready() {
	n := pl.nodes
	pl.both = grow64(pl.both, pl.words)
	pl.caps = pl.caps[:0]
	pl.nseen, pl.rr, pl.ngseen, pl.grr = 0, 0, 0, 0
	pl.minFree = grow32(pl.minFree, n)
	pl.cand = grow32(pl.cand, n)[:0]
	pl.usable = growBool(pl.usable, n)
	if pl.gres {
		pl.minGPU = grow32(pl.minGPU, n)
		pl.only = growBool(pl.only, n)
	}
}

// gives reports whether a node nobody reserved with f free cores can
// give a job counted in cores some: f > 0, and on an exclusive partition
// every core free.
func (pl *nodePlan) gives(f int32) bool {
	return f > 0 && (!pl.exclusive || int(f) == pl.cores)
}

// freeAt returns step k's free cores per node; gfreeAt its free GPUs
// (with pl.gres); okAt and resvAt its sets of usable and reserved nodes.
// A step's row is where its arrays sit in free, gfree, ok and resv: a new
// step takes a new row (copyRow), so inserting one moves no other's.
func (pl *nodePlan) freeAt(k int) []int32  { return rowOf(pl.free, pl.rows[k], pl.nodes) }
func (pl *nodePlan) gfreeAt(k int) []int32 { return rowOf(pl.gfree, pl.rows[k], pl.nodes) }
func (pl *nodePlan) okAt(k int) []uint64   { return rowOf(pl.ok, pl.rows[k], pl.words) }
func (pl *nodePlan) resvAt(k int) []uint64 { return rowOf(pl.resv, pl.rows[k], pl.words) }

// rowOf returns row r of s, in rows of w.
func rowOf[T int32 | uint64](s []T, r int32, w int) []T {
	i := int(r) * w
	return s[i : i+w : i+w]
}

// copyRow appends a row holding step k's arrays and returns it.
func (pl *nodePlan) copyRow(k int) int32 {
	r := int32(len(pl.free) / pl.nodes)
	pl.free = append(pl.free, pl.freeAt(k)...)
	if pl.gres {
		pl.gfree = append(pl.gfree, pl.gfreeAt(k)...)
	}
	pl.ok = append(pl.ok, pl.okAt(k)...)
	pl.resv = append(pl.resv, pl.resvAt(k)...)
	return r
}

// reserved reports whether node i is reserved in step k.
func (pl *nodePlan) reserved(k, i int) bool {
	return pl.resvAt(k)[i>>6]>>(i&63)&1 != 0
}

// fits reports whether procs processors fit from step k for dur seconds,
// leaving the nodes they would take, in index order, in pl.pick, the
// nodes that could give cores over the interval in pl.cand, and their
// fewest free cores over it in pl.minFree (the other nodes' entries are
// left as they were).
//
// The nodes that can give cores over the interval are those that could
// in each of its steps (the intersection of the steps' ok sets): a
// node's fewest free cores are above 0 (on an exclusive partition, all
// its cores) only if its free cores are in every step, and nobody
// reserved it in any. So an interval costs a word per 64 nodes per step,
// plus the steps of the nodes left.
func (pl *nodePlan) fits(k, procs int, dur float64) bool {
	n, nw := pl.nodes, pl.words
	end := pl.at[k] + dur
	pl.pick = pl.pick[:0]
	if pl.need.nodes > 0 {
		return pl.fitsGres(k, end)
	}
	both := pl.both[:nw]
	copy(both, pl.okAt(k))
	m := k + 1
	for ; m < len(pl.at) && pl.at[m] < end; m++ {
		for w, x := range pl.okAt(m) {
			both[w] &= x
		}
	}
	count := 0
	for _, x := range both {
		count += bits.OnesCount64(x)
	}
	if count*pl.cores < procs {
		return false
	}
	// The nodes left, in index order, with their fewest free cores (on
	// an exclusive partition, all: they have every core free throughout),
	// taken step by step.
	cand, minFree, got := pl.cand[:0], pl.minFree[:n], 0
	for w, x := range both {
		for ; x != 0; x &= x - 1 {
			i := w<<6 | bits.TrailingZeros64(x)
			cand = append(cand, int32(i))
			minFree[i] = int32(pl.cores)
		}
	}
	pl.cand = cand
	got = len(cand) * pl.cores
	if !pl.exclusive {
		for s := k; s < m && got >= procs; s++ { // the count only falls
			row := pl.freeAt(s)
			got = 0
			for _, i := range cand {
				f := min(minFree[i], row[i])
				minFree[i] = f
				got += int(f)
			}
		}
	}
	if got < procs {
		return false
	}
	if pl.cons {
		var ok bool
		pl.takes, ok = pl.sel.Select(minFree, cand, procs, pl.takes[:0])
		for _, t := range pl.takes {
			pl.pick = append(pl.pick, t.Node)
		}
		return ok
	}
	got = 0
	for _, i := range cand {
		if got >= procs {
			break
		}
		pl.pick = append(pl.pick, i)
		got += int(minFree[i])
	}
	return true
}

// fitsGres is fits for a GPU job (pl.need) over [at[k], end): the first
// pl.need.nodes usable nodes, in index order, with the job's cores and GPUs
// free at their fewest.
func (pl *nodePlan) fitsGres(k int, end float64) bool {
	n, need := pl.nodes, pl.need
	minFree, minGPU := pl.minFree[:n], pl.minGPU[:n]
	for i := range n {
		minFree[i], minGPU[i] = math.MaxInt32, math.MaxInt32
	}
	for m := k; m < len(pl.at) && (m == k || pl.at[m] < end); m++ {
		row, gs := pl.freeAt(m), pl.gfreeAt(m)
		nodes := 0
		for i := range n {
			e := row[i]
			if pl.reserved(m, i) {
				e = -1
			}
			f, g := min(minFree[i], e), min(minGPU[i], gs[i]) // f is -1 once reserved
			minFree[i], minGPU[i] = f, g
			if int(f) >= need.cores && int(g) >= need.gpus {
				nodes++
			}
		}
		if nodes < need.nodes {
			return false // later steps only take more away
		}
	}
	for i := 0; i < n && len(pl.pick) < need.nodes; i++ {
		if int(pl.minFree[i]) >= need.cores && int(pl.minGPU[i]) >= need.gpus {
			pl.pick = append(pl.pick, int32(i))
		}
	}
	return len(pl.pick) == need.nodes
}

// earliest returns the first step start from which procs processors fit
// for dur seconds (+Inf if none before the window's end), with the nodes
// they would take in pl.pick.
func (pl *nodePlan) earliest(procs int, dur float64) float64 {
	byCores, need := pl.need.nodes == 0, pl.need
	lb := pl.at[0]
	if byCores {
		for _, a := range pl.seen[:pl.nseen] {
			if a.procs <= procs && a.dur <= dur && a.t > lb {
				lb = a.t
			}
		}
	} else {
		for _, a := range pl.gseen[:pl.ngseen] {
			if a.need.nodes <= need.nodes && a.need.cores <= need.cores && a.need.gpus <= need.gpus && a.dur <= dur && a.t > lb {
				lb = a.t
			}
		}
	}
	if math.IsInf(lb, 1) {
		return lb
	}
	k0 := searchSteps(pl.at, lb)
	t := math.Inf(1)
	for k := k0; k < len(pl.at) && pl.at[k] < pl.end; k++ {
		if m := pl.short(k, procs, dur); m >= 0 {
			k = m // no start from k to m can hold the job over step m
			continue
		}
		if pl.fits(k, procs, dur) {
			t = pl.at[k]
			break
		}
	}
	if byCores {
		if pl.nseen < bfSeen {
			pl.nseen++
		}
		pl.seen[pl.rr] = bfAnswer{procs, dur, t}
		pl.rr = (pl.rr + 1) % bfSeen
	} else {
		if pl.ngseen < bfSeen {
			pl.ngseen++
		}
		pl.gseen[pl.grr] = gresAnswer{need, dur, t}
		pl.grr = (pl.grr + 1) % bfSeen
	}
	return t
}

// short returns the last step of [at[k], at[k]+dur) without room for
// procs processors, or -1.
func (pl *nodePlan) short(k, procs int, dur float64) int {
	end, last := pl.at[k]+dur, -1
	for m := k; m < len(pl.at) && (m == k || pl.at[m] < end); m++ {
		if int(pl.room[m]) < procs {
			last = m
		}
	}
	return last
}

// split makes t a step boundary (t at or after the first step) and returns
// its index.
func (pl *nodePlan) split(t float64) int {
	k := 0
	for k < len(pl.at) && pl.at[k] < t {
		k++
	}
	if k < len(pl.at) && pl.at[k] == t {
		return k
	}
	pl.at = slices.Insert(pl.at, k, t)
	pl.rows = slices.Insert(pl.rows, k, pl.copyRow(k-1))
	pl.room = slices.Insert(pl.room, k, pl.room[k-1])
	return k
}

// reserve holds the nodes in pl.pick over [from, to).
func (pl *nodePlan) reserve(from, to float64) {
	lo, hi := pl.span(from, to)
	nw := pl.words
	mask := pl.both[:nw]
	clear(mask)
	for _, i := range pl.pick {
		mask[i>>6] |= 1 << (i & 63)
	}
	for k := lo; k < hi; k++ {
		ok, rs, free := pl.okAt(k), pl.resvAt(k), pl.freeAt(k)
		for w, m := range mask {
			if m == 0 {
				continue
			}
			// The picked nodes that could give cores give them no more.
			x := m & ok[w]
			if pl.exclusive {
				pl.room[k] -= int32(bits.OnesCount64(x) * pl.cores)
			} else {
				for ; x != 0; x &= x - 1 {
					pl.room[k] -= free[w<<6|bits.TrailingZeros64(x)]
				}
			}
			ok[w] &^= m
			rs[w] |= m
		}
	}
}

// hold takes a job started now out of the plan: its cores (and gpus GPUs
// per node) on its nodes over [from, to).
func (pl *nodePlan) hold(from, to float64, alloc []cluster.Range, gpus int32) {
	lo, hi := pl.span(from, to)
	for k := lo; k < hi; k++ {
		pl.addStep(k, alloc, gpus, -1)
	}
}

// addStep adds sign × the cores of alloc on each node to step k, and sign
// × gpus GPUs on each node it touches (a GPU job on a shared-core
// partition; gpus is 0 for every other job), keeping the step's ok
// and room.
func (pl *nodePlan) addStep(k int, alloc []cluster.Range, gpus, sign int32) {
	n := pl.nodes
	var grow []int32
	if gpus > 0 && pl.gres {
		grow = pl.gfreeAt(k)
	}
	free, ok, rs := pl.freeAt(k), pl.okAt(k), pl.resvAt(k)
	last := -1
	for _, r := range alloc {
		// A job's processors are its partition's: one division per range,
		// then node by node.
		node := (int(r.Lo) - pl.lo) / pl.cores
		for p := int(r.Lo); p < int(r.Hi); node++ {
			next := min(int(r.Hi), pl.lo+(node+1)*pl.cores)
			if node >= 0 && node < n {
				old := free[node]
				f := old + sign*int32(next-p)
				free[node] = f
				if grow != nil && node != last {
					grow[node] += sign * gpus
					last = node
				}
				if w, bit := node>>6, uint64(1)<<(node&63); rs[w]&bit == 0 {
					if pl.gives(old) {
						pl.room[k] -= old
					}
					ok[w] &^= bit
					if pl.gives(f) {
						pl.room[k] += f
						ok[w] |= bit
					}
				}
			}
			p = next
		}
	}
}

// span splits the plan at from and at to (clamped to the window's end) and
// returns the steps between.
func (pl *nodePlan) span(from, to float64) (lo, hi int) {
	to = max(min(to, pl.end), from)
	lo = pl.split(from)
	hi = pl.split(to)
	pl.caps = pl.caps[:min(lo, len(pl.caps))] // mayFitNow's bounds from lo on change
	return lo, hi
}

// mayFitNow reports whether procs processors could fit now for dur
// seconds, by an upper bound of what a job starting now could get until
// each step's end: the fewest room of the steps so far (no job gets more
// in a step), and the cores of the nodes that could give cores in every
// step so far (ok's running intersection; on an exclusive partition that
// is fits' own count). A job that fits now for dur has at least its
// processors by that bound in every step its interval covers.
//
// The bounds are computed as far as queries reach; a step's depends on
// the steps up to it only, so a reserve or hold drops those from its
// first step on (span).
func (pl *nodePlan) mayFitNow(procs int, dur float64) bool {
	end := pl.at[0] + dur
	for k := 0; k < len(pl.at) && (k == 0 || pl.at[k] < end); k++ {
		if k == len(pl.caps) {
			pl.extendCaps()
		}
		if pl.caps[k] < procs {
			return false
		}
	}
	return true
}

// extendCaps computes mayFitNow's bound for the next step.
func (pl *nodePlan) extendCaps() {
	k, nw := len(pl.caps), pl.words
	pl.capAcc = append(pl.capAcc[:k*nw], pl.okAt(k)...)
	acc := pl.capAcc[k*nw:]
	count := 0
	for w := range acc {
		if k > 0 {
			acc[w] &= pl.capAcc[(k-1)*nw+w]
		}
		count += bits.OnesCount64(acc[w])
	}
	c := min(int(pl.room[k]), count*pl.cores)
	if k > 0 {
		c = min(c, pl.caps[k-1])
	}
	pl.caps = append(pl.caps, c)
}

// most returns the most processors free in any step before the window's
// end. It is called before the pass reserves anything, when each step's
// room counts every node.
func (pl *nodePlan) most() int {
	m := 0
	for k := range pl.at {
		if pl.at[k] >= pl.end {
			break
		}
		m = max(m, int(pl.room[k]))
	}
	return m
}

func grow32(s []int32, n int) []int32 {
	if cap(s) < n {
		return make([]int32, n)
	}
	return s[:n]
}

func grow64(s []uint64, n int) []uint64 {
	if cap(s) < n {
		return make([]uint64, n)
	}
	return s[:n]
}

func growBool(s []bool, n int) []bool {
	if cap(s) < n {
		return make([]bool, n)
	}
	return s[:n]
}

// backfillNodes is one backfill pass over a partition of whole nodes
// (backfill, with a nodePlan instead of processor counts).
func (p *SlurmBackfill) backfillNodes(v *View, ps *SlurmSched) {
	e, rnd := v.e, bfRound{ps.BfResolution}
	now, horizon := v.Now, v.Now+ps.BfWindow
	pl := &p.nodes
	pl.reset(v, now, horizon, rnd)
	reserved := 0
	most := pl.most() // as in backfill: larger jobs are skipped, not tested
	tests := p.tests[:0]
	for i := v.Next(0, most); i >= 0 && len(tests) < ps.BfMaxJobTest; i = v.Next(i+1, most) {
		tests = append(tests, bfTest{pos: int32(i), procs: e.wq.procs[i]})
	}
	p.tests = tests
	// As in backfill, the pass ends once no job left to test could start
	// now by the plan (mayFitNow's bound, over the estimate's lower bound
	// rounded up). last is the last test that still could; starts and
	// reservations only take cores and nodes away.
	last := len(tests) - 1
	taken := true // last must be checked (again)
	for c := range tests {
		if taken {
			for ; last >= c; last-- {
				if pl.mayFitNow(int(tests[last].procs), rnd.up(v.EstLow(int(tests[last].pos)))) {
					break
				}
			}
			taken = false
		}
		if last < c && !p.exhaustive {
			break
		}
		i := int(tests[c].pos)
		procs, est := p.job(v, i)
		dur := rnd.up(est)
		slot := e.wq.slots[i]
		if j := &e.jobs[slot]; pl.gres {
			pl.need = gresNeed{int(j.gresNodes), int(j.gresCores), int(j.gresGPUs)}
		}
		t := math.Inf(1)
		if ps.BfPartCountResv > 0 && reserved >= ps.BfPartCountResv {
			if pl.fits(0, procs, dur) {
				t = now
			}
		} else {
			t = pl.earliest(procs, dur)
		}
		var g *cluster.Gres
		if t == now && pl.need.nodes > 0 {
			// A GPU job starts on the nodes the plan chose (Slurm starts a
			// backfilled job on its plan's nodes), not on the placement's
			// first free ones, which a reservation may hold.
			g = e.parts[e.cur].gres
			clear(pl.only)
			for _, n := range pl.pick {
				pl.only[n] = true
			}
			g.Only(pl.only)
		}
		var cons *cluster.ConsTres
		if t == now && pl.cons {
			// Slurm starts a backfilled job away from the nodes reserved
			// over its interval: those with free cores over it, as fits
			// left them in pl.cand.
			cons = e.parts[e.cur].cons
			clear(pl.usable)
			for _, i := range pl.cand {
				pl.usable[i] = true
			}
			cons.Only(pl.usable)
		}
		switch {
		case t == now && v.Fits(i) && (cons == nil || pl.placeable(cons, procs)):
			v.Start(i)
			if cons != nil && e.cfg.Check {
				pl.checkPick(e, e.jobs[slot].alloc)
			}
			pl.hold(now, now+dur, e.jobs[slot].alloc, e.jobs[slot].gresGPUs)
			taken = true
		case t >= horizon:
		case ps.BfPartCountResv == 0 || reserved < ps.BfPartCountResv:
			reserved++
			v.Reserve(i, t)
			pl.reserve(t, t+dur)
			taken = true
		}
		if g != nil {
			g.Only(nil)
		}
		if cons != nil {
			cons.Only(nil)
		}
	}
}

// placeable reports whether cons would start a job of procs cores on the
// cores the plan chose for it now (pl.takes): the plan gives back now the
// cores of a job past its estimate, as the processor-count plan does,
// while the job still holds them.
func (pl *nodePlan) placeable(cons *cluster.ConsTres, procs int) bool {
	var ok bool
	pl.real, ok = pl.sel.SelectCores(cons.NodeFree(), pl.usable, procs, pl.real[:0])
	return ok && slices.Equal(pl.real, pl.takes)
}

// checkPick (--check) verifies that a job the pass started holds cores on
// exactly the nodes its plan chose (pl.takes), as many on each.
func (pl *nodePlan) checkPick(e *Engine, alloc []cluster.Range) {
	k, ok := 0, true
	for _, r := range alloc {
		for p := int(r.Lo); p < int(r.Hi); {
			node := (p - pl.lo) / pl.cores
			next := min(int(r.Hi), pl.lo+(node+1)*pl.cores)
			for k < len(pl.takes) && int(pl.takes[k].Node) < node {
				k++
			}
			if k == len(pl.takes) || int(pl.takes[k].Node) != node {
				ok = false
				break
			}
			pl.takes[k].Cores -= int32(next - p)
			p = next
		}
	}
	for _, t := range pl.takes {
		ok = ok && t.Cores == 0
	}
	if !ok {
		e.violate("slurm-backfill started a job on other cores than its plan's nodes %v", pl.pick)
	}
}
