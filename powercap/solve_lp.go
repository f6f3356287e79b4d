package powercap

import (
	"math"
	"slices"
)

// lpBound evaluates the LP relaxation of the classes not yet added, over
// their undominated options, or in the heavy-first search over their
// active options (those a solution within the round's target can use:
// filter), as a function of the capacity R left for them: φ(R) = Σ
// lightest costs − the gains of the most efficient hull increments that
// fit in R − Σ lightest weights (the last one fractionally). Restricting it
// to the active options keeps it a lower bound on every completion the
// round looks for, and makes it much tighter when a class with options far
// apart in cost has only one or two of them active; it costs a sort a
// round instead of one a solve. The increments are sorted by efficiency; two
// Fenwick trees over that order hold the weights and gains of the classes
// still to add, and a class's increments are removed when the search adds
// the class. A query is O(log N).
type lpBound struct {
	incs     []lpInc
	byClass  []int32  // ranks of the increments, grouped by class
	start    []int32  // class j's ranks are byClass[start[j]:start[j+1]]
	pos      []int32  // scratch
	tree     []lpNode // Fenwick tree of (weight, gain) sums, one node per cache access
	baseC    float64  // Σ cost of the lightest undominated option of the classes left
	total    float64  // baseC with every class in
	maxEff   float64
	absG     float64
	log2N    int
	sorter   descSorter
	sorted   []lpInc   // scratch: incs permuted
	distinct bool      // collect: no two increments of a class have equal (or NaN) efficiencies
	last     lpDescent // value's last descent, valid until the trees change
}

type lpNode struct{ w, g float64 }

type lpInc struct {
	eff, dw, gain float64
	class         int32
}

// build collects the hull increments of every class's options in sel
// (class j's are sel[start[j]:start[j+1]], weight ascending: the
// undominated or the active ones, a subset of s.undom; with relaxed,
// relax's hulls are those of the current classes and serve every class
// whose options in sel are all its undominated ones), from s.relax's hull
// rule, sorts them by
// efficiency descending (ties by class, then weight) and groups their ranks
// by class; reset fills the trees. A class without options makes φ
// infinite.
func (b *lpBound) build(s *MCKP, classes [][]Option, sel, start []int32, relaxed bool) {
	b.collect(s, classes, sel, start, relaxed)
	b.finish(len(classes))
}

// collect is build's first half: it gathers the hull increments in class
// order (each class's weight ascending), with baseC, maxEff and absG;
// finish sorts and groups them.
func (b *lpBound) collect(s *MCKP, classes [][]Option, sel, start []int32, relaxed bool) {
	b.incs = b.incs[:0]
	b.baseC, b.maxEff, b.absG = 0, 0, 0
	distinct := true
	for j, opts := range classes {
		act := sel[start[j]:start[j+1]]
		if len(act) == 0 {
			b.baseC = math.Inf(1)
			continue
		}
		b.baseC += opts[act[0]].Cost
		if len(act) == 1 {
			continue // a hull of one option: no increment (most classes in the heavy-first rounds)
		}
		var h []int32
		if relaxed && len(act) == int(s.undomStart[j+1]-s.undomStart[j]) {
			// All of the class's undominated options: relax's hull.
			h = s.hull[s.hullStart[j]:s.hullStart[j+1]]
		} else {
			h = mckpHull(act, opts, s.tmpIdx[:0])
			s.tmpIdx = h
		}
		prev := math.Inf(1)
		for i := 1; i < len(h); i++ {
			a, c := opts[h[i-1]], opts[h[i]]
			dw, g := c.Weight-a.Weight, a.Cost-c.Cost
			if !(g/dw < prev) && !(i == 1 && g/dw == prev) {
				distinct = false // equal or NaN efficiencies in one class (rounding)
			}
			prev = g / dw
			b.incs = append(b.incs, lpInc{eff: g / dw, dw: dw, gain: g, class: int32(j)})
			b.maxEff = max(b.maxEff, g/dw)
			b.absG += g
		}
	}
	b.distinct = distinct
}

// finish is build's second half, over the m classes collect saw.
func (b *lpBound) finish(m int) {
	if b.distinct {
		// (eff, class) is unique and class grows with the position: the
		// packed sort gives the order of descending below.
		incs := b.incs // locals: the stores would make the compiler reload b's fields
		keys := mckpResize(b.sorter.keys, len(incs))
		for i, in := range incs {
			keys[i] = in.eff
		}
		b.sorter.keys = keys
		perm := b.sorter.sort()
		sorted := mckpResize(b.sorted, len(incs))
		for r, i := range perm {
			sorted[r] = incs[i]
		}
		b.incs, b.sorted = sorted, incs
	} else {
		slices.SortFunc(b.incs, func(x, y lpInc) int {
			return descending(x.eff, y.eff, x.class, y.class)
		})
	}
	n := len(b.incs)
	b.tree = mckpResize(b.tree, n+1)
	b.total = b.baseC
	// Group ranks by class so a class's increments can be removed at once.
	start := mckpResize(b.start, m+1)
	clear(start)
	for _, in := range b.incs {
		start[in.class+1]++
	}
	for j := range m {
		start[j+1] += start[j]
	}
	byClass, pos := mckpResize(b.byClass, n), mckpResize(b.pos, m)
	copy(pos, start[:m])
	for r, in := range b.incs {
		byClass[pos[in.class]] = int32(r)
		pos[in.class]++
	}
	b.start, b.byClass, b.pos = start, byClass, pos
	b.log2N = 1
	for 1<<b.log2N <= n {
		b.log2N++
	}
}

