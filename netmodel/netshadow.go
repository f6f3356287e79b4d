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
// components: r joins the jobs l joins, unless slack, when neither bounds
// them and they may be solved apart (split's argument). Everything else
// (netskip.go's proofs, slack upkeep) reasons about fills over the listed
// links, which are those fills bit for bit.
//
// Upkeep. r dominates l while every job joining l joins r too with at
// least as many flows: a job joining r only adds to r; a job leaving l
// leaves r too (it was on both), so r stays a superset, and a link left
// with one job is private (l's shadow is cleared, its job's priv bound
// updated); a link turning slack at a remove leaves the lists, shadowed
// or not. An add that joins a shadowed link keeps it shadowed when it
// joins the dominator too with at least as many flows (rejoin); else the
// joined shadowed links, and the links the add turns tight, with the same
// jobs and flows elect the one of least bandwidth, listed on its jobs,
// and it shadows the rest (a dominator shadowed so leaves a chain, which
// ends at a listed or slack link: a link shadows others only while
// listed, so a chain cannot loop, and domination composes). Only an
// add's own links are grouped (a remove leaving two jobs on a link lists
// it as before), so upkeep costs a small table per add. Only on finite
// networks: other networks have no slack links and tight is true for
// every shared link, but the NaN path's levels are not ordered, so every
// shared link is listed there.

// pairLink is a link that turned shared by job k (being added, load on
// it) and one other job u, and tight: class is its pairClass.
type pairLink struct {
	bw    float64
	l     int32
	u     linkUse
	load  int32
	class int32
}

// pairClass is a class of links of one add: for listPairs, the pair links
// with the same other job u and the same load of k; for rejoin, the links
// with the same jobs and flows. rep is its link of least bandwidth bw.
type pairClass struct {
	u    linkUse
	load int32
	rep  int32
	bw   float64
}

// pairSlot is a slot of listPairs' table: a pairClass, filled by the call
// with that stamp.
type pairSlot struct {
	u     linkUse
	load  int32
	stamp uint32
	rep   int32
	bw    float64
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
	pairs := n.pairs
	// The classes in an open-addressed table of at least twice as many
	// slots as pairs, its slots stamped by the call that filled them.
	bits := uint(4)
	for 1<<bits < 2*len(pairs) {
		bits++
	}
	if len(n.ptab) < 1<<bits {
		n.ptab = make([]pairSlot, 1<<bits)
		n.pst = 0
	}
	n.pst++
	if n.pst == 0 { // wrapped: clear the stamps once every 2³² adds
		clear(n.ptab)
		n.pst = 1
	}
	st, tab, mask := n.pst, n.ptab[:1<<bits], uint64(1)<<bits-1
	for i := range pairs {
		pl := &pairs[i]
		h := (uint64(uint32(pl.u.k))*0x9E3779B97F4A7C15 ^ uint64(uint32(pl.u.n))*0xC2B2AE3D27D4EB4F ^ uint64(uint32(pl.load))) >> (64 - bits)
		for {
			e := &tab[h]
			if e.stamp != st {
				*e = pairSlot{pl.u, pl.load, st, pl.l, pl.bw}
				break
			}
			if e.u == pl.u && e.load == pl.load {
				if pl.bw < e.bw {
					e.rep, e.bw = pl.l, pl.bw
				}
				break
			}
			h = (h + 1) & mask
		}
		pl.class = int32(h)
	}
	for _, pl := range pairs {
		if r := tab[pl.class].rep; r != pl.l {
			n.shadow[pl.l] = 1 + r
			n.nowShared(pl.u, pl.l, false)
			continue
		}
		n.nowShared(pl.u, pl.l, true)
		j.shared, j.coef = append(j.shared, pl.l), append(j.coef, pl.load)
	}
}

// rejoin decides, for each shadowed link that the add of job k joins
// (n.joined: its bandwidth, the link, its dominator as u.k and k's load;
// u.k −1 for a link the add turned tight, grouped like the others),
// whether it stays shadowed: it does when k joins its dominator r too with
// at least that load (r still carries every job of the link, with at
// least its flows). The others are grouped by their jobs and flows
// (sameJobs): the one of least bandwidth in each group is listed on its
// jobs' shared lists (k's included) and shadows the rest.
func (n *Network) rejoin(k int32) {
	cls := n.pclass[:0]
	joined := n.joined
	for i := range joined {
		jl := &joined[i]
		r, load := jl.u.k, jl.load
		if r < 0 { // a link turned tight: no dominator yet
		} else if lj := n.linkJobs[r]; lj[len(lj)-1].k == k && lj[len(lj)-1].n >= load {
			// k's entry is appended last, and only in this add
			jl.class = -1
			continue
		}
		c := int32(0)
		for c < int32(len(cls)) && (cls[c].load != load || !n.sameJobs(jl.l, cls[c].rep)) {
			c++
		}
		if c == int32(len(cls)) {
			cls = append(cls, pairClass{jl.u, load, jl.l, jl.bw})
		} else if jl.bw < cls[c].bw {
			cls[c].rep, cls[c].bw = jl.l, jl.bw
		}
		jl.class = c
	}
	n.pclass = cls
	for _, jl := range joined {
		if jl.class < 0 {
			continue
		}
		if r := cls[jl.class].rep; r != jl.l {
			n.shadow[jl.l] = 1 + r
			continue
		}
		n.shadow[jl.l] = 0
		for _, u := range n.linkJobs[jl.l] {
			n.nowTight(u, jl.l) // k's entry too
		}
	}
}

// sameJobs reports whether links a and b carry the same jobs with the same
// flows (their lists are short: an entry each is looked up in the other's;
// a job is listed once on a link).
func (n *Network) sameJobs(a, b int32) bool {
	la, lb := n.linkJobs[a], n.linkJobs[b]
	if len(la) != len(lb) {
		return false
	}
	for _, u := range la {
		found := false
		for _, v := range lb {
			if v == u {
				found = true
				break
			}
		}
		if !found {
			return false
		}
	}
	return true
}
