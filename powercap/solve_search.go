package powercap

import (
	"math"
	"slices"
)

// incumbent sets s.best to the cost of a feasible solution: the LP solution
// rounded down (on each class's hull, the increments more efficient than λ
// applied; kept in s.lp), improved by one greedy pass that spends the
// residual capacity class by class (kept in s.inc). If rounding makes the
// LP choice too heavy, the lightest choice is used instead (it fits: Solve
// checked). s.best = +Inf only if even that fails after the greedy pass.
//
// Its first pass over the classes also takes each class's minimum of
// c + λw and largest |cost|, and sums them with the lightest weights, for
// prepare: the options are read while they are in the cache.
func (s *MCKP) incumbent(classes [][]Option) {
	m := len(classes)
	s.inc, s.lp = mckpResize(s.inc, m), mckpResize(s.lp, m)
	s.minL = mckpResize(s.minL, m)
	lam := s.lambda
	var absC, sumL, sumW float64
	free := s.capacity
	for j, opts := range classes {
		h := s.hull[s.hullStart[j]:s.hullStart[j+1]]
		k := h[0]
		for i := 1; i < len(h); i++ {
			a, b := opts[h[i-1]], opts[h[i]]
			if (a.Cost-b.Cost)/(b.Weight-a.Weight) <= lam {
				break
			}
			k = h[i]
		}
		s.lp[j] = k
		free -= opts[k].Weight
		u := s.undom[s.undomStart[j]:s.undomStart[j+1]]
		mn := math.Inf(1)
		for _, k := range u {
			mn = min(mn, opts[k].Cost+lam*opts[k].Weight)
		}
		// Costs strictly descending (reduce): the largest |cost| is at an
		// end (the maximum over all of them, which is exact either way).
		s.minL[j] = mn
		absC += max(math.Abs(opts[u[0]].Cost), math.Abs(opts[u[len(u)-1]].Cost))
		sumL += mn
		sumW += s.minW[j]
	}
	s.absC, s.sumL, s.sumW = absC, sumL, sumW
	copy(s.inc, s.lp)
	if free < 0 {
		free = s.capacity
		for j, opts := range classes {
			s.inc[j] = s.undom[s.undomStart[j]]
			free -= opts[s.inc[j]].Weight
		}
	}
	s.fill(classes, free)
	s.hinted(classes)
	if !s.noProbe {
		s.probe(classes)
	}
}

// hinted replaces the incumbent by s.Hint, improved by the same greedy
// pass, when that is cheaper. It is built in the scratch s.pick and
// swapped in when it wins.
func (s *MCKP) hinted(classes [][]Option) {
	if len(s.Hint) != len(classes) {
		return
	}
	s.pick = mckpResize(s.pick, len(classes))
	free := s.capacity
	for j, opts := range classes {
		k := s.Hint[j]
		if k < 0 || k >= len(opts) || !isFiniteF(opts[k].Weight) || !isFiniteF(opts[k].Cost) {
			return
		}
		s.pick[j] = int32(k)
		free -= opts[k].Weight
	}
	if free < 0 {
		return
	}
	s.tryPick(classes, free)
}

// fill upgrades s.inc class by class to the cheapest option that fits in
// the residual capacity free, and sets s.best to the cost of the result:
// it walks the undominated options heavier than the current one (weight
// ascending), moving to each whose extra weight fits. It starts at the
// first heavier one (a binary search) and stops at the first that does
// not fit: the current one changes only when one fits, and until then
// the heavier options' extra weights only grow (a float subtraction is
// monotone), so none of them fits either. The same moves as a walk over
// every option.
//
// A class whose least weight step (reduce's minGap, over all its options
// in strictly ascending weight) exceeds free is passed over without
// reading its options: the first heavier option's extra weight is at
// least the step after the current option (a float subtraction is
// monotone), so it does not fit.
// A class whose heaviest undominated option is no heavier than the current
// one (most often the current one is it) is passed over before the binary
// search, which would find no heavier option.
func (s *MCKP) fill(classes [][]Option, free float64) {
	minGap := s.minGap
	for j, opts := range classes {
		if free < minGap[j] {
			continue
		}
		cur := opts[s.inc[j]]
		u := s.undom[s.undomStart[j]:s.undomStart[j+1]]
		if !(opts[u[len(u)-1]].Weight > cur.Weight) {
			continue // no heavier option (most classes: at their cheapest)
		}
		lo, hi := 0, len(u)
		for lo < hi {
			if h := int(uint(lo+hi) >> 1); opts[u[h]].Weight > cur.Weight {
				hi = h
			} else {
				lo = h + 1
			}
		}
		for _, k := range u[lo:] {
			o := opts[k]
			if !(o.Weight-cur.Weight <= free) {
				break
			}
			free -= o.Weight - cur.Weight
			s.inc[j], cur = k, o
		}
	}
	var w, c float64
	for j := len(classes) - 1; j >= 0; j-- {
		w += classes[j][s.inc[j]].Weight
		c += classes[j][s.inc[j]].Cost
	}
	s.best = math.Inf(1)
	if w <= s.capacity {
		s.best = c
	}
}

