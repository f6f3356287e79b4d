package netmodel

import (
	"fmt"
	"math"
	"math/bits"
	"slices"
)

// Config tunes a Model. The zero value works.
type Config struct {
	// Samples is the number of rank pairs evaluated per communication round
	// (a systematic sample of ranks 0, P/M, 2P/M, …); zero means 64. Jobs with
	// at most Samples ranks are evaluated exactly.
	Samples int
}

// Model prices communication on one topology. It holds no mutable state and
// is safe for concurrent use.
type Model struct {
	t       *Topology
	samples int
}

// NewModel returns the model for t.
func NewModel(t *Topology, cfg Config) (*Model, error) {
	if t == nil {
		return nil, fmt.Errorf("netmodel: nil topology")
	}
	if cfg.Samples < 0 {
		return nil, fmt.Errorf("netmodel: Config.Samples must be ≥ 0, got %d", cfg.Samples)
	}
	if cfg.Samples == 0 {
		cfg.Samples = 64
	}
	return &Model{t: t, samples: cfg.Samples}, nil
}

// Topology is the model's topology.
func (m *Model) Topology() *Topology { return m.t }

// Algorithm switch points (MPICH defaults: MPIR_CVAR_ALLREDUCE_SHORT_MSG_SIZE
// = 2048 B, MPIR_CVAR_BCAST_SHORT_MSG_SIZE = 12288 B, MPIR_CVAR_BCAST_MIN_PROCS = 8).
const (
	allreduceShort = 2048
	bcastShort     = 12288
	bcastMinProcs  = 8
)

// partner kinds for a communication round.
const (
	pRing = iota // i → i+1
	pXor         // i → i xor arg (or i+arg mod P when that is out of range)
	pRand        // i → a deterministic pseudo-random other rank
	pHalo        // i → neighbour arg (0..5) on the process grid
)

// roundStat is the mean over sampled pairs of one round: latency α (s),
// inverse peak bandwidth 1/(plateau·B_path) (s/byte) and router hops.
type roundStat struct{ alpha, invB, hops float64 }

// grid is a near-cubic 3-D factorisation of P.
type grid struct{ x, y, z int }

func (m *Model) round(nodes []int32, kind, arg int, g grid) roundStat {
	P := len(nodes)
	M := min(P, m.samples)
	var st roundStat
	// A path's bottleneck takes few values (a node link or a dimension's
	// link), so the inverse of the last one is kept: the same quotient.
	lastBW, inv := math.NaN(), 0.0
	for s := 0; s < M; s++ {
		i := s * P / M
		j := partner(i, P, kind, arg, s, g)
		if j == i {
			continue
		}
		a, b := nodes[i], nodes[j]
		if a == b {
			continue
		}
		h, bw := m.t.shape.path(a, b)
		if bw != lastBW {
			lastBW, inv = bw, 1/(m.t.plateau*bw)
		}
		st.alpha += 2*m.t.nicLat + float64(h)*m.t.hopLat
		st.invB += inv
		st.hops += float64(h)
	}
	st.alpha /= float64(M)
	st.invB /= float64(M)
	st.hops /= float64(M)
	return st
}

// partner is rank i's partner (i in [0,P)) in a round of kind with
// argument arg, s the sample's index. It is on the path of every sampled
// pair, so it spends two divisions on a halo partner instead of six:
// i/(x·y) is (i/x)/y, a remainder is a dividend less a product, and a step
// of ±1 wraps by a compare.
func partner(i, P, kind, arg, s int, g grid) int {
	switch kind {
	case pRing:
		if i+1 == P {
			return 0
		}
		return i + 1
	case pXor:
		if j := i ^ arg; j < P {
			return j
		}
		return (i + arg) % P
	case pRand:
		return (i + 1 + (s*7919+arg)%(P-1)) % P
	}
	q := i / g.x
	z := q / g.y
	x, y := i-q*g.x, q-z*g.y
	d := 1 - 2*(arg&1) // +1 or −1
	switch arg / 2 {
	case 0:
		x = wrap(x+d, g.x)
	case 1:
		y = wrap(y+d, g.y)
	default:
		z = wrap(z+d, g.z)
	}
	return x + g.x*(y+g.y*z)
}

// wrap maps c in [−1, n] onto the ring [0, n): (c + n) % n.
func wrap(c, n int) int {
	if c < 0 {
		return n - 1
	}
	if c == n {
		return 0
	}
	return c
}

// cost is the time of one round with messages of size bytes.
func (r roundStat) cost(size, share float64) float64 {
	return r.alpha + size*r.invB/(effFraction(size)*share)
}

func log2ceil(p int) int { return bits.Len(uint(p - 1)) }

