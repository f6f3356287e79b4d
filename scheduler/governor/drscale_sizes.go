package governor

import (
	"math"

	"drsim/powercap"
)

// DR-Scale's options per running job: its candidate sizes, their runtime
// factors and its size × level options, shared by the jobs of one shape
// (sizeShape), the shape of each slot's run (sizeCache), and the quick
// pick over them (best) with the range of remaining work over which that
// pick stands (pickCache, certify).

// sizeCache is a slot's running job's shape as of its current size,
// which changes only when the job is resized (or the slot holds another
// job), not as its work progresses, and best's last pick for it.
type sizeCache struct {
	key sizeKey
	pk  pickCache  // best's last pick and where it stays the pick
	sh  *sizeShape // the shape (an entry of DRScale.sh, or plainSh)
	gen uint32     // sh.gen when sh was found: sh is still the job's while they are equal
}

// sizeKey is what a sizeCache is for: the job's run (seq), its current
// and requested sizes, and its malleability and fixed level (keyOf). Its
// zero value is no job's.
type sizeKey struct {
	seq     int64
	cur, n0 int
	flags   int // 1 | 2 if malleable | (level+1)<<2 if fixed
}

// keyOf returns the sizeKey of a job (level is read only if fixed).
func keyOf(seq int64, cur, n0 int, mall, fixed bool, level int) sizeKey {
	f := 1
	if mall {
		f |= 2
	}
	if fixed {
		f |= (level + 1) << 2
	}
	return sizeKey{seq: seq, cur: cur, n0: n0, flags: f}
}

// sizeShape is what a job's options are made from besides its remaining
// work, pause and idle draw: its candidate sizes and their runtime factors
// t(n)/t(cur), its options (sizes × levels) and the candidates best looks
// at. They depend only on the key: the application and its level table,
// the requested and current sizes, malleability and the fixed level (if
// fixed), so every running job with the same key shares one entry (the
// shapes of HPC2N's 121,648 runs and resizes under --malleable 0.5: 1,725).
type sizeShape struct {
	gen uint32 // bumped whenever the entry is computed again
	// the key
	valid       bool
	app         int
	lv          []powercap.Level // compared by address and length
	cur, n0     int
	mall, fixed bool
	level       int // when fixed
	// what it holds
	n    []int
	tf   []float64
	nopt int         // the number of its options, sizes × levels
	opt  []optCache  // the options, sizes × levels, in solve's order, once asked (opts)
	cc   []candCache // the options best looks at (see sizeOpts), side by side
}

// sizeShapeLen is the number of sizeShape entries, a power of two: a key
// uses the entry of its hash (a collision only costs a recomputation).
const sizeShapeLen = 8192

// candCache is one option best looks at: its index in the job's options
// (opts) and the values best multiplies, copied so that the loop reads one
// array.
type candCache struct {
	np, nps, tf float64
	n           int
	i, level    int32
}

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
	if sc.pk.holds(rem, pause) {
		sj.best, sj.pick, sj.bestW = sc.pk.answer(cur, idle)
		return
	}
	cc := sc.sh.cc
	var best powercap.Option
	bi := -1
	for c := range cc {
		k := &cc[c]
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
		k := &cc[bi]
		sj.best, sj.pick = int(k.i), scaleOpt{n: k.n, level: int(k.level)}
		sc.pk = certify(cc, bi, cur, pause)
	}
	sj.bestW = best.Weight
}

// sizesOf returns slot s's cache: its run's shape, found again when the
// job or its size changed or the shape's entry was computed again, and
// best's last pick.
func (g *DRScale) sizesOf(sj *scaleJob) *sizeCache {
	o := &sj.o
	sc := &g.slot(sj.slot).sc
	k := keyOf(o.seq, sj.cur, o.n0, o.malleable, sj.fixed, sj.level)
	if sc.holds(k) {
		return sc
	}
	sc.key, sc.pk = k, pickCache{k: -1}
	sc.sh = g.shapeOf(sj)
	sc.gen = sc.sh.gen
	return sc
}

// holds reports whether sc (its slot's) is for the job of key k, with its
// shape's entry not computed again since.
func (sc *sizeCache) holds(k sizeKey) bool {
	return sc.key == k && sc.sh.gen == sc.gen
}

