package powercap

import "math"

// Option is one choice of a multiple-choice knapsack class: its Weight (power,
// W) counts against the capacity and its Cost (remaining energy, J) is
// minimised. Options whose Weight or Cost is NaN or infinite are never chosen.
type Option struct{ Weight, Cost float64 }

// MCKP solves the multiple-choice knapsack problem in minimisation form:
// choose exactly one option per class to minimise ΣCost subject to
// ΣWeight ≤ capacity. The zero value is ready to use; a solver keeps its
// scratch buffers between calls so repeated solves of similar size do not
// allocate. A solver is not safe for concurrent use.
//
// Sums are accumulated in class order from the last class to the first: the
// returned cost is that sum and feasible means that sum of weights is ≤ the
// capacity. Ties are broken deterministically: minimum cost, then minimum
// total weight, then the lexicographically smallest choice vector (lower
// option index in earlier classes first).
//
// Method (Nemhauser–Ullmann dynamic programming with LP bounds):
//  1. options dominated within their class (another option no heavier and
//     no dearer; equal pairs keep the lower index) are dropped; if the
//     lightest options do not fit the answer is ok=false, if the cheapest
//     fit they are the answer;
//  2. the LP relaxation is solved by the greedy incremental-efficiency rule
//     on each class's lower convex hull (weighted quickselect, expected
//     linear time); its critical efficiency λ is the capacity's Lagrange
//     multiplier and L0 = Σ min(c + λw) − λW the LP bound;
//  3. the incumbent is the LP solution rounded down, improved by one greedy
//     pass over the residual capacity (or the Hint, so improved, when
//     cheaper); when a class's options span more than half the capacity in
//     weight, each of its options is also tried with the other classes at
//     the LP solution of the capacity left to them, rounded down and
//     improved the same way (probe);
//  4. the search runs against a target cost T = L0 + g, g growing fourfold
//     from 1/16 of the incumbent's gap until a solution is found or T
//     reaches the incumbent. Options whose reduced cost c + λw − min(c + λw)
//     exceeds T − L0 are left out; classes with a single option left are
//     added first, the others by decreasing cheapest deviation (the core of
//     close decisions last, when the bound over what remains is tight);
//  5. classes are added one at a time to a list of partial solutions
//     (weight, cost) kept Pareto-optimal. A partial solution is dropped when
//     the lightest options of the classes left cannot fit, or when cost +
//     Σ min c, its Lagrangian bound cost + λ(weight − W) + Σ min(c + λw), or
//     its LP bound cost + φ(W − weight) exceeds T, where φ is the LP
//     optimum of the classes left (a Fenwick tree over all hull increments
//     sorted by efficiency, a class's increments removed when it is added:
//     O(log N) a query). Completing a partial solution with the LP or the
//     incumbent choice of the classes left may lower the incumbent;
//  6. among the final solutions, the cheapest feasible one is chosen on the
//     class-order sums.
//
// When a class's options span more than half the capacity in weight, or
// when the search above runs out of budget (then again, with a fresh
// budget and its better incumbent), the classes whose active options span
// more cost than the incumbent's gap are added first, widest first, and
// the LP bound φ is taken over each round's active options only (Solve).
// Otherwise that heavy-first search is tried first too, as it usually
// needs fewer extensions (RICC --dvfs dr: 23 M instead of 51 M if it
// always stood), with two rounds only (targets L0 + gap/2.5, then the
// incumbent), but its answer stands only when it met no near tie: no
// partial solution on the way to it was kept over another within the
// cost slack, no other final solution is within the slack of it, and none
// is within the weight slack of the capacity. Then no other solution
// comes within rounding of the answer, so the order above finds the same.
// Otherwise (RICC: 8 % of the problems, mostly identical jobs) the
// searches of the order above run from the same incumbent, as if the
// early one had not, so the answer never depends on the early search.
//
// Exactness: every solution costing at most T (plus a rounding slack)
// survives: float addition is monotone, so a partial solution that is no
// heavier and no dearer than another stays so after any completion, and
// the bounds are valid lower bounds (any λ ≥ 0) compared with a slack of
// 4(m+N+2)·2⁻⁵² times the magnitudes involved, above their rounding error.
// So the first target that yields a solution yields an optimal one, and the
// last target, the incumbent, always does. The search sums partial
// solutions in its processing order; the final choice re-sums in class
// order. The two can disagree only in the last bits (a weight within a few
// ulps of the capacity, costs within a few ulps of each other), where the
// answer is optimal to that precision; with exactly representable sums
// (integer or dyadic data) it is exactly optimal, tie rules included. The
// property tests check this against brute force.
type MCKP struct {
	choice            []int
	undom, undomStart []int32 // undominated options per class, weight ascending
	active, actStart  []int32 // undominated options that survive the bound test
	minW, minC, minL  []float64
	cheapW            []float64 // per class: the weight of its cheapest undominated option
	wide              int       // the first class of widest weight span among those spanning more than half the capacity, -1 if none (reduce; probe's giant)
	minGap            []float64 // per class: the least weight step between consecutive options when they are in strictly ascending weight, else -Inf (fill)
	key               []float64 // per class: its cheapest deviation from the LP
	span              []float64 // per class: the cost span of its active options (filter; heavyFirst, first)
	actW, actC        []float64 // per class: its first (lightest) active option's weight and cost (filter; 0 when none)
	ord               []int32   // processing order: ord[q] is the q-th class added
	suf               []mckpSuf // sums over processing positions q..m-1 (suffixes)
	lpSel, lpStart    []int32   // the options in the LP bound: undom or active
	lpBuilt           bool
	lp, inc           []int32 // LP-rounded and incumbent choices per class
	incs              []mckpInc
	cur, next         []mckpState
	cands, cands2     []mckpCand
	seg               []int32
	better            []int32 // the choice of the best completion found (haveBetter)
	haveBetter        bool
	kept              mckpKept // keep's choice, until written
	nearTie           bool     // the search dropped or passed over a solution within rounding of another (finish, pushMerged, merge)
	noEarly           bool     // tests: no early heavy-first search (the reference)
	fallbacks         int      // tests: early heavy-first searches whose answer did not stand
	trace             []mckpStep
	tmpIdx            []int32
	pick              []int32   // scratch: a full choice being checked
	hull, hullStart   []int32   // every class's hull of its undominated options (relax)
	pincs, scratch    []mckpInc // probe: the increments of the classes but the giant
	noProbe           bool      // tests: no probe (the reference it is compared with)
	noSkip            bool      // tests: no hopeless check (the reference it is compared with)
	noLocal           bool      // tests: no local search of the early incumbent (the reference it is compared with)
	inc0              []int32   // the incumbent choice before improve, for the searches after a fallback
	lsPos             []int32   // improve: each class's incumbent position among its undominated options, -1 if none
	skipIncs          []lpInc   // hopeless: the increments of the classes but the first
	skipped           int       // tests: rounds hopeless skipped
	lambda, best      float64
	slackW, slackC    float64
	capacity          float64
	l0, sumW, target  float64
	sumL, absC        float64 // Σ min(c + λw) and Σ max |c| over the classes (incumbent, for prepare)
	proven            float64 // a lower bound on the optimum: L0, or above a target that found nothing
	heavy             bool    // order: the classes of widest cost span first (second search)
	lpb               lpBound
	sorter            descSorter // order's sort
	slackLP           float64
	work              int // partial-solution extensions tried in this Solve

	// Budget bounds the partial-solution extensions one search may try
	// (0: DefaultBudget; < 0: no bound); a Solve runs at most three (the
	// early heavy-first one, the first order's and the heavy-first retry,
	// each with a fresh budget). Past it in the last, Solve returns its
	// incumbent: feasible, but not proven optimal. The bound counts
	// operations, not time, so results stay deterministic.
	Budget int
	// Exact reports whether the last Solve proved its answer optimal (it
	// did not run out of budget); Bound is then ≤ its cost, and otherwise
	// a proven lower bound (the LP bound, or above the target of a search
	// round that found no solution) that the cost is within Cost − Bound of.
	Exact bool
	Bound float64
	// Hint, when it has one entry per class, names a choice (an option
	// index per class) that Solve tries as a starting incumbent besides its
	// own: typically the previous answer to a similar problem (the same
	// jobs a moment earlier). A hint that does not fit, or names a missing
	// or non-finite option, is ignored. It only speeds the search up (a
	// closer incumbent prunes more); the answer is the optimum either way.
	Hint []int
}