// prepare computes, from the sums incumbent's first pass took, the
// Lagrangian bound L0 = Σ min(c + λw) − λW of the whole problem and the
// cost slack.
func (s *MCKP) prepare(classes [][]Option) {
	m := len(classes)
	lam := s.lambda
	s.l0 = s.sumL - lam*s.capacity
	eps := 4 * float64(m+2) * 0x1p-52
	s.slackC = eps*(s.absC+math.Abs(s.best)+math.Abs(s.l0)) + lam*s.slackW
}

// filter keeps as active the undominated options that can be part of a
// solution costing at most limit (their reduced cost c + λw − min(c + λw)
// fits in the gap limit − L0) and sets each class's order key: its
// cheapest active deviation from its Lagrangian minimum. It also keeps,
// per class, what heavyFirst, first, hopeless and suffixes read of the
// active options, so that they do not read the options again: the cost
// span of the active options (first minus last, 0 for fewer than two)
// and the first active option's weight and cost.
func (s *MCKP) filter(classes [][]Option, limit float64) {
	m := len(classes)
	lam := s.lambda
	s.key = mckpResize(s.key, m)
	s.span, s.actW, s.actC = mckpResize(s.span, m), mckpResize(s.actW, m), mckpResize(s.actC, m)
	gap := limit - s.l0 + s.slackC
	s.active = s.active[:0]
	s.actStart = mckpResize(s.actStart, m+1)
	limW := s.capacity + s.slackW
	for j, opts := range classes {
		s.actStart[j] = int32(len(s.active))
		others, minL, key := s.sumW-s.minW[j], s.minL[j], math.Inf(1)
		for _, k := range s.undom[s.undomStart[j]:s.undomStart[j+1]] {
			o := opts[k]
			if o.Weight+others > limW {
				break // weight ascending: the rest are heavier
			}
			if rc := o.Cost + lam*o.Weight - minL; rc <= gap {
				s.active = append(s.active, k)
				if rc > 0 {
					key = min(key, rc)
				}
			}
		}
		s.key[j] = key
		// The class's options were just read: in the cache.
		s.actW[j], s.actC[j], s.span[j] = 0, 0, 0
		if a, b := s.actStart[j], len(s.active); int(a) < b {
			first := opts[s.active[a]]
			s.actW[j], s.actC[j] = first.Weight, first.Cost
			if b-int(a) >= 2 {
				s.span[j] = first.Cost - opts[s.active[b-1]].Cost
			}
		}
	}
	s.actStart[m] = int32(len(s.active))
}

// order sets the processing order (after heavyFirst's classes in the second
// search): classes whose options all stay far from
// the LP solution first (they barely grow the list of partial solutions),
// the classes where the choice is close last, when the bound over the few
// classes left is tight. Ties go by class index.
func (s *MCKP) order(classes [][]Option) {
	s.ord = s.ord[:0]
	if s.heavy {
		s.heavyFirst()
	}
	for j, k := range s.key { // single-choice classes first, by index
		if math.IsInf(k, 1) {
			s.ord = append(s.ord, int32(j))
		}
	}
	n := len(s.ord)
	for j, k := range s.key {
		if !math.IsInf(k, 1) && !math.IsNaN(k) {
			s.ord = append(s.ord, int32(j))
		}
	}
	// The classes after n are in index order, so the packed sort's ties by
	// position are descending's ties by index.
	rest := s.ord[n:]
	s.sorter.keys = mckpResize(s.sorter.keys, len(rest))
	for i, j := range rest {
		s.sorter.keys[i] = s.key[j]
	}
	perm := s.sorter.sort()
	s.tmpIdx = append(s.tmpIdx[:0], rest...)
	for r, i := range perm {
		rest[r] = s.tmpIdx[i]
	}
}

