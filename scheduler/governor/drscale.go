package governor

import (
	"math"
	"slices"

	"drsim/powercap"
	"drsim/scheduler"
)

// DRScale is the demand-response governor with malleable jobs
// ("Demand-Response-Scale", --powercap dr --malleable F). It is the DR
// governor's problem with a second choice per malleable job: its size.
//
// Rules:
//
//   - No limit in force: every job runs at its top level, and every job
//     shrunk during an event grows back to its requested size as soon as
//     enough processors are free after the scheduling pass (waiting jobs
//     come first), paying the reconfiguration pause again.
//   - Start level: as DR (top outside events, level 0 inside, then
//     re-optimised right after the pass).
//   - Under a limit p̂: choose for every running job a level l_j and, for a
//     malleable job with requested size n0 and current size n_c, a size
//     n_j from {n_c} ∪ {⌈r·n0⌉ : r on Steps points from MinFrac to 1} ∩
//     [⌈MinFrac·n0⌉, n_c] (jobs only shrink during an event), minimising
//     the estimated remaining energy
//     Σ_j n_j·p(l_j)·s(l_j)·R_j·F(n_j/n0)/F(n_c/n0) + [n_j ≠ n_c]·n_j·p(l_j)·pause_j
//     subject to Σ_j n_j·p(l_j) + (n_c − n_j)·IdleW ≤ p̂ − (idle now)
//     (processors a job releases start drawing idle power). R_j is the
//     estimated remaining work at its current size and top level (as DR),
//     F(r) = t(r·n0)/t(n0) the runtime factor of the application (from
//     its energy-to-solution predictor), pause_j = ResizeCost except for a
//     job that started at this instant (a moldable start: its size is
//     chosen at no cost). The problem is a multiple-choice knapsack (one
//     class per job, options sizes × levels, ordered by size then level, so
//     ties go to the smaller size, then the lower level), solved exactly by
//     powercap.MCKP; if every job's own least-energy option fits, that is
//     the optimum (quick path, no MCKP).
//   - Eviction: as DR, with a kept job's least power taken over its sizes
//     and levels.
//   - Applying a choice: the level first (at the old size), then the
//     resize, so the pause lasts exactly pause_j seconds at the new level.
//
// Non-malleable and fixed-level (Config.JobLevel) jobs are never resized.
// One DRScale value serves one engine.
type DRScale struct {
	Malleable  func(id int64) bool              // which jobs may change size; nil: none
	Factor     func(app int, r float64) float64 // runtime factor F(r), F(1) = 1; nil: 1/r (perfect scaling)
	ResizeCost float64                          // reconfiguration pause (s)
	MinFrac    float64                          // smallest size as a fraction of the request; 0: 0.5
	Steps      int                              // sizes from MinFrac to 1; 0: 5

	mckp    powercap.MCKP
	knap    powercap.Knapsack
	jobs    []scaleJob
	opts    []powercap.Option
	meta    []scaleOpt
	classes [][]powercap.Option
	built   bool // opts and meta hold every job's options (build)
	empty   bool // some job has no option
	choice  []int
	wts     []float64
	vals    []float64
	slots   []int32
	sizeBuf []int
	ss      []slotState // by slot
	oset    []int32     // the slots whose origSize is set (ok), to forget them
	sh      []sizeShape // by hash of what a shape is made from (shapeOf)
	so      []sizeOpts  // by hash of (app, size)
	lowered bool
	lazy    bool               // some of g.jobs are lazy (fill)
	c       *scheduler.Control // collect's, for fill
	// restore's state: after its first pass, the shrunk jobs still to
	// grow (slots, with their job seq to notice finished ones).
	restoring bool
	seenSeq   uint64 // start sequence number at the last restore
	pend      []int32
	pendSeq   []int64 // job seq of each pend entry
	run       runOrder

	plain    bool // tests: every pick by the full walk, SetLevel on every job, every shape computed again (the caches' reference)
	shapeLen int  // tests: the number of shape entries, to make keys collide (0: sizeShapeLen)

	// Counters for tests and reports.
	Solves, Infeasible, Shrinks, Grows int
	budget                             LevelStats
}

