package netmodel

import "math/bits"

// PathCache remembers what the sampled rounds of one Model look up again and
// again over a simulation: for each ordered pair among the first nodes of the
// node order (a machine is a prefix of it), the routed path's hop count and
// bottleneck bandwidth, and for each job size and round, the sampled rank
// pairs with their partners. Jobs on a few hundred nodes revisit the same
// node pairs in every new placement, so a round costs a table read per
// sampled pair instead of a path walk and a partner computation.
//
// A round walked through a PathCache takes the same pairs in the same order,
// and the same hops and bandwidth for each, as Model.round: its sums are the
// same, bit for bit (TestPathCacheMatchesModel). The cache is mutable and not
// safe for concurrent use: one per simulation, next to its Rounds. Attach it
// with Rounds.UsePaths.
type PathCache struct {
	m     *Model
	shift uint      // the pair table covers nodes [0, 1<<shift)
	pair  []uint32  // at a<<shift | b: hops<<8 | class+1; 0: not looked up yet
	bw    []float64 // per class: a bottleneck bandwidth seen
	inv   []float64 // per class: 1/(plateau·bw), as round computes it
	sizes []*sampleSet
}

// maxPairShift bounds the pair table: 1,024 nodes, 4 MiB. Pairs with a node
// beyond it are walked as without the cache.
const maxPairShift = 10

// sampleSet holds the sampled rank pairs (i, partner) of each round slot of
// one job size P; built[k] says whether slot k was computed.
type sampleSet struct {
	pairs [roundSlots][]int32
	built [roundSlots]bool
}

// Round slots: ring, random, six halo directions, and the xor rounds of
// distance 2^k for k < 32.
const (
	slotRing   = 0
	slotRand   = 1
	slotHalo   = 2
	slotXor    = 8
	roundSlots = slotXor + 32
)

// NewPathCache returns an empty cache for m's topology.
func (m *Model) NewPathCache() *PathCache { return &PathCache{m: m} }

// slot is the round slot of (kind, arg), or −1 for a round the cache does
// not keep.
func slot(kind, arg int) int {
	switch kind {
	case pRing:
		return slotRing
	case pRand:
		if arg == 0 {
			return slotRand
		}
	case pHalo:
		if arg >= 0 && arg < 6 {
			return slotHalo + arg
		}
	case pXor:
		if arg > 0 && arg&(arg-1) == 0 && bits.TrailingZeros(uint(arg)) < 32 {
			return slotXor + bits.TrailingZeros(uint(arg))
		}
	}
	return -1
}

// samples returns the flattened (i, j) rank pairs that round samples for a
// job of P ranks (M samples), skipping those with j == i, in sample order;
// nil when the round has no slot.
func (c *PathCache) samples(P, M, kind, arg int, g grid) []int32 {
	k := slot(kind, arg)
	if k < 0 {
		return nil
	}
	for P >= len(c.sizes) {
		c.sizes = append(c.sizes, nil)
	}
	set := c.sizes[P]
	if set == nil {
		set = new(sampleSet)
		c.sizes[P] = set
	}
	if !set.built[k] {
		pairs := make([]int32, 0, 2*M)
		for s := 0; s < M; s++ {
			i := s * P / M
			if j := partner(i, P, kind, arg, s, g); j != i {
				pairs = append(pairs, int32(i), int32(j))
			}
		}
		set.pairs[k], set.built[k] = pairs, true
	}
	return set.pairs[k]
}

// path returns the hop count of the routed path a→b and 1/(plateau·bw) of
// its bottleneck bandwidth bw, from the table when both nodes are in it.
func (c *PathCache) path(a, b int32) (int, float64) {
	t := c.m.t
	if hi := max(a, b); (c.pair == nil || hi >= int32(1)<<c.shift) && !c.grow(hi) {
		h, bw := t.shape.path(a, b)
		return h, 1 / (t.plateau * bw)
	}
	k := int(a)<<c.shift | int(b)
	if v := c.pair[k]; v != 0 {
		return int(v >> 8), c.inv[v&255-1]
	}
	h, bw := t.shape.path(a, b)
	cl := -1
	for i, x := range c.bw {
		if x == bw {
			cl = i
			break
		}
	}
	if cl < 0 && len(c.bw) < 255 {
		cl = len(c.bw)
		c.bw, c.inv = append(c.bw, bw), append(c.inv, 1/(t.plateau*bw))
	}
	if cl < 0 || h >= 1<<24 {
		return h, 1 / (t.plateau * bw)
	}
	c.pair[k] = uint32(h)<<8 | uint32(cl+1)
	return h, c.inv[cl]
}

// grow widens the pair table to cover node hi (forgetting its pairs, which
// are looked up again); false when hi is beyond maxPairShift.
func (c *PathCache) grow(hi int32) bool {
	s := uint(bits.Len32(uint32(hi)))
	if s > maxPairShift {
		return false
	}
	c.shift = s
	c.pair = make([]uint32, 1<<(2*s))
	return true
}

// roundPaths is round(nodes, kind, arg, g) through c: the same sampled
// pairs, paths and sums.
func (m *Model) roundPaths(c *PathCache, nodes []int32, kind, arg int, g grid) roundStat {
	P := len(nodes)
	M := min(P, m.samples)
	pairs := c.samples(P, M, kind, arg, g)
	if pairs == nil {
		return m.round(nodes, kind, arg, g)
	}
	var st roundStat
	// The table read is inlined here; c.path fills it and covers the rest.
	tab, inv, shift := c.pair, c.inv, c.shift
	for k := 0; k+1 < len(pairs); k += 2 {
		a, b := nodes[pairs[k]], nodes[pairs[k+1]]
		if a == b {
			continue
		}
		var h int
		var ib float64
		if ab := uint32(a) | uint32(b); ab < uint32(len(tab)) && ab>>shift == 0 && tab[int(a)<<shift|int(b)] != 0 {
			v := tab[int(a)<<shift|int(b)]
			h, ib = int(v>>8), inv[v&255-1]
		} else {
			h, ib = c.path(a, b)
			tab, inv, shift = c.pair, c.inv, c.shift
		}
		st.alpha += 2*m.t.nicLat + float64(h)*m.t.hopLat
		st.invB += ib
		st.hops += float64(h)
	}
	st.alpha /= float64(M)
	st.invB /= float64(M)
	st.hops /= float64(M)
	return st
}