// DefaultBudget is MCKP.Budget's default. The level problems of a few
// hundred running jobs need thousands of extensions; on CEA-Curie (93,312
// processors, a dozen cap levels per job, often one job with most of the
// machine) the hardest problems under --powercap dr need about 2.5 million
// with the heavy-first order, and none on the shared traces exceed the
// budget. One that does returns a feasible answer whose gap to a proven
// lower bound the run reports.
const DefaultBudget = 5_000_000

// Solve returns the chosen option index of every class and the total cost,
// or ok=false when no choice fits (a class has no finite option, the
// capacity is NaN, or even the lightest options exceed it); the choice's
// contents are then unspecified. The choice slice is owned by the solver
// and valid until the next call to Solve. Weights may be any finite numbers
// (they are powers, normally ≥ 0); costs too.
func (s *MCKP) Solve(classes [][]Option, capacity float64) (choice []int, cost float64, ok bool) {
	m := len(classes)
	s.choice = mckpResize(s.choice, m)
	s.Exact, s.Bound, s.work, s.haveBetter = true, math.Inf(-1), 0, false
	if math.IsNaN(capacity) {
		return s.choice, 0, false
	}
	s.capacity = capacity
	if !s.reduce(classes) {
		return s.choice, 0, false
	}
	// Lightest options: infeasible if even they do not fit. Cheapest
	// options: optimal if they fit (the last undominated option is the
	// cheapest, lightest among the cheapest, lowest index among those).
	// Both sums as sumPick's, from reduce's per-class values, so that the
	// options are not read again.
	var lw, cw, cc float64
	for j := m - 1; j >= 0; j-- {
		lw += s.minW[j]
		cw += s.cheapW[j]
		cc += s.minC[j]
	}
	if lw > capacity {
		s.pickUndom(0)
		return s.choice, 0, false
	}
	if cw <= capacity {
		s.pickUndom(1)
		return s.choice, cc, true
	}
	s.relax(classes)
	s.incumbent(classes)
	s.prepare(classes)
	// Hard problems have a few classes whose options are far apart in cost,
	// typically a job with most of the machine: the LP bound of the classes
	// left stays loose while those are, and the partial solutions multiply.
	// Adding those classes first (heavyFirst) fixes that. It is done from
	// the start when a class spans more than half the capacity in weight,
	// and otherwise as a second search, with a fresh budget and the better
	// incumbent found so far, when the first runs out of budget. Either
	// order yields an optimal answer; they can differ only on ties within
	// rounding (see above).
	s.proven, s.heavy, s.lpBuilt = s.l0, s.wide >= 0, false
	if !s.heavy && !s.noEarly {
		// The heavy-first order from the start proves most problems with
		// fewer extensions. Its answer stands when the search met no near
		// tie (nearTie): then no other solution comes within rounding of
		// it, and every exact order finds it. Otherwise, or out of budget,
		// the searches below decide, from the same incumbent, as if this
		// one had not run.
		// It has two rounds, L0 + gap/2.5 and the incumbent: the
		// answer is most often close to the incumbent, and the rounds
		// below that find nothing cost their setup (recorded problems,
		// solver instructions: RICC dvfs 10.58 → 9.77 G, CEA-Curie dvfs
		// 5.65 → 5.26 G).
		best := s.best
		if s.noLocal {
			if choice, cost, ok, done := s.early(classes, best); done {
				return choice, cost, ok
			}
			return s.reference(classes)
		}
		// First from a closer incumbent (improve): its answer, when it
		// stands, is the one every exact search finds. Otherwise the
		// searches after it run from the incumbent above, and only if
		// they run out of budget does the early search from that
		// incumbent run too, as it did before them: the same answer as
		// without improve, in every case.
		s.inc0 = append(s.inc0[:0], s.inc...)
		s.improve(classes)
		if choice, cost, ok, done := s.early(classes, best); done {
			return choice, cost, ok
		}
		copy(s.inc, s.inc0)
		if choice, cost, ok, done := s.later(classes); done {
			return choice, cost, ok
		}
		s.best, s.proven, s.heavy, s.lpBuilt, s.work, s.haveBetter, s.Exact, s.Bound = best, s.l0, false, false, 0, false, true, math.Inf(-1)
		if choice, cost, ok, done := s.early(classes, best); done {
			return choice, cost, ok
		}
		return s.reference(classes)
	}
	return s.reference(classes)
}

