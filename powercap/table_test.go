package powercap

import (
	"math"
	"strings"
	"testing"
)

func TestGrids(t *testing.T) {
	c := ContinuousPStates(0, 0).GHz
	if len(c) != 151 || c[0] != 1.2 || c[150] != 2.7 || c[1] != 1.21 {
		t.Errorf("ContinuousPStates(0,0) = %d values %v…%v, want 151 values 1.2, 1.21 … 2.7", len(c), c[0], c[len(c)-1])
	}
	tests := []struct {
		g    CapGrid
		want []float64 // hand-listed
	}{
		{CapGrid{Min: 80, Max: 120, Step: 10}, []float64{80, 90, 100, 110, 120}},
		{CapGrid{Min: 80, Max: 105, Step: 10}, []float64{80, 90, 100, 105}}, // Max always included
		{CapGrid{Min: 90, Max: 90, Step: 10}, []float64{90}},
	}
	for _, tc := range tests {
		got, err := tc.g.List()
		if err != nil || !equal(got, tc.want) {
			t.Errorf("%+v.List() = %v, %v; want %v", tc.g, got, err, tc.want)
		}
	}
	if d, _ := (CapGrid{}).List(); len(d) != 18 || d[0] != 80 || d[17] != 250 {
		t.Errorf("default cap grid = %v, want 80, 90, …, 250", d)
	}
	for _, bad := range []CapGrid{{Min: 100, Max: 90, Step: 10}, {Min: -1, Max: 90, Step: 10}, {Min: 80, Max: 90, Step: -1}} {
		if _, err := bad.List(); err == nil {
			t.Errorf("%+v.List() succeeded", bad)
		}
	}
	for _, s := range []string{"2.0,1.2", "1.2,x", "0,1"} {
		if _, err := ParsePStates(s); err == nil {
			t.Errorf("ParsePStates(%q) succeeded", s)
		}
	}
	if ps, err := ParsePStates("1.2, 2.4"); err != nil || !equal(ps.GHz, []float64{1.2, 2.4}) {
		t.Errorf("ParsePStates(\"1.2, 2.4\") = %v, %v", ps, err)
	}
	if g, err := ParseCapGrid("60:240:20"); err != nil || g != (CapGrid{60, 240, 20}) {
		t.Errorf("ParseCapGrid(60:240:20) = %v, %v", g, err)
	}
}

func equal(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.Abs(a[i]-b[i]) > 1e-12 {
			return false
		}
	}
	return true
}

// TestBuiltinTables checks the invariants the engine relies on for every
// built-in profile on the default P-states and cap grid.
func TestBuiltinTables(t *testing.T) {
	bs := Builtin()
	if len(bs) < 8 {
		t.Fatalf("%d built-in profiles, want at least 8", len(bs))
	}
	// Levels held at the end of the measured range, by hand from the
	// ranges: xsbench CFREQ 1.94–2.56 GHz (1.2–1.8 below, 2.7 above), minimd
	// 1.6–3.2 GHz (1.2, 1.4 below).
	outside := map[string]int{"xsbench": 5, "minimd": 2}
	for i, p := range bs {
		if i > 0 && bs[i-1].Name >= p.Name {
			t.Errorf("Builtin() not sorted: %q before %q", bs[i-1].Name, p.Name)
		}
		if err := p.Validate(); err != nil {
			t.Error(err)
		}
		var tabs []Table
		ft, err := p.FreqTable(PStates{})
		if err != nil {
			t.Errorf("%s FreqTable: %v", p.Name, err)
			continue
		}
		tabs = append(tabs, ft)
		if ft.Outside != outside[p.Name] {
			t.Errorf("%s FreqTable.Outside = %d, want %d", p.Name, ft.Outside, outside[p.Name])
		}
		if p.Cap != nil {
			ct, err := p.CapTable(CapGrid{})
			if err != nil {
				t.Errorf("%s CapTable: %v", p.Name, err)
				continue
			}
			tabs = append(tabs, ct)
		}
		for _, tab := range tabs {
			if tab.App != p.Name || tab.Max().Scale != 1 {
				t.Errorf("%s %s table: app %q, Scale at max %v", p.Name, tab.Knob, tab.App, tab.Max().Scale)
			}
			for j, l := range tab.Levels {
				if j > 0 && l.X <= tab.Levels[j-1].X {
					t.Errorf("%s %s: X not ascending at %v", p.Name, tab.Knob, l.X)
				}
				if !(l.Power > 0 && l.Scale > 0) || (tab.Knob == Cap && l.Power > l.X) {
					t.Errorf("%s %s level %+v: want positive power ≤ cap and positive scale", p.Name, tab.Knob, l)
				}
			}
		}
	}
}

