package netmodel

import (
	"math"
	"math/rand/v2"
	"testing"
)

func mustPreset(t testing.TB, name string) *Topology {
	t.Helper()
	tp, err := Preset(name)
	if err != nil {
		t.Fatal(err)
	}
	return tp
}

func mustBuild(t testing.TB, s Spec) *Topology {
	t.Helper()
	tp, err := Topologies.New(s)
	if err != nil {
		t.Fatal(err)
	}
	return tp
}

func within(got, want, rel float64) bool { return math.Abs(got-want) <= rel*math.Abs(want) }

// Published figures (issue table): hopper 1.27–3.88 µs, mira 0.72–1.26 µs, ±10%.
func TestPresetLatencyRange(t *testing.T) {
	for _, c := range []struct {
		preset   string
		lo, hi   float64 // µs
		nearA    int32
		nearB    int32
		farA     int32
		farB     int32
		wantDiam int
	}{
		// hopper: nodes 0,1 share Gemini 0; router (8,4,12) is 8+4+12 = 24 hops from router 0.
		{"hopper", 1.27, 3.88, 0, 1, 0, 2 * (8 + 17*(4+8*12)), 24},
		// mira: node 1 is the +A neighbour; (4,6,8,8,1) is 27 hops away.
		{"mira", 0.72, 1.26, 0, 1, 0, 4 + 8*(6+12*(8+16*(8+16*1))), 27},
	} {
		t.Run(c.preset, func(t *testing.T) {
			tp := mustPreset(t, c.preset)
			in := tp.Info()
			if in.Diameter != c.wantDiam {
				t.Errorf("diameter = %d, want %d", in.Diameter, c.wantDiam)
			}
			for _, v := range []struct {
				name      string
				got, want float64
			}{
				{"Info.MinLatency", in.MinLatency * 1e6, c.lo},
				{"Info.MaxLatency", in.MaxLatency * 1e6, c.hi},
				{"Latency(near)", tp.Latency(c.nearA, c.nearB) * 1e6, c.lo},
				{"Latency(far)", tp.Latency(c.farA, c.farB) * 1e6, c.hi},
			} {
				if !within(v.got, v.want, 0.10) {
					t.Errorf("%s = %.4f µs, want %.2f µs ±10%%", v.name, v.got, v.want)
				}
			}
		})
	}
}

// Published: Gemini large-message plateau about 6.75 GB/s (±5%).
func TestHopperPlateau(t *testing.T) {
	tp := mustPreset(t, "hopper")
	// nodes 0 and 2 sit on X-neighbour Geminis (9.375 GB/s X link).
	for _, s := range []float64{16 << 20, 64 << 20, 256 << 20} {
		bw := s / tp.P2P(0, 2, s)
		if !within(bw, 6.75e9, 0.05) {
			t.Errorf("S/T(S) at %.0f B = %.3f GB/s, want 6.75 ±5%%", s, bw/1e9)
		}
	}
	// The effective bandwidth rises with size towards the plateau.
	if a, b := 4096/tp.P2P(0, 2, 4096), (1<<20)/tp.P2P(0, 2, 1<<20); !(a < b) {
		t.Errorf("bandwidth at 4 KiB %.3g ≥ at 1 MiB %.3g", a, b)
	}
}

func TestFatTreeCounts(t *testing.T) {
	for _, c := range []struct{ m, n, nodes, switches int }{
		// 2·(m/2)^n nodes, (2n−1)·(m/2)^(n−1) switches, hand-computed.
		{4, 1, 4, 1},
		{4, 2, 8, 6},
		{4, 3, 16, 20},
		{8, 3, 128, 80},
		{36, 3, 11664, 1620},
	} {
		tp := mustBuild(t, Spec{Kind: "fat-tree", Ports: c.m, Levels: c.n, LinkGBs: 1})
		if tp.Nodes() != c.nodes || tp.Switches() != c.switches {
			t.Errorf("%d-port %d-tree: %d nodes, %d switches; want %d, %d", c.m, c.n, tp.Nodes(), tp.Switches(), c.nodes, c.switches)
		}
		// every switch has exactly m ports in use
		deg := make([]int, tp.Switches())
		for _, l := range tp.Links() {
			if l.BW > 0 && l.From >= int32(tp.Nodes()) {
				deg[l.From-int32(tp.Nodes())]++
			}
		}
		for s, d := range deg {
			if d != c.m {
				t.Fatalf("%d-port %d-tree: switch %d has %d ports, want %d", c.m, c.n, s, d, c.m)
			}
		}
	}
}