// early runs the heavy-first search of two rounds from the incumbent
// s.best; done reports that its answer stands (it met no near tie and did
// not run out of budget). Otherwise it leaves the solver as the searches
// after it start: incumbent cost best, the proven bound L0, fresh budget.
func (s *MCKP) early(classes [][]Option, best float64) (choice []int, cost float64, ok, done bool) {
	s.heavy, s.nearTie = true, false
	if choice, cost, ok, done := s.rounds(classes, 2.5); done && !s.nearTie {
		return choice, cost, ok, true
	}
	s.fallbacks++
	s.best, s.proven, s.heavy, s.lpBuilt, s.work, s.haveBetter = best, s.l0, false, false, 0, false
	return nil, 0, false, false
}

// later runs the searches after the early one: the first order's, and the
// heavy-first one when that runs out of budget (or from the start when a
// class spans more than half the capacity); done is false when the last
// of them ran out of budget too (then settle answers).
func (s *MCKP) later(classes [][]Option) (choice []int, cost float64, ok, done bool) {
	if choice, cost, ok, done := s.rounds(classes, 16); done || s.heavy {
		return choice, cost, ok, done
	}
	s.heavy, s.work = true, 0
	return s.rounds(classes, 16)
}

// reference runs later's searches and settles for the incumbent when they
// run out of budget.
func (s *MCKP) reference(classes [][]Option) ([]int, float64, bool) {
	if choice, cost, ok, done := s.later(classes); done {
		return choice, cost, ok
	}
	return s.settle(classes)
}