// LevelStats reports the level problems solved so far.
func (g *DRScale) LevelStats() LevelStats { return g.budget }

var _ scheduler.Governor = (*DRScale)(nil)

type origSize struct {
	seq       int64
	n0        int
	malleable bool
	ok        bool // set: the zero value is "not seen"
}

// slotState is what DR-Scale keeps per job slot: info's answer for the
// job in it, and its sizes' cache.
type slotState struct {
	o  origSize
	sc sizeCache
}

// slot returns slot s's state, growing g.ss as needed (which moves it:
// pointers into it last until the next growth).
func (g *DRScale) slot(s int32) *slotState {
	if int(s) >= len(g.ss) {
		g.ss = append(g.ss, make([]slotState, int(s)+1-len(g.ss))...)
	}
	return &g.ss[s]
}

// scaleJob is one running job as the optimiser sees it; its options are
// meta[from:to] (and opts[from:to]).
type scaleJob struct {
	slot     int32
	n0, cur  int
	app      int
	from, to int // its options in opts and meta, once built

	// what its options are computed from
	level            int  // its level (the only one when fixed)
	fixed            bool // level fixed (Config.JobLevel)
	lv               []powercap.Level
	o                origSize
	rem, pause, idle float64

	best  int      // the least-cost option (ties: least weight, then first), within the class
	bestW float64  // its weight
	pick  scaleOpt // what it means

	// lazy: only slot, cur, level and the least-cost option are set (by
	// collect, from a kept pick that keeps the job's size); fill sets the
	// rest when they are read (build).
	lazy bool
}

// scaleOpt is what an option means.
type scaleOpt struct {
	n, level int
}

func (*DRScale) Name() string     { return "dr-scale" }
func (*DRScale) PowerAware() bool { return true }

// StartLevel is the top level outside DR events and level 0 inside.
func (*DRScale) StartLevel(e *scheduler.Engine, app int) int { return (&DR{}).StartLevel(e, app) }

// Adjust re-levels, resizes and if need be evicts the running jobs.
func (g *DRScale) Adjust(c *scheduler.Control) {
	if !c.InDR() {
		if g.lowered {
			g.restore(c)
		}
		return
	}
	g.lowered, g.restoring = true, false
	g.collect(c)
	if g.assign(c) {
		return
	}
	g.Infeasible++
	g.evict(c)
	g.collect(c)
	g.assign(c)
}

func (g *DRScale) minFrac() float64 {
	if g.MinFrac <= 0 || g.MinFrac > 1 {
		return 0.5
	}
	return g.MinFrac
}

func (g *DRScale) factor(app int, r float64) float64 {
	if g.Factor == nil {
		return 1 / r
	}
	return g.Factor(app, r)
}

// info returns the requested size of running slot s (remembered from the
// first time it was seen) and whether it is malleable.
func (g *DRScale) info(c *scheduler.Control, s int32) origSize {
	_, seq := c.JobKey(s)
	return g.infoSeq(c, s, seq)
}

// infoSeq is info for slot s holding the job of sequence number seq.
func (g *DRScale) infoSeq(c *scheduler.Control, s int32, seq int64) origSize {
	if int(s) < len(g.ss) {
		if o := &g.ss[s].o; o.ok && o.seq == seq {
			return *o
		}
	}
	return g.infoNew(c, s, seq)
}

// infoNew remembers and returns what info returns for a job not seen yet.
func (g *DRScale) infoNew(c *scheduler.Control, s int32, seq int64) origSize {
	id, _ := c.JobKey(s)
	o := origSize{seq: seq, n0: c.JobProcs(s), malleable: g.Malleable != nil && g.Malleable(id) && !c.Fixed(s), ok: true}
	x := g.slot(s)
	if !x.o.ok {
		g.oset = append(g.oset, s)
	}
	x.o = o
	return o
}