// CommTime is the modelled time in seconds of one instance of pattern pat
// with messages of size bytes among the ranks placed on nodes (rank i on
// nodes[i]). share in (0,1] is the fraction of bandwidth left by other jobs
// (Network.Share); values outside (0,1] mean 1 (no contention). Only
// bandwidth terms are divided by share.
//
// Each round's cost is the mean over sampled rank pairs of 2·L_nic + h·L_hop
// + S/B_eff(S) (the mean stands in for the slowest pair). Algorithms:
//
//	allreduce  S < 2 KiB or P < 4: recursive doubling, ⌈log₂P⌉ rounds of S;
//	           else ring reduce-scatter + allgather, 2(P−1) rounds of S/P
//	broadcast  S < 12 KiB or P < 8: binomial tree, ⌈log₂P⌉ rounds of S;
//	           else scatter (rounds of S/2^(k+1)) + ring allgather, (P−1) rounds of S/P
//	alltoall   max((P−1)·(α + S/B), α + (P−1)·S·h̄ / (d·B_sw)): pairwise exchange
//	           or the link-load bound, where h̄ is the mean hop count of the
//	           placement and d·B_sw the switch-link capacity per node; this
//	           load bound is what a bisection bound becomes for a sub-machine
//	p2p        one exchange with the ring neighbour
//	halo3d     six neighbours on a near-cubic process grid, concurrent:
//	           α + max(6·S/B_node, 6·S·h̄/(d·B_sw)) (injection or link load)
func (m *Model) CommTime(nodes []int32, pat Pattern, size, share float64) float64 {
	return m.commTime(nodes, pat, size, share, nil)
}

// Rounds remembers the round statistics (sampled path walks) that CommTime
// computes for one placement, so the same placement can be priced again at
// another share without walking a path: the replayed statistics and the
// formulas are the same, so the times are bit-identical. One Rounds serves a
// fixed sequence of CommTimeRounds calls (for example one per traffic entry
// of an application): Rewind before each pass over the sequence, Reset when
// the placement or the sequence changes. The zero value is empty.
type Rounds struct {
	st    []roundStat
	pos   int
	memo  *RoundMemo // consulted before walking paths for a new round; nil: none
	paths *PathCache // walks new rounds through it; nil: none
}

// RoundMemo holds the rounds computed on one placement, whatever sequence
// asked for them: applications with a pattern in common (most have a halo
// or a small allreduce) share its rounds. A round is fixed by the
// placement and its partner rule (kind and argument; a halo's grid follows
// from the node count), so a remembered one is the value round would
// compute. Reset it when the placement changes. The zero value is empty.
type RoundMemo struct {
	keys []roundKey
	st   []roundStat
}

type roundKey struct{ kind, arg int }

// Reset forgets the remembered rounds.
func (m *RoundMemo) Reset() { m.keys, m.st = m.keys[:0], m.st[:0] }

// UseMemo makes r take new rounds from memo (and add the ones it walks to
// it); nil stops that. memo must belong to the placement r records.
func (r *Rounds) UseMemo(memo *RoundMemo) { r.memo = memo }

// UsePaths makes r walk new rounds through c (same values, fewer path
// walks); nil stops that. c must come from the Model r is used with (a cache
// of another model is ignored).
func (r *Rounds) UsePaths(c *PathCache) { r.paths = c }

// Reset forgets the recorded rounds.
func (r *Rounds) Reset() { r.st, r.pos = r.st[:0], 0 }

// Len is the number of recorded rounds.
func (r *Rounds) Len() int { return len(r.st) }

// CopyFrom makes r a copy of src's record, rewound.
func (r *Rounds) CopyFrom(src *Rounds) { r.st, r.pos = append(r.st[:0], src.st...), 0 }

// Rewind starts replaying the recorded rounds from the first.
func (r *Rounds) Rewind() { r.pos = 0 }

// CommTimeRounds is CommTime, taking the rounds from r where it has recorded
// them and recording the rest. nodes, pat and size must be those of the
// call that recorded them (same position in the sequence since Rewind).
func (m *Model) CommTimeRounds(r *Rounds, nodes []int32, pat Pattern, size, share float64) float64 {
	return m.commTime(nodes, pat, size, share, r)
}

// rounds returns round(nodes, kind, arg, g), replayed from r when recorded.
func (m *Model) rounds(r *Rounds, nodes []int32, kind, arg int, g grid) roundStat {
	if r == nil {
		return m.round(nodes, kind, arg, g)
	}
	if r.pos < len(r.st) {
		r.pos++
		return r.st[r.pos-1]
	}
	var st roundStat
	if mm := r.memo; mm != nil {
		k := roundKey{kind, arg}
		i := slices.Index(mm.keys, k)
		if i < 0 {
			i = len(mm.keys)
			mm.keys, mm.st = append(mm.keys, k), append(mm.st, m.walk(r.paths, nodes, kind, arg, g))
		}
		st = mm.st[i]
	} else {
		st = m.walk(r.paths, nodes, kind, arg, g)
	}
	r.st = append(r.st, st)
	r.pos++
	return st
}