// pickUndom sets s.choice to every class's lightest (end 0) or cheapest
// (end 1) undominated option.
func (s *MCKP) pickUndom(end int32) {
	for j := range s.choice {
		if end == 0 {
			s.choice[j] = int(s.undom[s.undomStart[j]])
		} else {
			s.choice[j] = int(s.undom[s.undomStart[j+1]-1])
		}
	}
}

// rounds searches with a cost target a small gap above the LP bound
// (1/div of the incumbent's gap), widening it fourfold until a solution
// within it is found or it reaches the incumbent. Every solution costing
// at most the target survives the pruning, so the first one found is
// optimal, and a round that finds none proves the optimum above its
// target (s.proven). done is false when the search ran out of budget.
func (s *MCKP) rounds(classes [][]Option, div float64) (choice []int, cost float64, ok, done bool) {
	gap := s.best - s.l0
	for g := gap / div; ; g *= 4 {
		last := !(g < gap) || g <= 0 // at most three rounds (div 16)
		s.target = s.l0 + g
		if last {
			s.target = s.best
		}
		s.filter(classes, s.target)
		if s.heavy || !s.lpBuilt {
			s.lpSel, s.lpStart = s.undom, s.undomStart
			if s.heavy {
				s.lpSel, s.lpStart = s.active, s.actStart
			}
			s.lpb.collect(s, classes, s.lpSel, s.lpStart, true) // relax ran
			s.slackLP = s.slackC + 4*float64(len(classes)+len(s.lpb.incs)+2)*0x1p-52*(s.lpb.absG+math.Abs(s.lpb.baseC)) +
				s.lpb.maxEff*s.slackW*(1+float64(len(s.lpb.incs))/float64(len(classes)+2))
			if s.heavy && !last && !s.noSkip {
				// A round that surely finds nothing costs its work count
				// (pareto's at the first position) and proves its target.
				if j0, skip := s.hopeless(classes); skip {
					s.skipped++
					if s.Budget >= 0 {
						budget := s.Budget
						if budget == 0 {
							budget = DefaultBudget
						}
						if s.work += int(s.actStart[j0+1] - s.actStart[j0]); s.work > budget {
							s.work = -1 // as pareto: out of budget
							return nil, 0, false, false
						}
					}
					s.proven = max(s.proven, s.target-s.slackC)
					continue
				}
			}
			s.lpb.finish(len(classes))
			s.lpBuilt = true
		}
		s.order(classes)
		s.suffixes(classes)
		s.lpb.reset()
		choice, cost, ok := s.search(classes)
		if s.work < 0 {
			return nil, 0, false, false
		}
		if ok || last {
			s.Bound = cost
			return choice, cost, ok, true
		}
		s.proven = max(s.proven, s.target-s.slackC)
	}
}

// settle returns the incumbent when the search ran out of budget.
func (s *MCKP) settle(classes [][]Option) ([]int, float64, bool) {
	s.Exact, s.Bound = false, s.proven
	if s.haveBetter {
		if w, c := s.sumPick(classes, func(j int) int32 { return s.better[j] }); w <= s.capacity {
			return s.choice, c, true
		}
	}
	if w, c := s.sumPick(classes, func(j int) int32 { return s.inc[j] }); w <= s.capacity {
		return s.choice, c, true
	}
	// Rounding defeated the incumbent: the lightest options fit (checked).
	_, c := s.sumPick(classes, func(j int) int32 { return s.undom[s.undomStart[j]] })
	return s.choice, c, true
}