// restore raises every job to its top level and grows shrunk jobs back
// while processors are free; it stays armed until every job is back. The
// first call after a DR event visits every running job; later ones only
// the shrunk jobs still waiting to grow and the jobs started since (an
// evicted job restarts at its shrunk size), in the same start order.
func (g *DRScale) restore(c *scheduler.Control) {
	checked := 0 // g.slots[:checked] are earlier pending jobs: check they still run
	if !g.restoring {
		g.slots = append(g.slots[:0], c.Running()...)
		g.restoring = true
	} else {
		checked = len(g.slots)
		g.slots = c.StartedSince(g.seenSeq, g.slots)
	}
	g.seenSeq = c.StartSeq()
	pend, part := g.pend[:0], c.Partitioned() || g.plain
	for i, s := range g.slots {
		if i < checked {
			if _, seq := c.JobKey(s); seq != g.pendSeq[i] || !c.IsRunning(s) {
				continue // finished since (the slot may hold another job)
			}
		}
		c.SyncLeft(s) // synchronised as by Job
		app, procs := c.App(s), c.JobProcs(s)
		if top := len(c.Levels(app)) - 1; part || c.Level(s) != top { // SetLevel to the same level changes nothing
			c.SetLevel(s, top)
		}
		o := g.info(c, s)
		if procs >= o.n0 {
			continue
		}
		if c.FreeProcs() >= o.n0-procs && c.Resize(s, o.n0, g.factor(app, 1)/g.factor(app, float64(procs)/float64(o.n0)), g.ResizeCost) {
			g.Grows++
		} else {
			pend = append(pend, s)
		}
	}
	g.pend, g.pendSeq = pend, g.pendSeq[:0]
	for _, s := range pend {
		_, seq := c.JobKey(s)
		g.pendSeq = append(g.pendSeq, seq)
	}
	g.slots = append(g.slots[:0], pend...)
	g.lowered = len(pend) > 0
	if !g.lowered {
		g.restoring = false
		for _, s := range g.oset { // only running jobs matter; forget finished ones
			g.ss[s].o = origSize{}
		}
		g.oset = g.oset[:0]
		// The sizes' caches stay: they are keyed by everything they are
		// computed from (slot, start, size, request, malleability, fixed
		// level), so a job running on after the event keeps its sizes and
		// candidates.
	}
}

// collect reads the running jobs and finds every job's least-cost option;
// the full option lists are built only when needed (build).
//
// It does what add does for each job, with info's and add's first tests
// in the loop: the remembered request and a kept pick that stands answer
// most visits, and then the job's entry is left lazy: only what solve's
// quick path and assign read is written, the rest when asked (fill).
func (g *DRScale) collect(c *scheduler.Control) {
	ord := g.run.slots(c)
	g.jobs, g.opts, g.meta, g.built, g.empty = slices.Grow(g.jobs[:0], len(ord))[:len(ord)], g.opts[:0], g.meta[:0], false, false
	g.c, g.lazy = c, false
	idle := c.IdleW()
	now := c.Now()
	if n := c.Slots(); len(g.ss) < n {
		g.slot(int32(n - 1)) // every running slot's state, so that x below stays put
	}
	var st scheduler.RunState
	for i, s := range ord {
		c.SyncState(s, &st) // Job(s)'s max(0, Estimate − Done) and the fields read below
		pause := g.ResizeCost
		if st.Start == now {
			pause = 0 // moldable start
		}
		x := &g.ss[s]
		o := x.o
		if !o.ok || o.seq != st.Seq { // infoSeq's test
			o = g.infoNew(c, s, st.Seq)
		}
		sj := &g.jobs[i] // written field by field (no composite literal copied in), all but from and to (build)
		sj.slot, sj.cur, sj.level = s, st.Procs, st.Level
		if sc := &x.sc; !g.plain && sc.holds(keyOf(st.Seq, st.Procs, o.n0, o.malleable, st.Fixed, st.Level)) && sc.pk.holds(st.Left, pause) {
			sj.best, sj.pick, sj.bestW = sc.pk.answer(st.Procs, idle) // as add
			// Assign reads no more of a job that keeps its size, unless
			// the options are built (and then fill completes it).
			if sj.pick.n == st.Procs {
				sj.lazy, g.lazy = true, true
				continue
			}
			sj.complete(&st, o, c.Levels(st.App), pause, idle) // a resize reads its request and application
			continue
		}
		sj.complete(&st, o, c.Levels(st.App), pause, idle)
		sj.best, sj.pick = 0, scaleOpt{} // as a new entry's, for a job without options
		if g.options(sj, false) == 0 {
			g.empty = true
		}
	}
}