// Fat tree: distance is 2ℓ links, ℓ the level of the lowest common switch.
func TestFatTreeDistance(t *testing.T) {
	tp := mustBuild(t, Spec{Kind: "fat-tree", Ports: 8, Levels: 3, LinkGBs: 1}) // k = 4
	if d := tp.Distance(0, 1); d != 2 {
		t.Errorf("same leaf: Distance(0,1) = %d, want 2", d)
	}
	for _, c := range []struct {
		a, b int32
		l    int
	}{{0, 3, 1}, {0, 4, 2}, {5, 15, 2}, {0, 16, 3}, {0, 127, 3}, {64, 127, 3}} {
		if d := tp.Distance(c.a, c.b); d != 2*c.l {
			t.Errorf("Distance(%d,%d) = %d, want 2·%d", c.a, c.b, d, c.l)
		}
	}
}

// bfs returns graph distances (in links) from vertex src over links with BW > 0.
func bfs(tp *Topology, src int32) []int {
	V := tp.Nodes() + tp.Switches()
	adj := make([][]int32, V)
	for _, l := range tp.Links() {
		if l.BW > 0 {
			adj[l.From] = append(adj[l.From], l.To)
		}
	}
	dist := make([]int, V)
	for i := range dist {
		dist[i] = -1
	}
	dist[src] = 0
	q := []int32{src}
	for len(q) > 0 {
		v := q[0]
		q = q[1:]
		for _, w := range adj[v] {
			// nodes are endpoints only: never route through a node
			if dist[w] < 0 && (v == src || v >= int32(tp.Nodes())) {
				dist[w] = dist[v] + 1
				q = append(q, w)
			}
		}
	}
	return dist
}

// Routes are connected walks from a to b over existing links, of Hops+2
// links; fat-tree and torus routes are shortest paths in the graph.
func TestRoutesValid(t *testing.T) {
	specs := []Spec{
		{Kind: "fat-tree", Ports: 8, Levels: 3, LinkGBs: 1, Nodes: 100},
		{Kind: "fat-tree", Ports: 6, Levels: 2, LinkGBs: 1},
		{Kind: "torus", Dims: []int{5, 4, 2}, NodesPerRouter: 2, LinkGBs: 1},
		{Kind: "torus", Dims: []int{3, 2, 4, 1, 2}, LinkGBs: 1},
		{Kind: "dragonfly", Groups: 5, RoutersPerGroup: 6, Rows: 2, NodesPerRouter: 2, GlobalPerRouter: 2, LinkGBs: 1},
		{Kind: "dragonfly", Groups: 9, RoutersPerGroup: 4, NodesPerRouter: 1, GlobalPerRouter: 2, LinkGBs: 1},
	}
	for _, s := range specs {
		tp := mustBuild(t, s)
		links := tp.Links()
		minimal := s.Kind != "dragonfly"
		for a := int32(0); a < int32(tp.Nodes()); a++ {
			var dist []int
			if minimal {
				dist = bfs(tp, a)
			}
			for b := int32(0); b < int32(tp.Nodes()); b++ {
				r := tp.Route(a, b, nil)
				if a == b {
					if len(r) != 0 {
						t.Fatalf("%s: Route(%d,%d) = %v, want empty", s.Kind, a, b, r)
					}
					continue
				}
				if len(r) != tp.Distance(a, b) {
					t.Fatalf("%s: Route(%d,%d) has %d links, Distance %d", s.Kind, a, b, len(r), tp.Distance(a, b))
				}
				at := a
				for _, id := range r {
					if l := links[id]; l.From != at || l.BW <= 0 {
						t.Fatalf("%s: Route(%d,%d) = %v breaks at link %d %+v (at vertex %d)", s.Kind, a, b, r, id, l, at)
					}
					at = links[id].To
				}
				if at != b {
					t.Fatalf("%s: Route(%d,%d) ends at %d", s.Kind, a, b, at)
				}
				if minimal && dist[b] != len(r) {
					t.Fatalf("%s: Route(%d,%d) has %d links, shortest path %d", s.Kind, a, b, len(r), dist[b])
				}
			}
		}
	}
}