// sumPick sets s.choice from pick and returns the weight and cost sums,
// accumulated from the last class to the first.
func (s *MCKP) sumPick(classes [][]Option, pick func(j int) int32) (w, c float64) {
	for j := len(classes) - 1; j >= 0; j-- {
		k := pick(j)
		s.choice[j] = int(k)
		w += classes[j][k].Weight
		c += classes[j][k].Cost
	}
	return w, c
}

// reduce fills undom with each class's undominated finite options sorted by
// weight ascending (so cost strictly descending), the per-class minimum
// weight and cost, the weight of the cheapest option and the least weight
// step (minGap), and s.wide: the first class whose undominated options
// span the most weight, if that is more than half the capacity. It
// reports false if a class has no finite option.
func (s *MCKP) reduce(classes [][]Option) bool {
	m := len(classes)
	s.undom = s.undom[:0]
	s.undomStart = mckpResize(s.undomStart, m+1)
	s.minW, s.minC = mckpResize(s.minW, m), mckpResize(s.minC, m)
	s.cheapW, s.minGap = mckpResize(s.cheapW, m), mckpResize(s.minGap, m)
	s.wide = -1
	s.incs, s.hull = s.incs[:0], s.hull[:0]
	s.hullStart = mckpResize(s.hullStart, m+1)
	span := s.capacity / 2
	var absW float64
	for j, opts := range classes {
		s.undomStart[j] = int32(len(s.undom))
		if maxW, gap, ok := s.reduceSorted(opts); ok {
			// Finite options in strictly ascending weight (DR's level
			// tables): the sort below would leave them in place.
			first, last := opts[s.undom[s.undomStart[j]]], opts[s.undom[len(s.undom)-1]]
			s.minW[j], s.minC[j], s.cheapW[j], s.minGap[j] = first.Weight, last.Cost, last.Weight, gap
			if sp := last.Weight - first.Weight; sp > span {
				s.wide, span = j, sp
			}
			absW += maxW
			s.hullOf(j, opts)
			continue
		}
		s.undom = s.undom[:s.undomStart[j]]
		idx := s.tmpIdx[:0]
		for k, o := range opts {
			if isFiniteF(o.Weight) && isFiniteF(o.Cost) {
				idx = append(idx, int32(k))
			}
		}
		if len(idx) == 0 {
			s.tmpIdx = idx
			return false
		}
		mckpSortByWeight(idx, opts)
		lastC := math.Inf(1)
		maxW := 0.0
		for _, k := range idx {
			if o := opts[k]; o.Cost < lastC {
				s.undom = append(s.undom, k)
				lastC = o.Cost
				maxW = max(maxW, math.Abs(o.Weight))
			}
		}
		s.tmpIdx = idx
		first, last := opts[s.undom[s.undomStart[j]]], opts[s.undom[len(s.undom)-1]]
		s.minW[j], s.minC[j], s.cheapW[j], s.minGap[j] = first.Weight, last.Cost, last.Weight, math.Inf(-1)
		if sp := last.Weight - first.Weight; sp > span {
			s.wide, span = j, sp
		}
		absW += maxW
		s.hullOf(j, opts)
	}
	s.undomStart[m] = int32(len(s.undom))
	s.hullStart[m] = int32(len(s.hull))
	s.slackW = 4 * float64(m+2) * 0x1p-52 * (math.Abs(s.capacity) + absW)
	return true
}

// reduceSorted is reduce's pass over a class whose options are finite
// and in strictly ascending weight, so that sorting them by (weight, cost,
// index) leaves them in place: it appends the undominated ones to s.undom
// and returns the largest |weight| among them and the least weight step
// between consecutive options (+Inf for one option). It reports false,
// having appended some, at the first option that breaks the premise (and
// for an empty class).
func (s *MCKP) reduceSorted(opts []Option) (maxW, gap float64, ok bool) {
	lastC, prevW := math.Inf(1), math.Inf(-1)
	u := s.undom // a local: the appends would make the compiler reload it
	first := len(u)
	gap = math.Inf(1)
	for k, o := range opts {
		if !isFiniteF(o.Weight) || !isFiniteF(o.Cost) || !(o.Weight > prevW) {
			s.undom = u
			return 0, 0, false
		}
		if d := o.Weight - prevW; d < gap {
			gap = d // d > 0 here (+Inf at the first option): min's NaN and zero rules never apply
		}
		prevW = o.Weight
		if o.Cost < lastC {
			u = append(u, int32(k))
			lastC = o.Cost
		}
	}
	s.undom = u
	if len(u) == first {
		return 0, 0, false // an empty class
	}
	// Weights ascending: the largest |weight| is at an end.
	return max(math.Abs(opts[u[first]].Weight), math.Abs(opts[u[len(u)-1]].Weight)), gap, true
}

