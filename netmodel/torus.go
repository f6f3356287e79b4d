package netmodel

import (
	"math"
	"math/bits"
	"slices"
)

// torus is a D-dimensional torus of routers with NodesPerRouter nodes each
// and dimension-order routing: dimensions are corrected in order 0,1,…, each
// along the shorter way round its ring (ties go the + way).
//
// Link ids: node n has up link 2n (node→router) and down link 2n+1; router r,
// dimension i, direction dir (0 = +, 1 = −) has link 2N + (r·D+i)·2 + dir.
type torus struct {
	n, npr  int32
	dims    []int32
	stride  []int32  // router index stride of each dimension
	strideD []int32  // stride·D: what a step along the dimension adds to a router's r·D
	coord   []int32  // router r's coordinate in dimension i at r·D+i
	rbase   []int32  // node n's router r times D (where its coordinates start), so no division by npr
	packed  []uint64 // node n's router coordinates, one byte each from dimension 0 up; nil: not packed (canonical)
	bw      []float64
	nodeBW  float64
	linkOff int32
}

// NewTorus builds a torus from s.Dims (and s.DimGBs or s.LinkGBs).
func NewTorus(s Spec) (*Topology, error) {
	s.Kind = "torus"
	if err := s.common(); err != nil {
		return nil, err
	}
	if len(s.Dims) == 0 {
		return nil, specErr("dims", "a torus needs at least one dimension")
	}
	if len(s.DimGBs) != 0 && len(s.DimGBs) != len(s.Dims) {
		return nil, specErr("dim_gbs", "has %d entries for %d dims", len(s.DimGBs), len(s.Dims))
	}
	routers := int64(1)
	sh := &torus{npr: int32(s.NodesPerRouter), nodeBW: s.NodeGBs * 1e9}
	for i, d := range s.Dims {
		if d < 1 {
			return nil, specErr("dims", "dimension %d has size %d", i, d)
		}
		bw := s.LinkGBs
		if len(s.DimGBs) > 0 {
			bw = s.DimGBs[i]
		}
		if bw <= 0 {
			return nil, specErr("dim_gbs", "dimension %d bandwidth must be > 0", i)
		}
		sh.dims = append(sh.dims, int32(d))
		sh.stride = append(sh.stride, int32(routers))
		sh.bw = append(sh.bw, bw*1e9)
		routers *= int64(d)
	}
	if routers*int64(s.NodesPerRouter) > 1<<24 {
		return nil, specErr("dims", "%d routers × %d nodes is too large", routers, s.NodesPerRouter)
	}
	t := s.base()
	R := int32(routers)
	t.nodes, t.switches, t.groups = R*sh.npr, R, 1
	sh.n = t.nodes
	sh.linkOff = 2 * t.nodes
	D := int32(len(sh.dims))
	t.links = make([]Link, 2*t.nodes+R*D*2)
	t.nodeSwitch = make([]int32, t.nodes)
	t.nodeGroup = make([]int32, t.nodes)
	for n := int32(0); n < t.nodes; n++ {
		r := n / sh.npr
		t.nodeSwitch[n] = r
		t.links[2*n] = Link{From: n, To: t.nodes + r, BW: sh.nodeBW}
		t.links[2*n+1] = Link{From: t.nodes + r, To: n, BW: sh.nodeBW}
	}
	// Router coordinates counted up (dimension 0 fastest, as the router
	// numbers run), not divided out of each router number.
	sh.coord = make([]int32, R*D)
	cur := make([]int32, D)
	for r := int32(0); r < R; r++ {
		copy(sh.coord[r*D:(r+1)*D], cur)
		for i := range cur {
			if cur[i]++; cur[i] < sh.dims[i] {
				break
			}
			cur[i] = 0
		}
	}
	for r := int32(0); r < R; r++ {
		for i := int32(0); i < D; i++ {
			d := sh.dims[i]
			if d == 1 {
				continue // no ring
			}
			c, st := sh.coord[r*D+i], sh.stride[i]
			from, l := t.nodes+r, sh.linkOff+(r*D+i)*2
			up := r + st // the router at c+1, wrapping
			if c == d-1 {
				up = r - (d-1)*st
			}
			t.links[l] = Link{From: from, To: t.nodes + up, BW: sh.bw[i]}
			if d == 2 {
				continue // a ring of two has one link per direction
			}
			down := r - st // the router at c−1, wrapping
			if c == 0 {
				down = r + (d-1)*st
			}
			t.links[l+1] = Link{From: from, To: t.nodes + down, BW: sh.bw[i]}
		}
	}
	for _, st := range sh.stride {
		sh.strideD = append(sh.strideD, st*D)
	}
	sh.rbase = make([]int32, t.nodes)
	for n := range sh.rbase {
		sh.rbase[n] = int32(n) / sh.npr * D
	}
	sh.packCoords()
	t.shape = sh
	t.finish()
	return t, nil
}

