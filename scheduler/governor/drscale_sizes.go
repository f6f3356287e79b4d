package governor

import (
	"math"

	"drsim/powercap"
)

// DR-Scale's options per running job: its candidate sizes, their runtime
// factors and its size × level options, cached per slot (sizeCache), and
// the quick pick over them (best) with the range of remaining work over
// which that pick stands (pickCache, certify).

// sizeCache is a running job's candidate sizes and their runtime factors
// t(n)/t(cur) as of its current size: they change only when the job is
// resized (or the slot holds another job), not as its work progresses.
type sizeCache struct {
	valid bool
	slot  int32
	seq   int64
	cur   int
	n0    int  // requested size
	mall  bool // malleable
	fixed bool
	level int       // its level if fixed
	pk    pickCache // best's last pick and where it stays the pick
	n     []int
	tf    []float64
	nopt  int         // the number of its options, sizes × levels
	opt   []optCache  // the options, sizes × levels, in solve's order, once asked (opts)
	cc    []candCache // the options best looks at (see sizeOpts), side by side
}

// candCache is one option best looks at: its index in the job's options
// (opts) and the values best multiplies, copied so that the loop reads one
// array.
type candCache struct {
	np, nps, tf float64
	n           int
	i, level    int32
}

// sizeCacheLen is the number of sizeCache entries, a power of two: slot s
// uses entry s mod sizeCacheLen (a collision only costs a recomputation).
const sizeCacheLen = 1024

// optCache is the part of an option that does not change as the job runs.
type optCache struct {
	size  int32   // index in n
	level int32   // level
	np    float64 // n·p(l)
	nps   float64 // n·p(l)·s(l), multiplied in that order
}

// best is options' pick (without adding) over sc.cc: an option left out
// has an earlier option of the same size with n·p·s and n·p no larger, so
// for rem ≥ 0, tf > 0 and pause ≥ 0 (finite) its cost and weight are no
// smaller (rounding is monotone) and the earlier one wins every tie: it is
// never the first least-cost, least-weight option the full walk returns.
//
// The pick it finds is kept in sc.pk with the range of remaining work over
// which no other candidate can come near it (certify): while the job's
// remaining work stays in that range, with the same pause, the walk would
// return it again, and best returns it without walking.
func (g *DRScale) best(sj *scaleJob, sc *sizeCache) {
	cur, rem, pause, idle := sj.cur, sj.rem, sj.pause, sj.idle
	if p := &sc.pk; p.k >= 0 && pause == p.pause && rem >= p.lo && rem <= p.hi && (rem >= pickMin || rem == 0) {
		sj.best, sj.pick, sj.bestW = int(p.i), scaleOpt{n: p.n, level: int(p.level)}, p.np+float64(cur-p.n)*idle
		return
	}
	var best powercap.Option
	bi := -1
	for c := range sc.cc {
		k := &sc.cc[c]
		cost := k.nps * rem * k.tf // nf·p·s·rem·tf, left to right
		if k.n != cur {
			cost += k.np * pause
		}
		opt := powercap.Option{Weight: k.np + float64(cur-k.n)*idle, Cost: cost}
		if c == 0 || opt.Cost < best.Cost || opt.Cost == best.Cost && opt.Weight < best.Weight {
			bi, best = c, opt
		}
	}
	if bi >= 0 {
		k := &sc.cc[bi]
		sj.best, sj.pick = int(k.i), scaleOpt{n: k.n, level: int(k.level)}
		sc.pk = certify(sc.cc, bi, cur, pause)
	}
	sj.bestW = best.Weight
}

