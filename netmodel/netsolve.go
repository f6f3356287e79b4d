package netmodel

import "math"

// netLink is a link's capacity and load, and its progressive-filling
// state during a solve, together so that a solve's first touch of a link
// reads one record. Its level rem/lsum, the one field the solver's level
// walks read, is in Network.lvl, densely (meaningless once lsum is 0: see
// the freeze in solve).
//
// Loads are flow counts, integers: int32 here and in the jobs' load and
// coef (32 bytes a record, two to a cache line), converted to float64
// where the solver divides or multiplies by them. The conversion is exact
// (a link carries at most six flows a rank of the machine, far below
// 2³¹), and so is an integer sum or difference in float64, so every
// quotient and product is the one a float64 count gives.
type netLink struct {
	bw    float64 // capacity
	rem   float64 // the solve's capacity left (valid on the solved component's shared links)
	load  int32   // Σ flows of its jobs (stale on a link without jobs: insert sets it)
	lsum  int32   // the solve's Σ a_jl of the unfrozen jobs
	stamp uint32  // stamp of the last solve to reach it
	owner int32   // the first job (solve index) that solve saw on it
}

// recompute solves max-min over the component's jobs, updates shares and
// returns the ids of the jobs whose share changed. With track, the solve
// also finds how the jobs fall into connected pieces (split reads them).
func (n *Network) recompute(comp []int64, track bool) []int32 {
	rates := resize(n.rates, len(comp))[:len(comp)] // (the bound is known: no checks below)
	n.solve(comp, rates, track)
	n.rates = rates
	changed := n.changed[:0]
	st := n.nextSolve()
	for f, c := range comp {
		j := &n.jobs[int32(c)]
		share := 1.0
		if len(j.links) > 0 {
			share = min(1, rates[f]/j.alone) // builtin min: math.Min's rules, inlined
		}
		if math.Abs(share-j.share) > 1e-12*j.share {
			changed = append(changed, j.id)
		}
		j.share, j.prev, j.rate, j.solved = share, j.rate, rates[f], st
	}
	n.changed = changed
	return changed
}

// solve is mmScratch.solve (see there) for the component's jobs, variable f
// being job comp[f], on the jobs' shared links with their priv bounds,
// working in per-link state indexed by dense link number instead of a
// flattened copy. Every job on a shared link of the component is in the
// component, so a link starts at rem = c_l, lsum = its load. Same
// operations in the same order as the former solver, so the same rates.
//
// With track, the first pass also unites the jobs that share a link
// (n.uf, by solve index; n.classes counts the classes): the walk a remove
// needs to see how its component split, at the cost of one store per link.
func (n *Network) solve(comp []int64, rates []float64, track bool) {
	lk := n.links
	lvl := n.lvl[:len(lk)] // as long as lk: a link's lvl index needs no check after its lk one
	st := n.nextStamp()
	s := &n.mm
	s.heap = s.heap[:0]
	nan := !n.finite
	uf := n.uf[:0]
	if track {
		for f := range comp {
			uf = append(uf, int32(f))
		}
		n.uf, n.classes = uf, len(comp)
	}
	for f, c := range comp {
		j := &n.jobs[int32(c)]
		if j.dirty {
			n.classify(j)
		}
		if len(j.shared) == 0 {
			rates[f] = j.priv // no shared link: nothing ever lowers its level
			continue
		}
		// A link's state starts from the network's totals, so the level
		// read here is the one a separate pass after setting every link
		// would read: nothing freezes before the first pop.
		lv := j.priv
		if !track && !nan {
			lv = openFinite(j.shared, lk, lvl, lv, st)
		} else {
			lv = n.open(j.shared, lv, st, int32(f), track)
		}
		s.push(mmItem{lv, int32(f), 0})
	}
	level := levelOf // called, not inlined: the loop below keeps its registers
	if n.finite {
		level = levelFinite
	}
	fr := int32(0) // freezes so far
	for len(s.heap) > 0 {
		it := s.heap[0]
		f := it.link
		j := &n.jobs[int32(comp[f])]
		lv := it.key
		// Levels change only at freezes: with none since its key was
		// computed (a first pop, or a second one after a raise with only
		// raises between), the job's level is its key, bit for bit (the
		// same minimum of the same values), and it freezes there.
		if it.at != fr {
			lv = level(j.priv, j.shared, lvl)
			// A raised level goes back on the heap, unless it would be the
			// next pop: then that pop would read the same level and freeze
			// it, so freeze it now.
			if lv > it.key*(1+1e-12) && len(s.heap) > 1 && !(mmItem{lv, f, 0}).less(s.next()) {
				s.raiseTop(mmItem{lv, f, fr})
				continue
			}
		}
		s.pop()
		fr++
		rates[f] = lv
		if len(s.heap) == 0 {
			// the last job: no level is read after its freeze (the next
			// solve sets every link it reaches afresh), so it is left out
			break
		}
		// Freeze f at lv on its shared links. The builtin max is math.Max's
		// max(v, 0) without the call: −0 and negatives give +0, NaN stays.
		// The level is divided out even when the last job on the link
		// freezes (lsum is an integer sum of integer loads, so exactly 0
		// then, and the quotient +Inf or NaN): every job on a shared link
		// of the component is in the solve, so once all of them are frozen
		// no level walk reads the link again, and the next solve sets it
		// afresh. No branch on the sum, then.
		if !nan {
			freezeFinite(j.shared, j.coef, lk, lvl, lv)
			continue
		}
		coef := j.coef[:len(j.shared)] // one bounds check, not one per link
		for i, l := range j.shared {
			c, p := coef[i], &lk[l]
			rem, sum := max(p.rem-float64(c)*lv, 0), p.lsum-c
			p.rem, p.lsum = rem, sum
			lvl[l] = rem / float64(sum)
		}
	}
}