// ringDelta is the signed shortest ring offset from ca to cb in a ring of
// d (ca, cb in [0,d)); ties go the + way.
func ringDelta(ca, cb, d int32) int32 {
	f := cb - ca
	if f < 0 {
		f += d
	}
	if f <= d-f {
		return f
	}
	return f - d
}

// ringDist is |ringDelta(ca, cb, d)|.
func ringDist(ca, cb, d int32) int32 {
	f := cb - ca
	if f < 0 {
		f += d
	}
	return min(f, d-f)
}

// coords returns the coordinates of the routers of nodes a and b.
func (s *torus) coords(a, b int32) (ca, cb []int32) {
	D := int32(len(s.dims))
	ra, rb := s.rbase[a], s.rbase[b]
	return s.coord[ra : ra+D : ra+D], s.coord[rb : rb+D : rb+D]
}

func (s *torus) hops(a, b int32) int {
	ca, cb := s.coords(a, b)
	h := int32(0)
	for i, d := range s.dims {
		h += ringDist(ca[i], cb[i], d)
	}
	return int(h)
}

func (s *torus) path(a, b int32) (int, float64) {
	ca, cb := s.coords(a, b)
	dims := s.dims
	ca, cb, bws := ca[:len(dims)], cb[:len(dims)], s.bw[:len(dims)] // one bounds check each, not one per dimension
	h, bw := int32(0), s.nodeBW
	for i, d := range dims {
		if k := ringDist(ca[i], cb[i], d); k > 0 {
			h += k
			if b := bws[i]; b < bw { // math.Min of positive bandwidths, without the call
				bw = b
			}
		}
	}
	return int(h), bw
}

// routeCoords is route without packed coordinates: every dimension's
// coordinates from the table.
func (s *torus) routeCoords(a, b int32, dst []int32) []int32 {
	dst = append(dst, 2*a)
	ca, cb := s.coords(a, b)
	dims := s.dims
	ca, cb, strideD := ca[:len(dims)], cb[:len(dims)], s.strideD[:len(dims)]
	rd := s.rbase[a] // the current router r times D
	for i, d := range dims {
		if c := ca[i]; c != cb[i] { // no step otherwise (a machine on a corner of the torus has many such)
			dst, rd = s.walkDim(dst, int32(i), c, cb[i], d, strideD[i], rd)
		}
	}
	return append(dst, 2*b+1)
}

// canonical is Topology.Canonical on a torus. A path's hops and bottleneck
// depend only on the coordinate differences of its routers modulo each
// ring (ringDist, and which dimensions it steps along), and subtracting a
// dimension's smallest coordinate from every router keeps the coordinates
// in [0, d) and their differences: router r moves to r − Σ lo_i·stride_i,
// node n to n − npr·that, with its place on the router unchanged. The
// smallest coordinates are taken in all dimensions at once from each
// node's packed coordinates (one byte each).
func (s *torus) canonical(nodes, dst []int32) []int32 {
	if len(nodes) == 0 || s.packed == nil {
		return append(dst, nodes...)
	}
	shift := s.nodeShift(s.corner(nodes))
	for _, n := range nodes {
		dst = append(dst, n-shift)
	}
	return dst
}

// corner returns the smallest router coordinate of nodes in each
// dimension, packed as the coordinates are (nodes not empty, coordinates
// packed).
func (s *torus) corner(nodes []int32) uint64 {
	const hi = 0x8080808080808080 // each byte's top bit
	lo := s.packed[nodes[0]]
	for _, n := range nodes[1:] {
		c := s.packed[n]
		// Per byte, (lo|0x80) − c keeps its top bit iff lo ≥ c (bytes
		// below 0x80, so no borrow crosses a byte); there c is the
		// smaller.
		ge := ((lo | hi) - c) & hi
		m := (ge >> 7) * 0xff
		lo = c&m | lo&^m
	}
	return lo
}

