package netmodel

import "math"

// dragonfly (Kim, Dally, Scott and Abts, ISCA 2008) has g groups of a
// routers, p nodes per router and h global links per router. Routers of a
// group sit on a rows×cols grid with all-to-all links along each row and
// each column (Cray Aries: 6 chassis × 16 blades; rows = 1 gives the
// all-to-all group of the original paper).
//
// Global ports: group G has a·h ports; port k lives on router k mod a and
// leads to group G + (k mod (g−1)) + 1, where it meets the port with the same
// k/(g−1) index pointing back. Minimal routing: local (row, then column) to
// the router owning the chosen global port, the global link, then local to
// the destination router: at most 2 + 1 + 2 = 5 router hops. The global port
// among the j candidates for a group pair is (ra+rb) mod j, which spreads
// router pairs over the parallel global links.
//
// Link ids: node links 2n, 2n+1; router r's row link to column c is
// 2N + r·(cols+rows) + c and its column link to row q is that + cols + q
// (self slots unused); global port k of group G is 2N + R·(cols+rows) + G·a·h + k.
type dragonfly struct {
	g, a, p, h, rows, cols int32
	nodeBW, localBW, gBW   float64
	linkOff, globOff       int32
	ports                  [][]int32 // ports[o-1]: ports of a group leading to offset o, valid only
	router                 []int32   // router of each node (n/p; the topology's nodeSwitch)
	rgroup, rloc           []int32   // group and local index of each router (r/a, r%a)
	lrow, lcol             []int32   // row and column of each local index (u/cols, u%cols)
}

// NewDragonfly builds a dragonfly from s.Groups, s.RoutersPerGroup, s.Rows,
// s.NodesPerRouter and s.GlobalPerRouter.
func NewDragonfly(s Spec) (*Topology, error) {
	s.Kind = "dragonfly"
	if err := s.common(); err != nil {
		return nil, err
	}
	if s.Groups < 1 || s.RoutersPerGroup < 1 {
		return nil, specErr("groups/routers_per_group", "must be ≥ 1, got %d and %d", s.Groups, s.RoutersPerGroup)
	}
	rows := max(s.Rows, 1)
	if s.RoutersPerGroup%rows != 0 {
		return nil, specErr("rows", "%d does not divide routers_per_group %d", rows, s.RoutersPerGroup)
	}
	if int64(s.Groups)*int64(s.RoutersPerGroup)*int64(s.NodesPerRouter) > 1<<24 {
		return nil, specErr("groups", "dragonfly is too large")
	}
	sh := &dragonfly{g: int32(s.Groups), a: int32(s.RoutersPerGroup), p: int32(s.NodesPerRouter), h: int32(s.GlobalPerRouter),
		rows: int32(rows), cols: int32(s.RoutersPerGroup / rows), nodeBW: s.NodeGBs * 1e9, localBW: s.LinkGBs * 1e9, gBW: s.GlobalGBs * 1e9}
	if sh.g > 1 && int64(sh.a)*int64(sh.h) < int64(sh.g-1) {
		return nil, specErr("global_per_router", "%d routers × %d global links cannot reach the other %d groups", sh.a, sh.h, sh.g-1)
	}
	t := s.base()
	R := sh.g * sh.a
	t.nodes, t.switches, t.groups = R*sh.p, R, sh.g
	sh.linkOff = 2 * t.nodes
	sh.globOff = sh.linkOff + R*(sh.cols+sh.rows)
	t.links = make([]Link, sh.globOff+sh.g*sh.a*sh.h)
	t.nodeSwitch = make([]int32, t.nodes)
	t.nodeGroup = make([]int32, t.nodes)
	for x := int32(0); x < t.nodes; x++ {
		r := x / sh.p
		t.nodeSwitch[x], t.nodeGroup[x] = r, r/sh.a
		t.links[2*x] = Link{From: x, To: t.nodes + r, BW: sh.nodeBW}
		t.links[2*x+1] = Link{From: t.nodes + r, To: x, BW: sh.nodeBW}
	}
	for r := int32(0); r < R; r++ {
		base, loc := r-r%sh.a, r%sh.a
		row, col := loc/sh.cols, loc%sh.cols
		for c := int32(0); c < sh.cols; c++ {
			if c != col {
				t.links[sh.linkOff+r*(sh.cols+sh.rows)+c] = Link{From: t.nodes + r, To: t.nodes + base + row*sh.cols + c, BW: sh.localBW}
			}
		}
		for q := int32(0); q < sh.rows; q++ {
			if q != row {
				t.links[sh.linkOff+r*(sh.cols+sh.rows)+sh.cols+q] = Link{From: t.nodes + r, To: t.nodes + base + q*sh.cols + col, BW: sh.localBW}
			}
		}
	}
	if sh.g > 1 {
		sh.ports = make([][]int32, sh.g-1)
		for k := int32(0); k < sh.a*sh.h; k++ {
			o := k%(sh.g-1) + 1
			if sh.partner(k, o) < sh.a*sh.h {
				sh.ports[o-1] = append(sh.ports[o-1], k)
			}
		}
		for G := int32(0); G < sh.g; G++ {
			for o := int32(1); o < sh.g; o++ {
				G2 := (G + o) % sh.g
				for _, k := range sh.ports[o-1] {
					k2 := sh.partner(k, o)
					t.links[sh.globOff+G*sh.a*sh.h+k] = Link{From: t.nodes + G*sh.a + k%sh.a, To: t.nodes + G2*sh.a + k2%sh.a, BW: sh.gBW}
				}
			}
		}
	}
	sh.router = t.nodeSwitch
	sh.rgroup, sh.rloc = make([]int32, R), make([]int32, R)
	for r := int32(0); r < R; r++ {
		sh.rgroup[r], sh.rloc[r] = r/sh.a, r%sh.a
	}
	sh.lrow, sh.lcol = make([]int32, sh.a), make([]int32, sh.a)
	for u := int32(0); u < sh.a; u++ {
		sh.lrow[u], sh.lcol[u] = u/sh.cols, u%sh.cols
	}
	t.shape = sh
	t.finish()
	return t, nil
}

