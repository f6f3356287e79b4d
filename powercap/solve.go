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
// The answer is exact on float64 data. Sums are accumulated from the last
// class to the first (the order in which the solver builds them), and the
// returned cost is that sum; feasibility means that sum of weights is ≤ the
// capacity. Ties are broken deterministically: minimum cost, then minimum
// total weight, then the lexicographically smallest choice vector (lower
// option index in earlier classes first). The last rule is exact whenever
// the sums are (integer data, for instance); in float data two different
// sums that round to the same value are ranked by a fixed but less simple
// rule.
//
// Method (Nemhauser–Ullmann dynamic programming with Lagrangian bounds):
//  1. options dominated within their class (another option no heavier and
//     no dearer; equal pairs keep the lower index) are dropped;
//  2. the LP relaxation is solved by the greedy incremental-efficiency rule
//     on each class's lower convex hull; its critical efficiency λ is the
//     optimal Lagrange multiplier of the capacity;
//  3. a feasible incumbent is the LP solution rounded down, improved by one
//     greedy pass over the residual capacity;
//  4. classes are added one at a time to a list of partial solutions
//     (weight, cost) kept Pareto-optimal; a partial solution is dropped when
//     even its Lagrangian bound cost + λ(weight − W) + Σ min(c + λw) or its
//     plain bound cost + Σ min c over the classes still to add exceeds the
//     incumbent, or when adding the lightest options cannot fit.
//
// Exactness: float addition is monotone, so a partial solution that is no
// heavier and no dearer than another stays so after any completion
// (dominance never loses a strictly better answer); both bounds are valid
// lower bounds for any λ ≥ 0 and are compared with a slack of
// 4(m+2)·2⁻⁵² times the magnitudes involved, which exceeds their rounding
// error, so no pruning ever discards a solution that is at least as good as
// the incumbent; the incumbent's own path is never pruned. The final
// feasibility test is the exact comparison of the accumulated sum.
type MCKP struct {
	choice            []int
	undom, undomStart []int32 // undominated options per class, weight ascending
	active, actStart  []int32 // undominated options that survive the bound test
	minW, minC, minL  []float64
	key               []float64 // per class: its cheapest deviation from the LP
	ord               []int32   // processing order: ord[q] is the q-th class added
	// Suffix sums over processing positions q..m-1: lightest, cheapest and
	// Lagrangian minima, and the LP and incumbent choices.
	sufW, sufC, sufL []float64
	lpW, lpC         []float64
	incW, incC       []float64
	lp, inc          []int32 // LP-rounded and incumbent choices per class
	incs             []increment
	cur, next        []state
	cand             []cand
	seg              []int32
	trace            []step
	tmpIdx           []int32
	pick             []int32 // scratch: a full choice being checked
	lambda, best     float64
	slackW, slackC   float64
	capacity         float64
	l0, sumW, target float64
	lpb              lpBound
	slackLP          float64
}