// sizesOf returns slot s's candidate sizes and factors t(n)/t(cur) and the
// options best looks at, computed when the job or its size changed; the
// full option list (opts) only when asked.
func (g *DRScale) sizesOf(sj *scaleJob) *sizeCache {
	if g.sc == nil {
		g.sc = make([]sizeCache, sizeCacheLen)
	}
	s, o := sj.slot, &sj.o
	sc := &g.sc[s&(sizeCacheLen-1)]
	if sc.valid && sc.slot == s && sc.seq == o.seq && sc.cur == sj.cur && sc.n0 == o.n0 && sc.mall == o.malleable &&
		sc.fixed == sj.fixed && (!sj.fixed || sc.level == sj.level) {
		return sc
	}
	sc.valid, sc.slot, sc.seq, sc.cur, sc.fixed, sc.level = true, s, o.seq, sj.cur, sj.fixed, sj.level
	sc.n0, sc.mall = o.n0, o.malleable
	sc.n = append(sc.n[:0], g.sizes(*o, sj.cur, sj.fixed)...)
	sc.tf, sc.opt, sc.cc, sc.pk = sc.tf[:0], sc.opt[:0], sc.cc[:0], pickCache{k: -1}
	perSize := len(sj.lv) // options per size
	if sj.fixed && (sj.level < 0 || sj.level >= len(sj.lv)) {
		perSize = 0
	} else if sj.fixed {
		perSize = 1
	}
	sc.nopt = len(sc.n) * perSize
	fc := g.factor(sj.app, float64(sj.cur)/float64(o.n0))
	for i, n := range sc.n {
		tf := g.factor(sj.app, float64(n)/float64(o.n0)) / fc
		sc.tf = append(sc.tf, tf)
		if perSize == 0 {
			continue
		}
		if sj.fixed { // its one option: nothing of its size to dominate it
			np := float64(n) * sj.lv[sj.level].Power
			sc.cc = append(sc.cc, candCache{np: np, nps: np * sj.lv[sj.level].Scale, tf: tf, n: n, i: int32(i), level: int32(sj.level)})
			continue
		}
		so := g.sizeOptsOf(sj.app, n, sj.lv)
		base := int32(i * perSize)
		if tf > 0 && finite(tf) {
			for _, x := range so.cand {
				x.tf, x.i = tf, base+x.i
				sc.cc = append(sc.cc, x)
			}
			continue
		}
		for k := range so.np { // all of a size whose factor is not finite and positive
			sc.cc = append(sc.cc, candCache{np: so.np[k], nps: so.nps[k], tf: tf, n: n, i: base + int32(k), level: int32(k)})
		}
	}
	return sc
}

// finite reports whether x is in [0, MaxFloat64].
func finite(x float64) bool { return x >= 0 && x <= math.MaxFloat64 }

// opts returns sc's options, sizes × levels (only its level when fixed),
// in solve's order, computed once per sizeCache from the job sj it was
// made for.
func (sc *sizeCache) opts(sj *scaleJob) []optCache {
	if len(sc.opt) == sc.nopt {
		return sc.opt
	}
	sc.opt = sc.opt[:0]
	for i, n := range sc.n {
		nf := float64(n)
		for k, l := range sj.lv {
			if sj.fixed && k != sj.level {
				continue
			}
			np := nf * l.Power
			sc.opt = append(sc.opt, optCache{size: int32(i), level: int32(k), np: np, nps: np * l.Scale})
		}
	}
	return sc.opt
}

// sizeOpts is one size's options over one level table, shared by every
// job of that application and size: n·p(l) and n·p(l)·s(l) per level l,
// and the levels best looks at when the job's runtime factor is finite and
// positive (cand): those that no earlier level dominates (n·p·s and n·p
// no larger, both finite). Such a level never wins best's walk (see best),
// and which levels dominate depends on n and the table only.
type sizeOpts struct {
	app, n  int
	lv      []powercap.Level // the table it was made from (compared by address and length)
	np, nps []float64
	cand    []candCache // as best reads them, but tf and the offset of i (0 here)
}

// sizeOptsLen is the number of sizeOpts entries, a power of two: (app, n)
// uses the entry of its hash (a collision only costs a recomputation).
const sizeOptsLen = 4096

// sizeOptsOf returns the options of size n over level table lv of app.
func (g *DRScale) sizeOptsOf(app, n int, lv []powercap.Level) *sizeOpts {
	if g.so == nil {
		g.so = make([]sizeOpts, sizeOptsLen)
	}
	so := &g.so[(uint64(n)*0x9e3779b97f4a7c15^uint64(app)*0xbf58476d1ce4e5b9)>>52&(sizeOptsLen-1)]
	if so.n == n && so.app == app && len(so.lv) == len(lv) && len(lv) > 0 && &so.lv[0] == &lv[0] {
		return so
	}
	so.app, so.n, so.lv = app, n, lv
	so.np, so.nps, so.cand = so.np[:0], so.nps[:0], so.cand[:0]
	nf := float64(n)
	for _, l := range lv {
		np := nf * l.Power
		so.np, so.nps = append(so.np, np), append(so.nps, np*l.Scale)
	}
	for b := range so.np {
		dom := false
		if finite(so.np[b]) && finite(so.nps[b]) {
			for a := range b {
				if finite(so.np[a]) && finite(so.nps[a]) && so.nps[a] <= so.nps[b] && so.np[a] <= so.np[b] {
					dom = true
					break
				}
			}
		}
		if !dom {
			so.cand = append(so.cand, candCache{np: so.np[b], nps: so.nps[b], n: n, i: int32(b), level: int32(b)})
		}
	}
	return so
}

