package governor

import (
	"math"
	"slices"

	"drsim/powercap"
	"drsim/scheduler"
)

// DR is the emergency demand-response governor (--dvfs dr). It is
// power-aware, so the engine starts a job only if the running jobs' power,
// the idle processors' power and the new job's power at its lowest level
// stay under the limit in force (View.Fits); EASY and conservative also
// make their reservations power-feasible (easy.go, conservative.go).
//
// It knows nothing about what a Level's X means, only its Power and Scale,
// so it works unchanged over frequency tables (DVFS) and cap tables.
//
// Rules:
//
//   - No limit in force: every job runs at its top level. Adjust returns at
//     once unless an event just ended, in which case it raises every job
//     that is below its top level.
//   - Start level: jobs that start under a limit start at level 0 (the level
//     the engine's eligibility test assumed), and Adjust re-optimises all
//     running jobs right after the pass.
//   - Levels under a limit p̂: choose one level l_j per running job to
//     minimise the estimated remaining energy Σ_j R_j·n_j·p(j,l_j)·s(j,l_j)
//     subject to Σ_j n_j·p(j,l_j) ≤ p̂ − (idle processors)·IdleW, where s is
//     the runtime scale of the level and R_j = max(0, estimate − work done)
//     is the job's estimated remaining work at the top level (s). This is a
//     multiple-choice knapsack solved exactly by powercap.MCKP. The
//     optimiser uses the user's estimate, not the recorded runtime, because
//     a real governor knows the work done so far (elapsed time and its own
//     level history) but not the true runtime. Ties go to the lower power.
//     Jobs whose level is fixed (Config.JobLevel) have a single option.
//   - Eviction: if even the lowest levels do not fit, keep the subset of
//     running jobs that maximises the energy already spent Σ x_j·e_j subject
//     to Σ x_j·n_j·(p(j,lowest) − IdleW) ≤ p̂ − Procs·IdleW (an evicted job's
//     processors still draw idle power), a 0-1 knapsack solved exactly by
//     powercap.Knapsack; evict the others (they requeue with their original
//     submit time and restart from scratch) and re-optimise the levels.
//
// Cost: outside events Adjust returns at once. Under a limit it first
// tries the common case without synchronising or copying anything: the
// problem is separable but for the power constraint, so if every job at
// its own least-energy level fits, that is the optimum (quick); only when
// the limit binds does it build the knapsack. DR keeps its buffers between
// calls, so in steady state Adjust does not allocate. One DR value serves
// one engine.
type DR struct {
	mckp    powercap.MCKP
	knap    powercap.Knapsack
	jobs    []drJob
	opts    []powercap.Option
	classes [][]powercap.Option
	ends    []int // per job: the end of its class in opts (solve)
	wts     []float64
	vals    []float64
	slots   []int32
	choice  []int
	hint    []int     // per job: its level now, MCKP's starting incumbent
	best    []int     // per app: the level of least energy per unit of work (-1: not computed)
	lowest  []int     // per app: the level of least power
	bestP   []float64 // per app: the power per processor at best (quick)
	lowered bool      // some job may be below its top level
	steady  bool      // quick's last answer does not depend on the time
	memo    drMemo
	seen    []drSeen // per engine slot: what quick knows of the run in it
	inc     drInc    // quick's running sums, kept up to date from the list's changes
	plain   bool     // tests: no memo, no per-run records, no hint (the caches' reference)
	unfit   bool     // the next solve's jobs are known not to fit at their least-energy levels (Adjust)
	skips   int      // Adjusts that the memo answered without a scan (tests)
	follows int      // quick answers that follow found without a scan (tests)
	expired int      // runs follow found past their estimate, at their least-power level (tests)
	early   int      // non-steady runs follow placed from their estimated end, without reading the job (tests)
	farRuns int      // non-steady runs summed as far (drInc; tests)
	nearer  int      // far runs re-timed to end by the horizon (tests)
	ahead   float64  // tests: the horizon's distance instead of farAhead (0: farAhead)

	// Counters, for tests and reports: level problems solved in full (the
	// quick path excluded) and those that needed evictions.
	Solves, Infeasible int
	budget             LevelStats
}

// LevelStats counts a governor's level problems: those solved in full and
// those whose exact search ran out of powercap.MCKP's budget, with the
// worst relative gap between such an answer and the LP lower bound.
type LevelStats struct {
	Solves, OverBudget int
	MaxGap             float64 // fraction of the answer's cost
}