// Solve returns the chosen option index of every class, the total cost and
// ok=false when no choice fits (a class has no finite option, or even the
// lightest options exceed the capacity). The choice slice is owned by the
// solver and valid until the next call to Solve. Weights may be any finite
// numbers (they are powers, normally ≥ 0).
func (s *MCKP) Solve(classes [][]Option, capacity float64) (choice []int, cost float64, ok bool) {
	m := len(classes)
	s.choice = resize(s.choice, m)
	if math.IsNaN(capacity) {
		return s.choice, 0, false
	}
	s.capacity = capacity
	if !s.reduce(classes) {
		return s.choice, 0, false
	}
	// Lightest options: infeasible if even they do not fit.
	if w, _ := s.sumPick(classes, func(j int) int32 { return s.undom[s.undomStart[j]] }); w > capacity {
		return s.choice, 0, false
	}
	// Cheapest options: optimal if they fit (the last undominated option is
	// the cheapest, lightest among the cheapest, lowest index among those).
	if w, c := s.sumPick(classes, func(j int) int32 { return s.undom[s.undomStart[j+1]-1] }); w <= capacity {
		return s.choice, c, true
	}
	s.relax(classes)
	s.incumbent(classes)
	s.prepare(classes)
	s.lpb.build(s, classes)
	s.slackLP = s.slackC + 4*float64(len(classes)+len(s.lpb.incs)+2)*0x1p-52*(s.lpb.absG+math.Abs(s.lpb.baseC)) +
		s.lpb.maxEff*s.slackW*(1+float64(len(s.lpb.incs))/float64(len(classes)+2))
	// Search with a cost target a small gap above the LP bound, widening it
	// fourfold until a solution within it is found or it reaches the
	// incumbent. Every solution costing at most the target survives the
	// pruning, so the first one found is optimal.
	gap := s.best - s.l0
	for g := gap / 16; ; g *= 4 {
		last := !(g < gap)
		s.target = s.l0 + g
		if last {
			s.target = s.best
		}
		s.filter(classes, s.target)
		s.order()
		s.suffixes(classes)
		s.lpb.reset()
		if choice, cost, ok := s.search(classes); ok || last {
			return choice, cost, ok
		}
	}
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
// weight ascending (so cost strictly descending), and the per-class minimum
// weight and cost. It reports false if a class has no finite option.
func (s *MCKP) reduce(classes [][]Option) bool {
	m := len(classes)
	s.undom = s.undom[:0]
	s.undomStart = resize(s.undomStart, m+1)
	s.minW, s.minC = resize(s.minW, m), resize(s.minC, m)
	var absW float64
	for j, opts := range classes {
		s.undomStart[j] = int32(len(s.undom))
		idx := s.tmpIdx[:0]
		for k, o := range opts {
			if finite(o.Weight) && finite(o.Cost) {
				idx = append(idx, int32(k))
			}
		}
		if len(idx) == 0 {
			s.tmpIdx = idx
			return false
		}
		sortByWeight(idx, opts)
		lastC := math.Inf(1)
		maxW := 0.0
		for _, k := range idx {
			if o := opts[k]; o.Cost < lastC {
				s.undom = append(s.undom, k)
				lastC = o.Cost
				maxW = math.Max(maxW, math.Abs(o.Weight))
			}
		}
		s.tmpIdx = idx
		first, last := s.undom[s.undomStart[j]], s.undom[len(s.undom)-1]
		s.minW[j], s.minC[j] = opts[first].Weight, opts[last].Cost
		absW += maxW
	}
	s.undomStart[m] = int32(len(s.undom))
	s.slackW = 4 * float64(m+2) * 0x1p-52 * (math.Abs(s.capacity) + absW)
	return true
}

// sortByWeight sorts option indices by (weight, cost, index) ascending with
// an insertion sort: classes are short.
func sortByWeight(idx []int32, opts []Option) {
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
		for j := i; j > 0 && less(idx[j], idx[j-1]); j-- {
			idx[j], idx[j-1] = idx[j-1], idx[j]
		}
	}
}

// relax solves the LP relaxation by the greedy rule and sets s.lambda to
// its critical efficiency (the capacity's Lagrange multiplier).
func (s *MCKP) relax(classes [][]Option) {
	s.incs = s.incs[:0]
	free := s.capacity
	for j, opts := range classes {
		free -= s.minW[j]
		h := hull(s.undom[s.undomStart[j]:s.undomStart[j+1]], opts, s.tmpIdx[:0])
		for i := 1; i < len(h); i++ {
			a, b := opts[h[i-1]], opts[h[i]]
			dw := b.Weight - a.Weight
			s.incs = append(s.incs, increment{eff: (a.Cost - b.Cost) / dw, dw: dw})
		}
		s.tmpIdx = h
	}
	s.lambda = criticalEfficiency(s.incs, free)
}

// criticalEfficiency returns the efficiency of the increment that does not
// fully fit when increments are taken in decreasing efficiency within
// capacity free, or 0 if they all fit. It reorders incs (weighted
// quickselect, expected linear time).
func criticalEfficiency(incs []increment, free float64) float64 {
	for len(incs) > 0 {
		p := medianOf3(incs[0].eff, incs[len(incs)/2].eff, incs[len(incs)-1].eff)
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

func medianOf3(a, b, c float64) float64 {
	if a > b {
		a, b = b, a
	}
	if b > c {
		b = c
	}
	return math.Max(a, b)
}

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

func resize[T any](b []T, n int) []T {
	if cap(b) < n {
		return make([]T, n)
	}
	return b[:n]
}