// complete writes what sj's options are computed from, but its slot,
// size and level (st's), and marks it not lazy.
func (sj *scaleJob) complete(st *scheduler.RunState, o origSize, lv []powercap.Level, pause, idle float64) {
	sj.app, sj.fixed, sj.lv, sj.rem, sj.pause, sj.idle = st.App, st.Fixed, lv, st.Left, pause, idle
	sj.o, sj.n0, sj.lazy = o, o.n0, false
}

// fill completes the lazy entries of g.jobs as collect would have: each
// job is read again at the same instant, unchanged since collect (fill
// runs before assign changes anything), so its synchronisation adds
// nothing and its values are collect's.
func (g *DRScale) fill() {
	if !g.lazy {
		return
	}
	g.lazy = false
	c := g.c
	idle, now := c.IdleW(), c.Now()
	var st scheduler.RunState
	for i := range g.jobs {
		sj := &g.jobs[i]
		if !sj.lazy {
			continue
		}
		c.SyncState(sj.slot, &st)
		pause := g.ResizeCost
		if st.Start == now {
			pause = 0
		}
		sj.complete(&st, g.ss[sj.slot].o, c.Levels(st.App), pause, idle)
	}
}

// addJob appends running job j (slot s) to g.jobs with its least-cost
// option, as collect does.
func (g *DRScale) addJob(s int32, j scheduler.Job, o origSize, lv []powercap.Level, pause, idle float64) {
	g.jobs = append(g.jobs, scaleJob{slot: s, cur: j.Procs, app: j.App, level: j.Level, fixed: j.Fixed, lv: lv,
		rem: max(0, j.Estimate-j.Done), pause: pause, idle: idle})
	g.add(&g.jobs[len(g.jobs)-1], o)
}

// add completes g.jobs' last entry sj (built in place: no copy of the
// large value) with o and its least-cost option.
func (g *DRScale) add(sj *scaleJob, o origSize) {
	sj.o, sj.n0 = o, o.n0
	if sc := &g.slot(sj.slot).sc; !g.plain && sc.holds(keyOf(o.seq, sj.cur, o.n0, o.malleable, sj.fixed, sj.level)) && sc.pk.holds(sj.rem, sj.pause) {
		// options' answer when its slot cache holds the job's shape and
		// the kept pick stands (best's first test, without the calls):
		// the pick's range lies within [0, pickMax] and its pause is
		// finite, so options would have called best, and a kept pick
		// means the shape has options.
		sj.best, sj.pick, sj.bestW = sc.pk.answer(sj.cur, sj.idle)
		return
	}
	if g.options(sj, false) == 0 {
		g.empty = true
	}
}

// build appends every job's options to g.opts and g.meta (from and to
// delimit each job's), with the same values options found the best among.
func (g *DRScale) build() {
	if g.built {
		return
	}
	g.fill()
	g.opts, g.meta = g.opts[:0], g.meta[:0]
	for i := range g.jobs {
		sj := &g.jobs[i]
		sj.from = len(g.opts)
		g.options(sj, true)
		sj.to = len(g.opts)
	}
	g.built = true
}