// note records the outcome of one MCKP solve of the given cost.
func (s *LevelStats) note(m *powercap.MCKP, cost float64) {
	s.Solves++
	if m.Exact {
		return
	}
	s.OverBudget++
	if cost != 0 {
		s.MaxGap = max(s.MaxGap, (cost-m.Bound)/math.Abs(cost))
	}
}

// LevelStats reports the level problems solved so far.
func (g *DR) LevelStats() LevelStats { return g.budget }

var _ scheduler.LimitLeveler = (*DR)(nil)

// drJob is one running job as the optimiser sees it.
type drJob struct {
	slot  int32
	procs int
	app   int
	level int
	fixed bool
	rem   float64 // estimated remaining work at the top level (s)
	spent float64 // J of the current run
	pf    float64 // power factor of its nodes (variability.go; 1 without, 0 read as 1)
}

// factor is j's power factor (1 for a zero pf).
func (j *drJob) factor() float64 {
	if j.pf == 0 {
		return 1
	}
	return j.pf
}

// weight is j's processors weighted by their power factor.
func (j *drJob) weight() float64 { return float64(j.procs) * j.factor() }

func (*DR) Name() string     { return "dr" }
func (*DR) PowerAware() bool { return true }
func (*DR) LimitLevels()     {}

// StartLevel is the top level outside DR events and level 0 inside.
func (*DR) StartLevel(e *scheduler.Engine, app int) int {
	if math.IsInf(e.Limit(), 1) {
		return len(e.Levels(app)) - 1
	}
	return 0
}

// Adjust re-levels (and if need be evicts) the running jobs; see DR.
func (g *DR) Adjust(c *scheduler.Control) {
	if !c.InDR() {
		if g.lowered {
			g.raise(c)
		}
		return
	}
	g.lowered = true
	if g.unchanged(c) {
		g.skips++
		if g.memo.fit {
			return // quick's answer is in force and still is
		}
	} else if g.quick(c) {
		g.remember(c, true)
		return
	}
	g.collect(c)
	// Here the jobs at their least-energy levels do not fit: quick said so
	// just now, or the memo that it still would (the same steady jobs, the
	// same limit). solve need not check again.
	g.unfit = !g.plain
	if g.assign(c) {
		g.remember(c, false)
		return
	}
	g.Infeasible++
	g.memo.valid = false
	g.evict(c)
	g.collect(c)
	g.assign(c)
}

// drMemo is what the last Adjust left behind, for unchanged: the running
// list's epoch, the limit and the idle power then, and whether every job at
// its own least-energy level fitted (quick). Valid only when that answer
// did not depend on the time: every running job was steady (quick).
type drMemo struct {
	epoch       uint64
	limit, idle float64
	fit, valid  bool
}

// unchanged reports whether nothing quick reads changed since the last
// Adjust: the same running jobs (the list's epoch counts every insert and
// remove, so re-timed jobs count too), the same limit and idle power, and
// only steady jobs, whose least-energy level does not depend on the time.
// Then quick's answer is the memo's: if it fitted, every job is still at
// that level (only the governor moves levels) and there is nothing to do;
// if not, the knapsack must be solved again (its costs did change).
func (g *DR) unchanged(c *scheduler.Control) bool {
	m := &g.memo
	return !g.plain && m.valid && !c.Partitioned() && m.epoch == c.RunEpoch() && m.limit == c.Limit() && m.idle == c.IdlePower()
}

// remember records the state after an Adjust whose quick answer was fit.
func (g *DR) remember(c *scheduler.Control, fit bool) {
	g.memo = drMemo{epoch: c.RunEpoch(), limit: c.Limit(), idle: c.IdlePower(), fit: fit, valid: g.steady}
}

// running copies the running slots (in the engine's estimated-end order,
// which is deterministic) so that SetLevel and Evict may reorder the
// engine's list while the copy is walked.
func (g *DR) running(c *scheduler.Control) []int32 {
	g.slots = c.AppendRunning(g.slots[:0])
	return g.slots
}

// raise moves every running job to its top level.
func (g *DR) raise(c *scheduler.Control) {
	g.inc.atK = false
	for _, s := range g.running(c) {
		j := c.Job(s)
		g.setLevel(c, s, len(c.Levels(j.App))-1)
	}
	g.lowered = false
}

