package netmodel

import "slices"

// The connected components of the link-sharing graph (jobs joined by the
// links they share), kept between calls. Each component lists its members
// as id<<32 | index, sorted, so in id order: the order the solver numbers
// its variables. A job with no shared link is a component of its own.
//
// An add only joins: the new job's component is the union of the
// components of the jobs on its shared links, found from those links' job
// lists without walking the components. A remove may split a component,
// and deletions are what union-find cannot undo, so it walks from the
// removed job's neighbours and relabels each piece it finds; every member
// but the removed job is reachable from one of them.

// join puts the inserted job k into the union of its neighbours'
// components and returns that component's members (owned by n).
func (n *Network) join(k int32) []int64 {
	j := &n.jobs[k]
	key := int64(j.id)<<32 | int64(k)
	st := n.nextStamp()
	best := int32(-1)
	pieces := n.pieces[:0]
	for _, l := range j.shared {
		for _, u := range n.linkJobs[l] {
			if u.k == k {
				continue
			}
			if c := n.jobs[u.k].comp; n.compStamp[c] != st {
				n.compStamp[c] = st
				pieces = append(pieces, c)
				if best < 0 || len(n.comps[c]) > len(n.comps[best]) {
					best = c
				}
			}
		}
	}
	n.pieces = pieces
	if best < 0 {
		best = n.newComp()
		n.comps[best] = append(n.comps[best], key)
		j.comp = best
		return n.comps[best]
	}
	dst := n.comps[best]
	for _, c := range pieces {
		if c == best {
			continue
		}
		for _, m := range n.comps[c] {
			n.jobs[int32(m)].comp = best
		}
		dst = append(dst, n.comps[c]...)
		n.dropComp(c)
	}
	j.comp = best
	if len(pieces) == 1 { // sorted already: insert key in place
		i, _ := slices.BinarySearch(dst, key)
		dst = slices.Insert(dst, i, key)
	} else {
		dst = append(dst, key)
		slices.Sort(dst)
	}
	n.comps[best] = dst
	return dst
}

// split takes the removed job k out of its component and relabels the
// pieces it leaves, walking from seeds (the jobs that were on k's links,
// duplicates allowed). It returns the jobs of all pieces, sorted (in
// n.comp): solving them together gives each piece's rates, since no link
// joins two pieces. nil when k shared no link.
func (n *Network) split(k int32, seeds []int32) []int64 {
	old := n.jobs[k].comp
	n.jobs[k].comp = -1
	if len(seeds) == 0 {
		n.dropComp(old) // k was alone
		return nil
	}
	st := n.nextStamp()
	comp := n.comp[:0]
	npieces := 0
	for _, s := range seeds {
		if n.jobStamp[s] == st {
			continue
		}
		n.jobStamp[s] = st
		start := len(comp)
		comp = append(comp, int64(n.jobs[s].id)<<32|int64(s))
		// Breadth-first over the shared links, comp[start:] as the queue.
		for q := start; q < len(comp); q++ {
			j := &n.jobs[int32(comp[q])]
			if j.dirty {
				n.classify(j)
			}
			for _, l := range j.shared {
				if n.linkStamp[l] == st {
					continue
				}
				n.linkStamp[l] = st
				for _, u := range n.linkJobs[l] {
					if o := u.k; n.jobStamp[o] != st {
						n.jobStamp[o] = st
						comp = append(comp, int64(n.jobs[o].id)<<32|int64(o))
					}
				}
			}
		}
		piece := comp[start:]
		slices.Sort(piece)
		c := old
		if npieces > 0 {
			c = n.newComp()
		}
		npieces++
		n.comps[c] = append(n.comps[c][:0], piece...)
		for _, m := range piece {
			n.jobs[int32(m)].comp = c
		}
	}
	if npieces > 1 {
		slices.Sort(comp)
	}
	n.comp = comp
	return comp
}

// newComp returns an unused, empty component.
func (n *Network) newComp() int32 {
	if f := len(n.freeComp); f > 0 {
		c := n.freeComp[f-1]
		n.freeComp = n.freeComp[:f-1]
		return c
	}
	n.comps = append(n.comps, nil)
	n.compStamp = append(n.compStamp, 0)
	return int32(len(n.comps) - 1)
}

// dropComp empties component c (keeping its slice's capacity) and frees it.
func (n *Network) dropComp(c int32) {
	n.comps[c] = n.comps[c][:0]
	n.freeComp = append(n.freeComp, c)
}

// nextStamp returns a stamp no link, job or component carries yet.
func (n *Network) nextStamp() uint32 {
	n.stamp++
	if n.stamp == 0 { // wrapped: clear the stamps once every 2³² walks
		clear(n.linkStamp)
		clear(n.jobStamp)
		clear(n.compStamp)
		n.stamp = 1
	}
	return n.stamp
}