// mckpSortByWeight sorts option indices by (weight, cost, index) ascending with
// an insertion sort: classes are short.
func mckpSortByWeight(idx []int32, opts []Option) {
	less := func(a, b int32) bool {
		oa, ob := opts[a], opts[b]
		if oa.Weight != ob.Weight {
			return oa.Weight < ob.Weight
		}
		if oa.Cost != ob.Cost {
			return oa.Cost < ob.Cost
		}
		return a < b
	}
	for i := 1; i < len(idx); i++ {
		if opts[idx[i]].Weight > opts[idx[i-1]].Weight {
			continue // in order (options usually come weight ascending)
		}
		for j := i; j > 0 && less(idx[j], idx[j-1]); j-- {
			idx[j], idx[j-1] = idx[j-1], idx[j]
		}
	}
}

// relax solves the LP relaxation by the greedy rule and sets s.lambda to
// its critical efficiency (the capacity's Lagrange multiplier), over the
// hull increments reduce left in s.incs (it reorders them). Every class's
// hull stays in s.hull for incumbent, probe and lpBound.build.
func (s *MCKP) relax(classes [][]Option) {
	free := s.capacity
	for j := range classes {
		free -= s.minW[j]
	}
	s.lambda = criticalEfficiency(s.incs, free)
}

// hullOf appends class j's lower convex hull of its undominated options
// to s.hull (from s.hullStart[j]) and its increments, class by class, to
// s.incs. reduce calls it on each class as soon as its undominated options
// are known, while they are in the cache.
func (s *MCKP) hullOf(j int, opts []Option) {
	h := mckpHull(s.undom[s.undomStart[j]:len(s.undom)], opts, s.tmpIdx[:0])
	for i := 1; i < len(h); i++ {
		a, b := opts[h[i-1]], opts[h[i]]
		dw := b.Weight - a.Weight
		s.incs = append(s.incs, mckpInc{eff: (a.Cost - b.Cost) / dw, dw: dw})
	}
	s.tmpIdx = h
	s.hullStart[j] = int32(len(s.hull))
	s.hull = append(s.hull, h...)
}

// criticalEfficiency returns the efficiency of the increment that does not
// fully fit when increments are taken in decreasing efficiency within
// capacity free, or 0 if they all fit. It reorders incs (weighted
// quickselect, expected linear time).
func criticalEfficiency(incs []mckpInc, free float64) float64 {
	for len(incs) > 0 {
		p := mckpMedian3(incs[0].eff, incs[len(incs)/2].eff, incs[len(incs)-1].eff)
		// Three-way partition: [> p | == p | < p].
		lt, i, gt := 0, 0, len(incs)
		var hiW, eqW float64
		for i < gt {
			switch e := incs[i].eff; {
			case e > p:
				hiW += incs[i].dw
				incs[lt], incs[i] = incs[i], incs[lt]
				lt++
				i++
			case e < p:
				gt--
				incs[gt], incs[i] = incs[i], incs[gt]
			default:
				eqW += incs[i].dw
				i++
			}
		}
		switch {
		case hiW > free:
			incs = incs[:lt]
		case hiW+eqW > free:
			return p
		default:
			free -= hiW + eqW
			incs = incs[gt:]
		}
	}
	return 0
}

func mckpMedian3(a, b, c float64) float64 {
	if a > b {
		a, b = b, a
	}
	if b > c {
		b = c
	}
	return math.Max(a, b)
}

// isFiniteF reports whether x is neither NaN nor infinite: its exponent
// bits are not all ones.
func isFiniteF(x float64) bool {
	return math.Float64bits(x)&0x7ff0_0000_0000_0000 != 0x7ff0_0000_0000_0000
}

func mckpResize[T any](b []T, n int) []T {
	if cap(b) < n {
		return make([]T, n)
	}
	return b[:n]
}
