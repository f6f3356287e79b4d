package netmodel

// Shadowed links. When an add makes several tight links shared by the
// same two jobs, the new job k with a_k flows and one other job u with a_u
// flows on each, those links are the same constraint up to their
// bandwidth: only the one of least bandwidth (the first of them in k's
// link order among equals) goes on the two jobs' shared lists; the others
// are shadowed by it (Network.shadow: 1 + that link) and listed on no job.
// Fills walk fewer links and the rates stay the same bit for bit.
//
// Why it is exact. Let r dominate l: r carries every job l carries, with
// at least its flows, and c_r ≤ c_l. During a fill, each freeze subtracts
// from r at least what it subtracts from l, in the same order, and
// rounding is monotone (fl(a − b) ≤ fl(a' − b') for a ≤ a', b ≥ b'; the
// clamp at 0 too), so rem_r ≤ rem_l; while a job of l is unfrozen,
// lsum_r ≥ lsum_l > 0, so level_r ≤ level_l. A pop of a job of l takes
// the minimum over its links, which r's level bounds from below where l's
// is: dropping l changes no minimum, bit for bit (equal floats are the
// same value, and no level is −0). l's own state is then never read: the
// next fill that walks it sets it afresh. If r turns slack (a remove), it
// never bounds its jobs (netslack.go), and neither does l above it. The
// components: r joins the two jobs l joins, unless slack, when neither
// bounds them and they may be solved apart (split's argument). netskip.go:
// inert reads r, and c_l/load_l ≥ c_r/load_r (l's own load is at most r's),
// so l would pass it too; afterRate's V_l ≥ V_r (same other job, same
// flows, more bandwidth).
//
// Upkeep. r dominates l as long as l keeps exactly its two jobs: a job
// joining r only adds to r; another job leaving r leaves it a superset; a
// job of l leaving l leaves r too and makes both private (l's shadow is
// cleared, its one job's priv bound updated). A third job joining l ends
// the domination: l is listed on its jobs, as a link turning tight is.
// Only an add's own fresh pair links are grouped (a remove leaving two
// jobs on a link lists it as before), so upkeep costs a small table per
// add. Only on finite networks: other networks have no slack links and
// tight is true for every shared link, but the NaN path's levels are not
// ordered, so every shared link is listed there.

// pairLink is a link that turned shared by job k (being added, load on
// it) and one other job u, and tight: class is its pairClass.
type pairLink struct {
	bw    float64
	l     int32
	u     linkUse
	load  int32
	class int32
}

// pairClass is the pair links of one add with the same other job and the
// same loads: rep is its link of least bandwidth bw, next the partner's
// next class (−1: none).
type pairClass struct {
	u    linkUse
	load int32
	rep  int32
	bw   float64
	next int32
}

// listPairs puts the representative of each class of the pair links
// insert collected for job k on k's and the partner's shared lists, and
// shadows the others (see above).
func (n *Network) listPairs(k int32) {
	j := &n.jobs[k]
	if !n.finite {
		for _, pl := range n.pairs {
			n.nowShared(pl.u, pl.l, true)
			j.shared, j.coef = append(j.shared, pl.l), append(j.coef, pl.load)
		}
		return
	}
	if len(n.pstamp) < len(n.jobs) {
		n.pstamp = append(n.pstamp, make([]uint32, len(n.jobs)-len(n.pstamp))...)
		n.phead = append(n.phead, make([]int32, len(n.jobs)-len(n.phead))...)
	}
	st := n.nextStamp()
	cls := n.pclass[:0]
	pairs := n.pairs
	last := int32(-1) // the class of the pair link before: runs of links share one
	for i := range pairs {
		pl := &pairs[i]
		bw := pl.bw
		c := int32(-1)
		if last >= 0 && cls[last].u == pl.u && cls[last].load == pl.load {
			c = last
		} else if n.pstamp[pl.u.k] == st {
			for c = n.phead[pl.u.k]; c >= 0; c = cls[c].next {
				if cls[c].u.n == pl.u.n && cls[c].load == pl.load {
					break
				}
			}
		} else {
			n.pstamp[pl.u.k] = st
			n.phead[pl.u.k] = -1
		}
		if c < 0 {
			c = int32(len(cls))
			cls = append(cls, pairClass{pl.u, pl.load, pl.l, bw, n.phead[pl.u.k]})
			n.phead[pl.u.k] = c
		} else if bw < cls[c].bw {
			cls[c].rep, cls[c].bw = pl.l, bw
		}
		pl.class, last = c, c
	}
	n.pclass = cls
	for _, pl := range pairs {
		if r := cls[pl.class].rep; r != pl.l {
			n.shadow[pl.l] = 1 + r
			n.nowShared(pl.u, pl.l, false)
			continue
		}
		n.nowShared(pl.u, pl.l, true)
		j.shared, j.coef = append(j.shared, pl.l), append(j.coef, pl.load)
	}
}
