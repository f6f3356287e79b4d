package sim

import (
	"context"
	"maps"
	"math"
	"slices"
	"testing"

	"drsim/powercap"
	"drsim/scheduler/governor"
)

// Hand-computed window maxima of a step function: 100 W on [0, 10), 300 W
// on [10, 11), 100 W on [11, 20).
func TestWindowMax(t *testing.T) {
	ts, ps := []float64{0, 10, 11}, []float64{100, 300, 100}
	for _, tc := range []struct{ w, want float64 }{
		{1, 300},   // the window [10, 11]
		{2, 200},   // 300 for 1 s + 100 for 1 s
		{4, 150},   // (300 + 3·100)/4
		{20, 110},  // the whole stretch: (1900 + 300)/20
		{0.5, 300}, // inside the excursion
	} {
		got, ok := windowMax(ts, ps, 20, tc.w)
		if !ok || math.Abs(got-tc.want) > 1e-9 {
			t.Errorf("w=%v: %v %v, want %v", tc.w, got, ok, tc.want)
		}
	}
	if _, ok := windowMax(ts, ps, 20, 21); ok {
		t.Error("a 21 s window fits in 20 s")
	}
	// Through the observer: a 1 s excursion of 200 W over a 150 W limit
	// averages to 125 W over a 4 s window (held) but not over 1 s.
	for _, tc := range []struct{ w, want float64 }{{4, 0}, {1, 50}} {
		s := newWindowSink(tc.w)
		_ = s.Power(0, 100, math.Inf(1), 0, 0)
		_ = s.Power(5, 100, 150, 0, 0)
		_ = s.Power(10, 200, 150, 0, 0)
		_ = s.Power(11, 100, 150, 0, 0)
		_ = s.Power(20, 100, math.Inf(1), 0, 0)
		if got := s.result(30); got != tc.want {
			t.Errorf("window %v: excess %v, want %v", tc.w, got, tc.want)
		}
	}
}

// The malleable choice is a pure function of (ID, fraction, seed): the
// fraction of 100000 IDs chosen is within 1% of the target, a subset at a
// smaller fraction, and changes with the seed.
func TestIsMalleable(t *testing.T) {
	for _, frac := range []float64{0.1, 0.3, 1} {
		n, nested, moved := 0, true, 0
		for id := int64(1); id <= 100000; id++ {
			m := IsMalleable(id, frac, 7)
			if m {
				n++
			}
			if IsMalleable(id, frac/2, 7) && !m {
				nested = false
			}
			if m != IsMalleable(id, frac, 8) {
				moved++
			}
		}
		if got := float64(n) / 1e5; math.Abs(got-frac) > 0.01 || !nested || (frac < 1 && moved == 0) {
			t.Errorf("frac %v: chose %v, nested %v, seed-dependent %d", frac, got, nested, moved)
		}
	}
	if IsMalleable(5, 0, 1) {
		t.Error("fraction 0 chose a job")
	}
}

// The synthetic scaling model: FitETS picks the exact linear predictor and
// the runtime factor at half size is s + 2(1 − s) (cg: s = 0.35 → 1.65;
// ep: s = 0 → 2; an unknown app: s = 0.2 → 1.8).
func TestScaleFactors(t *testing.T) {
	f, err := ScaleFactors([]string{"cg", "ep", "unknown-app"})
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []float64{1.65, 2, 1.8} {
		if got := f[i](0.5); math.Abs(got-want) > 1e-9 {
			t.Errorf("app %d: F(0.5) = %v, want %v", i, got, want)
		}
		if got := f[i](1); math.Abs(got-1) > 1e-12 {
			t.Errorf("app %d: F(1) = %v", i, got)
		}
	}
	m, scores, err := ScaleModel("cg")
	if err != nil || m.Name() != "linear" || scores[0].CVRMSE > 1e-9 {
		t.Errorf("cg model %v %v %v", m.Name(), scores, err)
	}
}

func TestPowerCapSpecErrors(t *testing.T) {
	tr, err := Load(Spec{Jobs: 50})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []Spec{
		{PowerCap: "max"},
		{PowerCap: "dr", DVFS: "dr"},
		{Malleable: 0.3},
		{PowerCap: "dr", Malleable: 1.5},
		{PowerCap: "dr", ResizeCost: -1},
		{PowerCap: "dr", CapGrid: "250:80:10"},
		{PowerCap: "dr", AppMap: "one:minimd"},
	} {
		s.Jobs = 50
		if _, err := Run(context.Background(), s, tr, Outputs{}); err == nil {
			t.Errorf("%+v: no error", s)
		} else {
			t.Logf("%v", err)
		}
	}
}