// TestCapClamp: a fit that exceeds the cap is clamped in Tables and in
// Power, and counted.
func TestCapClamp(t *testing.T) {
	p := Profile{Name: "x", Cap: &Model{XMin: 80, XMax: 250,
		Power:   &Curve{Form: Cubic, Coef: []float64{0, 1.5, -0.004, 0}}, // > P below 125 W
		Runtime: Curve{Form: Exp, Coef: []float64{100, -0.02, 10}},
	}}
	tab, err := p.CapTable(CapGrid{Min: 80, Max: 250, Step: 10})
	if err != nil {
		t.Fatal(err)
	}
	// 1.5P − 0.004P² > P ⇔ P < 125: caps 80…120 are clamped (5 levels).
	if tab.Clamped != 5 {
		t.Errorf("Clamped = %d, want 5", tab.Clamped)
	}
	if got, _ := p.Power(Cap, 100); got != 100 {
		t.Errorf("Power(Cap, 100) = %v, want 100 (clamped from 110)", got)
	}
	if got, _ := p.Power(Cap, 200); got != 140 {
		t.Errorf("Power(Cap, 200) = %v, want 1.5·200 − 0.004·200² = 140", got)
	}
}

func TestLookup(t *testing.T) {
	bs := Builtin()
	if p, err := Lookup(bs, "LULESH"); err != nil || p.Name != "lulesh" {
		t.Errorf("Lookup(LULESH) = %q, %v; want lulesh (case-insensitive)", p.Name, err)
	}
	_, err := Lookup([]Profile{{Name: "cg"}, {Name: "bt"}}, "x")
	if want := `powercap: unknown app "x" (known: bt, cg)`; err == nil || err.Error() != want {
		t.Errorf("Lookup(x) error = %v, want %s", err, want)
	}
}

func TestPredict(t *testing.T) {
	p := Profile{Name: "d", Freq: &Model{XMin: 1, XMax: 3,
		Power:   &Curve{Form: Cubic, Coef: []float64{10, 20, 0, 0}},
		Runtime: Curve{Form: Quadratic, Coef: []float64{100, -10, 0}},
	}}
	tests := []struct { // hand-computed: p(2) = 50 W, t(2) = 80 s
		q     string
		x     float64
		nodes int
		want  float64
	}{
		{"power", 2, 1, 50}, {"runtime", 2, 4, 80}, {"energy", 2, 1, 4000}, {"energy", 2, 3, 12000},
		{"power", 5, 1, 70}, // held at x_max = 3: 10 + 60
	}
	for _, tc := range tests {
		got, err := Predict(&p, Freq, tc.x, tc.q, tc.nodes)
		if err != nil || math.Abs(got-tc.want) > 1e-9 {
			t.Errorf("Predict(%s, %v, nodes %d) = %v, %v; want %v", tc.q, tc.x, tc.nodes, got, err, tc.want)
		}
	}
	if _, err := Predict(&p, Freq, 2, "volts", 1); err == nil || !strings.Contains(err.Error(), "unknown quantity") {
		t.Errorf("Predict(volts) error = %v", err)
	}
}
