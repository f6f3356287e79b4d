package powercap

import "math"

type mckpInc struct{ eff, dw float64 }

// mckpState is a partial solution: the sums over the classes added so far.
type mckpState struct {
	w, c float64
	tr   int32 // index into trace of this state's last step, -1 for the root
}

type mckpCand struct {
	w, c    float64
	tr, opt int32
}

// mckpStep records the option chosen at one processing position and the trace
// index of the step before it.
type mckpStep struct{ parent, opt int32 }

// search runs the Pareto dynamic programme over the processing order and
// returns the best feasible full solution.
func (s *MCKP) search(classes [][]Option) ([]int, float64, bool) {
	s.kept.pending = false
	choice, cost, ok := s.pareto(classes)
	s.written()
	return choice, cost, ok
}

// pareto is search's programme.
func (s *MCKP) pareto(classes [][]Option) ([]int, float64, bool) {
	m := len(classes)
	s.cur = append(s.cur[:0], mckpState{tr: -1})
	s.trace = s.trace[:0]
	budget := s.Budget
	if budget == 0 {
		budget = DefaultBudget
	}
	for q := range m {
		j := s.ord[q]
		act := s.active[s.actStart[j]:s.actStart[j+1]]
		if budget > 0 {
			s.work += len(s.cur) * len(act)
			if s.work > budget {
				s.work = -1 // out of budget: Solve settles for the incumbent
				return s.choice, 0, false
			}
		}
		if a := s.lpStart[j]; a < s.lpStart[j+1] {
			s.lpb.remove(j, classes[j][s.lpSel[a]].Cost)
		}
		s.expand(classes[j], act, q)
		s.cur, s.next = s.next, s.cur
		if len(s.cur) == 0 {
			return s.choice, 0, false // only if rounding defeats the incumbent
		}
	}
	return s.finish(classes)
}

// expand adds the class at position q (its options opts, the active ones
// act) to every partial solution in s.cur, keeps the candidates that pass
// the bounds, and merges them into s.next keeping only Pareto-optimal
// (weight, cost) pairs.
func (s *MCKP) expand(opts []Option, act []int32, q int) {
	s.cands = s.cands[:0]
	s.seg = s.seg[:0]
	sf := &s.suf[q+1]
	limW := s.capacity + s.slackW - sf.w
	limC := min(s.best, s.target) + s.slackC
	lam, restC, restL := s.lambda, sf.c, sf.l
	// The loop reads the solver's fields through locals (its appends would
	// make the compiler reload them), and inlines complete's tests.
	// Fewer live values, so fewer spills: the LP test's limit kept with
	// limC (the same expression, recomputed when limC changes), and the
	// heavy-first fit test as a comparison with NaN (never true) outside
	// that search.
	capacity, sufA := s.capacity, sf.a
	limLP := limC - s.slackC + s.slackLP
	negSlackW := math.NaN()
	if s.heavy {
		negSlackW = -s.slackW
	}
	room, best := s.capacity-s.slackW, s.best
	lpW, lpC, incW, incC := sf.lpW, sf.lpC, sf.incW, sf.incC
	cands, lpb := s.cands, &s.lpb
	for _, k := range act {
		s.seg = append(s.seg, int32(len(cands)))
		o := opts[k]
		for _, p := range s.cur {
			w, c := p.w+o.Weight, p.c+o.Cost
			if w > limW {
				break // parents are weight ascending
			}
			if c+restC > limC || c+lam*(w-capacity)+restL > limC {
				continue
			}
			free := capacity - w - sufA
			if free < negSlackW {
				continue // no completion within the active options fits
			}
			// lpb.value(free), spelt out so that holds and at inline: a
			// call is made only on a miss of its cache, so the loop's
			// values stay in registers otherwise.
			if !lpb.last.holds(free) {
				lpb.descend(free)
			}
			if c+lpb.at(free) > limLP {
				continue // no completion is cheap enough
			}
			// complete, inlined: limC changes only when the incumbent does.
			if (c+lpC < best && w+lpW <= room) || (c+incC < best && w+incW <= room) {
				limC = s.complete(w, c, q+1, limC, mckpStep{parent: p.tr, opt: k})
				limLP = limC - s.slackC + s.slackLP
				best = s.best
			}
			cands = append(cands, mckpCand{w: w, c: c, tr: p.tr, opt: k})
		}
	}
	s.cands = cands
	s.seg = append(s.seg, int32(len(s.cands)))
	s.next = s.next[:0]
	if len(act) == 1 {
		for _, c := range s.cands {
			s.push(c, q)
		}
		return
	}
	s.merge(q)
}

