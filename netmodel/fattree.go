package netmodel

import "math"

// fatTree is an m-port n-tree (Petrini and Vanneschi, "k-ary n-trees", 1997;
// the m-port n-tree is two (m/2)-ary n-trees whose roots are merged so each
// root uses all m ports downwards): 2·k^n nodes and (2n−1)·k^(n−1) switches
// for k = m/2, full bisection.
//
// Switch (l, a, b) at level l < n serves subtree a = node/k^l (of k^l nodes)
// and b ∈ [0, k^(l−1)) tells the copies apart; its j-th up port goes to
// (l+1, a/k, b + j·k^(l−1)). Level n has k^(n−1) switches indexed by b. Up
// ports are chosen by destination (D-mod-k: port (dst/k^(l−1)) mod k), so
// routes to different destinations spread over the k^(ℓ−1) up/down paths of
// a pair whose lowest common switch is at level ℓ; the path has 2ℓ links.
//
// Link ids: node links 2n, 2n+1; up link of switch (l,a,b) port j is
// 2N + (idx(l,a,b))·k + j for l < n, and its down twin is that + upCount.
type fatTree struct {
	n, k, full, nodes int32
	pow               []int32 // k^i
	nodeBW, bw        float64
	upCount, linkOff  int32
	sub               []int32 // at x·(n+1)+l: x/k^l, node x's subtree at level l (nil: too large, divide)
}

// maxSubTable bounds the subtree table (entries, 4 bytes each).
const maxSubTable = 1 << 22

// NewFatTree builds an m-port n-tree from s.Ports (m) and s.Levels (n),
// populated with the first s.Nodes node slots (all when zero).
func NewFatTree(s Spec) (*Topology, error) {
	s.Kind = "fat-tree"
	if err := s.common(); err != nil {
		return nil, err
	}
	if s.Ports < 2 || s.Ports%2 != 0 {
		return nil, specErr("ports", "must be even and ≥ 2, got %d", s.Ports)
	}
	if s.Levels < 1 {
		return nil, specErr("levels", "must be ≥ 1, got %d", s.Levels)
	}
	k := int64(s.Ports / 2)
	full := 2 * int64(math.Pow(float64(k), float64(s.Levels)))
	if full > 1<<24 || s.Levels > 20 {
		return nil, specErr("levels", "%d-port %d-tree is too large (%d nodes)", s.Ports, s.Levels, full)
	}
	if s.Nodes < 0 || int64(s.Nodes) > full {
		return nil, specErr("nodes", "must be in [0,%d], got %d", full, s.Nodes)
	}
	sh := &fatTree{n: int32(s.Levels), k: int32(k), full: int32(full), nodes: int32(full), nodeBW: s.NodeGBs * 1e9, bw: s.LinkGBs * 1e9}
	if s.Nodes > 0 {
		sh.nodes = int32(s.Nodes)
	}
	for i, p := 0, int32(1); i <= s.Levels; i, p = i+1, p*sh.k {
		sh.pow = append(sh.pow, p)
	}
	perLevel := 2 * sh.pow[sh.n-1] // switches per level below the top
	t := s.base()
	t.nodes = sh.nodes
	t.switches = (2*sh.n - 1) * sh.pow[sh.n-1]
	sh.linkOff = 2 * t.nodes
	sh.upCount = (sh.n - 1) * perLevel * sh.k
	t.links = make([]Link, sh.linkOff+2*sh.upCount)
	t.nodeSwitch = make([]int32, t.nodes)
	t.nodeGroup = make([]int32, t.nodes)
	for x := int32(0); x < t.nodes; x++ {
		leaf := sh.idx(1, x/sh.k, 0)
		t.nodeSwitch[x] = leaf
		t.nodeGroup[x] = x / sh.pow[sh.n-1] // pod: subtree below the top level
		t.links[2*x] = Link{From: x, To: t.nodes + leaf, BW: sh.nodeBW}
		t.links[2*x+1] = Link{From: t.nodes + leaf, To: x, BW: sh.nodeBW}
	}
	t.groups = (t.nodes + sh.pow[sh.n-1] - 1) / sh.pow[sh.n-1]
	for l := int32(1); l < sh.n; l++ {
		for a := int32(0); a < sh.full/sh.pow[l]; a++ {
			for b := int32(0); b < sh.pow[l-1]; b++ {
				from := sh.idx(l, a, b)
				for j := int32(0); j < sh.k; j++ {
					to := sh.idx(l+1, a/sh.k, b+j*sh.pow[l-1])
					id := sh.linkOff + from*sh.k + j
					t.links[id] = Link{From: t.nodes + from, To: t.nodes + to, BW: sh.bw}
					t.links[id+sh.upCount] = Link{From: t.nodes + to, To: t.nodes + from, BW: sh.bw}
				}
			}
		}
	}
	if n1 := int64(sh.n + 1); int64(sh.nodes)*n1 <= maxSubTable {
		sh.sub = make([]int32, int64(sh.nodes)*n1)
		for x := int32(0); x < sh.nodes; x++ {
			for l := int32(0); l <= sh.n; l++ {
				sh.sub[x*(sh.n+1)+l] = x / sh.pow[l]
			}
		}
	}
	t.shape = sh
	t.finish()
	return t, nil
}