// options walks job sj's options, every candidate size × level (only its
// level when fixed), appending them to g.opts and g.meta if add, records
// the least-cost one (by solve's rule: least cost, then least weight, then
// first) in sj, and returns their number.
//
// The sizes and their factors come from the job's shape (sizesOf), shared
// by every job with the same table, sizes and malleability: the same
// values from the same calls on the same arguments.
func (g *DRScale) options(sj *scaleJob, add bool) int {
	sc := g.sizesOf(sj)
	sh := sc.sh
	if !add && !g.plain && sj.rem >= 0 && sj.rem <= math.MaxFloat64 && sj.pause >= 0 && sj.pause <= math.MaxFloat64 {
		g.best(sj, sc) // the same pick over the undominated options only
		return sh.nopt
	}
	var best powercap.Option
	for i, oc := range sh.opts(sj) {
		n := sh.n[oc.size]
		cost := oc.nps * sj.rem * sh.tf[oc.size] // nf·p·s·rem·tf, left to right
		if n != sj.cur {
			cost += oc.np * sj.pause
		}
		opt := powercap.Option{Weight: oc.np + float64(sj.cur-n)*sj.idle, Cost: cost}
		if i == 0 || opt.Cost < best.Cost || opt.Cost == best.Cost && opt.Weight < best.Weight {
			sj.best, best, sj.pick = i, opt, scaleOpt{n: n, level: int(oc.level)}
		}
		if add {
			g.opts = append(g.opts, opt)
			g.meta = append(g.meta, scaleOpt{n: n, level: int(oc.level)})
		}
	}
	sj.bestW = best.Weight
	return sh.nopt
}

// assign solves the problem for g.jobs and applies it; false (changing
// nothing) when no choice fits.
func (g *DRScale) assign(c *scheduler.Control) bool {
	choice, ok := g.solve(c.Limit() - c.IdlePower())
	if !ok {
		return false
	}
	part, built := c.Partitioned() || g.plain, g.built
	for i := range g.jobs {
		j := &g.jobs[i]
		m := j.pick // the quick path chose every job's best
		if built {
			m = g.meta[j.from+choice[i]]
		}
		if part || j.level != m.level { // SetLevel to the same level changes nothing (j.level: its level, read by collect)
			c.SetLevel(j.slot, m.level)
		}
		if m.n != j.cur {
			pause := g.ResizeCost
			if c.Started(j.slot) == c.Now() {
				pause = 0
			}
			if j.lazy && c.Checking() { // lazy entries keep their size unless built (collect)
				c.Violate("dr-scale: job in slot %d resized from a lazy entry", j.slot)
			}
			app := j.app
			f := g.factor(app, float64(m.n)/float64(j.n0)) / g.factor(app, float64(j.cur)/float64(j.n0))
			if c.Resize(j.slot, m.n, f, pause) {
				g.Shrinks++
			}
		}
	}
	return true
}

// solve returns the chosen option index (within its class) of every job
// in g.jobs with total weight at most capacity, or ok=false. The slice is
// owned by g.
func (g *DRScale) solve(capacity float64) (choice []int, ok bool) {
	g.Solves++
	g.choice = g.choice[:0]
	w := 0.0
	if g.empty {
		g.build() // keep the former indexing of an empty class exactly
		for _, j := range g.jobs {
			g.choice = append(g.choice, j.best)
			w += g.opts[j.from+j.best].Weight
		}
	} else {
		jobs := g.jobs
		choice := slices.Grow(g.choice, len(jobs))[:len(jobs)]
		for i := range jobs {
			j := &jobs[i]
			choice[i] = j.best // found by collect
			w += j.bestW
		}
		g.choice = choice
	}
	if w <= capacity {
		return g.choice, true
	}
	g.build()
	g.classes = g.classes[:0]
	for _, j := range g.jobs {
		g.classes = append(g.classes, g.opts[j.from:j.to:j.to])
	}
	choice, cost, ok := g.mckp.Solve(g.classes, capacity)
	g.budget.note(&g.mckp, cost)
	return choice, ok
}