// complete tries two heuristic completions of a partial solution (the LP
// and the incumbent choices for the classes from position q on) and lowers
// the incumbent cost if one is cheaper and surely feasible: its estimated
// weight is below the capacity by more than the rounding slack, and its
// estimated cost is within the rounding error of the true sum, which the
// pruning slack covers twice. It returns the new pruning limit.
func (s *MCKP) complete(w, c float64, q int, limC float64, st mckpStep) float64 {
	room, sf := s.capacity-s.slackW, &s.suf[q]
	if w+sf.lpW <= room && c+sf.lpC < s.best {
		s.best = c + sf.lpC
		s.keep(st, q, s.lp)
	}
	if w+sf.incW <= room && c+sf.incC < s.best {
		s.best = c + sf.incC
		s.keep(st, q, s.inc)
	}
	return min(limC, s.best+s.slackC)
}

// keep records the choice behind a new incumbent cost: the partial
// solution ending with step st (positions before q), completed with rest
// (per class) from position q on. Solve falls back on it when the search
// runs out of budget. Rounding lowers the incumbent many times by a few
// ulps, so the choice is written out (written) only when the search ends:
// until then the steps of the positions before q, and the order, stay as
// they are.
func (s *MCKP) keep(st mckpStep, q int, rest []int32) {
	s.kept = mckpKept{st: st, q: q, rest: rest, pending: true}
}

// written writes out the choice that keep recorded, if any, into s.better.
func (s *MCKP) written() {
	k := &s.kept
	if !k.pending {
		return
	}
	k.pending = false
	s.better = mckpResize(s.better, len(s.ord))
	s.unwind(s.better, k.st, k.q-1)
	for _, j := range s.ord[k.q:] {
		s.better[j] = k.rest[j]
	}
	s.haveBetter = true
}

// mckpKept is the incumbent choice keep recorded and written has not yet
// written out.
type mckpKept struct {
	st      mckpStep
	q       int
	rest    []int32
	pending bool
}

// merge merges the per-option candidate segments (each weight
// non-decreasing) in (weight, cost) order into s.next. Equal keys go in
// segment order, as a stable merge would: adjacent segments are merged
// pairwise, stably, between s.cands and s.cands2, halving their number
// each pass (cap levels can number a dozen or more), and the last pass
// pushes directly. The passes before it drop the candidates that an
// earlier one of their merged pair strictly dominates (push would drop
// them: the state kept before them is at least as good), keeping exact
// ties for push's tie rule.
func (s *MCKP) merge(q int) {
	src := s.cands
	s.cands2 = mckpResize(s.cands2, len(src))
	dst := s.cands2
	b := s.seg // segment a is src[b[a]:b[a+1]]
	for n := len(b) - 1; n > 2; n = len(b) - 1 {
		k, out := 0, int32(0)
		for a := 0; a < n; a += 2 {
			y := src[b[a]:b[a]]
			if a+1 < n {
				y = src[b[a+1]:b[a+2]]
			}
			b[k] = out
			out += mckpMerge2(dst[out:], src[b[a]:b[a+1]], y, s.slackC)
			k++
		}
		b[k] = out
		b = b[:k+1]
		src, dst = dst, src
	}
	if len(b) < 2 {
		return // no active option
	}
	x, y := src[b[0]:b[1]], src[b[1]:b[1]]
	if len(b) == 3 {
		y = src[b[1]:b[2]]
	}
	for len(x) > 0 && len(y) > 0 {
		if y[0].w < x[0].w || (y[0].w == x[0].w && y[0].c < x[0].c) {
			s.push(y[0], q)
			y = y[1:]
		} else {
			s.push(x[0], q)
			x = x[1:]
		}
	}
	for _, c := range x {
		s.push(c, q)
	}
	for _, c := range y {
		s.push(c, q)
	}
}

// mckpMerge2 merges x and y, each in (weight, cost) order, into dst,
// taking from x on equal keys, and returns how many it wrote: a candidate
// strictly dominated by the last one written (no lighter and dearer, or
// heavier and no cheaper) is left out, and the one written marked
// (mckpTie) when the one left out cost at most slack more.
func mckpMerge2(dst, x, y []mckpCand, slack float64) int32 {
	i := 0
	var last mckpCand
	put := func(c mckpCand) {
		if i > 0 && (c.c > last.c || (c.c == last.c && c.w > last.w)) {
			if c.c-last.c <= slack {
				dst[i-1].opt |= mckpTie
			}
			return
		}
		dst[i], last = c, c
		i++
	}
	for len(x) > 0 && len(y) > 0 {
		if y[0].w < x[0].w || (y[0].w == x[0].w && y[0].c < x[0].c) {
			put(y[0])
			y = y[1:]
		} else {
			put(x[0])
			x = x[1:]
		}
	}
	for _, c := range x {
		put(c)
	}
	for _, c := range y {
		put(c)
	}
	return int32(i)
}