// shapeOf returns job sj's shape, computed unless its entry holds it (in
// plain mode, computed every time in an entry of its own: the sharing's
// reference).
func (g *DRScale) shapeOf(sj *scaleJob) *sizeShape {
	o := &sj.o
	var sh *sizeShape
	if g.plain {
		if g.sh == nil {
			g.sh = make([]sizeShape, 1)
		}
		sh = &g.sh[0]
	} else {
		if g.sh == nil {
			n := sizeShapeLen
			if g.shapeLen > 0 {
				n = g.shapeLen
			}
			g.sh = make([]sizeShape, n)
		}
		lk := 0
		if sj.fixed {
			lk = sj.level + 1
		}
		mk := uint64(0)
		if o.malleable {
			mk = 1
		}
		h := uint64(o.n0)*0x9e3779b97f4a7c15 ^ uint64(sj.cur)*0xbf58476d1ce4e5b9 ^ uint64(sj.app)*0x94d049bb133111eb ^ uint64(lk)*0xd6e8feb86659fd93 ^ mk
		sh = &g.sh[h*0x9e3779b97f4a7c15>>40%uint64(len(g.sh))]
		if sh.valid && sh.app == sj.app && sh.cur == sj.cur && sh.n0 == o.n0 && sh.mall == o.malleable && sh.fixed == sj.fixed &&
			(!sj.fixed || sh.level == sj.level) && len(sh.lv) == len(sj.lv) && (len(sj.lv) == 0 || &sh.lv[0] == &sj.lv[0]) {
			return sh
		}
	}
	sh.gen++
	sh.valid, sh.app, sh.lv, sh.cur, sh.n0, sh.mall, sh.fixed, sh.level = true, sj.app, sj.lv, sj.cur, o.n0, o.malleable, sj.fixed, sj.level
	sh.n = append(sh.n[:0], g.sizes(*o, sj.cur, sj.fixed)...)
	sh.tf, sh.opt, sh.cc = sh.tf[:0], sh.opt[:0], sh.cc[:0]
	perSize := len(sj.lv) // options per size
	if sj.fixed && (sj.level < 0 || sj.level >= len(sj.lv)) {
		perSize = 0
	} else if sj.fixed {
		perSize = 1
	}
	sh.nopt = len(sh.n) * perSize
	fc := g.factor(sj.app, float64(sj.cur)/float64(o.n0))
	for i, n := range sh.n {
		tf := g.factor(sj.app, float64(n)/float64(o.n0)) / fc
		sh.tf = append(sh.tf, tf)
		if perSize == 0 {
			continue
		}
		if sj.fixed { // its one option: nothing of its size to dominate it
			np := float64(n) * sj.lv[sj.level].Power
			sh.cc = append(sh.cc, candCache{np: np, nps: np * sj.lv[sj.level].Scale, tf: tf, n: n, i: int32(i), level: int32(sj.level)})
			continue
		}
		so := g.sizeOptsOf(sj.app, n, sj.lv)
		base := int32(i * perSize)
		if tf > 0 && finite(tf) {
			for _, x := range so.cand {
				x.tf, x.i = tf, base+x.i
				sh.cc = append(sh.cc, x)
			}
			continue
		}
		for k := range so.np { // all of a size whose factor is not finite and positive
			sh.cc = append(sh.cc, candCache{np: so.np[k], nps: so.nps[k], tf: tf, n: n, i: base + int32(k), level: int32(k)})
		}
	}
	return sh
}

// finite reports whether x is in [0, MaxFloat64].
func finite(x float64) bool { return x >= 0 && x <= math.MaxFloat64 }

// opts returns sh's options, sizes × levels (only its level when fixed),
// in solve's order, computed once per shape from a job sj of that shape.
func (sh *sizeShape) opts(sj *scaleJob) []optCache {
	if len(sh.opt) == sh.nopt {
		return sh.opt
	}
	sh.opt = sh.opt[:0]
	for i, n := range sh.n {
		nf := float64(n)
		for k, l := range sj.lv {
			if sj.fixed && k != sj.level {
				continue
			}
			np := nf * l.Power
			sh.opt = append(sh.opt, optCache{size: int32(i), level: int32(k), np: np, nps: np * l.Scale})
		}
	}
	return sh.opt
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

// holds reports whether p stands for remaining work rem and pause.
func (p *pickCache) holds(rem, pause float64) bool {
	return p.k >= 0 && pause == p.pause && rem >= p.lo && rem <= p.hi && (rem >= pickMin || rem == 0)
}

// answer returns p's pick as best writes it into a job of current size cur
// with idle draw idle per processor: its option index, what it means and
// its weight.
func (p *pickCache) answer(cur int, idle float64) (int, scaleOpt, float64) {
	return int(p.i), scaleOpt{n: p.n, level: int(p.level)}, p.np + float64(cur-p.n)*idle
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