// Every cap mode runs on the embedded workload with --check: no invariant
// violations, every job finishes, dr (with and without malleable jobs)
// never exceeds the limit (instantaneous or window-averaged), uniform holds
// it (its cap is reachable here), performance at Pmax exceeds it, and the
// cap tables report their clamped levels (recounted from the cubics: none
// of the built-in fits exceeds its cap on the default grid).
func TestPowerCapModes(t *testing.T) {
	tr, err := Load(Spec{Jobs: 800})
	if err != nil {
		t.Fatal(err)
	}
	// Recount the clamped levels straight from the fitted cubics.
	wantClamped := 0
	caps, _ := powercap.CapGrid{}.List()
	for _, p := range powercap.Builtin() {
		if p.Cap == nil {
			continue
		}
		for _, x := range caps {
			if p.Cap.Power.At(math.Min(math.Max(x, p.Cap.XMin), p.Cap.XMax)) > x {
				wantClamped++
			}
		}
	}
	for _, tc := range []struct {
		mode string
		mal  float64
	}{{"performance", 0}, {"powersave", 0}, {"dr", 0}, {"dr", 0.5}, {"uniform", 0}} {
		s := Spec{Jobs: 800, PowerCap: tc.mode, Malleable: tc.mal, ResizeCost: 30, DRRatio: 0.3, DRDuration: "1h-3h", Check: true}
		r, err := Run(context.Background(), s, tr, Outputs{})
		if err != nil {
			t.Fatal(tc, err)
		}
		sm := r.Summary
		if r.Stats.NViolations > 0 || sm.Jobs != r.Stats.Submitted || sm.Jobs == 0 {
			t.Fatalf("%v: %d violations %v; %d of %d jobs", tc, r.Stats.NViolations, r.Stats.Violations, sm.Jobs, r.Stats.Submitted)
		}
		switch tc.mode {
		case "dr", "uniform", "powersave":
			if sm.ExcessJ > 0 || sm.MaxExcessW > 0 || r.WindowExcessW > 0 {
				t.Errorf("%v: above the limit: %v J, %v W, window %v W", tc, sm.ExcessJ, sm.MaxExcessW, r.WindowExcessW)
			}
		case "performance":
			if sm.ExcessJ == 0 || r.WindowExcessW == 0 {
				t.Errorf("performance never exceeds the limit: the events do not bite")
			}
		}
		if c, n := clampedLevels(r); n != 13*18 || c != wantClamped {
			t.Errorf("%v: %d clamped of %d cap levels, want %d of 234", tc, c, n, wantClamped)
		}
	}
}

// Compare runs the cap policies next to the DVFS ones, with their own
// baselines: powercap-dr never exceeds the limit, powercap-performance is
// its own baseline, and dr-scale uses malleable jobs.
func TestComparePowerCap(t *testing.T) {
	c, err := Compare(context.Background(), CompareConfig{
		Base:     Spec{Jobs: 500, DRDuration: "1h-3h", Check: true, ResizeCost: 30},
		Ratios:   []float64{0.25, 0.5},
		Policies: []string{"dr", "powercap-performance", "powercap-dr", "powercap-uniform", "powercap-dr-scale"}, Workers: 2,
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Rows) != 10 {
		t.Fatalf("%d rows", len(c.Rows))
	}
	for _, r := range c.Rows {
		if r.Violations > 0 {
			t.Errorf("%s r%v: %d violations", r.Policy, r.Ratio, r.Violations)
		}
		switch r.Policy {
		case "powercap-performance":
			if r.SavingPerfPct != 0 || r.TurnIncPct != 0 || r.ExcessJ == 0 {
				t.Errorf("powercap-performance: %+v", r)
			}
		case "powercap-dr", "powercap-dr-scale", "powercap-uniform":
			if r.MaxExcessW > 0 || r.ExcessJ > 0 || r.WindowExcessW > 0 {
				t.Errorf("%s r%v exceeds the limit", r.Policy, r.Ratio)
			}
		}
		t.Logf("%-22s r%.2f energy %.1f saving %.2f%% turn +%.2f%% evict %d", r.Policy, r.Ratio, r.EnergyKWh, r.SavingPerfPct, r.TurnIncPct, r.Evictions)
	}
	if _, err := Compare(context.Background(), CompareConfig{Base: Spec{Jobs: 10}, Policies: []string{"powercap-max"}}); err == nil {
		t.Error("unknown cap policy accepted")
	}
}

// The power-cap modes are the names of governor.Caps, and the --dvfs
// choices those of governor.DVFS.
func TestCapModesAreTheRegistry(t *testing.T) {
	if got := slices.Sorted(maps.Keys(governor.Caps)); !slices.Equal(got, slices.Sorted(slices.Values(PowerCapModes))) {
		t.Errorf("governor.Caps %v, PowerCapModes %v", got, PowerCapModes)
	}
	for _, name := range []string{"performance", "powersave", "dr"} {
		if err := checkPolicy(name); err != nil {
			t.Errorf("--dvfs %s: %v", name, err)
		}
	}
}