// evict keeps the running jobs that maximise the energy already spent and
// fit at their least power (over sizes and levels), and evicts the rest.
func (g *DRScale) evict(c *scheduler.Control) {
	g.build()
	g.wts, g.vals = g.wts[:0], g.vals[:0]
	idle := c.IdleW()
	for _, j := range g.jobs {
		lw := math.Inf(1)
		for k := j.from; k < j.to; k++ {
			m := g.meta[k]
			lw = math.Min(lw, float64(m.n)*(c.Levels(j.app)[m.level].Power-idle))
		}
		g.wts = append(g.wts, lw)
		g.vals = append(g.vals, c.Job(j.slot).Spent)
	}
	keep, _ := g.knap.Solve(g.wts, g.vals, c.Limit()-float64(c.Procs())*idle)
	for i, j := range g.jobs {
		if !keep[i] {
			c.Evict(j.slot)
		}
	}
}

// runOrder keeps the running slots in start order from the running list's
// changes (Control.RunChanges), so that collect does not sort them at
// every call: a new run has the largest start sequence number so far and
// goes last; a removed one leaves; a run removed and inserted again at
// once (re-timed or resized) stays where it is. Anything else, or changes
// not all known, and it reads Control.Running again.
type runOrder struct {
	ok   bool
	ord  []int32  // slots in start order
	seq  []uint64 // their start sequence numbers (0: removed, until compacted)
	last uint64   // the largest start sequence number in ord
	at   []int32  // per slot: the index in ord of the run in it
}

// slots returns the running slots in start order (Control.Running's
// order); the slice is owned by o.
func (o *runOrder) slots(c *scheduler.Control) []int32 {
	ch, ok := c.RunChanges()
	if ok && o.ok {
		if ok = o.follow(ch); ok && c.Checking() && !slices.Equal(o.ord, c.Running()) {
			c.Violate("dr-scale: running jobs in start order %v from the list's changes, %v from the list", o.ord, c.Running())
		}
	}
	if !ok || !o.ok {
		o.ord = append(o.ord[:0], c.Running()...)
		o.seq, o.last = o.seq[:0], 0
		for i, s := range o.ord {
			q := c.RunSeq(s)
			o.seq = append(o.seq, q)
			o.last = max(o.last, q)
			o.place(s, i)
		}
		o.ok = !c.Partitioned()
	}
	return o.ord
}

// place records that slot s's run is at index i of ord.
func (o *runOrder) place(s int32, i int) {
	for int(s) >= len(o.at) {
		o.at = append(o.at, -1)
	}
	o.at[s] = int32(i)
}

// follow applies the changes ch to o.ord; false when it cannot.
func (o *runOrder) follow(ch []scheduler.RunChange) bool {
	removed, first := false, len(o.ord) // first: the least index removed
	for i := 0; i < len(ch); i++ {
		x := &ch[i]
		if i+1 < len(ch) && !x.Insert && ch[i+1].Insert && ch[i+1].Slot == x.Slot && ch[i+1].Seq == x.Seq {
			i++ // re-timed or resized in place
			continue
		}
		if x.Insert {
			if x.Seq <= o.last {
				return false
			}
			o.place(x.Slot, len(o.ord))
			o.ord, o.seq, o.last = append(o.ord, x.Slot), append(o.seq, x.Seq), x.Seq
			continue
		}
		if int(x.Slot) >= len(o.at) {
			return false
		}
		k := o.at[x.Slot]
		if k < 0 || int(k) >= len(o.ord) || o.ord[k] != x.Slot || o.seq[k] != x.Seq {
			return false
		}
		o.seq[k], o.at[x.Slot], removed = 0, -1, true
		first = min(first, int(k))
	}
	if removed {
		k := first // the runs before it stay where they are
		for i := first; i < len(o.ord); i++ {
			s := o.ord[i]
			if o.seq[i] == 0 {
				continue
			}
			o.ord[k], o.seq[k] = s, o.seq[i]
			o.at[s] = int32(k)
			k++
		}
		o.ord, o.seq = o.ord[:k], o.seq[:k]
	}
	return true
}