// collect reads the running jobs into g.jobs.
func (g *DR) collect(c *scheduler.Control) {
	g.jobs = g.jobs[:0]
	for _, s := range g.running(c) {
		j := c.Job(s)
		g.jobs = append(g.jobs, drJob{slot: s, procs: j.Procs, app: j.App, level: j.Level, fixed: j.Fixed,
			rem: max(0, j.Estimate-j.Done), spent: j.Spent, pf: c.PowerFactor(s)})
	}
}

// assign solves the level problem for g.jobs under the current limit and
// applies it; it reports false (changing nothing) when no choice fits.
func (g *DR) assign(c *scheduler.Control) bool {
	g.inc.atK = false
	if g.unfit && c.Checking() && g.leastEnergy(c.Levels, c.Limit()-c.IdlePower()) {
		c.Violate("dr: the running jobs fit at their least-energy levels, which quick said they did not")
	}
	choice, ok := g.solve(c.Levels, c.Limit()-c.IdlePower())
	if !ok {
		return false
	}
	for i, j := range g.jobs {
		// A job already at its level is left alone: the engine would
		// change nothing (SetLevel re-times only on a change), and
		// neither would setLevel's record (it holds that level).
		if !j.fixed && choice[i] != j.level {
			g.setLevel(c, j.slot, choice[i])
		}
	}
	return true
}

// solve returns the energy-optimal level of every job in g.jobs with total
// power at most capacity (W), or ok=false. For fixed jobs the returned
// entry is their level. The slice is owned by g.
func (g *DR) solve(levels func(app int) []powercap.Level, capacity float64) (choice []int, ok bool) {
	g.Solves++
	// The problem is separable but for the power constraint: if every job at
	// its own least-energy level fits, that is the optimum (with MCKP's tie
	// rule: least energy, then least power, then lowest level). Adjust knows
	// when they do not (unfit).
	unfit := g.unfit
	g.unfit = false
	if !unfit && g.leastEnergy(levels, capacity) {
		return g.choice, true
	}
	// The options, one class per job (only its level when fixed), and the
	// jobs' current levels, the previous answer for those that were running
	// then: the search's starting incumbent when they fit.
	g.opts, g.hint, g.ends = g.opts[:0], g.hint[:0], g.ends[:0]
	for _, j := range g.jobs {
		n, lv := j.weight(), levels(j.app)
		if j.fixed {
			lv = lv[j.level : j.level+1]
			g.hint = append(g.hint, 0)
		} else {
			g.hint = append(g.hint, j.level)
		}
		for _, l := range lv {
			g.opts = append(g.opts, powercap.Option{Weight: n * l.Power, Cost: j.rem * n * l.Power * l.Scale})
		}
		g.ends = append(g.ends, len(g.opts))
	}
	g.classes = g.classes[:0]
	k := 0
	for _, e := range g.ends {
		g.classes = append(g.classes, g.opts[k:e:e])
		k = e
	}
	g.mckp.Hint = g.hint
	if g.plain {
		g.mckp.Hint = nil
	}
	choice, cost, ok := g.mckp.Solve(g.classes, capacity)
	g.budget.note(&g.mckp, cost)
	if ok {
		for i, j := range g.jobs {
			if j.fixed {
				choice[i] = j.level
			}
		}
	}
	return choice, ok
}

// leastEnergy sets g.choice to every job's least-energy level (its level
// when fixed) and reports whether their total power, summed in the
// running list's order as quick's scan sums it, fits capacity.
func (g *DR) leastEnergy(levels func(app int) []powercap.Level, capacity float64) bool {
	g.choice = g.choice[:0]
	w := 0.0
	for _, j := range g.jobs {
		k := j.level
		if !j.fixed {
			k = g.levelFor(levels, j.app, j.rem)
		}
		g.choice = append(g.choice, k)
		w += j.weight() * levels(j.app)[k].Power
	}
	return w <= capacity
}

// levelFor returns the least-energy level of non-fixed job j (the
// least-power one when it has no estimated work left, as then every level
// costs 0).
func (g *DR) levelFor(levels func(app int) []powercap.Level, app int, rem float64) int {
	for len(g.best) <= app {
		g.best = append(g.best, -1)
		g.lowest = append(g.lowest, -1)
	}
	if g.best[app] < 0 {
		lv := levels(app)
		b, l := 0, 0
		for k, x := range lv {
			if e, eb := x.Power*x.Scale, lv[b].Power*lv[b].Scale; e < eb || e == eb && x.Power < lv[b].Power {
				b = k
			}
			if x.Power < lv[l].Power {
				l = k
			}
		}
		g.best[app], g.lowest[app] = b, l
	}
	if rem <= 0 {
		return g.lowest[app]
	}
	return g.best[app]
}