// idx is the switch index of (l, a, b).
func (s *fatTree) idx(l, a, b int32) int32 {
	if l == s.n {
		return (s.n-1)*2*s.pow[s.n-1] + b
	}
	return (l-1)*2*s.pow[s.n-1] + a*s.pow[l-1] + b
}

// lca is the level of the lowest common switch of nodes a and b.
func (s *fatTree) lca(a, b int32) int32 {
	for l := int32(1); l < s.n; l++ {
		if a/s.pow[l] == b/s.pow[l] {
			return l
		}
	}
	return s.n
}

func (s *fatTree) hops(a, b int32) int { return int(2*s.lca(a, b) - 2) }

func (s *fatTree) path(a, b int32) (int, float64) {
	h := s.hops(a, b)
	if h == 0 {
		return 0, s.nodeBW
	}
	return h, math.Min(s.nodeBW, s.bw)
}

func (s *fatTree) route(a, b int32, dst []int32) []int32 {
	if s.sub == nil {
		return s.routeDiv(a, b, dst)
	}
	// The subtrees of a and b at every level come from the table, and b's
	// base-k digits are differences of them: no division.
	n1 := s.n + 1
	sa, sb := s.sub[a*n1:a*n1+n1], s.sub[b*n1:b*n1+n1]
	L := s.n
	for l := int32(1); l < s.n; l++ {
		if sa[l] == sb[l] {
			L = l
			break
		}
	}
	dst = append(dst, 2*a)
	cb := int32(0) // up: the copy index b of the current switch (l, a/k^l, cb)
	for l := int32(1); l < L; l++ {
		j := sb[l-1] - sb[l]*s.k // digit l−1 of b: D-mod-k
		dst = append(dst, s.linkOff+s.idx(l, sa[l], cb)*s.k+j)
		cb += j * s.pow[l-1]
	}
	for l := L; l > 1; l-- { // down: cb is b mod k^(l−1)
		j := sb[l-2] - sb[l-1]*s.k // digit l−2 of b
		b2 := cb - j*s.pow[l-2]
		dst = append(dst, s.linkOff+s.idx(l-1, sb[l-1], b2)*s.k+j+s.upCount)
		cb = b2
	}
	return append(dst, 2*b+1)
}

// routeDiv is route by division, for trees too large for the table.
func (s *fatTree) routeDiv(a, b int32, dst []int32) []int32 {
	dst = append(dst, 2*a)
	L := s.lca(a, b)
	ca, cb := a/s.k, int32(0) // current switch (l, ca, cb)
	for l := int32(1); l < L; l++ {
		j := (b / s.pow[l-1]) % s.k
		dst = append(dst, s.linkOff+s.idx(l, ca, cb)*s.k+j)
		ca, cb = ca/s.k, cb+j*s.pow[l-1]
	}
	for l := L; l > 1; l-- {
		a2, b2 := b/s.pow[l-1], cb%s.pow[l-2]
		j := cb / s.pow[l-2]
		dst = append(dst, s.linkOff+s.idx(l-1, a2, b2)*s.k+j+s.upCount)
		cb = b2
	}
	return append(dst, 2*b+1)
}

// hopStats counts, for each level l, the ordered pairs whose lowest common
// switch is at level l: pairs inside level-l subtrees minus pairs inside
// level-(l−1) subtrees. Exact, O(n · subtrees).
func (s *fatTree) hopStats() (int, float64, int, bool) {
	N := int64(s.nodes)
	if N < 2 {
		return 0, 0, 0, true
	}
	within := func(l int32) int64 { // ordered distinct pairs sharing a level-l subtree
		if l >= s.n {
			return N * (N - 1)
		}
		size := int64(s.pow[l])
		fullTrees, rest := N/size, N%size
		return fullTrees*size*(size-1) + rest*(rest-1)
	}
	sum, lo, hi := 0.0, -1, 0
	prev := int64(0)
	for l := int32(1); l <= s.n; l++ {
		w := within(l)
		if c := w - prev; c > 0 {
			h := int(2*l - 2)
			sum += float64(c) * float64(h)
			if lo < 0 {
				lo = h
			}
			hi = h
		}
		prev = w
	}
	return lo, sum / float64(N*(N-1)), hi, true
}

// bisection: an m-port n-tree has full bisection, so half the nodes can send
// to the other half at the smaller of node and switch link bandwidth.
func (s *fatTree) bisection([]Link) float64 {
	return float64(s.nodes/2) * math.Min(s.nodeBW, s.bw)
}