// walk is round(nodes, kind, arg, g), through c when it is m's.
func (m *Model) walk(c *PathCache, nodes []int32, kind, arg int, g grid) roundStat {
	if c != nil && c.m == m {
		return m.roundPaths(c, nodes, kind, arg, g)
	}
	return m.round(nodes, kind, arg, g)
}

func (m *Model) commTime(nodes []int32, pat Pattern, size, share float64, rs *Rounds) float64 {
	P := len(nodes)
	if P < 2 || pat == NoComm {
		return 0
	}
	if !(share > 0 && share <= 1) {
		share = 1
	}
	var g grid
	switch pat {
	case PointToPoint:
		return m.rounds(rs, nodes, pRing, 0, g).cost(size, share)
	case Allreduce:
		if size < allreduceShort || P < 4 {
			return m.doubling(rs, nodes, size, false, share)
		}
		return 2 * float64(P-1) * m.rounds(rs, nodes, pRing, 0, g).cost(size/float64(P), share)
	case Broadcast:
		if size < bcastShort || P < bcastMinProcs {
			return m.doubling(rs, nodes, size, false, share)
		}
		return m.doubling(rs, nodes, size, true, share) + float64(P-1)*m.rounds(rs, nodes, pRing, 0, g).cost(size/float64(P), share)
	case AllToAll:
		r := m.rounds(rs, nodes, pRand, 0, g)
		steps := float64(P-1) * r.cost(size, share)
		return math.Max(steps, r.alpha+m.load(float64(P-1)*size, r.hops, share))
	case Halo3D:
		return m.halo(rs, nodes, size, share)
	}
	return 0
}

// doubling sums ⌈log₂P⌉ rounds with partners at rank distance 2^k; halving
// divides the size by 2^(k+1) in round k (the scatter of a large broadcast).
func (m *Model) doubling(rs *Rounds, nodes []int32, size float64, halving bool, share float64) float64 {
	t := 0.0
	for k := 0; k < log2ceil(len(nodes)); k++ {
		s := size
		if halving {
			s = size / float64(uint(2)<<k)
		}
		t += m.rounds(rs, nodes, pXor, 1<<k, grid{}).cost(s, share)
	}
	return t
}

// load is the link-load bound for bytes sent per node over paths of hops
// router hops on average: bytes·hops / (switch-link capacity per node).
func (m *Model) load(bytes, hops, share float64) float64 {
	if hops == 0 || m.t.swLinksPerNode == 0 {
		return 0
	}
	return bytes * hops / (m.t.swLinksPerNode * m.t.swBW * m.t.plateau * effFraction(bytes) * share)
}

func (m *Model) halo(rs *Rounds, nodes []int32, size, share float64) float64 {
	var g grid // the process grid, needed only to walk rounds not recorded
	if rs == nil || rs.pos+6 > len(rs.st) {
		g = factor3(len(nodes))
	}
	var alpha, hops float64
	for dir := 0; dir < 6; dir++ {
		r := m.rounds(rs, nodes, pHalo, dir, g)
		alpha += r.alpha / 6
		hops += r.hops / 6
	}
	inject := 6 * size / (m.t.plateau * effFraction(size) * m.t.nodeBW * share)
	return alpha + math.Max(inject, m.load(6*size, hops, share))
}

// factor3 splits p into x ≤ y ≤ z with x·y·z = p and the smallest x+y+z.
func factor3(p int) grid {
	best := grid{1, 1, p}
	for x := 1; x*x*x <= p; x++ {
		if p%x != 0 {
			continue
		}
		for y := x; x*y*y <= p; y++ {
			if (p/x)%y == 0 {
				if z := p / x / y; x+y+z < best.x+best.y+best.z {
					best = grid{x, y, z}
				}
			}
		}
	}
	return best
}

// CommRatio is T_comm(nodes, share) / T_comm(compact, no contention), the
// factor by which the job's communication part stretches. The compact
// reference placement is the first len(nodes) nodes of the topology's node
// order. It is 1 for NoComm and for jobs of fewer than two nodes. Cost: about
// Samples·⌈log₂P⌉ path evaluations per placement, no allocation, independent
// of P beyond that (sampled pairs, see Config.Samples).
func (m *Model) CommRatio(nodes []int32, pat Pattern, size, share float64) float64 {
	num := m.CommTime(nodes, pat, size, share)
	den := m.CommTime(m.compact(len(nodes)), pat, size, 1)
	if den <= 0 || num <= 0 {
		return 1
	}
	return num / den
}

// compact returns the identity placement 0..n−1 without allocating.
func (m *Model) compact(n int) []int32 {
	if n > len(m.t.order) {
		n = len(m.t.order)
	}
	return m.t.order[:n]
}

// NodeOrder is the topology's node order 0..Nodes()−1 (shared; do not
// modify). A compact placement of n nodes is NodeOrder()[:n].
func (t *Topology) NodeOrder() []int32 { return t.order }