// quick is the common case of Adjust, without synchronising or copying
// the running jobs: if every job at its own least-energy level fits the
// limit, that is the optimum of the level problem, so apply it and report
// true. It changes nothing when it reports false.
//
// It reads each run's row of g.seen, filled from the engine's job on first
// sight, instead of the job itself: a steady job's level and power there
// never change. Other jobs' estimated remaining work is computed as of now
// without synchronising them. Usually it does not walk the running list
// either: it follows the list's changes since the last call
// (Control.RunChanges) in running sums (follow); it walks the whole list
// in place (scan) when it cannot.
func (g *DR) quick(c *scheduler.Control) bool {
	if len(g.bestP) < c.Apps() {
		g.bestP = g.bestP[:0]
		for app := range c.Apps() {
			g.bestP = append(g.bestP, c.Levels(app)[g.levelFor(c.Levels, app, 1)].Power)
		}
	}
	if n := c.Slots(); len(g.seen) < n {
		g.seen = append(g.seen, make([]drSeen, n-len(g.seen))...)
	}
	capacity := c.Limit() - c.IdlePower()
	fit, known := false, false
	if !g.plain {
		ch, ok := c.RunChanges()
		if fit, known = g.follow(c, ch, ok, capacity); known && c.Checking() {
			g.checkFollow(c, fit, capacity)
		}
	}
	if !known {
		fit = !(g.scan(c) > capacity)
	}
	if !fit {
		g.inc.atK = false
		return false
	}
	for i, s := range g.slots {
		g.setLevel(c, s, g.choice[i])
	}
	g.inc.atK, g.inc.fresh = true, g.inc.fresh[:0]
	return true
}

// scan walks the running list in place: it fills g.slots and g.choice with
// the jobs not at their least-energy level, in the list's order, sets
// g.steady, rebuilds quick's running sums (g.inc) and returns the total
// power of every job at its least-energy level, summed in the list's order.
func (g *DR) scan(c *scheduler.Control) float64 {
	g.slots, g.choice = g.slots[:0], g.choice[:0]
	w := 0.0
	in := &g.inc
	in.mark++
	in.sum, in.abs, in.uns, in.fresh, in.far = 0, 0, in.uns[:0], in.fresh[:0], 0
	in.horizon = leftBefore(c.Now()) + farAhead
	if g.ahead > 0 {
		in.horizon = leftBefore(c.Now()) + g.ahead
	}
	g.steady = true
	runs := c.Runs() // read only: SetLevel comes after
	n := 0
	for bi := range runs.Blocks() {
		b := runs.Block(bi)
		for i := range b {
			r := &b[i]
			slot := r.Slot()
			t := &g.seen[slot]
			if t.seq != r.Seq() || t.procs != r.Procs() || g.plain {
				g.see(c, t, slot, r.Seq(), r.Procs())
			} else if c.Checking() {
				g.checkSeen(c, t, slot, r.Seq(), r.Procs())
			}
			t.mark = in.mark
			n++
			k := t.k
			if t.steady {
				w += t.w
				in.sum += t.w
				in.abs += math.Abs(t.w)
			} else {
				g.steady = false // its remaining work may reach 0: its level depends on the time
				if t.far = r.EstEnd() > in.horizon && !g.plain; t.far {
					// Work is surely left until the horizon: summed
					// as a steady run's until then (drInc).
					in.far++
					g.farRuns++
					in.sum += t.w
					in.abs += math.Abs(t.w)
				} else {
					t.ui = int32(len(in.uns))
					in.uns = append(in.uns, t.uns(slot, r.EstEnd()))
				}
				var x float64
				if k, x = t.at(c.EstLeft(slot)); g.plain {
					app := c.App(slot) // the reference: from the job and its levels
					k = int32(g.levelFor(c.Levels, app, c.EstLeft(slot)))
					x = float64(c.JobProcs(slot)) * c.PowerFactor(slot) * c.Levels(app)[k].Power
				}
				w += x
			}
			if k != t.lv {
				g.slots = append(g.slots, slot)
				g.choice = append(g.choice, int(k))
			}
		}
	}
	in.n = n
	in.err = float64(n+1) * 0x1p-52 * in.abs
	in.valid = !g.plain && !c.Partitioned()
	return w
}

