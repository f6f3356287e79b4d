package scheduler

import (
	"math"
	"math/bits"
	"slices"
	"sort"

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
// steps' nodes; a node's free cores never fall from a step to a later one
// (running jobs and the pass's starts hold cores from now to their ends),
// so fits reads the free cores of the interval's first step only, and
// takes from its usable nodes those the pass reserved over the interval
// (or intersects the steps' sets, whichever reads fewer words); and, as in
// the processor-count plan (bfPlan), a pass's answers bound later queries
// for at least as many processors over at least as long (the plan only
// loses room within a pass). None of these changes an answer
// (TestNodePlanReference).
type nodePlan struct {
	nodes, cores int
	lo           int // the partition's first processor
	exclusive    bool
	at           []float64
	rows         []int32 // each step's row in free, gfree, ok and resv (freeAt)
	free         []int32 // rows of width: free cores per node
	// width is nodes, or 0 on an exclusive partition, where a node can
	// give cores exactly when it is in ok and reset keeps no free cores
	// per step (its running count is cur).
	width int
	cur   []int32 // reset's free cores of the nodes running jobs cover in part (addWhole)
	gfree []int32 // free GPUs, on a shared-core partition with GPUs (else empty)
	gres  bool    // the partition places GPU jobs per node (gfree is kept)
	cons  bool    // the partition places jobs by cluster.SelectCores (slurmCores)
	need  gresNeed
	resv  []uint64
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
	minFree     []int32            // scratch: a node's fewest free cores over an interval (fitsGres)
	usable      []bool             // scratch: the nodes a backfill start may use (cluster.ConsTres.Only)
	minGPU      []int32            // scratch: a node's fewest free GPUs over an interval
	only        []bool             // scratch: the nodes of pl.pick, for cluster.Gres.Only
	takes       []cluster.NodeTake // scratch: cluster.SelectCores' answer
	real        []cluster.NodeTake // scratch: its answer on the nodes' free cores now (placeable)
	sel         cluster.CoreSelector
	caps        []int // mayFitNow's bounds, per step from the first
	// acc is ok's running intersection from step 0 to step len(caps)-1
	// (mayFitNow), with accN bits; accOK says it is for that step.
	acc   []uint64
	accN  int
	accOK bool
	// deltas[r]: the changes of free cores of row r's step from the step
	// before (not kept on an exclusive partition; reserve reads them).
	deltas [][]nodeDelta
	rsv    []nodeResv // this pass's reservations, in the order made
	rmask  []uint64   // their nodes' words (nodeResv.off)
	// byFrom indexes rsv by start (stable); pl.acc holds the reservations
	// of byFrom[:accNext].
	byFrom  []int32
	accNext int
	via     int8 // tests: viaRows or viaResv forces byRows' choice
}

const (
	viaRows = 1 + iota
	viaResv
)

// nodeResv is a reservation of the current pass: over the steps from
// from to to (step starts; to may be the window's end), the nodes of
// rmask[off:off+len] as words w0, w0+1, ….
type nodeResv struct {
	from, to float64
	off, w0  int32
	len      int32
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
	pl.width = n
	if pl.exclusive {
		pl.width = 0
	}
	// Step 0: every core free, then the running jobs' taken away.
	pl.at, pl.rows = append(pl.at[:0], now), append(pl.rows[:0], 0)
	pl.deltas = pl.deltas[:0]
	pl.newDeltas(0)
	pl.free, pl.gfree = pl.free[:0], pl.gfree[:0]
	for range pl.width {
		pl.free = append(pl.free, int32(pl.cores))
	}
	if pl.gres {
		for range n {
			pl.gfree = append(pl.gfree, int32(p.GPUs))
		}
	}
	if pl.width == 0 { // addWhole's counts
		pl.cur = grow32(pl.cur, n)
		for i := range pl.cur {
			pl.cur[i] = int32(pl.cores)
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
		if pl.width == 0 {
			pl.addWhole(0, j.alloc, -1, true)
		} else {
			pl.addStep(0, j.alloc, j.gresGPUs, -1)
		}
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
		if pl.width == 0 {
			pl.addWhole(last, j.alloc, 1, true)
		} else {
			pl.addStep(last, j.alloc, j.gresGPUs, 1)
			pl.addDelta(last, j.alloc)
		}
	}
	pl.ready()
	if e.cfg.Check {
		pl.check(e, rnd)
	}
}

// derive sets a plan's resv, ok and room from its steps (at, free,
// gfree), nothing reserved: what reset builds step by step (the tests
// build plans with it, and check compares with it).
func (pl *nodePlan) derive() {
	n := pl.nodes
	pl.words, pl.width = (n+63)/64, n
	if len(pl.rows) != len(pl.at) { // a plan built by hand: rows in step order
		pl.rows = pl.rows[:0]
		for k := range pl.at {
			pl.rows = append(pl.rows, int32(k))
		}
	}
	nrows := len(pl.free) / n
	pl.deltas = pl.deltas[:0]
	for r := range nrows {
		pl.newDeltas(int32(r))
	}
	for k := 1; k < len(pl.at); k++ {
		prev, cur := pl.freeAt(k-1), pl.freeAt(k)
		for i := range cur {
			if cur[i] != prev[i] {
				pl.deltas[pl.rows[k]] = append(pl.deltas[pl.rows[k]], nodeDelta{int32(i), cur[i] - prev[i]})
			}
		}
	}
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

// check (--check) verifies that reset's ok and room are derive's, and
// that no node's free cores or GPUs fall from a step to the next (fits
// and mayFitNow rely on it); on an exclusive partition (no free cores per
// step), that they are those of the running jobs (checkExclusive).
func (pl *nodePlan) check(e *Engine, rnd bfRound) {
	if pl.width == 0 {
		pl.checkExclusive(e, rnd)
		return
	}
	if k := pl.badDelta(); k > 0 {
		e.violate("slurm-backfill's node plan at %v: its changes of free cores at %v differ from its steps'", pl.at[0], pl.at[k])
	}
	room, ok := slices.Clone(pl.room), slices.Clone(pl.ok)
	pl.derive()
	if !slices.Equal(room, pl.room) || !slices.Equal(ok, pl.ok) {
		e.violate("slurm-backfill's node plan at %v: its room or usable nodes per step differ from those derived from its free cores", pl.at[0])
	}
	if k, i := pl.falls(); k > 0 {
		e.violate("slurm-backfill's node plan at %v: node %d has fewer free cores or GPUs at %v than at the step before", pl.at[0], i, pl.at[k])
	}
}

// checkExclusive (--check) verifies an exclusive partition's plan from
// scratch: in each step, the nodes whose every core is free (ok) are
// those no running job holds then (until its estimated end, rounded up;
// past the window's end, to the end), and room counts their cores.
func (pl *nodePlan) checkExclusive(e *Engine, rnd bfRound) {
	now := pl.at[0]
	freeFrom := make([]float64, pl.nodes) // when no running job holds node i
	for i := range freeFrom {
		freeFrom[i] = now
	}
	for q := range e.runs.Len() {
		r := e.runs.at(q)
		t := max(rnd.up(r.estEnd), now)
		if t >= pl.end {
			t = math.Inf(1)
		}
		for _, a := range e.jobs[r.slot].alloc {
			for node := (int(a.Lo) - pl.lo) / pl.cores; node*pl.cores+pl.lo < int(a.Hi); node++ {
				freeFrom[node] = max(freeFrom[node], t)
			}
		}
	}
	for k := range pl.at {
		var room int32
		ok := pl.okAt(k)
		for i, t := range freeFrom {
			in := ok[i>>6]>>(i&63)&1 != 0
			if in != (t <= pl.at[k]) {
				e.violate("slurm-backfill's node plan at %v: node %d is %v in the usable nodes at %v, its running jobs end at %v", now, i, in, pl.at[k], t)
				return
			}
			if in {
				room += int32(pl.cores)
			}
		}
		if room != pl.room[k] {
			e.violate("slurm-backfill's node plan at %v: room %d at %v, %d by the running jobs", now, pl.room[k], pl.at[k], room)
			return
		}
	}
}

// badDelta returns the first step k > 0 whose changes (pl.deltas) do not
// sum, on each node, to its free cores less the step before's, or 0.
func (pl *nodePlan) badDelta() int {
	diff := make([]int32, pl.nodes)
	for k := 1; k < len(pl.at); k++ {
		prev, cur := pl.freeAt(k-1), pl.freeAt(k)
		for i := range diff {
			diff[i] = cur[i] - prev[i]
		}
		for _, d := range pl.deltas[pl.rows[k]] {
			diff[d.node] -= d.cores
		}
		if slices.ContainsFunc(diff, func(x int32) bool { return x != 0 }) {
			return k
		}
	}
	return 0
}

// falls returns the first step k > 0 and node i whose free cores or GPUs
// are fewer than in step k-1, or 0, 0.
func (pl *nodePlan) falls() (k, i int) {
	for k = 1; k < len(pl.at); k++ {
		prev, cur := pl.freeAt(k-1), pl.freeAt(k)
		for i := range cur {
			if cur[i] < prev[i] || pl.gres && pl.gfreeAt(k)[i] < pl.gfreeAt(k - 1)[i] {
				return k, i
			}
		}
	}
	return 0, 0
}

// ready completes a plan whose steps and their derived state are set:
// no answers seen, scratch sized.
func (pl *nodePlan) ready() {
	n := pl.nodes
	pl.both = grow64(pl.both, pl.words)
	pl.acc = grow64(pl.acc, pl.words)
	pl.caps, pl.accOK = pl.caps[:0], false
	pl.rsv, pl.rmask, pl.byFrom = pl.rsv[:0], pl.rmask[:0], pl.byFrom[:0]
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
func (pl *nodePlan) freeAt(k int) []int32  { return rowOf(pl.free, pl.rows[k], pl.width) }
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
	r := int32(len(pl.ok) / pl.words)
	pl.free = append(pl.free, pl.freeAt(k)...)
	if pl.gres {
		pl.gfree = append(pl.gfree, pl.gfreeAt(k)...)
	}
	pl.ok = append(pl.ok, pl.okAt(k)...)
	pl.resv = append(pl.resv, pl.resvAt(k)...)
	if pl.width > 0 { // an exclusive partition's plan keeps no changes
		pl.newDeltas(r)
	}
	return r
}

// newDeltas gives row r an empty list of changes (reusing the lists of
// earlier passes).
func (pl *nodePlan) newDeltas(r int32) {
	for int(r) >= len(pl.deltas) {
		if len(pl.deltas) < cap(pl.deltas) {
			pl.deltas = pl.deltas[:len(pl.deltas)+1]
		} else {
			pl.deltas = append(pl.deltas, nil)
		}
	}
	pl.deltas[r] = pl.deltas[r][:0]
}

// reserved reports whether node i is reserved in step k.
func (pl *nodePlan) reserved(k, i int) bool {
	return pl.resvAt(k)[i>>6]>>(i&63)&1 != 0
}

// fits reports whether procs processors fit from step k for dur seconds,
// leaving the nodes they would take, in index order, in pl.pick, and on a
// cons_tres partition the nodes that could give cores over the interval
// in pl.cand.
//
// A step's free cores never fall at a later step (reset: running jobs and
// the pass's starts hold cores from now until their ends; check verifies
// it), so a node's fewest free cores over the interval are its free cores
// in step k, and it could give cores over the interval if it could in step
// k (ok) and no reservation holds it over the interval. So an interval
// costs a word per 64 nodes, plus the words of the pass's reservations
// over it, plus the nodes taken.
func (pl *nodePlan) fits(k, procs int, dur float64) bool {
	nw := pl.words
	end := pl.at[k] + dur
	pl.pick = pl.pick[:0]
	if pl.need.nodes > 0 {
		return pl.fitsGres(k, end)
	}
	m := k + 1
	for m < len(pl.at) && pl.at[m] < end {
		m++
	}
	to := math.Inf(1) // the interval's steps end at to
	if m < len(pl.at) {
		to = pl.at[m]
	}
	both := pl.both[:nw]
	copy(both, pl.okAt(k))
	if pl.byRows((m - k - 1) * nw) {
		for s := k + 1; s < m; s++ {
			for w, x := range pl.okAt(s) {
				both[w] &= x
			}
		}
	} else {
		for _, q := range pl.byFrom {
			r := &pl.rsv[q]
			if r.from >= to {
				break
			}
			if r.to > pl.at[k] {
				for w, x := range pl.rmask[r.off : r.off+r.len] {
					both[int(r.w0)+w] &^= x
				}
			}
		}
	}
	count := 0
	for _, x := range both {
		count += bits.OnesCount64(x)
	}
	if count*pl.cores < procs {
		return false
	}
	free, got := pl.freeAt(k), 0
	if pl.cons {
		// cons_tres chooses among all the nodes left (cluster.SelectCores).
		cand := pl.cand[:0]
		for w, x := range both {
			for ; x != 0; x &= x - 1 {
				i := w<<6 | bits.TrailingZeros64(x)
				cand = append(cand, int32(i))
				got += int(free[i])
			}
		}
		pl.cand = cand
		if got < procs {
			return false
		}
		var ok bool
		pl.takes, ok = pl.sel.Select(free, cand, procs, pl.takes[:0])
		for _, t := range pl.takes {
			pl.pick = append(pl.pick, t.Node)
		}
		return ok
	}
	// First fit: the nodes left in index order (on an exclusive partition
	// each has every core free, and the plan keeps no free cores).
	for w := 0; w < nw && got < procs; w++ {
		for x := both[w]; x != 0 && got < procs; x &= x - 1 {
			i := w<<6 | bits.TrailingZeros64(x)
			pl.pick = append(pl.pick, int32(i))
			if pl.exclusive {
				got += pl.cores
			} else {
				got += int(free[i])
			}
		}
	}
	return got >= procs
}

// byRows reports whether to intersect rows words of the steps' ok sets
// rather than take the pass's reservations away (both give the same set:
// fits): rows, unless they cost more than reading the reservations'
// times (about 4 words each; few overlap a query). pl.via forces one
// (tests).
func (pl *nodePlan) byRows(rows int) bool {
	if pl.via != 0 {
		return pl.via == viaRows
	}
	return rows <= 4*len(pl.rsv)
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

// reserve holds the nodes in pl.pick over [from, to), and lists them
// (pl.rsv).
func (pl *nodePlan) reserve(from, to float64) {
	lo, hi := pl.span(from, to)
	if lo == hi || len(pl.pick) == 0 {
		return
	}
	w0, w1 := int(pl.pick[0])>>6, int(pl.pick[len(pl.pick)-1])>>6 // pick is in index order
	off := len(pl.rmask)
	for range w1 - w0 + 1 {
		pl.rmask = append(pl.rmask, 0)
	}
	mask := pl.rmask[off:]
	for _, i := range pl.pick {
		mask[int(i)>>6-w0] |= 1 << (i & 63)
	}
	pl.rsv = append(pl.rsv, nodeResv{from: pl.at[lo], to: pl.at[hi], off: int32(off), w0: int32(w0), len: int32(len(mask))})
	at := sort.Search(len(pl.byFrom), func(i int) bool { return pl.rsv[pl.byFrom[i]].from > pl.at[lo] })
	pl.byFrom = slices.Insert(pl.byFrom, at, int32(len(pl.rsv)-1))
	// On a shared-core partition, the picked nodes' free cores in a step
	// are those of the step before plus its changes on them (pl.deltas),
	// when those are fewer to read than the nodes (a large job's).
	byDelta, sum := false, int32(0)
	if !pl.exclusive {
		n := 0
		for k := lo + 1; k < hi; k++ {
			n += len(pl.deltas[pl.rows[k]])
		}
		if byDelta = n < len(pl.pick)*(hi-lo-1); byDelta {
			free := pl.freeAt(lo)
			for _, i := range pl.pick {
				sum += free[i]
			}
		}
	}
	for k := lo; k < hi; k++ {
		ok, rs, free := pl.okAt(k)[w0:], pl.resvAt(k)[w0:], pl.freeAt(k)
		if byDelta {
			if k > lo {
				for _, d := range pl.deltas[pl.rows[k]] {
					if w := int(d.node)>>6 - w0; w >= 0 && w < len(mask) && mask[w]>>(d.node&63)&1 != 0 {
						sum += d.cores
					}
				}
			}
			pl.room[k] -= sum
		}
		for w, m := range mask {
			if m == 0 {
				continue
			}
			// The picked nodes that could give cores give them no more.
			x := m & ok[w]
			switch {
			case pl.exclusive:
				pl.room[k] -= int32(bits.OnesCount64(x) * pl.cores)
			case byDelta:
				// sum counted every picked node: give back those that
				// could not give cores (none, as fits picks them).
				for y := m &^ ok[w]; y != 0; y &= y - 1 {
					pl.room[k] += free[(w0+w)<<6|bits.TrailingZeros64(y)]
				}
			default:
				for ; x != 0; x &= x - 1 {
					pl.room[k] -= free[(w0+w)<<6|bits.TrailingZeros64(x)]
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
		if pl.width == 0 {
			pl.addWhole(k, alloc, -1, false)
		} else {
			pl.addStep(k, alloc, gpus, -1)
		}
	}
	if pl.width > 0 && hi < len(pl.at) {
		pl.addDelta(hi, alloc) // step hi has the cores back
	}
}

// nodeDelta is a change of a node's free cores from a step to the next.
type nodeDelta struct{ node, cores int32 }

// addDelta records that step k has the cores of alloc back, on each node,
// against the step before (pl.deltas).
func (pl *nodePlan) addDelta(k int, alloc []cluster.Range) {
	d := &pl.deltas[pl.rows[k]]
	for _, r := range alloc {
		node := (int(r.Lo) - pl.lo) / pl.cores
		for p := int(r.Lo); p < int(r.Hi); node++ {
			next := min(int(r.Hi), pl.lo+(node+1)*pl.cores)
			if node >= 0 && node < pl.nodes {
				*d = append(*d, nodeDelta{int32(node), int32(next - p)})
			}
			p = next
		}
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

// addWhole is addStep on an exclusive partition's plan, which keeps no
// free cores per step: a node is in ok when nobody reserved it and every
// core is free. Taking cores (sign -1) takes every node alloc touches out
// of ok; giving them back (+1: reset) puts back the nodes alloc covers
// whole, and a node it covers in part once its count of free cores,
// pl.cur, is full again. count says to keep pl.cur (reset). A node a job
// covers whole is no other running job's, so pl.cur counts only nodes
// covered in part. The nodes of a range are set and cleared a word of 64
// at a time.
func (pl *nodePlan) addWhole(k int, alloc []cluster.Range, sign int32, count bool) {
	ok, c := pl.okAt(k), pl.cores
	for _, r := range alloc {
		lo, hi := max(int(r.Lo)-pl.lo, 0), min(int(r.Hi)-pl.lo, pl.nodes*c)
		if lo >= hi {
			continue
		}
		// The nodes it touches, [a, b), and those it covers whole, [fa, fb):
		// two divisions.
		a, fa := lo/c, lo/c
		if a*c != lo {
			fa++
		}
		fb, b := hi/c, hi/c
		if b*c != hi {
			b++
		}
		if sign < 0 {
			pl.room[k] -= int32(c * clearNodes(ok, a, b))
		} else if fa < fb {
			pl.room[k] += int32(c * setNodes(ok, fa, fb))
		}
		if !count {
			continue
		}
		for x := a; x < b; x++ {
			if x >= fa && x < fb {
				x = fb - 1 // covered whole: not counted
				continue
			}
			part := int32(min(hi, (x+1)*c) - max(lo, x*c))
			pl.cur[x] += sign * part
			if sign > 0 && pl.cur[x] == int32(c) {
				pl.room[k] += int32(c * setNodes(ok, x, x+1))
			}
		}
	}
}

// clearNodes clears nodes [a, b) in s and returns how many were set.
func clearNodes(s []uint64, a, b int) int {
	n := 0
	for w := a >> 6; w <= (b-1)>>6; w++ {
		m := rangeMask(w, a, b)
		n += bits.OnesCount64(s[w] & m)
		s[w] &^= m
	}
	return n
}

// setNodes sets nodes [a, b) in s and returns how many were not set.
func setNodes(s []uint64, a, b int) int {
	n := 0
	for w := a >> 6; w <= (b-1)>>6; w++ {
		m := rangeMask(w, a, b)
		n += bits.OnesCount64(m &^ s[w])
		s[w] |= m
	}
	return n
}

// rangeMask returns the bits of word w that are nodes of [a, b).
func rangeMask(w, a, b int) uint64 {
	m := ^uint64(0)
	if w == a>>6 {
		m &= ^uint64(0) << (a & 63)
	}
	if w == (b-1)>>6 {
		m &= ^uint64(0) >> (63 - (b-1)&63)
	}
	return m
}

// span splits the plan at from and at to (clamped to the window's end) and
// returns the steps between.
func (pl *nodePlan) span(from, to float64) (lo, hi int) {
	to = max(min(to, pl.end), from)
	lo = pl.split(from)
	hi = pl.split(to)
	if lo < len(pl.caps) { // mayFitNow's bounds from lo on change
		pl.caps, pl.accOK = pl.caps[:lo], false
	}
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

// extendCaps computes mayFitNow's bound for the next step k. As a step's
// free cores never fall later (fits), ok's running intersection up to k
// is step 0's ok less the nodes reserved from a step up to k: pl.acc,
// which takes away each reservation once, in order of start (byFrom).
func (pl *nodePlan) extendCaps() {
	k := len(pl.caps)
	t := pl.at[k]
	if k == 0 || !pl.accOK {
		copy(pl.acc, pl.okAt(0))
		pl.accN, pl.accNext, pl.accOK = 0, 0, true
		for _, x := range pl.acc {
			pl.accN += bits.OnesCount64(x)
		}
	}
	for ; pl.accNext < len(pl.byFrom); pl.accNext++ {
		r := &pl.rsv[pl.byFrom[pl.accNext]]
		if r.from > t {
			break
		}
		for w, x := range pl.rmask[r.off : r.off+r.len] {
			a := &pl.acc[int(r.w0)+w]
			pl.accN -= bits.OnesCount64(*a & x)
			*a &^= x
		}
	}
	c := min(int(pl.room[k]), pl.accN*pl.cores)
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
