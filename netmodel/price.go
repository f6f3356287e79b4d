package netmodel

import (
	"math"
	"slices"
)

// Price is an application's communication time on one placement as a
// function of the share of bandwidth left to it: Σ w·CommTime(nodes,
// pattern, size, share) over its traffic entries. Everything that does not
// depend on the share (the round statistics, the message sizes of each
// round and their efficiency fractions, the algorithms' multipliers, the
// link-load and injection divisors) is worked out once by PriceRounds, so
// Time costs the few divisions and sums that do, taken in CommTime's order
// on the same operands: the same value, bit for bit (TestPriceMatchesCommTime).
// A job re-priced at every change of its share keeps one. The zero value
// is empty.
type Price struct {
	parts []pricePart  // one per traffic entry, in order
	rs    []priceRound // the rounds the parts sum or scale
}

// priceRound is a round's cost without the share: α + n/(e·share).
type priceRound struct {
	a float64 // mean latency α
	n float64 // message size · mean inverse bandwidth
	e float64 // effFraction of the message size
}

func (r *priceRound) cost(share float64) float64 { return r.a + r.n/(r.e*share) }

// How a part's time follows from its rounds.
const (
	partZero     = iota // no communication: 0
	partRound           // one round: rs[lo].cost
	partSum             // Σ rs[lo:hi].cost from 0 (doubling)
	partScaled          // m · rs[lo].cost (ring phases)
	partSumRing         // Σ rs[lo:hi].cost + m · rs[hi].cost (large broadcast)
	partAllToAll        // max(m · rs[lo].cost, a + load)
	partHalo            // a + max(i/(j·share), load)
)

// pricePart is one traffic entry: its weight, how its time is formed, and
// the share-free operands. load is l/(d·share), or 0 without a load bound
// (no hops or no switch links).
type pricePart struct {
	w       float64
	kind    uint8
	hasLoad bool
	lo, hi  int32
	m       float64
	a       float64
	l, d    float64
	i, j    float64
}

// Len is the number of traffic entries priced; 0 for an empty Price.
func (p *Price) Len() int { return len(p.parts) }

// Reset empties p, keeping its storage.
func (p *Price) Reset() { p.parts, p.rs = p.parts[:0], p.rs[:0] }

// CopyFrom makes p a copy of src.
func (p *Price) CopyFrom(src *Price) {
	p.parts, p.rs = append(p.parts[:0], src.parts...), append(p.rs[:0], src.rs...)
}

// Time is Σ w·CommTime(nodes, pattern, size, share) over the traffic p was
// priced for, summed from 0 in traffic order.
func (p *Price) Time(share float64) float64 {
	if !(share > 0 && share <= 1) {
		share = 1
	}
	var num float64
	for k := range p.parts {
		num += p.parts[k].w * p.parts[k].time(p.rs, share)
	}
	return num
}

func (q *pricePart) time(rs []priceRound, share float64) float64 {
	switch q.kind {
	case partRound:
		return rs[q.lo].cost(share)
	case partSum:
		t := 0.0
		for k := q.lo; k < q.hi; k++ {
			t += rs[k].cost(share)
		}
		return t
	case partScaled:
		return q.m * rs[q.lo].cost(share)
	case partSumRing:
		t := 0.0
		for k := q.lo; k < q.hi; k++ {
			t += rs[k].cost(share)
		}
		return t + q.m*rs[q.hi].cost(share)
	case partAllToAll:
		return math.Max(q.m*rs[q.lo].cost(share), q.a+q.load(share))
	case partHalo:
		return q.a + math.Max(q.i/(q.j*share), q.load(share))
	}
	return 0
}

func (q *pricePart) load(share float64) float64 {
	if !q.hasLoad {
		return 0
	}
	return q.l / (q.d * share)
}

