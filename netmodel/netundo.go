package netmodel

import "math"

// Undoing an add. A remove of job k re-solves the rest of k's component;
// but when nothing in that component changed since k's own add solve, the
// rest is exactly the component as it was before k joined, and its rates
// are the ones its jobs had then: the remove takes them back instead of
// solving (HPC2N hopper: 37 % of the remove solves, 12 % of the link
// entries all fills walk).
//
// What is kept. Every solve stamps its jobs (solved) and keeps each one's
// rate from before it (prev). An add whose solve is of k joined to exactly
// one component, not loose, records that solve's stamp and size on k
// (undo, usize). At k's remove, the component left is that one again when
// it is not loose, has usize − 1 jobs, and each was last solved by k's add
// solve: a job that joined since is a member without that stamp (a
// skipped add stamps nothing, so its job carries 0 or an older stamp), a
// job that left by a solve re-stamped the others, and one that left
// without a solve made the component loose. Jobs outside the component
// can have changed only slack links of its jobs (a job on a tight link of
// a member is a member), which bound no rate: the fill of the component
// is a function of its jobs, their listed links and loads, and their
// private bounds where those bind, the same as before k's add. So each
// rate is prev, bit for bit, and the shares, the changed list (in member
// order, as recompute's) and the next stamps follow as after a solve.
//
// The component stays one: it was connected before k joined (not loose),
// and the links joining its jobs then are tight still (a link's load is
// back where it was and amax only grew), so listed or shadowed by a listed
// link with the same jobs and more.
//
// TestNetworkMatchesReference counts the undone removes and compares
// their rates and components with the reference solver.

// nextSolve returns a fresh solve stamp (never 0: 0 is no stamp).
func (n *Network) nextSolve() uint32 {
	n.solves++
	if n.solves == 0 { // wrapped: no job keeps a stamp from before
		for i := range n.jobs {
			n.jobs[i].solved, n.jobs[i].undo = 0, 0
		}
		n.solves = 1
	}
	return n.solves
}

// undoable reports whether the remove of job k (just left its component
// c, whose members are now comp) finds comp as it was before k's add.
func (n *Network) undoable(k, c int32, comp []int64) bool {
	j := &n.jobs[k]
	if j.undo == 0 || n.loose[c] || int(j.usize) != len(comp)+1 {
		return false
	}
	for _, m := range comp {
		if n.jobs[int32(m)].solved != j.undo {
			return false
		}
	}
	return true
}

// restore gives the jobs of comp their rates from before the last solve
// (prev) as a solve would: shares, the changed list and stamps as in
// recompute.
func (n *Network) restore(comp []int64) []int32 {
	st := n.nextSolve()
	changed := n.changed[:0]
	for _, c := range comp {
		j := &n.jobs[int32(c)]
		x := j.prev
		share := 1.0
		if len(j.links) > 0 {
			share = min(1, x/j.alone) // as recompute
		}
		if math.Abs(share-j.share) > 1e-12*j.share {
			changed = append(changed, j.id)
		}
		j.share, j.prev, j.rate, j.solved = share, j.rate, x, st
	}
	n.changed = changed
	return changed
}