// sizes returns the candidate sizes of a job, ascending, ending at cur
// (owned by g, valid until the next call).
func (g *DRScale) sizes(o origSize, cur int, fixed bool) []int {
	out := g.sizeBuf[:0]
	if !o.malleable || fixed {
		g.sizeBuf = append(out, cur)
		return g.sizeBuf
	}
	steps := g.Steps
	if steps <= 0 {
		steps = 5
	}
	lo := int(math.Ceil(g.minFrac() * float64(o.n0)))
	for i := range steps {
		r := g.minFrac()
		if steps > 1 {
			r += (1 - g.minFrac()) * float64(i) / float64(steps-1)
		}
		n := int(math.Ceil(r*float64(o.n0) - 1e-9))
		if n >= lo && n < cur && (len(out) == 0 || out[len(out)-1] != n) {
			out = append(out, n)
		}
	}
	g.sizeBuf = append(out, cur)
	return g.sizeBuf
}

// pickCache is best's last pick for a sizeCache: while the job's remaining
// work rem is in [lo, hi] (and 0 or at least pickMin) and its pause is
// pause, the walk over cc returns cc[k] (see certify). k < 0: none.
type pickCache struct {
	k      int32
	pause  float64
	lo, hi float64
	// cc[k]'s values that best returns, kept here to read one record
	i, level int32
	n        int
	np       float64
}

// The domain over which certify's error bounds hold: every value it
// multiplies is 0 or in [pickMin, pickMax], so products of up to three
// are 0 or normal and finite. pickEps is the relative margin by which
// the pick's cost must beat every other candidate's; pickShrink moves each
// computed bound inwards past the rounding of its division.
const (
	pickMin, pickMax = 1e-100, 1e100
	pickEps          = 1e-11
	pickShrink       = 1e-9
)

func pickDomain(x float64) bool { return x == 0 || x >= pickMin && x <= pickMax }

// certify returns the range of remaining work rem over which best's walk
// over cc, with pause and current size cur, returns candidate w, found at
// some rem in that range; k < 0 when it cannot tell.
//
// Candidate k's cost is c_k = fl(fl(nps_k·rem)·tf_k) [+ fl(np_k·pause)
// when n_k ≠ cur], within 3.0001u (u = 2⁻⁵³) of its exact value C_k =
// s_k·rem + b_k (s_k = nps_k·tf_k, b_k = np_k·pause or 0), since every
// term is non-negative and normal. If C_k − C_w > ε(C_k + C_w) for every
// k ≠ w with ε > 6.0002u, then c_k > c_w: w is the unique least cost and
// the walk returns it whatever the weights. That condition is linear in
// rem, A·rem + B > 0 with A = (s_k − s_w) − ε(s_k + s_w), B = (b_k − b_w) −
// ε(b_k + b_w); certify evaluates A and B in floating point with ε =
// pickEps, whose rounding (at most 4u(s_k + s_w) and 4u(b_k + b_w)) still
// leaves a margin above 6.0002u, and keeps the rem on the right side of
// each root −B/A after moving the root inwards by pickShrink.
func certify(cc []candCache, w, cur int, pause float64) pickCache {
	none := pickCache{k: -1}
	if len(cc) == 1 {
		k := &cc[0] // the only candidate
		return pickCache{k: 0, pause: pause, lo: 0, hi: math.MaxFloat64, i: k.i, level: k.level, n: k.n, np: k.np}
	}
	if !pickDomain(pause) {
		return none
	}
	for i := range cc {
		if k := &cc[i]; !pickDomain(k.np) || !pickDomain(k.nps) || !pickDomain(k.tf) {
			return none
		}
	}
	kw := &cc[w]
	sw, bw := kw.nps*kw.tf, 0.0
	if kw.n != cur {
		bw = kw.np * pause
	}
	lo, hi := 0.0, pickMax
	for i := range cc {
		if i == w {
			continue
		}
		k := &cc[i]
		sk, bk := k.nps*k.tf, 0.0
		if k.n != cur {
			bk = k.np * pause
		}
		a := (sk - sw) - pickEps*(sk+sw)
		b := (bk - bw) - pickEps*(bk+bw)
		switch {
		case a > 0 && b > 0: // for every rem ≥ 0
		case a > 0 && b == 0: // for every rem > 0
			lo = max(lo, pickMin)
		case a > 0: // rem > −b/a
			lo = max(lo, -b/a*(1+pickShrink))
		case a < 0 && b > 0: // rem < b/−a
			hi = min(hi, b/-a*(1-pickShrink))
		case a == 0 && b > 0:
		default: // never, or NaN
			return none
		}
	}
	if !(lo <= hi) {
		return none
	}
	return pickCache{k: int32(w), pause: pause, lo: lo, hi: hi, i: kw.i, level: kw.level, n: kw.n, np: kw.np}
}