// descending orders by a float key, largest first, then by an index,
// smallest first. It is cmp.Compare(kb, ka), then cmp.Compare(ia, ib),
// without cmp.Compare's NaN handling: keys are never NaN here (hull
// efficiencies and cost spans of finite options; order leaves NaN keys
// out).
func descending(ka, kb float64, ia, ib int32) int {
	switch {
	case ka > kb:
		return -1
	case ka < kb:
		return 1
	case ia < ib:
		return -1
	case ia > ib:
		return 1
	}
	return 0
}

// reset puts every class back into the bound (linear-time tree build).
func (b *lpBound) reset() {
	b.forget()
	b.baseC = b.total
	tree := b.tree // a local: the stores would make the compiler reload b.tree
	tree[0] = lpNode{}
	for r, in := range b.incs {
		tree[r+1] = lpNode{w: in.dw, g: in.gain}
	}
	n := len(b.incs)
	for i := 1; i <= n; i++ {
		if p := i + i&-i; p <= n {
			tree[p].w += tree[i].w
			tree[p].g += tree[i].g
		}
	}
}

// mckpHull returns, appended to h, the lower convex hull of the undominated
// options u (weight ascending, cost descending).
func mckpHull(u []int32, opts []Option, h []int32) []int32 {
	for _, k := range u {
		for len(h) >= 2 {
			a, b, c := opts[h[len(h)-2]], opts[h[len(h)-1]], opts[k]
			if (a.Cost-b.Cost)*(c.Weight-b.Weight) > (b.Cost-c.Cost)*(b.Weight-a.Weight) {
				break
			}
			h = h[:len(h)-1]
		}
		h = append(h, k)
	}
	return h
}

func (b *lpBound) add(r int, dw, g float64) {
	tree := b.tree // a local: the stores would make the compiler reload b.tree
	for i := r + 1; i < len(tree); i += i & -i {
		tree[i].w += dw
		tree[i].g += g
	}
}

// remove takes class j (whose lightest option costs c0) out of the bound.
// A class without increments (one option in the bound) leaves the trees
// as they are, so the last descent still holds where it held: it depends
// on the trees and free only, and at reads baseC afresh.
func (b *lpBound) remove(j int32, c0 float64) {
	b.baseC -= c0
	rs := b.byClass[b.start[j]:b.start[j+1]]
	if len(rs) == 0 {
		return
	}
	b.forget()
	incs := b.incs
	for _, r := range rs {
		b.add(int(r), -incs[r].dw, -incs[r].gain)
	}
}

// value returns φ for free capacity free ≥ 0 above the lightest weights.
//
// The descent's result depends on free only through its comparisons: the
// partial sums it stepped to are ≤ free, and those it did not step to are
// > free. So while the trees stay as they are, any free in [lo, hi) (the
// largest of the former, the smallest of the latter) ends where the last
// descent ended, with the same sums, and value skips the descent. The
// search asks for nearby free capacities in a row.
func (b *lpBound) value(free float64) float64 {
	if !b.last.holds(free) {
		b.descend(free)
	}
	return b.at(free)
}

// holds reports whether the descent d ends where one for free would.
func (d *lpDescent) holds(free float64) bool { return d.lo <= free && free < d.hi }

// at returns φ(free) from the last descent, which must hold for free
// (the descent keeps the efficiency of the increment it ends at).
func (b *lpBound) at(free float64) float64 {
	d := &b.last
	v := b.baseC - d.sumG
	if d.frac {
		v -= d.eff * (free - d.sumW)
	}
	return v
}

// descend is value's descent from the root; it sets b.last. It reads the
// tree through a local and tests the position against its length (the
// same test as against n = len − 1), so the loop keeps the tree in
// registers and has no bounds check.
func (b *lpBound) descend(free float64) {
	tree := b.tree
	pos, sumW, sumG := 0, 0.0, 0.0
	lo, hi := math.Inf(-1), math.Inf(1)
	for bit := 1 << (b.log2N - 1); bit > 0; bit >>= 1 {
		next := pos + bit
		if next >= len(tree) {
			continue
		}
		nd := &tree[next]
		if t := sumW + nd.w; t <= free {
			pos = next
			sumW = t
			sumG += nd.g
			if t > lo {
				lo = t
			}
		} else if !(t >= hi) {
			hi = t // NaN if t is: then nothing is in [lo, hi)
		}
	}
	d := &b.last
	d.lo, d.hi, d.pos, d.sumW, d.sumG = lo, hi, pos, sumW, sumG
	d.frac, d.eff = false, 0
	if incs := b.incs; pos < len(incs) {
		d.frac, d.eff = true, incs[pos].eff
	}
}

// lpDescent is the result of value's last descent: where it ended (pos and
// the sums on the way) and the free capacities [lo, hi) that end there.
type lpDescent struct {
	lo, hi     float64
	pos        int
	sumW, sumG float64
	eff        float64 // the efficiency of the increment at pos, when frac
	frac       bool    // pos is an increment (not past the last): at takes it fractionally
}

// forget empties the descent cache: the trees changed.
func (b *lpBound) forget() { b.last = lpDescent{lo: math.Inf(1), hi: math.Inf(-1)} }