// partner is the port index in group G+o that port k of group G meets.
func (s *dragonfly) partner(k, o int32) int32 {
	return (k/(s.g-1))*(s.g-1) + (s.g - o - 1)
}

// localHops is the number of hops between two routers of one group.
func (s *dragonfly) localHops(u, v int32) int {
	if u == v {
		return 0
	}
	if u/s.cols == v/s.cols || u%s.cols == v%s.cols {
		return 1
	}
	return 2
}

// global picks the global port for routers ra → rb in different groups and
// returns the local indices of the routers at both ends.
func (s *dragonfly) global(ra, rb int32) (k, exitLoc, entryLoc int32) {
	ga, gb := ra/s.a, rb/s.a
	o := (gb - ga + s.g) % s.g
	cand := s.ports[o-1]
	k = cand[(ra+rb)%int32(len(cand))]
	return k, k % s.a, s.partner(k, o) % s.a
}

func (s *dragonfly) hops(a, b int32) int {
	h, _ := s.path(a, b)
	return h
}

func (s *dragonfly) path(a, b int32) (int, float64) {
	ra, rb := a/s.p, b/s.p
	if ra == rb {
		return 0, s.nodeBW
	}
	if ra/s.a == rb/s.a {
		return s.localHops(ra%s.a, rb%s.a), math.Min(s.nodeBW, s.localBW)
	}
	_, ex, en := s.global(ra, rb)
	h := s.localHops(ra%s.a, ex) + 1 + s.localHops(en, rb%s.a)
	bw := math.Min(s.nodeBW, s.gBW)
	if h > 1 {
		bw = math.Min(bw, s.localBW)
	}
	return h, bw
}

// localRoute appends the row-then-column route between local routers u, v
// of the group starting at router base. Rows and columns come from tables:
// a route spends no division.
func (s *dragonfly) localRoute(base, u, v int32, dst []int32) []int32 {
	if u == v {
		return dst
	}
	urow, vrow, vcol := s.lrow[u], s.lrow[v], s.lcol[v]
	stride := s.cols + s.rows              // links per router
	if urow != vrow && s.lcol[u] != vcol { // row hop to v's column first
		dst = append(dst, s.linkOff+(base+u)*stride+vcol)
		u = urow*s.cols + vcol // still in row urow
	}
	if urow == vrow {
		return append(dst, s.linkOff+(base+u)*stride+vcol)
	}
	return append(dst, s.linkOff+(base+u)*stride+s.cols+vrow)
}

func (s *dragonfly) route(a, b int32, dst []int32) []int32 {
	dst = append(dst, 2*a)
	ra, rb := s.router[a], s.router[b]
	ga, gb := s.rgroup[ra], s.rgroup[rb]
	if ga == gb {
		dst = s.localRoute(ra-s.rloc[ra], s.rloc[ra], s.rloc[rb], dst)
	} else {
		k, ex, en := s.global(ra, rb)
		dst = s.localRoute(ra-s.rloc[ra], s.rloc[ra], ex, dst)
		dst = append(dst, s.globOff+ga*s.a*s.h+k)
		dst = s.localRoute(rb-s.rloc[rb], en, s.rloc[rb], dst)
	}
	return append(dst, 2*b+1)
}

// hopStats evaluates every ordered pair of routers (the route depends only
// on the routers), weighting distinct routers by p² node pairs; exact. For
// more than 4096 routers only every stride-th source router is evaluated
// (a deterministic systematic sample; exact = false).
func (s *dragonfly) hopStats() (int, float64, int, bool) {
	R := s.g * s.a
	N := int64(R) * int64(s.p)
	if N < 2 {
		return 0, 0, 0, true
	}
	stride := max(int32(1), R/4096)
	var sum, pairs, sources float64
	lo, hi := math.MaxInt, 0
	if s.p > 1 {
		lo = 0
	}
	for ra := int32(0); ra < R; ra += stride {
		for rb := int32(0); rb < R; rb++ {
			if ra == rb {
				continue
			}
			h, _ := s.path(ra*s.p, rb*s.p)
			sum += float64(h)
			lo, hi = min(lo, h), max(hi, h)
		}
		pairs += float64(R - 1)
		sources++
	}
	pp := float64(s.p) * float64(s.p)
	total := pairs*pp + sources*float64(s.p)*float64(s.p-1)
	return lo, sum * pp / total, hi, stride == 1
}

// bisection is the capacity of links from the first half of the groups to
// the second (or, for one group, of the first half of its routers to the
// rest), one direction.
func (s *dragonfly) bisection(links []Link) float64 {
	N := s.g * s.a * s.p
	half := func(v int32) bool {
		r := v - N
		if s.g > 1 {
			return r/s.a < s.g/2
		}
		return r%s.a < s.a/2
	}
	sum := 0.0
	for _, l := range links[s.linkOff:] {
		if l.BW > 0 && half(l.From) && !half(l.To) {
			sum += l.BW
		}
	}
	return sum
}