// drInc is what quick keeps between calls so as not to walk the running
// list: the sum of the steady runs' powers (in the order of the changes
// that brought them, so it differs from scan's sum in the last bits; err
// bounds the difference to the exact sum), the non-steady runs, and the
// runs inserted since the last answer that fitted.
//
// A non-steady run whose estimated end is after the horizon (far) has
// work left at every instant up to it (leftBefore), so until then it is
// at its least-energy level as a steady run is, and is summed with them;
// only the others (uns) are read at every call. A far run re-timed to end
// by the horizon joins uns; once now passes the horizon, follow scans,
// which sets a new one.
type drInc struct {
	valid    bool    // the sums describe the list as of the last changes read
	atK      bool    // every steady run but fresh ones is at its least-energy level
	mark     uint32  // drSeen.mark of the runs in the list
	n        int     // runs in the list
	sum, abs float64 // Σ w and Σ |w| over the steady and far runs
	err      float64 // bound on |sum − exact Σ w|
	uns      []drUns // the non-steady runs but far ones (drSeen.ui: index here)
	fresh    []int32 // slots inserted since quick last fitted
	horizon  float64 // leftBefore(now) stays at or before it until the next scan
	far      int     // far runs in the list
}

// farAhead is how far past leftBefore(now) scan sets the horizon (s):
// the runs ending by then are read at every call, the calls until then
// are answered without a scan.
const farAhead = 3600

// follow brings g.inc up to date with the list's changes ch (ok: all of
// them) and, if it can, decides quick's question from the sums: known
// reports that it did, fit the answer, and then g.slots and g.choice hold
// the jobs to move, in the list's order, as scan would fill them.
//
// The decision is scan's exactly: scan's sum of n terms is within
// (n+1)·2⁻⁵²·Σ|w| of the exact sum, and the running sum within err of it,
// so when the running sum is farther than both from the capacity, scan's
// sum is on the same side. Closer than that, follow reports unknown.
func (g *DR) follow(c *scheduler.Control, ch []scheduler.RunChange, ok bool, capacity float64) (fit, known bool) {
	in := &g.inc
	thr := leftBefore(c.Now())
	if !ok || !in.valid || !in.atK || !(thr <= in.horizon) {
		in.valid = false
		return false, false
	}
	for i := 0; i < len(ch); i++ {
		x := &ch[i]
		if i+1 < len(ch) && !x.Insert && ch[i+1].Insert && ch[i+1].Slot == x.Slot && ch[i+1].Seq == x.Seq && ch[i+1].Procs == x.Procs {
			i++ // re-timed in place: the same run, perhaps a new estimated end
			if u := g.unsOf(x.Slot); u != nil {
				u.estEnd = ch[i].EstEnd
			} else if !g.retimeFar(x, ch[i].EstEnd) {
				in.valid = false
				return false, false
			}
			continue
		}
		if !g.change(c, x) {
			in.valid = false
			return false, false
		}
	}
	if in.err > 1e-9*in.abs || in.n > 0 && !(in.abs <= math.MaxFloat64) {
		in.valid = false // resynchronise (scan)
		return false, false
	}
	g.slots, g.choice = g.slots[:0], g.choice[:0]
	w, abs, err := in.sum, in.abs, in.err
	now, check := c.Now(), c.Checking()
	for i := range in.uns {
		u := &in.uns[i]
		var k int32
		var x float64
		if u.estEnd > thr {
			// Well before its estimated end: work is surely left
			// (leftBefore), so its least-energy level, without
			// reading the job.
			k, x = u.k, u.w
			g.early++
			if check && !(c.EstLeft(u.slot) > 0) {
				id, _ := c.JobKey(u.slot)
				c.Violate("dr: job %d: no estimated work left at %v, %v before its estimated end %v", id, now, u.estEnd-now, u.estEnd)
			}
		} else {
			k, x = u.at(c.EstLeft(u.slot))
		}
		if k != u.k {
			g.expired++
		}
		w += x
		abs += math.Abs(x)
		err += 0x1p-52 * math.Abs(w)
		if k != u.lv {
			g.slots = append(g.slots, u.slot)
			g.choice = append(g.choice, int(k))
		}
	}
	for _, s := range in.fresh {
		if t := &g.seen[s]; t.mark == in.mark && (t.steady || t.far) && t.k != t.lv && !slices.Contains(g.slots, s) {
			g.slots = append(g.slots, s)
			g.choice = append(g.choice, int(t.k))
		}
	}
	g.steady = len(in.uns) == 0 && in.far == 0
	d := err + float64(in.n+1)*0x1p-52*(abs+err)*(1+0x1p-40)
	switch {
	case !(w-d > capacity) && !(w+d <= capacity):
		return false, false // too close to call (or not finite): scan decides
	case w-d > capacity:
		g.follows++
		return false, true
	}
	g.sortPending(c)
	g.follows++
	return true, true
}

