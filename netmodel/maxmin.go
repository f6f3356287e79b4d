package netmodel

import "math"

// MaxMin returns the max-min fair rates of flows over links by progressive
// filling (the flow-level model of SimGrid's LMM solver without weights):
// all rates rise together; when a link saturates, the flows crossing it are
// frozen at its fair share and the rest keep rising. caps[l] is link l's
// capacity and paths[f] lists the links of flow f. A flow with no links gets
// +Inf. Typically O(R + F log F) for R = Σ len(paths[f]) (see solve).
func MaxMin(caps []float64, paths [][]int32) []float64 {
	off := make([]int32, 1, len(paths)+1)
	var flat []int32
	var coef []float64
	for _, p := range paths {
		flat = append(flat, p...)
		for range p {
			coef = append(coef, 1)
		}
		off = append(off, int32(len(flat)))
	}
	rates := make([]float64, len(paths))
	priv := make([]float64, len(paths))
	for f := range priv {
		priv[f] = math.Inf(1)
	}
	var s mmScratch
	s.solve(caps, off, flat, coef, priv, rates)
	return rates
}

// mmScratch holds the solver's working arrays so a Network can reuse them.
type mmScratch struct {
	rem  []float64 // capacity left on each link
	load []float64 // Σ coefficients of unfrozen variables on each link
	heap []mmItem
}

// mmItem is a variable (link field: its index) keyed by a lower bound of its
// bottleneck level.
//
// at is free for the caller (in the padding of the 16-byte item): a
// Network solve keeps the number of freezes done when key was computed.
type mmItem struct {
	key  float64
	link int32
	at   int32
}

// solve is progressive filling for variables f that use link flat[i] with
// coefficient coef[i] for i in [off[f], off[f+1]): all unfrozen variables
// rise together; link l saturates at rem_l / Σ coef of its unfrozen
// variables (the linear max-min system of SimGrid's LMM with unit weights).
// priv[f] is a constant upper bound of variable f: the level of links only
// f uses, which no other variable ever lowers (Network's private links;
// +Inf for none). A variable with no links gets rate priv[f].
//
// A heap orders variables by their bottleneck level min(priv, min_l
// rem_l/load_l). Levels only rise as other variables freeze (a frozen rate x
// is at most every level it is subtracted from), so heap keys are lower
// bounds: a popped variable whose recomputed level still equals its key is
// the global minimum and freezes there; otherwise it is pushed back with the
// new level. Keys are ordered by (level, f), so the pops, and with them every
// rounding, do not depend on the heap's layout.
func (s *mmScratch) solve(caps []float64, off, flat []int32, coef, priv, rates []float64) {
	L, F := len(caps), len(off)-1
	s.rem = append(s.rem[:0], caps...)
	s.load = resize(s.load, L)
	for i, l := range flat {
		s.load[l] += coef[i]
	}
	s.heap = s.heap[:0]
	for f := 0; f < F; f++ {
		if off[f] == off[f+1] {
			rates[f] = priv[f] // no shared link: nothing ever lowers its level
			continue
		}
		s.push(mmItem{level(priv[f], flat[off[f]:off[f+1]], s.rem, s.load), int32(f), 0})
	}
	for len(s.heap) > 0 {
		it := s.pop()
		f := it.link
		lo, hi := off[f], off[f+1]
		lv := level(priv[f], flat[lo:hi], s.rem, s.load)
		if lv > it.key*(1+1e-12) {
			s.push(mmItem{lv, f, 0})
			continue
		}
		rates[f] = lv
		rem, load := s.rem, s.load
		for i := lo; i < hi; i++ {
			l := flat[i]
			// math.Max(0, v) without the call: −0 and negatives give +0, NaN stays.
			if v := rem[l] - coef[i]*lv; v <= 0 {
				rem[l] = 0
			} else {
				rem[l] = v
			}
			load[l] -= coef[i]
		}
	}
}

// level is the bottleneck level of a variable with bound lv whose links are
// ls: math.Min over rem/load, written out (math.Min is a call on amd64). The
// values are never −0 (rem ≥ +0, load > 0), and a NaN wins as in math.Min.
func level(lv float64, ls []int32, rem, load []float64) float64 {
	for _, l := range ls {
		if d := load[l]; d > 0 {
			if v := rem[l] / d; v < lv || v != v {
				lv = v
			}
		}
	}
	return lv
}

func resize[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	s = s[:n]
	clear(s)
	return s
}

func (s *mmScratch) push(it mmItem) {
	h := append(s.heap, it)
	i := len(h) - 1
	for i > 0 {
		p := (i - 1) / 2
		if !h[i].less(h[p]) {
			break
		}
		h[i], h[p] = h[p], h[i]
		i = p
	}
	s.heap = h
}

func (s *mmScratch) pop() mmItem {
	h := s.heap
	top := h[0]
	n := len(h) - 1
	last := h[n]
	h = h[:n]
	s.heap = h
	if n == 0 {
		return top
	}
	// Bottom-up: the hole at the root goes down along the lesser children
	// to a leaf (one compare a level), and the last item rises from there
	// (mostly not far: it came from the bottom). The same items in a heap
	// order, so the same pops: the order is (key, link), a total order.
	i := 0
	for {
		c := 2*i + 1
		if c >= n {
			break
		}
		if c+1 < n {
			// the lesser child without a branch on the data (a coin
			// toss the predictor missed): less's compares as flags,
			// combined, and a conditional move
			a, b := &h[c+1], &h[c]
			c += int(b2u(a.key < b.key) | b2u(a.key == b.key)&b2u(a.link < b.link))
		}
		h[i] = h[c]
		i = c
	}
	for i > 0 {
		p := (i - 1) / 2
		if !last.less(h[p]) {
			break
		}
		h[i] = h[p]
		i = p
	}
	h[i] = last
	return top
}

// next returns the least item after the top (the heap has two or more).
func (s *mmScratch) next() mmItem {
	h := s.heap
	if len(h) > 2 && h[2].less(h[1]) {
		return h[2]
	}
	return h[1]
}

// raiseTop replaces the top with it, a greater item, and restores the
// heap order: a pop and a push of it in one walk down (top-down: a raised
// level mostly stays near the top, where bottom-up walks cost more).
func (s *mmScratch) raiseTop(it mmItem) {
	h := s.heap
	n := len(h)
	i := 0
	for {
		c := 2*i + 1
		if c >= n {
			break
		}
		if c+1 < n { // the lesser child, as in pop
			a, b := &h[c+1], &h[c]
			c += int(b2u(a.key < b.key) | b2u(a.key == b.key)&b2u(a.link < b.link))
		}
		if !h[c].less(it) {
			break
		}
		h[i] = h[c]
		i = c
	}
	h[i] = it
}

// less orders by share, then link id, so ties resolve identically every run.
func (a mmItem) less(b mmItem) bool {
	return a.key < b.key || (a.key == b.key && a.link < b.link)
}

// b2u is 1 for true, 0 for false (a flag set, no branch).
func b2u(b bool) uint {
	if b {
		return 1
	}
	return 0
}
