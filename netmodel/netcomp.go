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
// and deletions are what union-find cannot undo; but the remove has to
// solve the rest of the component anyway, and that solve's first pass
// visits every shared link of every member, so it builds a fresh
// union-find over the members as it goes (first job seen on a link ↔ each
// later one), and split relabels the pieces from it. A remove that skips
// its solve (netskip.go) cannot split: it marks the component loose, an
// add joining a loose component makes the union loose, and the next solve
// of a loose component tracks and splits it like a remove's.

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
		n.loose[best] = n.loose[best] || n.loose[c]
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

// leave takes job k out of its component's member list and returns the
// members left (owned by n, sorted), nil when k was alone (it shared no
// link). The caller solves them with tracking, then calls split.
func (n *Network) leave(k int32) []int64 {
	j := &n.jobs[k]
	c := j.comp
	members := n.comps[c]
	i, ok := slices.BinarySearch(members, int64(j.id)<<32|int64(k))
	if !ok {
		panic("netmodel: job not in its component")
	}
	members = slices.Delete(members, i, i+1)
	n.comps[c] = members
	if len(members) == 0 {
		n.dropComp(c)
		return nil
	}
	return members
}

// split relabels the pieces of component c (members comp, sorted) that the
// last tracked solve found: the piece of comp[0] stays c, each other piece
// gets a component of its own. Taking members in order keeps every piece
// sorted. Solving the pieces together gave each its own rates, since no
// link joins two pieces and the solver's pops restricted to one piece keep
// their (level, id) order.
func (n *Network) split(c int32, comp []int64) {
	if n.classes == 1 {
		n.loose[c] = false
		return
	}
	uf := n.uf
	pc := resize(n.pieceComp, len(comp))
	n.pieceComp = pc
	w := 0
	for f, m := range comp {
		r := find(uf, int32(f))
		if r == 0 {
			comp[w] = m
			w++
			continue
		}
		if r == int32(f) {
			pc[f] = n.newComp()
		}
		d := pc[r]
		n.comps[d] = append(n.comps[d], m)
		n.jobs[int32(m)].comp = d
	}
	n.comps[c] = comp[:w]
	n.loose[c] = false
}

// unite joins the union-find class whose root is r with the class of
// solve index b and returns the joined class's root, its least index.
func (n *Network) unite(r, b int32) int32 {
	rb := find(n.uf, b)
	switch {
	case rb == r:
		return r
	case rb < r:
		n.uf[r] = rb
		r = rb
	default:
		n.uf[rb] = r
	}
	n.classes--
	return r
}

// find returns the root of x's class, halving the path.
func find(uf []int32, x int32) int32 {
	for uf[x] != x {
		uf[x] = uf[uf[x]]
		x = uf[x]
	}
	return x
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
	n.loose = append(n.loose, false)
	return int32(len(n.comps) - 1)
}

// dropComp empties component c (keeping its slice's capacity) and frees it.
func (n *Network) dropComp(c int32) {
	n.comps[c] = n.comps[c][:0]
	n.loose[c] = false
	n.freeComp = append(n.freeComp, c)
}

// nextStamp returns a stamp no link, job or component carries yet.
func (n *Network) nextStamp() uint32 {
	n.stamp++
	if n.stamp == 0 { // wrapped: clear the stamps once every 2³² walks
		for l := range n.links {
			n.links[l].stamp = 0
		}
		clear(n.compStamp)
		n.stamp = 1
	}
	return n.stamp
}