// change applies one change of the running list to g.inc; false when it
// does not match what g.inc knows (then quick scans).
func (g *DR) change(c *scheduler.Control, x *scheduler.RunChange) bool {
	in := &g.inc
	if int(x.Slot) >= len(g.seen) {
		return false
	}
	t := &g.seen[x.Slot]
	if !x.Insert {
		if t.mark != in.mark || t.seq != x.Seq || t.procs != x.Procs {
			return false
		}
		if t.far {
			// It ends (or is evicted) before its estimated end, after
			// the horizon: rare, and left to a scan.
			return false
		}
		t.mark = in.mark - 1
		in.n--
		if t.steady {
			in.sum -= t.w
			in.abs -= math.Abs(t.w)
			in.err += 0x1p-52 * (math.Abs(in.sum) + in.abs)
		} else {
			last := in.uns[len(in.uns)-1]
			in.uns[t.ui] = last
			g.seen[last.slot].ui = t.ui
			in.uns = in.uns[:len(in.uns)-1]
		}
		return true
	}
	if t.mark == in.mark {
		return false
	}
	if t.seq != x.Seq || t.procs != x.Procs {
		g.see(c, t, x.Slot, x.Seq, x.Procs)
	}
	t.mark = in.mark
	in.n++
	if t.far = !t.steady && x.EstEnd > in.horizon; t.far {
		in.far++
		g.farRuns++
	}
	if t.steady || t.far {
		in.sum += t.w
		in.abs += math.Abs(t.w)
		in.err += 0x1p-52 * (math.Abs(in.sum) + in.abs)
	} else {
		t.ui = int32(len(in.uns))
		in.uns = append(in.uns, t.uns(x.Slot, x.EstEnd))
	}
	in.fresh = append(in.fresh, x.Slot)
	return true
}

// sortPending orders g.slots (and g.choice with them) as the running list
// orders its entries: by estimated end, then start sequence number. They
// are few.
func (g *DR) sortPending(c *scheduler.Control) {
	less := func(a, b int32) bool {
		ea, eb := c.EstEnd(a), c.EstEnd(b)
		return ea < eb || ea == eb && c.RunSeq(a) < c.RunSeq(b)
	}
	for i := 1; i < len(g.slots); i++ {
		for j := i; j > 0 && less(g.slots[j], g.slots[j-1]); j-- {
			g.slots[j], g.slots[j-1] = g.slots[j-1], g.slots[j]
			g.choice[j], g.choice[j-1] = g.choice[j-1], g.choice[j]
		}
	}
}

// checkFollow (under Config.Check) compares follow's answer with scan's,
// after checking the running sums against the list (checkSums).
func (g *DR) checkFollow(c *scheduler.Control, fit bool, capacity float64) {
	g.checkSums(c)
	slots, choice, steady := slices.Clone(g.slots), slices.Clone(g.choice), g.steady
	if sfit := !(g.scan(c) > capacity); sfit != fit || steady != g.steady || fit && (!slices.Equal(slots, g.slots) || !slices.Equal(choice, g.choice)) {
		c.Violate("dr: quick from the list's changes: fit %v %v %v steady %v, from the list: fit %v %v %v steady %v",
			fit, slots, choice, steady, sfit, g.slots, g.choice, g.steady)
	}
}

// checkSums (under Config.Check) verifies what follow decided from: every
// run in the list is marked as in it, the steady and far runs' powers sum
// to within err of the running sum (the list-order sum's own rounding
// allowed for), the far runs end after the horizon, which now has not
// passed, and the counts of runs and far runs are the list's.
func (g *DR) checkSums(c *scheduler.Control) {
	in := &g.inc
	n, far, sum, abs := 0, 0, 0.0, 0.0
	runs := c.Runs()
	for bi := range runs.Blocks() {
		b := runs.Block(bi)
		for i := range b {
			r := &b[i]
			t := &g.seen[r.Slot()]
			n++
			if t.mark != in.mark || t.seq != r.Seq() {
				id, _ := c.JobKey(r.Slot())
				c.Violate("dr: job %d: running but not in quick's sums", id)
				return
			}
			if t.far {
				far++
				if !(r.EstEnd() > in.horizon) {
					id, _ := c.JobKey(r.Slot())
					c.Violate("dr: job %d: summed as far, its estimated end %v not after the horizon %v", id, r.EstEnd(), in.horizon)
				}
			}
			if t.steady || t.far {
				sum += t.w
				abs += math.Abs(t.w)
			}
		}
	}
	if tol := in.err + float64(n+1)*0x1p-52*abs; n != in.n || far != in.far || !(math.Abs(sum-in.sum) <= tol) || !(leftBefore(c.Now()) <= in.horizon) {
		c.Violate("dr: quick's sums: %d runs, %d far, Σ %v (±%v); from the list: %d runs, %d far, Σ %v; now %v, horizon %v",
			in.n, in.far, in.sum, tol, n, far, sum, c.Now(), in.horizon)
	}
}