// nodeShift is the node number of the corner lo's router's first node:
// what canonical subtracts from every node of a placement with corner lo.
func (s *torus) nodeShift(lo uint64) int32 {
	shift := int32(0)
	for _, st := range s.stride {
		shift += int32(lo&0xff) * st
		lo >>= 8
	}
	return shift * s.npr
}

// moveLinks rewrites links, the route links of a placement with corner
// from, into those of the same placement translated to corner to (both
// packed corners, the placement's coordinates in range at both), in
// place and in order. A node link follows its node, shifted by the
// difference of the corners' node shifts (no coordinate of the placement
// wraps); a router link keeps its dimension and direction and follows its
// router, whose coordinates move by the difference of the corners modulo
// each ring (a route may wrap), so that the links are those route gives
// for the translated pairs: route depends only on coordinate differences
// modulo the rings, step by step.
func (s *torus) moveLinks(links []int32, from, to uint64) {
	if from == to {
		return
	}
	D := int32(len(s.dims))
	// per dimension the corners differ in (m of them): its index, the
	// coordinate from which a move wraps, and what a wrap takes off r·D
	var dim, wrapAt, wrapBy [8]int32
	m := 0
	move := int32(0) // what a move without wraps adds to r·D
	nodes := s.nodeShift(to) - s.nodeShift(from)
	for i, d := range s.dims {
		k := int32(to>>(8*i)&0xff) - int32(from>>(8*i)&0xff)
		if k == 0 {
			continue
		}
		if k < 0 {
			k += d
		}
		move += k * s.strideD[i]
		dim[m], wrapAt[m], wrapBy[m] = int32(i), d-k, d*s.strideD[i]
		m++
	}
	for x, gl := range links {
		if gl < s.linkOff {
			links[x] = gl + 2*nodes
			continue
		}
		rdi := (gl - s.linkOff) >> 1 // r·D + i
		rd := rdi - rdi%D
		c := s.coord[rd : rd+D : rd+D]
		mv := move
		for a := range m {
			if c[dim[a]] >= wrapAt[a] {
				mv -= wrapBy[a]
			}
		}
		links[x] = gl + 2*mv
	}
}

// packCoords fills packed when every coordinate fits a byte below 0x80 and
// there are at most 8 dimensions (canonical translates nothing otherwise).
func (s *torus) packCoords() {
	D := len(s.dims)
	if D > 8 || slices.Max(s.dims) > 0x80 {
		return
	}
	s.packed = make([]uint64, s.n)
	for n := range s.packed {
		rb := s.rbase[n]
		var p uint64
		for i := D - 1; i >= 0; i-- {
			p = p<<8 | uint64(s.coord[rb+int32(i)])
		}
		s.packed[n] = p
	}
}

// walkDim appends the links of the shortest way along dimension i (d
// routers, stride sd·D) from coordinate c to cb, starting at the router
// whose number times D is rd, and returns the router reached (times D).
// Router r's link out along dimension i in direction dir (0: +, 1: −) is
// linkOff + (r·D + i)·2 + dir; the walk steps rd by the dimension's
// stride, wrapping at the ends.
func (s *torus) walkDim(dst []int32, i, c, cb, d, sd, rd int32) ([]int32, int32) {
	k := ringDelta(c, cb, d)
	link := s.linkOff + i*2
	for ; k > 0; k-- {
		dst = append(dst, link+rd*2)
		if c++; c == d {
			c, rd = 0, rd-(d-1)*sd
		} else {
			rd += sd
		}
	}
	for link++; k < 0; k++ {
		dst = append(dst, link+rd*2)
		if c == 0 {
			c, rd = d-1, rd+(d-1)*sd
		} else {
			c, rd = c-1, rd-sd
		}
	}
	return dst, rd
}

