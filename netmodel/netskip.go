package netmodel

// Skipping a solve. An add or remove of job k re-solves k's component, but
// when every link k shares with other jobs has ample room, no other job's
// rate can move, not by a rounding: inert proves that, and a remove skips
// its solve; an add skips it too when k's own rate follows from the
// others' (afterRate).
//
// Why it is exact. Write L_l(t) for link l's level rem/lsum during a
// progressive fill. A job freezes at the minimum of its links' levels, so
// at most at the level of each of its links, and subtracting c·x ≤ c·L
// from rem leaves (rem − c·x)/(lsum − c) ≥ L: every level only rises
// during a fill (up to roundings of relative size about c·N·2⁻⁵², N the
// freezes on the link, far below inertMargin). So a job j's level at any
// of its pops is at most its final rate x_j, and a link whose level starts
// above x_j·(1+inertMargin) is never the minimum of j's level: dropping
// it, or changing its load, changes no level any pop of j computes, bit
// for bit (min of values above the minimum is the minimum).
//
// Now compare the fill of component C with the fill of C ∪ {k}, where
// every shared link l of k starts above every rate x_j of the other jobs
// on it (L_l(0) = c_l / load_l, load_l with k, is the lowest L_l(0) of
// the two fills). The jobs of C compute the same levels at every pop in
// both fills. k's pops change no level those jobs read, and k at the top
// of the heap only makes a job j of C that would have frozen at once
// (its raised level lv below the top of C's heap) go back with key lv;
// the next pops are then k's, until j comes back with the same lv and
// freezes there — the same freezes in the same order. So the rates of C
// are the same in both fills. Ids shift solve indices by one, but not the
// order between any two jobs of C, which is all the heap's tie-break reads.
//
// A skipped remove may leave its component in pieces; the component is
// marked loose, and its next solve finds the pieces (the union-find of a
// remove's solve) and splits it. Solving pieces together gives each its
// own rates (split), so a loose component's solves are exact too.
//
// Only on finite networks (no NaN levels), as the bounds above need. The
// tests compare against the former solver on random instances
// (TestNetworkMatchesReference, which also checks the components).

// inertMargin is the relative room inert asks of a shared link's level
// above the rates of its jobs.
const inertMargin = 1e-6

// inert reports whether every shared link l of job k (its shared list
// current, k still on its links) starts a fill at a level c_l/load_l above
// the last rate of every other job on l, by inertMargin.
func (n *Network) inert(k int32) bool {
	if !n.finite {
		return false
	}
	j := &n.jobs[k]
	for _, l := range j.shared {
		p := &n.links[l]
		top := 0.0
		for _, u := range n.linkJobs[l] {
			if u.k != k {
				top = max(top, n.jobs[u.k].rate)
			}
		}
		if !(p.bw > top*(1+inertMargin)*float64(p.load)) {
			return false
		}
	}
	return true
}

// orderMargin is the relative room afterRate asks of a link with two or
// more other jobs above k's rate: far above the roundings of a fill.
const orderMargin = 1e-9

// afterRate returns the rate job k (on its links, with inert(k)) gets
// in a fill of its component, when that follows from the others' rates
// alone: y = min(priv, V_l over the links l where k has one other job j),
// V_l = max(c_l − a_jl·x_j, 0)/(load_l − a_jl) the level the solver leaves
// on l when j freezes first, computed as it does; it fails unless every
// link with two or more other jobs starts above y by orderMargin.
//
// Why that is k's rate x_k = min(priv, the levels of k's links when it
// freezes). A job j still unfrozen when k freezes has x_j ≥ x_k/(1+1e-12)
// (up to roundings): j's heap key, at least k's, is at most x_j, and k
// froze at most 1e-12 above its key, or below the heap's top. So a link
// with one other job j is at V_l when k freezes if j froze first, and at
// c_l/load_l otherwise, which is above x_j (inert), so above x_k; a link
// with more jobs is above y (levels only rise). If x_k < y, every one of
// those levels and priv is above x_k: impossible. If x_k > y, y is not
// priv, so y = V_l for a link whose job j has x_j < c_l/load_l ≤ V_l = y
// (by inertMargin), so below x_k by more than 1e-12: j froze first, and
// the level of l at k's freeze is y < x_k: impossible. So x_k = y.
func (n *Network) afterRate(k int32) (float64, bool) {
	j := &n.jobs[k]
	y := j.priv
	for _, l := range j.shared {
		lj := n.linkJobs[l]
		if len(lj) != 2 {
			continue
		}
		u := lj[0]
		if u.k == k {
			u = lj[1]
		}
		p := &n.links[l]
		rem := freezeRem(p.bw, float64(u.n), n.jobs[u.k].rate)
		if rem < 0 {
			rem = 0
		}
		if v := rem / float64(p.load-u.n); v < y {
			y = v
		}
	}
	for _, l := range j.shared {
		if p := &n.links[l]; len(n.linkJobs[l]) > 2 && !(p.bw > y*(1+orderMargin)*float64(p.load)) {
			return 0, false
		}
	}
	return y, true
}

// freezeRem is rem − c·x, the capacity a freeze at x leaves on a link with
// rem left where the frozen job has c flows: one function for the solver
// and afterRate, so that the two round alike.
func freezeRem(rem, c, x float64) float64 { return rem - c*x }