// drSeen is what quick knows of one run (a start of a job in a slot): the
// level the job is at (only the governor moves it), its least-energy level
// and the power per quick's sum at it, and, for a job that is not steady,
// its least-power level and the power there (the level levelFor gives once
// its estimated remaining work is 0). Steady: a fixed level, or an
// estimate above the runtime, so that the estimated remaining work
// est − α·run stays positive and the least-energy level never changes.
// The powers are the products quick's sums would compute from the job,
// n·pf·Power, so they are the same numbers.
type drSeen struct {
	seq    uint64 // the run's start sequence number (runEntry.seq); 0: none
	w, wl  float64
	k, lv  int32
	kl     int32
	procs  int32
	steady bool
	far    bool   // not steady, summed as steady until drInc.horizon
	mark   uint32 // drInc.mark while the run is in the list
	ui     int32  // its index in drInc.uns when not steady
}

// at returns the level and power of a run that is not steady, given its
// estimated remaining work rem as of now: as levelFor, the least-power
// level when rem ≤ 0 and the least-energy one otherwise (NaN included).
func (t *drSeen) at(rem float64) (int32, float64) {
	if rem <= 0 {
		return t.kl, t.wl
	}
	return t.k, t.w
}

// drUns is quick's row of a non-steady run in the list (drInc.uns): what
// follow needs of it at every instant, in one place (its drSeen row and
// the engine's job are scattered in memory): its slot, drSeen's levels
// and powers, and its estimated end as the running list last reported it.
type drUns struct {
	estEnd    float64
	w, wl     float64
	slot      int32
	k, kl, lv int32
}

// uns returns the drUns row of t, the run in slot s with estimated end
// estEnd.
func (t *drSeen) uns(s int32, estEnd float64) drUns {
	return drUns{estEnd: estEnd, w: t.w, wl: t.wl, slot: s, k: t.k, kl: t.kl, lv: t.lv}
}

// at is drSeen.at.
func (u *drUns) at(rem float64) (int32, float64) {
	if rem <= 0 {
		return u.kl, u.wl
	}
	return u.k, u.w
}

// leftBefore returns a time such that a run whose estimated end is after
// it surely has estimated work left at now (Control.EstLeft > 0): now
// plus 2⁻¹⁸ of itself (+Inf, no run, for a negative now). Then the end
// is ahead of now by more than 2⁻²⁰(|now| + |end|).
//
// The engine keeps a run's estimated end where its estimated remaining
// work reaches 0 at its current pace: start + est·m, and at every re-time
// (level, network, resize) now + (end − now)·m′/m, moving the run in the
// list, which logs the change (Control.RunChanges, whose entries carry
// the new end), whenever the end is still ahead. So the end kept here is
// the engine's as long as it is ahead (follow and scan read it from the
// changes and the list), and before it est − α·run > 0 up to rounding:
// the sums behind α and the end each add a relative 2⁻⁵² of the times
// involved per operation, far below the 2⁻²⁰ kept here (a million
// re-times or synchronisations of one run would still be 2⁻²⁸).
// Booting runs (α = 0, start ahead) and pauses (the end moved later)
// only leave more work. Under Config.Check follow compares every such
// answer with EstLeft.
func leftBefore(now float64) float64 {
	if !(now >= 0) {
		return math.Inf(1)
	}
	return now + 0x1p-18*now
}