// The closed-form (or router-pair) hop statistics equal brute force over all
// distinct node pairs.
func TestHopStatsBruteForce(t *testing.T) {
	specs := []Spec{
		{Kind: "fat-tree", Ports: 8, Levels: 3, LinkGBs: 1, Nodes: 100},
		{Kind: "torus", Dims: []int{5, 4, 2}, NodesPerRouter: 2, LinkGBs: 1},
		{Kind: "torus", Dims: []int{3, 6}, LinkGBs: 1},
		{Kind: "dragonfly", Groups: 5, RoutersPerGroup: 6, Rows: 2, NodesPerRouter: 2, GlobalPerRouter: 2, LinkGBs: 1},
	}
	for _, s := range specs {
		tp := mustBuild(t, s)
		lo, hi, sum, n := math.MaxInt, 0, 0.0, 0.0
		for a := int32(0); a < int32(tp.Nodes()); a++ {
			for b := int32(0); b < int32(tp.Nodes()); b++ {
				if a != b {
					h := tp.Hops(a, b)
					lo, hi, sum, n = min(lo, h), max(hi, h), sum+float64(h), n+1
				}
			}
		}
		in := tp.Info()
		wantMin := 2*tp.NICLatency() + float64(lo)*tp.HopLatency()
		if in.Diameter != hi || !within(in.MeanHops, sum/n, 1e-12) || in.MinLatency != wantMin || !in.Exact {
			t.Errorf("%s %v: Info hops max %d mean %.6f; brute force max %d mean %.6f (min %d)", s.Kind, s.Dims, in.Diameter, in.MeanHops, hi, sum/n, lo)
		}
	}
}

func TestBisection(t *testing.T) {
	for _, c := range []struct {
		s    Spec
		want float64 // bytes/s, hand-computed
	}{
		// 4×4×4 torus, 1 GB/s: cut a ring of 4 in two places, 2·64/4 links.
		{Spec{Kind: "torus", Dims: []int{4, 4, 4}, LinkGBs: 1}, 32e9},
		// hopper 17×8×24: cut Z: 2·17·8 links × 9.375 GB/s.
		{Presets["hopper"], 2 * 17 * 8 * 9.375e9},
		// 8-port 3-tree, full bisection: 64 nodes × 1 GB/s.
		{Spec{Kind: "fat-tree", Ports: 8, Levels: 3, LinkGBs: 1}, 64e9},
		// 3 groups of 2 routers, 2 global links each: 4 ports per group, 2 per
		// other group; groups {0} | {1,2}: 2+2 links out of group 0.
		{Spec{Kind: "dragonfly", Groups: 3, RoutersPerGroup: 2, GlobalPerRouter: 2, LinkGBs: 1}, 4e9},
	} {
		if got := mustBuild(t, c.s).Info().BisectionBW; !within(got, c.want, 1e-12) {
			t.Errorf("%s %v: bisection %.4g, want %.4g", c.s.Kind, c.s.Dims, got, c.want)
		}
	}
}