// push appends c to s.next unless the last kept state dominates it. A
// candidate of equal weight and lower cost, or equal weight and cost and a
// lexicographically smaller choice, replaces the last kept state. Kept
// states have strictly increasing weight and strictly decreasing cost.
func (s *MCKP) push(c mckpCand, q int) {
	if n := len(s.next); n > 0 {
		last := &s.next[n-1]
		switch {
		case c.w == last.w:
			tie := s.trace[last.tr].opt & mckpTie
			if math.Abs(c.c-last.c) <= s.slackC {
				tie = mckpTie
			}
			if c.c < last.c || (c.c == last.c && s.lexLess(c, s.trace[last.tr], q)) {
				last.c = c.c
				s.trace[last.tr] = mckpStep{parent: c.tr, opt: c.opt}
			}
			s.trace[last.tr].opt |= tie
			return
		case c.c >= last.c:
			if c.c-last.c <= s.slackC {
				s.trace[last.tr].opt |= mckpTie
			}
			return
		}
	}
	s.trace = append(s.trace, mckpStep{parent: c.tr, opt: c.opt})
	s.next = append(s.next, mckpState{w: c.w, c: c.c, tr: int32(len(s.trace) - 1)})
}

// lexLess reports whether the partial choice of candidate c is
// lexicographically smaller, in class order, than the one ending with step
// b (both cover positions 0..q). It walks both back to their common
// ancestor, below which they agree; only called on exact ties.
func (s *MCKP) lexLess(c mckpCand, b mckpStep, q int) bool {
	a := mckpStep{parent: c.tr, opt: c.opt}
	first, less := int32(math.MaxInt32), false
	for ; q >= 0; q-- {
		if j, ao, bo := s.ord[q], a.opt&^mckpTie, b.opt&^mckpTie; ao != bo && j < first {
			first, less = j, ao < bo
		}
		if a.parent == b.parent || a.parent < 0 || b.parent < 0 {
			break
		}
		a, b = s.trace[a.parent], s.trace[b.parent]
	}
	return less
}

// unwind writes into dst (indexed by class) the options of the partial
// choice whose step at position q is st.
func (s *MCKP) unwind(dst []int32, st mckpStep, q int) {
	for ; q >= 0; q-- {
		dst[s.ord[q]] = st.opt &^ mckpTie
		if st.parent >= 0 {
			st = s.trace[st.parent]
		}
	}
}

// finish picks, among the final states that may fit, the one with the
// least cost, then weight, then lexicographically smallest choice, with all
// three judged on sums accumulated in class order from the last class to
// the first, so the result does not depend on the processing order.
func (s *MCKP) finish(classes [][]Option) ([]int, float64, bool) {
	m := len(classes)
	s.pick = mckpResize(s.pick, m)
	bestC, bestW, found, tr := math.Inf(1), math.Inf(1), false, int32(-1)
	for _, st := range s.cur {
		if st.w > s.capacity+s.slackW {
			break
		}
		s.unwind(s.pick, s.trace[st.tr], m-1)
		var w, c float64
		for j := m - 1; j >= 0; j-- {
			w += classes[j][s.pick[j]].Weight
			c += classes[j][s.pick[j]].Cost
		}
		if st.w > s.capacity-s.slackW || w <= s.capacity && found && math.Abs(c-bestC) <= s.slackC {
			s.nearTie = true
		}
		if w > s.capacity || c > bestC || (c == bestC && (w > bestW || (w == bestW && !s.lexBelow(s.pick)))) {
			continue
		}
		bestC, bestW, found, tr = c, w, true, st.tr
		for j, k := range s.pick {
			s.choice[j] = int(k)
		}
	}
	for ; tr >= 0; tr = s.trace[tr].parent {
		if s.trace[tr].opt&mckpTie != 0 {
			s.nearTie = true // a partial solution on its way came within slack of another
		}
	}
	return s.choice, bestC, found
}

// mckpTie marks, in a step's or a candidate's option index, a partial
// solution that another came within the cost slack of when one of them
// was dropped (push, mckpMerge2). The search's answer is then not sure to
// be the one every processing order finds (MCKP.nearTie).
const mckpTie = 1 << 30

// lexBelow reports whether v is lexicographically smaller than s.choice.
func (s *MCKP) lexBelow(v []int32) bool {
	for j, k := range v {
		if int(k) != s.choice[j] {
			return int(k) < s.choice[j]
		}
	}
	return false
}
