package powercap

import (
	"cmp"
	"math"
	"slices"
)

// hopeless reports whether the heavy-first round about to run (filter has
// chosen its active options and s.lpb.collect their hull increments) is
// sure to find nothing because every partial solution at the first
// position fails the LP test: then the round's search would add the first
// class's options to the empty solution and keep none. Most rounds below
// the last end so (RICC --dvfs dr: 5,861 of 7,681), and their order,
// suffix sums, sort and trees cost more than this check.
//
// The first class, j0, is the one order would put first (first). For each
// of its active options k, the search compares c_k + φ(free) with the
// round's limit, φ the LP bound of the other classes over their active
// options at the capacity left. φ here is the same LP on the same
// increments, evaluated by a weighted quickselect (lpAt) instead of the
// Fenwick trees, so the two differ only by rounding: the search's value
// is within slackLP of the exact one (that is what slackLP is for), and
// lpAt's within errLP of it. The check claims a candidate is pruned only
// when its value exceeds the limit by both and a relative margin of 1e-9
// besides. A capacity left below −slackW is pruned by the search's weight
// test; between −slackW and 0 the search's φ extrapolates above baseC, so
// baseC bounds it.
//
// It leaves the solver as the skipped round would, but for the parts every
// round rebuilds (order, suffixes, the LP bound's trees), and reports
// j0's active options for the work count.
func (s *MCKP) hopeless(classes [][]Option) (j0 int, ok bool) {
	j0 = s.first(classes)
	b := &s.lpb
	// The other classes' lightest active options: the LP's base cost and
	// weight (sufA at position 1), and their increments.
	baseC, sufA := 0.0, 0.0
	for j := range classes {
		if j == j0 {
			continue
		}
		if a := s.actStart[j]; a < s.actStart[j+1] {
			baseC += s.actC[j]
			sufA += s.actW[j]
		} else {
			// φ and slackLP are +Inf: the LP test prunes nothing, and the
			// search goes on to this class.
			return j0, false
		}
	}
	// collect leaves the increments in class order.
	lo, _ := slices.BinarySearchFunc(b.incs, int32(j0), func(in lpInc, j int32) int { return cmp.Compare(in.class, j) })
	hi, _ := slices.BinarySearchFunc(b.incs, int32(j0)+1, func(in lpInc, j int32) int { return cmp.Compare(in.class, j) })
	s.skipIncs = append(append(s.skipIncs[:0], b.incs[:lo]...), b.incs[hi:]...)
	sumDW := 0.0
	for _, in := range s.skipIncs {
		sumDW += in.dw
	}
	thr := min(s.best, s.target)
	if !(s.slackLP <= math.MaxFloat64) {
		return j0, false // the LP test prunes nothing
	}
	opts := classes[j0]
	eps := 8 * float64(len(b.incs)+len(classes)+4) * 0x1p-52
	for _, k := range s.active[s.actStart[j0]:s.actStart[j0+1]] {
		o := opts[k]
		free := s.capacity - o.Weight - sufA
		if free < -2*s.slackW {
			continue // the search's weight test prunes it
		}
		v := baseC
		if free > 0 {
			v = lpAt(s.skipIncs, baseC, free) // reorders them (in the same way every run)
		}
		v += o.Cost
		errLP := eps*(b.absG+math.Abs(baseC)+math.Abs(o.Cost)+b.maxEff*(math.Abs(s.capacity)+sumDW+sufA+math.Abs(o.Weight))) +
			4*b.maxEff*s.slackW
		margin := 1e-9 * (math.Abs(thr) + b.absG + math.Abs(baseC) + math.Abs(o.Cost))
		if !(v-errLP-margin > thr+2*s.slackLP+s.slackC) {
			return j0, false
		}
	}
	return j0, true
}

// first returns the class that order puts first in the heavy-first order,
// without sorting: the widest cost span above the gap (heavyFirst), else
// the first class with a single active option (or none), else the class
// of the largest key, ties by index.
func (s *MCKP) first(classes [][]Option) int {
	gap := s.best - s.l0
	j0, top := -1, 0.0
	for j, sp := range s.span { // filter
		if sp > gap && (j0 < 0 || sp > top) {
			j0, top = j, sp
		}
	}
	if j0 >= 0 {
		return j0
	}
	for j, k := range s.key {
		if math.IsInf(k, 1) {
			return j
		}
	}
	j0 = 0
	for j, k := range s.key {
		if k > s.key[j0] {
			j0 = j
		}
	}
	return j0
}

// lpAt returns the LP value base − (the gains of the most efficient
// increments of incs that fit in free, the last fractionally), by a
// weighted quickselect as criticalEfficiency's. It reorders incs.
func lpAt(incs []lpInc, base, free float64) float64 {
	gain := 0.0
	for len(incs) > 0 {
		p := mckpMedian3(incs[0].eff, incs[len(incs)/2].eff, incs[len(incs)-1].eff)
		lt, i, gt := 0, 0, len(incs)
		var hiW, hiG, eqW, eqG float64
		for i < gt {
			switch e := incs[i].eff; {
			case e > p:
				hiW += incs[i].dw
				hiG += incs[i].gain
				incs[lt], incs[i] = incs[i], incs[lt]
				lt++
				i++
			case e < p:
				gt--
				incs[gt], incs[i] = incs[i], incs[gt]
			default:
				eqW += incs[i].dw
				eqG += incs[i].gain
				i++
			}
		}
		switch {
		case hiW > free:
			incs = incs[:lt]
		case hiW+eqW > free:
			return base - gain - hiG - p*(free-hiW)
		default:
			free -= hiW + eqW
			gain += hiG + eqG
			incs = incs[gt:]
		}
	}
	return base - gain
}
