package netmodel

// Routes of node pairs, cached in dense link numbers. A job's flows are
// routed pair by pair; placements differ from job to job, but their pairs
// (ring neighbours, halo partners, shifts) recur, so a placement the
// placement cache (AddJob) has not seen is mostly pairs routed before.
// Routes are deterministic, so a cached route is the one Route returns,
// and a pair seen first is routed and numbered link by link as without
// the cache: the dense numbering does not change.

// pairRoute is one cached route: pool[off:off+n] are its dense links.
type pairRoute struct {
	src, dst int32 // src < 0: empty
	off, n   int32
}

const (
	pairCacheBits = 16      // 65,536 pairs (1 MB), direct-mapped
	pairPoolMax   = 1 << 22 // dense links held (16 MB); then the cache starts over
)

// routeDense returns the dense links of the route from src to dst, valid
// until the next call.
func (n *Network) routeDense(src, dst int32) []int32 {
	if n.pairs == nil {
		n.pairs = make([]pairRoute, 1<<pairCacheBits)
		for i := range n.pairs {
			n.pairs[i].src = -1
		}
	}
	h := (uint64(uint32(src))<<32 | uint64(uint32(dst))) * 0x9E3779B97F4A7C15 >> (64 - pairCacheBits)
	e := &n.pairs[h]
	if e.src == src && e.dst == dst {
		return n.pool[e.off : e.off+e.n]
	}
	n.route = n.t.Route(src, dst, n.route[:0])
	if len(n.pool)+len(n.route) > pairPoolMax {
		for i := range n.pairs {
			n.pairs[i].src = -1
		}
		n.pool = n.pool[:0]
	}
	off := len(n.pool)
	for _, gl := range n.route {
		n.pool = append(n.pool, n.denseOf(gl))
	}
	*e = pairRoute{src, dst, int32(off), int32(len(n.route))}
	return n.pool[off:]
}