// suffixes fills the suffix sums over processing positions that the search
// uses as bounds and heuristic completions for the classes still to add,
// one record a position (expand reads all of a position's at once).
func (s *MCKP) suffixes(classes [][]Option) {
	m := len(classes)
	suf := mckpResize(s.suf, m+1)
	s.suf = suf
	suf[m] = mckpSuf{}
	// Running sums in locals, stored at each position: the same additions
	// in the same order as sums over the arrays.
	minW, minC, minL, lp, inc, actW, actStart, heavy := s.minW, s.minC, s.minL, s.lp, s.inc, s.actW, s.actStart, s.heavy
	var w, c, l, aw, pw, pc, iw, ic float64
	for q := m - 1; q >= 0; q-- {
		j := s.ord[q]
		opts := classes[j]
		w += minW[j]
		if a := actStart[j]; heavy && a < actStart[j+1] {
			aw += actW[j]
		} else {
			aw += minW[j]
		}
		c += minC[j]
		l += minL[j]
		a, b := opts[lp[j]], opts[inc[j]]
		pw, pc = pw+a.Weight, pc+a.Cost
		iw, ic = iw+b.Weight, ic+b.Cost
		suf[q] = mckpSuf{w: w, c: c, l: l, a: aw, lpW: pw, lpC: pc, incW: iw, incC: ic}
	}
}

// mckpSuf holds the sums over the classes at processing positions q..m-1
// (suffixes): lightest, cheapest and Lagrangian minima, the lightest
// weights of the options in the LP bound, and the LP and incumbent
// choices' weights and costs.
type mckpSuf struct {
	w, c, l, a float64
	lpW, lpC   float64
	incW, incC float64
}

// heavyFirst starts the order with the classes whose active options span
// more cost than the incumbent's gap to the LP bound (so the LP bound can
// leave one of them fractional at a loss of that order), widest span first,
// ties by class index, and marks them with a NaN key so order skips them.
func (s *MCKP) heavyFirst() {
	gap := s.best - s.l0
	for j, sp := range s.span { // filter's
		if sp > gap {
			s.ord = append(s.ord, int32(j))
			s.key[j] = math.NaN()
		}
	}
	slices.SortFunc(s.ord, func(a, b int32) int {
		return descending(s.span[a], s.span[b], a, b)
	})
}

// probe tries, when one class's options span more than half the capacity
// in weight (giant), each of that class's undominated options with the
// other classes at the LP solution of the capacity left to them, rounded
// down and improved by fill, and keeps the cheapest as the incumbent when
// it beats it. The LP solution of the whole problem puts such a class at
// one fractional point; its other options leave the rest a very different
// capacity, and the optimum is often there.
func (s *MCKP) probe(classes [][]Option) {
	g := s.wide // reduce: the first class of widest span, if more than half the capacity
	if g < 0 {
		return
	}
	// The increments of the classes but g, on their hulls (relax).
	s.pincs = s.pincs[:0]
	others := 0.0
	for j, opts := range classes {
		if j == g {
			continue
		}
		others += s.minW[j]
		h := s.hull[s.hullStart[j]:s.hullStart[j+1]]
		for i := 1; i < len(h); i++ {
			a, b := opts[h[i-1]], opts[h[i]]
			dw := b.Weight - a.Weight
			s.pincs = append(s.pincs, mckpInc{eff: (a.Cost - b.Cost) / dw, dw: dw})
		}
	}
	s.pick = mckpResize(s.pick, len(classes))
	for _, k := range s.undom[s.undomStart[g]:s.undomStart[g+1]] {
		free := s.capacity - classes[g][k].Weight - others
		if free < 0 {
			break // weight ascending
		}
		s.scratch = append(s.scratch[:0], s.pincs...)
		lam := criticalEfficiency(s.scratch, free)
		free = s.capacity
		for j, opts := range classes {
			p := k
			if j != g {
				h := s.hull[s.hullStart[j]:s.hullStart[j+1]]
				p = h[0]
				for i := 1; i < len(h); i++ {
					a, b := opts[h[i-1]], opts[h[i]]
					if (a.Cost-b.Cost)/(b.Weight-a.Weight) <= lam {
						break
					}
					p = h[i]
				}
			}
			s.pick[j] = p
			free -= opts[p].Weight
		}
		if free < 0 {
			continue
		}
		s.tryPick(classes, free)
	}
}

// tryPick completes s.pick with the capacity free left by it (fill) and
// keeps the result as the incumbent when it is cheaper; otherwise the
// incumbent stays as it was.
func (s *MCKP) tryPick(classes [][]Option, free float64) {
	best := s.best
	s.inc, s.pick = s.pick, s.inc
	s.fill(classes, free)
	if !(s.best < best) {
		s.inc, s.pick = s.pick, s.inc
		s.best = best
	}
}
