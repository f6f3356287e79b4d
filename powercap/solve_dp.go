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
	m := len(classes)
	s.cur = append(s.cur[:0], mckpState{tr: -1})
	s.trace = s.trace[:0]
	budget := s.Budget
	if budget == 0 {
		budget = DefaultBudget
	}
	for q := range m {
		j := s.ord[q]
		if budget > 0 {
			s.work += len(s.cur) * int(s.actStart[j+1]-s.actStart[j])
			if s.work > budget {
				s.work = -1 // out of budget: Solve settles for the incumbent
				return s.choice, 0, false
			}
		}
		if a := s.actStart[j]; a < s.actStart[j+1] {
			s.lpb.remove(j, classes[j][s.active[a]].Cost)
		}
		s.expand(classes[s.ord[q]], q)
		s.cur, s.next = s.next, s.cur
		if len(s.cur) == 0 {
			return s.choice, 0, false // only if rounding defeats the incumbent
		}
	}
	return s.finish(classes)
}

// expand adds the class at position q to every partial solution in s.cur,
// keeps the candidates that pass the bounds, and merges them into s.next
// keeping only Pareto-optimal (weight, cost) pairs.
func (s *MCKP) expand(opts []Option, q int) {
	j := s.ord[q]
	act := s.active[s.actStart[j]:s.actStart[j+1]]
	s.cands = s.cands[:0]
	s.seg = s.seg[:0]
	limW := s.capacity + s.slackW - s.sufW[q+1]
	limC := math.Min(s.best, s.target) + s.slackC
	lam, restC, restL := s.lambda, s.sufC[q+1], s.sufL[q+1]
	for _, k := range act {
		s.seg = append(s.seg, int32(len(s.cands)))
		o := opts[k]
		for _, p := range s.cur {
			w, c := p.w+o.Weight, p.c+o.Cost
			if w > limW {
				break // parents are weight ascending
			}
			if c+restC > limC || c+lam*(w-s.capacity)+restL > limC {
				continue
			}
			free := s.capacity - w - s.sufA[q+1]
			if free < -s.slackW || c+s.lpb.value(free) > limC-s.slackC+s.slackLP {
				continue // no completion within the active options fits, or none is cheap enough
			}
			limC = s.complete(w, c, q+1, limC, mckpStep{parent: p.tr, opt: k})
			s.cands = append(s.cands, mckpCand{w: w, c: c, tr: p.tr, opt: k})
		}
	}
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
	room := s.capacity - s.slackW
	if w+s.lpW[q] <= room && c+s.lpC[q] < s.best {
		s.best = c + s.lpC[q]
		s.keep(st, q, s.lp)
	}
	if w+s.incW[q] <= room && c+s.incC[q] < s.best {
		s.best = c + s.incC[q]
		s.keep(st, q, s.inc)
	}
	return math.Min(limC, s.best+s.slackC)
}

// keep records the choice behind a new incumbent cost: the partial
// solution ending with step st (positions before q), completed with rest
// (per class) from position q on. Solve falls back on it when the search
// runs out of budget.
func (s *MCKP) keep(st mckpStep, q int, rest []int32) {
	s.better = mckpResize(s.better, len(s.ord))
	s.unwind(s.better, st, q-1)
	for _, j := range s.ord[q:] {
		s.better[j] = rest[j]
	}
	s.haveBetter = true
}

// merge merges the per-option candidate segments (each weight
// non-decreasing) in (weight, cost) order into s.next. Equal keys go in
// segment order, as a stable merge would. A binary heap of segment cursors
// makes it O(n log k) for k segments (cap levels can number a dozen or
// more); each heap entry carries its segment's head key, so comparisons
// read the heap only.
func (s *MCKP) merge(q int) {
	nseg := len(s.seg) - 1
	ends := s.tmpIdx[:0] // s.seg[a] is segment a's cursor, ends[a] its end
	h := s.heap[:0]
	for a := range nseg {
		ends = append(ends, s.seg[a+1])
		if s.seg[a] < s.seg[a+1] {
			c := &s.cands[s.seg[a]]
			h = append(h, mckpHead{w: c.w, c: c.c, a: int32(a)})
		}
	}
	s.tmpIdx = ends
	for i := len(h)/2 - 1; i >= 0; i-- {
		mckpDown(h, i)
	}
	for len(h) > 0 {
		a := h[0].a
		s.push(s.cands[s.seg[a]], q)
		if s.seg[a]++; s.seg[a] == ends[a] {
			h[0] = h[len(h)-1]
			h = h[:len(h)-1]
		} else {
			c := &s.cands[s.seg[a]]
			h[0].w, h[0].c = c.w, c.c
		}
		mckpDown(h, 0)
	}
	s.heap = h
}

// mckpHead is a segment's cursor in merge's heap, with the key of the
// candidate it points at.
type mckpHead struct {
	w, c float64
	a    int32
}

func (x *mckpHead) less(y *mckpHead) bool {
	if x.w != y.w {
		return x.w < y.w
	}
	if x.c != y.c {
		return x.c < y.c
	}
	return x.a < y.a
}

// mckpDown restores the heap order below position i.
func mckpDown(h []mckpHead, i int) {
	for {
		l := 2*i + 1
		if l >= len(h) {
			return
		}
		if r := l + 1; r < len(h) && h[r].less(&h[l]) {
			l = r
		}
		if !h[l].less(&h[i]) {
			return
		}
		h[i], h[l] = h[l], h[i]
		i = l
	}
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
			if c.c < last.c || (c.c == last.c && s.lexLess(c, s.trace[last.tr], q)) {
				last.c = c.c
				s.trace[last.tr] = mckpStep{parent: c.tr, opt: c.opt}
			}
			return
		case c.c >= last.c:
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
		if j := s.ord[q]; a.opt != b.opt && j < first {
			first, less = j, a.opt < b.opt
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
		dst[s.ord[q]] = st.opt
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
	bestC, bestW, found := math.Inf(1), math.Inf(1), false
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
		if w > s.capacity || c > bestC || (c == bestC && (w > bestW || (w == bestW && !s.lexBelow(s.pick)))) {
			continue
		}
		bestC, bestW, found = c, w, true
		for j, k := range s.pick {
			s.choice[j] = int(k)
		}
	}
	return s.choice, bestC, found
}

// lexBelow reports whether v is lexicographically smaller than s.choice.
func (s *MCKP) lexBelow(v []int32) bool {
	for j, k := range v {
		if int(k) != s.choice[j] {
			return int(k) < s.choice[j]
		}
	}
	return false
}