// route visits only the dimensions in which a's and b's routers differ:
// the bytes of their packed coordinates that differ, lowest (dimension 0)
// first. Without packed coordinates, routeCoords.
func (s *torus) route(a, b int32, dst []int32) []int32 {
	if s.packed == nil {
		return s.routeCoords(a, b, dst)
	}
	dst = append(dst, 2*a)
	pa, pb := s.packed[a], s.packed[b]
	rd := s.rbase[a] // the current router r times D
	for x := pa ^ pb; x != 0; {
		sh := uint(bits.TrailingZeros64(x)) &^ 7
		x &^= 0xff << sh
		i := int32(sh / 8)
		c, cb, d, sd := int32(pa>>sh&0xff), int32(pb>>sh&0xff), s.dims[i], s.strideD[i]
		dst, rd = s.walkDim(dst, i, c, cb, d, sd, rd)
	}
	return append(dst, 2*b+1)
}

// countFlows counts the links of the route of each flow in count (per
// topology link) and appends each link to links when it is first counted:
// route's steps in route's order (so the links come out as when each
// route is built and then counted), without building the routes. It
// repeats walkDim's ring walk with a count in place of the append: on a
// machine's new placements (HPC2N under hopper: 2.1 M flows of 4.3 links
// on the average) the route built and read back per flow cost more than
// the steps. Coordinates must be packed; flows valid.
func (s *torus) countFlows(flows []Flow, count, links []int32) []int32 {
	// ring lengths and strides in locals (at most 8: coordinates are
	// packed), so the walk reads no slice of s for them
	var dims, strideD [8]int32
	copy(dims[:], s.dims)
	copy(strideD[:], s.strideD)
	for _, f := range flows {
		a, b := f.Src, f.Dst
		if a == b {
			continue // Route's empty path
		}
		links = countLink(count, links, 2*a)
		pa, pb := s.packed[a], s.packed[b]
		rd := s.rbase[a] // the current router r times D
		for x := pa ^ pb; x != 0; {
			sh := uint(bits.TrailingZeros64(x)) &^ 7
			x &^= 0xff << sh
			i := sh / 8 & 7
			c, cb, d, sd := int32(pa>>sh&0xff), int32(pb>>sh&0xff), dims[i], strideD[i]
			k := ringDelta(c, cb, d)
			link := s.linkOff + int32(i)*2
			for ; k > 0; k-- {
				links = countLink(count, links, link+rd*2)
				if c++; c == d {
					c, rd = 0, rd-(d-1)*sd
				} else {
					rd += sd
				}
			}
			for link++; k < 0; k++ {
				links = countLink(count, links, link+rd*2)
				if c == 0 {
					c, rd = d-1, rd+(d-1)*sd
				} else {
					c, rd = c-1, rd-sd
				}
			}
		}
		links = countLink(count, links, 2*b+1)
	}
	return links
}

// countLink counts link gl in count and appends it to links if it is the
// first count.
func countLink(count, links []int32, gl int32) []int32 {
	if count[gl] == 0 {
		links = append(links, gl)
	}
	count[gl]++
	return links
}

// hopStats uses vertex transitivity: the hop count between routers is a sum
// of independent ring distances, so the mean over all ordered router pairs is
// the sum of the per-ring means. Exact.
func (s *torus) hopStats() (int, float64, int, bool) {
	R := float64(s.n / s.npr)
	mean, hi := 0.0, 0
	for _, d := range s.dims {
		sum := 0
		for k := int32(0); k < d; k++ {
			sum += int(min(k, d-k))
		}
		mean += float64(sum) / float64(d)
		hi += int(d / 2)
	}
	N, p := float64(s.n), float64(s.npr)
	if N < 2 {
		return 0, 0, 0, true
	}
	lo := 1
	if s.npr > 1 {
		lo = 0
	}
	// Same-router pairs add 0 hops; distinct routers add p² pairs each.
	return lo, p * p * R * R * mean / (N * (N - 1)), hi, true
}

// bisection cuts one dimension into halves: a ring of d ≥ 3 is cut in two
// places, a ring of two in one; the minimum over dimensions is reported.
func (s *torus) bisection([]Link) float64 {
	R := float64(s.n / s.npr)
	best := math.Inf(1)
	for i, d := range s.dims {
		switch {
		case d == 2:
			best = math.Min(best, R/2*s.bw[i])
		case d >= 3:
			best = math.Min(best, 2*R/float64(d)*s.bw[i])
		}
	}
	if math.IsInf(best, 1) {
		return 0
	}
	return best
}