// see fills t for the run of slot s with start sequence number seq and
// procs processors, from the engine's job.
func (g *DR) see(c *scheduler.Control, t *drSeen, s int32, seq uint64, procs int32) {
	app, lv := c.App(s), c.Level(s)
	*t = drSeen{seq: seq, procs: procs, lv: int32(lv), k: int32(lv), steady: true, mark: t.mark, ui: t.ui}
	switch est, run := c.Est(s), c.Work(s); {
	case c.Fixed(s):
		t.w = float64(c.JobProcs(s)) * c.PowerFactor(s) * c.Levels(app)[lv].Power
	case est > run && run >= 0:
		// 0 ≤ alpha ≤ 1, so est − alpha·run > 0: the least-energy level,
		// as levelFor would say, without the division.
		t.k = int32(g.best[app])
		t.w = float64(c.JobProcs(s)) * c.PowerFactor(s) * g.bestP[app]
	default:
		t.steady = false
		lv := c.Levels(app)
		t.k, t.kl = int32(g.best[app]), int32(g.lowest[app])
		t.w = float64(c.JobProcs(s)) * c.PowerFactor(s) * lv[t.k].Power
		t.wl = float64(c.JobProcs(s)) * c.PowerFactor(s) * lv[t.kl].Power
	}
}

// checkSeen (under Config.Check) verifies that t still describes the run:
// the level it is at and, if steady, quick's power for it.
func (g *DR) checkSeen(c *scheduler.Control, t *drSeen, s int32, seq uint64, procs int32) {
	var u drSeen
	g.see(c, &u, s, seq, procs)
	if u.lv != t.lv || u.steady != t.steady || u.k != t.k || u.w != t.w || !t.steady && (u.kl != t.kl || u.wl != t.wl) {
		id, _ := c.JobKey(s)
		c.Violate("dr: job %d: quick's record %+v, job now %+v", id, *t, u)
	}
}

// setLevel moves running slot s to level lv and keeps quick's record of
// its level.
func (g *DR) setLevel(c *scheduler.Control, s int32, lv int) {
	c.SetLevel(s, lv)
	if int(s) < len(g.seen) {
		if t := &g.seen[s]; t.seq == c.RunSeq(s) {
			t.lv = int32(c.Level(s))
			if u := g.unsOf(s); u != nil {
				u.lv = t.lv
			}
		}
	}
}

// unsOf returns quick's row in g.inc.uns of the non-steady run in slot s,
// or nil when it has none.
func (g *DR) unsOf(s int32) *drUns {
	in := &g.inc
	if int(s) >= len(g.seen) {
		return nil
	}
	if t := &g.seen[s]; !t.steady && !t.far && t.mark == in.mark && int(t.ui) < len(in.uns) && in.uns[t.ui].slot == s {
		return &in.uns[t.ui]
	}
	return nil
}

// retimeFar applies an in-place re-time of a run that has no row in
// g.inc.uns to its new estimated end: nothing for a steady or far run
// still ending after the horizon; a far run re-timed to end by it leaves
// the sum for a row in uns. False when the run is not one g.inc knows
// (then quick scans).
func (g *DR) retimeFar(x *scheduler.RunChange, estEnd float64) bool {
	in := &g.inc
	if int(x.Slot) >= len(g.seen) {
		return false
	}
	t := &g.seen[x.Slot]
	if t.mark != in.mark || t.seq != x.Seq || t.procs != x.Procs || !t.steady && !t.far {
		return false
	}
	if !t.far || estEnd > in.horizon {
		return true
	}
	t.far = false
	in.far--
	g.nearer++
	in.sum -= t.w
	in.abs -= math.Abs(t.w)
	in.err += 0x1p-52 * (math.Abs(in.sum) + in.abs)
	t.ui = int32(len(in.uns))
	in.uns = append(in.uns, t.uns(x.Slot, estEnd))
	return true
}

// evict keeps the running jobs that maximise the energy already spent and
// fit at their lowest power, and evicts the rest.
func (g *DR) evict(c *scheduler.Control) {
	g.inc.atK = false
	g.wts, g.vals = g.wts[:0], g.vals[:0]
	idle := c.IdleW()
	for _, j := range g.jobs {
		g.wts = append(g.wts, c.EvictWeight(j.slot, float64(j.procs)*(j.factor()*lowestPower(c.Levels(j.app), j)-idle)))
		g.vals = append(g.vals, j.spent)
	}
	keep, _ := g.knap.Solve(g.wts, g.vals, c.Limit()-c.AllIdleW(idle))
	for i, j := range g.jobs {
		if !keep[i] {
			c.Evict(j.slot)
		}
	}
}

// lowestPower is the least power per processor job j can run at.
func lowestPower(lv []powercap.Level, j drJob) float64 {
	if j.fixed {
		return lv[j.level].Power
	}
	p := math.Inf(1)
	for _, l := range lv {
		p = math.Min(p, l.Power)
	}
	return p
}