// open is the first pass of solve st for job f with private bound lv and
// shared links shared: it sets each link st has not reached yet, with f
// as its owner, and returns the minimum of the levels; with track, it
// unites f with the owner of each link reached before. Not inlined, as
// freezeFinite.
//
//go:noinline
func (n *Network) open(shared []int32, lv float64, st uint32, f int32, track bool) float64 {
	lk := n.links
	lvl := n.lvl[:len(lk)]
	rf := f           // the root of f's class (f is a root until its turn)
	last := int32(-1) // the owner last united with f: links in a row often share one
	for _, l := range shared {
		p := &lk[l]
		var v float64
		if p.stamp != st {
			bw, load := p.bw, p.load // read once (see openFinite)
			p.stamp, p.owner = st, f
			p.rem, p.lsum = bw, load
			v = bw / float64(load)
			lvl[l] = v
		} else {
			v = lvl[l]
			if track {
				if o := p.owner; o != last {
					last = o
					rf = n.unite(rf, o)
				}
			}
		}
		// v < lv || (nan && v != v) as a skip (see levelFinite): a NaN
		// v is taken, a NaN lv kept; on a finite network no v is NaN
		if v >= lv || lv != lv {
			continue
		}
		lv = v
	}
	return lv
}

// openFinite returns the starting level of a job with private bound lv
// and shared links shared, on a finite network, in a solve without
// tracking (see the first pass of solve): it sets each link that solve st
// has not reached yet (no owner: only a tracking solve reads it) and takes
// the minimum of the levels. Not inlined, as freezeFinite.
//
//go:noinline
func openFinite(shared []int32, lk []netLink, lvl []float64, lv float64, st uint32) float64 {
	lvl = lvl[:len(lk)]
	m := math.Float64bits(lv) // the minimum on the bits, as in levelFinite
	for _, l := range shared {
		p := &lk[l]
		var v float64
		if p.stamp != st {
			// bw and load read once (after the stores the compiler
			// would read them again)
			bw, load := p.bw, p.load
			p.stamp = st
			p.rem, p.lsum = bw, load
			v = bw / float64(load)
			lvl[l] = v
		} else {
			v = lvl[l]
		}
		// no level is NaN or negative here (bw finite and > 0, load > 0,
		// nothing frozen yet)
		m = min(m, math.Float64bits(v))
	}
	return math.Float64frombits(m)
}

// freezeFinite freezes a job at lv on its shared links with its loads
// coef there, on a finite network (see the freeze in solve). A function of
// its own, not inlined, so that its loop keeps every value in a
// register (inlined into solve, it spilled). On finite
// links, rem − c·lv is never NaN nor −0 (rem ≥ +0, c·lv ≥ +0, and x − x is
// +0), so max(v, 0) is a compare.
//
//go:noinline
func freezeFinite(shared, coef []int32, lk []netLink, lvl []float64, lv float64) {
	coef = coef[:len(shared)] // one bounds check, not one per link
	lvl = lvl[:len(lk)]
	for i, l := range shared {
		c, p := coef[i], &lk[l]
		rem, sum := freezeRem(p.rem, float64(c), lv), p.lsum-c
		if rem < 0 {
			rem = 0
		}
		p.rem, p.lsum = rem, sum
		lvl[l] = rem / float64(sum)
	}
}

// levelFinite is levelOf where no level is NaN: on a network whose link
// bandwidths are all finite (Network.finite), every level is finite, +Inf
// (a link without unfrozen jobs) or a finite bound minus a finite product,
// so the NaN test of levelOf never fires and is left out.
//
// The test is written as a skip (v ≥ lv: keep lv), not as v < lv: the
// compiler then keeps lv in one register, where v < lv costs two moves
// on every link (12–13 instructions a link instead of 10). The two agree
// wherever neither value is NaN: lv is priv (positive or +Inf) or a
// level read before, and a level read here is never NaN (its link
// carries the unfrozen job that reads it, so lsum > 0).
//
// Since round 13 the minimum is taken on the bits: every value here is
// +0, positive or +Inf (never NaN, as above, nor negative nor −0: a
// level is c_l / load or a remainder clamped at +0 over a positive sum,
// priv a positive bound or +Inf), and such doubles order as their bit
// patterns do as unsigned integers, equal values having equal bits. So
// the integer minimum is the same double, bit for bit, and the compiler
// takes it with a compare and a conditional move: no branch on the data,
// which the skip mispredicted on about one link in five.
func levelFinite(lv float64, links []int32, lvl []float64) float64 {
	m := math.Float64bits(lv)
	for _, l := range links {
		m = min(m, math.Float64bits(lvl[l]))
	}
	return math.Float64frombits(m)
}

// levelOf is level with each link's rem/load read from lvl (+Inf
// where the load is 0), the same quotients level divides out.
func levelOf(lv float64, links []int32, lvl []float64) float64 {
	for _, l := range links {
		if v := lvl[l]; v < lv || v != v {
			lv = v
		}
	}
	return lv
}