// PriceRounds sets p to the price of traffic on nodes, taking the round
// statistics from r as CommTimeRounds does (replayed where r has recorded
// them, walked and recorded otherwise), in the order a pass of
// CommTimeRounds over traffic asks for them.
func (m *Model) PriceRounds(p *Price, r *Rounds, nodes []int32, traffic []Traffic) {
	p.Reset()
	// Room for every part and round at once (a pattern prices at most
	// ⌈log₂P⌉ + 1 rounds), so a new Price allocates twice, not once per
	// doubling of its rounds.
	p.parts = slices.Grow(p.parts, len(traffic))
	p.rs = slices.Grow(p.rs, len(traffic)*(log2ceil(max(len(nodes), 1))+1))
	for _, tr := range traffic {
		q := pricePart{w: tr.Weight, kind: partZero}
		m.pricePart(p, &q, r, nodes, tr.Pattern, tr.Size)
		p.parts = append(p.parts, q)
	}
}

// round appends the share-free terms of round st with messages of size
// bytes and returns its index.
func (p *Price) round(st roundStat, size float64) int32 {
	p.rs = append(p.rs, priceRound{a: st.alpha, n: size * st.invB, e: effFraction(size)})
	return int32(len(p.rs) - 1)
}

// pricePart fills q as commTime computes the pattern's time.
func (m *Model) pricePart(p *Price, q *pricePart, rs *Rounds, nodes []int32, pat Pattern, size float64) {
	P := len(nodes)
	if P < 2 || pat == NoComm {
		return
	}
	var g grid
	switch pat {
	case PointToPoint:
		q.kind, q.lo = partRound, p.round(m.rounds(rs, nodes, pRing, 0, g), size)
	case Allreduce:
		if size < allreduceShort || P < 4 {
			m.priceDoubling(p, q, rs, nodes, size, false)
			return
		}
		q.kind, q.m = partScaled, 2*float64(P-1)
		q.lo = p.round(m.rounds(rs, nodes, pRing, 0, g), size/float64(P))
	case Broadcast:
		if size < bcastShort || P < bcastMinProcs {
			m.priceDoubling(p, q, rs, nodes, size, false)
			return
		}
		m.priceDoubling(p, q, rs, nodes, size, true)
		q.kind, q.m = partSumRing, float64(P-1)
		p.round(m.rounds(rs, nodes, pRing, 0, g), size/float64(P)) // rs[q.hi]
	case AllToAll:
		r := m.rounds(rs, nodes, pRand, 0, g)
		q.kind, q.m, q.a = partAllToAll, float64(P-1), r.alpha
		q.lo = p.round(r, size)
		q.l, q.d, q.hasLoad = m.priceLoad(float64(P-1)*size, r.hops)
	case Halo3D:
		var gr grid
		if rs == nil || rs.pos+6 > len(rs.st) {
			gr = factor3(P)
		}
		var alpha, hops float64
		for dir := 0; dir < 6; dir++ {
			r := m.rounds(rs, nodes, pHalo, dir, gr)
			alpha += r.alpha / 6
			hops += r.hops / 6
		}
		q.kind, q.a = partHalo, alpha
		q.i, q.j = 6*size, m.t.plateau*effFraction(size)*m.t.nodeBW
		q.l, q.d, q.hasLoad = m.priceLoad(6*size, hops)
	}
}

// priceDoubling is doubling's rounds: ⌈log₂P⌉ rounds of partners at rank
// distance 2^k, of size/2^(k+1) bytes when halving.
func (m *Model) priceDoubling(p *Price, q *pricePart, rs *Rounds, nodes []int32, size float64, halving bool) {
	q.kind, q.lo = partSum, int32(len(p.rs))
	for k := 0; k < log2ceil(len(nodes)); k++ {
		s := size
		if halving {
			s = size / float64(uint(2)<<k)
		}
		p.round(m.rounds(rs, nodes, pXor, 1<<k, grid{}), s)
	}
	q.hi = int32(len(p.rs))
}

// priceLoad is load's operands: bytes·hops over the switch-link capacity
// per node times the efficiency fraction (times the share, in Time); ok is
// false where load is 0.
func (m *Model) priceLoad(bytes, hops float64) (l, d float64, ok bool) {
	if hops == 0 || m.t.swLinksPerNode == 0 {
		return 0, 0, false
	}
	return bytes * hops, m.t.swLinksPerNode * m.t.swBW * m.t.plateau * effFraction(bytes), true
}
