package netmodel

import (
	"math"
	"math/rand/v2"
	"testing"
)

func mustModel(t testing.TB, name string) *Model {
	t.Helper()
	m, err := NewModel(mustPreset(t, name), Config{})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// Allreduce of small messages grows as log P: recursive doubling has
// ⌈log₂P⌉ rounds, each between the cheapest and the dearest point-to-point
// time on the machine, so log₂P·T_min ≤ T(P) ≤ log₂P·T_max.
func TestAllreduceLogP(t *testing.T) {
	for _, preset := range PresetNames() {
		m := mustModel(t, preset)
		in := m.t.Info()
		minBW := math.Inf(1)
		for _, l := range m.t.Links() {
			if l.BW > 0 {
				minBW = math.Min(minBW, l.BW)
			}
		}
		xfer := 8 / (m.t.plateau * effFraction(8) * minBW)
		prev := 0.0
		for k := 1; k <= 12; k++ {
			T := m.CommTime(m.compact(1<<k), Allreduce, 8, 1)
			lo, hi := float64(k)*in.MinLatency, float64(k)*(in.MaxLatency+xfer)
			if T < lo || T > hi {
				t.Errorf("%s: T(%d) = %.3g s outside log₂P bounds [%.3g, %.3g]", preset, 1<<k, T, lo, hi)
			}
			if T <= prev {
				t.Errorf("%s: T(%d) = %g not above T(%d) = %g", preset, 1<<k, T, 1<<(k-1), prev)
			}
			prev = T
		}
	}
}

// Hand-computed: one recursive-doubling round between X-neighbour Geminis on
// hopper equals the point-to-point time.
func TestCommTimeHandComputed(t *testing.T) {
	m := mustModel(t, "hopper")
	nodes := []int32{0, 2}
	if got, want := m.CommTime(nodes, Allreduce, 8, 1), m.t.P2P(0, 2, 8); !within(got, want, 1e-12) {
		t.Errorf("allreduce of 2 = %g, want P2P %g", got, want)
	}
	// Ring allreduce of 4 ranks on one Gemini pair and its neighbour pair:
	// 2(P−1) = 6 steps of S/P, each the mean of the sampled ring pairs.
	nodes = []int32{0, 1, 2, 3}
	S := 1.0 * (1 << 20)
	step := (m.t.P2P(0, 1, S/4) + m.t.P2P(1, 2, S/4) + m.t.P2P(2, 3, S/4) + m.t.P2P(3, 0, S/4)) / 4
	if got := m.CommTime(nodes, Allreduce, S, 1); !within(got, 6*step, 1e-12) {
		t.Errorf("ring allreduce = %g, want 6 × %g", got, step)
	}
	if got := m.CommTime(nodes, NoComm, S, 1); got != 0 {
		t.Errorf("NoComm = %g", got)
	}
}

func TestCommRatio(t *testing.T) {
	m := mustModel(t, "hopper")
	compact := m.compact(64)
	for pat := PointToPoint; pat <= Halo3D; pat++ {
		if r := m.CommRatio(compact, pat, 64<<10, 1); r != 1 {
			t.Errorf("%v: compact ratio %v, want exactly 1", pat, r)
		}
		if r1, r2 := m.CommRatio(compact, pat, 64<<10, 1), m.CommRatio(compact, pat, 64<<10, 0.5); !(r2 > r1) {
			t.Errorf("%v: share 0.5 ratio %v not above %v", pat, r2, r1)
		}
	}
	if r := m.CommRatio(compact[:1], AllToAll, 1<<20, 1); r != 1 {
		t.Errorf("one node: ratio %v, want 1", r)
	}
	if r := m.CommRatio(compact, NoComm, 1<<20, 0.1); r != 1 {
		t.Errorf("NoComm: ratio %v, want 1", r)
	}
}

// Scattered placement is never faster than compact for communication-heavy apps.
func TestScatteredNeverFaster(t *testing.T) {
	for _, preset := range PresetNames() {
		m := mustModel(t, preset)
		for _, name := range AppNames() {
			app := Apps[name]
			if app.Fraction < 0.1 {
				continue
			}
			for _, P := range []int{8, 64, 512} {
				for seed := uint64(1); seed <= 5; seed++ {
					nodes, _ := Place(m.t, P, "scattered", rand.New(rand.NewPCG(seed, 0)))
					if r := m.AppRatio(nodes, app, 1); r < 1-1e-9 {
						t.Errorf("%s %s P=%d seed %d: scattered ratio %.4f < 1", preset, name, P, seed, r)
					}
				}
			}
		}
	}
}

func TestAppsTable(t *testing.T) {
	want := []string{"bt", "cg", "ep", "ft", "is", "lu", "lulesh", "mg", "minife", "minimd", "rsbench", "sp", "ua", "xsbench"}
	got := AppNames()
	if len(got) != len(want) {
		t.Fatalf("AppNames = %v, want %v", got, want)
	}
	for i := range want {
		a := Apps[got[i]]
		if got[i] != want[i] || a.Name != want[i] || a.Fraction < 0 || a.Fraction > 1 || a.Note == "" || (a.Fraction > 0) != (len(a.Traffic) > 0) {
			t.Errorf("Apps[%q] = %+v", got[i], a)
		}
	}
	if Apps["ep"].Fraction != 0 || Apps["ft"].Traffic[0].Pattern != AllToAll || Apps["cg"].Traffic[1].Pattern != Allreduce {
		t.Error("ep must not communicate, ft must be all-to-all, cg allreduce + p2p")
	}
	if _, err := LookupApp("LULESH"); err != nil {
		t.Error(err)
	}
	if _, err := LookupApp("hpl"); err == nil {
		t.Error("LookupApp(hpl) succeeded")
	}
	// hand-computed: (1−0.25)·1.2 + 0.25·2 = 1.4
	if got := RuntimeFactor(0.25, 1.2, 2); math.Abs(got-1.4) > 1e-15 {
		t.Errorf("RuntimeFactor = %v, want 1.4", got)
	}
}

func TestParseSize(t *testing.T) {
	for _, c := range []struct {
		in   string
		want float64
		ok   bool
	}{
		{"1MiB", 1 << 20, true}, {"64KiB", 65536, true}, {"8B", 8, true}, {"1MB", 1e6, true},
		{"4096", 4096, true}, {"1.5GiB", 1.5 * (1 << 30), true}, {"0B", 0, true}, {"2 KB", 2000, true},
		{"", 0, false}, {"MiB", 0, false}, {"-1KiB", 0, false}, {"1XB", 0, false}, {"NaN", 0, false}, {"1e999", 0, false},
	} {
		got, err := ParseSize(c.in)
		if (err == nil) != c.ok || got != c.want {
			t.Errorf("ParseSize(%q) = %v, %v; want %v, ok=%v", c.in, got, err, c.want, c.ok)
		}
	}
	for i, n := range patternNames {
		if p, err := ParsePattern(n); err != nil || int(p) != i || p.String() != n {
			t.Errorf("ParsePattern(%q) = %v, %v", n, p, err)
		}
	}
	if _, err := ParsePattern("gather"); err == nil {
		t.Error("ParsePattern(gather) succeeded")
	}
}

func TestFactor3(t *testing.T) {
	for _, c := range []struct {
		p    int
		want grid
	}{{1, grid{1, 1, 1}}, {7, grid{1, 1, 7}}, {8, grid{2, 2, 2}}, {12, grid{2, 2, 3}}, {64, grid{4, 4, 4}}, {1000, grid{10, 10, 10}}, {1024, grid{8, 8, 16}}} {
		if got := factor3(c.p); got != c.want {
			t.Errorf("factor3(%d) = %v, want %v", c.p, got, c.want)
		}
	}
}

func TestPlace(t *testing.T) {
	tp := mustPreset(t, "edison")
	rng := rand.New(rand.NewPCG(5, 0))
	for _, kind := range Placements {
		nodes, err := Place(tp, 100, kind, rng)
		if err != nil || len(nodes) != 100 {
			t.Fatalf("%s: %v", kind, err)
		}
		seen := map[int32]bool{}
		for _, n := range nodes {
			if seen[n] || n < 0 || int(n) >= tp.Nodes() {
				t.Fatalf("%s: bad or repeated node %d", kind, n)
			}
			seen[n] = true
		}
		if kind == "topology" {
			if s, g := tp.Span(nodes); s != 25 || g != 1 {
				t.Errorf("topology placement of 100 nodes spans %d routers, %d groups; want 25, 1", s, g)
			}
			big, _ := Place(tp, 1000, kind, rng) // 384 nodes per group
			if _, g := tp.Span(big); g != 3 {
				t.Errorf("topology placement of 1000 nodes spans %d groups, want 3", g)
			}
		}
	}
	if _, err := Place(tp, 0, "contiguous", rng); err == nil {
		t.Error("placed 0 nodes")
	}
	if _, err := Place(tp, 10, "random", rng); err == nil {
		t.Error("unknown placement accepted")
	}
}

// A Rounds recorded at one share replays CommTime bit for bit at others,
// for every pattern and both algorithm branches of the collectives, and
// replaying does not walk a path (the recorded statistics are not
// re-sampled: changing them changes the replayed time).
func TestCommTimeRoundsReplay(t *testing.T) {
	m := mustModel(t, "hopper")
	rng := rand.New(rand.NewPCG(5, 0))
	for _, P := range []int{2, 3, 7, 64, 300} {
		nodes, _ := Place(m.t, P, "scattered", rng)
		var r Rounds
		type call struct {
			pat  Pattern
			size float64
		}
		var seq []call
		for _, pat := range []Pattern{PointToPoint, Allreduce, Broadcast, AllToAll, Halo3D, NoComm} {
			for _, size := range []float64{8, 1 << 20} {
				seq = append(seq, call{pat, size})
			}
		}
		for pass, share := range []float64{1, 0.5, 0.123, 1, 2} {
			r.Rewind()
			for _, c := range seq {
				got := m.CommTimeRounds(&r, nodes, c.pat, c.size, share)
				if want := m.CommTime(nodes, c.pat, c.size, share); math.Float64bits(got) != math.Float64bits(want) {
					t.Fatalf("P=%d pass %d %v size %v share %v: replayed %v, CommTime %v", P, pass, c.pat, c.size, share, got, want)
				}
			}
		}
		if P >= 7 {
			r.st[0].alpha *= 2 // replay uses the record, not a fresh walk
			r.Rewind()
			if got, want := m.CommTimeRounds(&r, nodes, seq[0].pat, seq[0].size, 1), m.CommTime(nodes, seq[0].pat, seq[0].size, 1); got == want {
				t.Errorf("P=%d: replay after tampering gave CommTime's %v", P, got)
			}
			r.Reset()
			r.Rewind()
			if got, want := m.CommTimeRounds(&r, nodes, seq[0].pat, seq[0].size, 1), m.CommTime(nodes, seq[0].pat, seq[0].size, 1); got != want {
				t.Errorf("P=%d: after Reset %v, want %v", P, got, want)
			}
		}
	}
}

// Two sequences recorded through one RoundMemo (two applications on one
// placement) give CommTime bit for bit, and the second walks no path for
// a round the first already walked: the memo holds each (kind, argument)
// once, and a tampered memo entry shows up in the second sequence's time.
func TestRoundMemoShared(t *testing.T) {
	m := mustModel(t, "mira")
	rng := rand.New(rand.NewPCG(9, 0))
	for _, P := range []int{5, 64, 200} {
		nodes, _ := Place(m.t, P, "scattered", rng)
		var memo RoundMemo
		minife := []Traffic{{Halo3D, 16 << 10, 1}, {Allreduce, 8, 2}}
		mg := []Traffic{{Halo3D, 32 << 10, 1}, {Allreduce, 8, 1}, {PointToPoint, 4 << 10, 1}}
		for _, app := range [][]Traffic{minife, mg} {
			var r Rounds
			r.UseMemo(&memo)
			for _, tr := range app {
				got := m.CommTimeRounds(&r, nodes, tr.Pattern, tr.Size, 0.7)
				if want := m.CommTime(nodes, tr.Pattern, tr.Size, 0.7); math.Float64bits(got) != math.Float64bits(want) {
					t.Fatalf("P=%d %v: through the memo %v, CommTime %v", P, tr.Pattern, got, want)
				}
			}
		}
		// halo: 6 directions; doubling: ⌈log₂P⌉ partners; ring: 1 (mg's p2p), each once
		if want := 6 + log2ceil(P) + 1; len(memo.keys) != want {
			t.Errorf("P=%d: memo holds %d rounds, want %d", P, len(memo.keys), want)
		}
		for i := range 6 { // the halo directions (some are empty on a flat grid)
			memo.st[i].alpha *= 2
		}
		var r Rounds
		r.UseMemo(&memo)
		if got, want := m.CommTimeRounds(&r, nodes, Halo3D, 32<<10, 1), m.CommTime(nodes, Halo3D, 32<<10, 1); got == want {
			t.Errorf("P=%d: a tampered memo gave CommTime's %v: the round was walked again", P, got)
		}
		memo.Reset()
		r.Reset()
		if got, want := m.CommTimeRounds(&r, nodes, Halo3D, 32<<10, 1), m.CommTime(nodes, Halo3D, 32<<10, 1); got != want {
			t.Errorf("P=%d: after Reset %v, want %v", P, got, want)
		}
	}
}