// Dragonfly minimal routes have at most 5 router hops (2 local + global + 2 local).
func TestDragonflyHops(t *testing.T) {
	ed := mustPreset(t, "edison")
	if d := ed.Info().Diameter; d > 5 || d < 3 {
		t.Errorf("edison diameter %d hops, want 3..5", d)
	}
	rng := rand.New(rand.NewPCG(1, 0))
	for i := 0; i < 20000; i++ {
		a, b := int32(rng.IntN(ed.Nodes())), int32(rng.IntN(ed.Nodes()))
		if h := ed.Hops(a, b); h > 5 {
			t.Fatalf("Hops(%d,%d) = %d > 5", a, b, h)
		}
	}
	full := mustBuild(t, Spec{Kind: "dragonfly", Groups: 9, RoutersPerGroup: 8, NodesPerRouter: 4, GlobalPerRouter: 1, LinkGBs: 1})
	if d := full.Info().Diameter; d != 3 {
		t.Errorf("all-to-all groups: diameter %d, want 3 (local, global, local)", d)
	}
}

// Aries (dragonfly) has fewer mean hops than Gemini (3-D torus) at equal node count.
func TestAriesFewerHopsThanGemini(t *testing.T) {
	ed, hop := mustPreset(t, "edison"), mustPreset(t, "hopper")
	const n = 5760 // edison's node count; hopper has 6,528
	mean := func(tp *Topology) float64 {
		rng := rand.New(rand.NewPCG(7, 0))
		sum := 0.0
		for i := 0; i < 50000; i++ {
			sum += float64(tp.Hops(int32(rng.IntN(n)), int32(rng.IntN(n))))
		}
		return sum / 50000
	}
	if e, h := mean(ed), mean(hop); !(e < h) {
		t.Errorf("mean hops over the first %d nodes: edison %.2f, hopper %.2f; want edison < hopper", n, e, h)
	}
}

func TestSpanAndGroups(t *testing.T) {
	ed := mustPreset(t, "edison")
	// 384 nodes per group, 4 per router: nodes 0..767 span 192 routers, 2 groups.
	nodes := make([]int32, 768)
	for i := range nodes {
		nodes[i] = int32(i)
	}
	if s, g := ed.Span(nodes); s != 192 || g != 2 {
		t.Errorf("Span(0..767) = %d switches, %d groups; want 192, 2", s, g)
	}
	if ed.SwitchOf(5) != 1 || ed.GroupOf(383) != 0 || ed.GroupOf(384) != 1 {
		t.Errorf("SwitchOf(5)=%d GroupOf(383)=%d GroupOf(384)=%d", ed.SwitchOf(5), ed.GroupOf(383), ed.GroupOf(384))
	}
	if err := ed.CheckNodes([]int32{0, 5760}); err == nil {
		t.Error("CheckNodes accepted node 5760")
	}
}

func TestRegistry(t *testing.T) {
	minimal := map[string]Spec{
		"fat-tree":  {Ports: 4, Levels: 2, LinkGBs: 1},
		"dragonfly": {Groups: 2, RoutersPerGroup: 2, GlobalPerRouter: 1, LinkGBs: 1},
		"torus":     {Dims: []int{2, 2}, LinkGBs: 1},
	}
	for _, name := range Topologies.Names() {
		s, ok := minimal[name]
		if !ok {
			t.Fatalf("registry kind %q has no test spec", name)
		}
		tp, err := Topologies[name](s)
		if err != nil || tp.Kind != name {
			t.Errorf("%s: kind %q, err %v", name, tp.Kind, err)
		}
	}
	if _, err := Topologies.New(Spec{Kind: "hypercube"}); err == nil || err.Error() != `netmodel: unknown topology kind "hypercube" (known: dragonfly, fat-tree, torus)` {
		t.Errorf("unknown kind: %v", err)
	}
	for _, name := range PresetNames() {
		if tp := mustPreset(t, name); tp.Name != name {
			t.Errorf("preset %s builds %q", name, tp.Name)
		}
	}
}
