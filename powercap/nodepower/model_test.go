package nodepower

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"drsim/powercap"
)

// taurus is Table 9.1 of Heinrich's thesis (../shared/seeds/000_*.txt,
// §9.1.2, lines 1662–1676): taurus-7 running NAS-EP on all 12 cores, power
// in W per P-state; the idle row is the ~92 W of Fig. 8.5 (§8.2.1).
func taurus() string {
	var b strings.Builder
	b.WriteString("node,pstate_ghz,active_cores,total_cores,app,watts\n")
	b.WriteString("taurus-7,2.3,0,12,idle,92\n")
	w := []float64{179.25, 172.12, 166.25, 160.81, 155.12, 150.00, 144.75, 140.68, 136.00, 132.38, 128.88, 125.25}
	for i, p := range w {
		fmt.Fprintf(&b, "taurus-7,%.1f,12,12,ep,%.2f\n", 2.3-0.1*float64(i), p)
	}
	return b.String()
}

// The acceptance case: a cubic in f is within 0.4 W of every
// published point, a linear fit is not (its worst error is about 3.2 W).
func TestTaurusCubicVersusLinear(t *testing.T) {
	s, err := Read(strings.NewReader(taurus()), "taurus.csv")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		form       powercap.Form
		lo, hi     float64 // worst |error| in W must fall in [lo, hi]
		wantStates int
	}{
		{powercap.Cubic, 0, 0.4, 12},
		{powercap.Linear, 2.9, 3.5, 12},
	} {
		ms, err := Fit(s, c.form)
		if err != nil {
			t.Fatalf("%s: %v", c.form, err)
		}
		if len(ms) != 1 || ms[0].Node != "taurus-7" || ms[0].App != "ep" || len(ms[0].States) != c.wantStates {
			t.Fatalf("%s: models %+v", c.form, ms)
		}
		e := ms[0].MaxError()
		t.Logf("%s: worst error %.3f W, R² %.5f, LOO RMSE %.3f W", c.form, e, ms[0].AllCores.R2, ms[0].AllCores.LOORMSE)
		if e < c.lo || e > c.hi {
			t.Errorf("%s fit: worst error %.3f W, want in [%g, %g]", c.form, e, c.lo, c.hi)
		}
	}
}

// Loads between idle and all cores follow the line; with only all-cores
// points the intercept is the idle power (the thesis's substitution).
func TestLoadLine(t *testing.T) {
	const csv = "node,pstate_ghz,active_cores,total_cores,app,watts\n" +
		"n1,2.0,0,4,x,50\n" +
		// 2.0 GHz: 1 core 110, 4 cores 170: slope 60/(3/4) = 80 W per unit load, static 90.
		"n1,2.0,1,4,lu,110\n" + "n1,2.0,4,4,lu,170\n" +
		"n1,1.0,1,4,lu,95\n" + "n1,1.0,4,4,lu,125\n" +
		"n1,2.0,4,4,ep,200\n" + "n1,1.0,4,4,ep,150\n"
	s, err := Read(strings.NewReader(csv), "m.csv")
	if err != nil {
		t.Fatal(err)
	}
	ms, err := Fit(s, powercap.Linear)
	if err != nil {
		t.Fatal(err)
	}
	if len(ms) != 2 || ms[0].App != "ep" || ms[1].App != "lu" {
		t.Fatalf("models %+v", ms)
	}
	ep, lu := &ms[0], &ms[1]
	near := func(got, want float64, what string) {
		t.Helper()
		if math.Abs(got-want) > 1e-9 {
			t.Errorf("%s = %v, want %v", what, got, want)
		}
	}
	near(lu.States[1].Static, 90, "lu static at 2.0 GHz") // hand-computed above
	near(lu.States[1].AllCores, 170, "lu all cores at 2.0 GHz")
	near(lu.Power(2.0, 2), 130, "lu at 2.0 GHz, 2 of 4 cores") // 90 + 0.5·80
	near(lu.Power(2.0, 0), 50, "idle")
	// 1.0 GHz: 1 core 95, 4 cores 125: slope 40, static 85; the linear fit
	// in f through two states is exact: static(1.5) = 87.5, all(1.5) = 147.5.
	near(lu.Power(1.5, 4), 147.5, "lu all cores at 1.5 GHz")
	near(lu.Power(1.5, 1), 87.5+0.25*60, "lu one core at 1.5 GHz")
	near(lu.Power(3.0, 4), 170, "clamped to 2.0 GHz")
	if !ep.States[0].StaticFromIdle || ep.States[0].Static != 50 {
		t.Errorf("ep static %+v, want idle 50 substituted", ep.States[0])
	}
	near(ep.Power(2.0, 2), 50+0.5*150, "ep at half load")
}

func TestReadErrors(t *testing.T) {
	const head = "node,pstate_ghz,active_cores,total_cores,app,watts\n"
	for _, c := range []struct{ in, want string }{
		{"", "m.csv:1: empty file; want a header node,pstate_ghz,active_cores,total_cores,app,watts"},
		{"node,ghz\n", `m.csv:1: missing column "pstate_ghz" (want node,pstate_ghz,active_cores,total_cores,app,watts)`},
		{head, "m.csv:2: no measurements after the header"},
		{head + "n,2300,4,4,ep,100\n", `m.csv:2:2 (pstate_ghz)="2300": 2300 GHz is not a CPU frequency; MHz? (did you mean 2.3 GHz?)`},
		{head + "n,2.3,5,4,ep,100\n", `m.csv:2:3 (active_cores)="5": more busy cores than the node's 4`},
		{head + "n,2.3,4,4,ep,-1\n", `m.csv:2:6 (watts)="-1": want a node power in W > 0`},
		{head + "n,2.3,4,0,ep,1\n", `m.csv:2:4 (total_cores)="0": want a whole number of cores >= 1`},
		{head + "n,2.3,4,4,ep,NaN\n", `m.csv:2:6 (watts)="NaN": want a node power in W > 0`},
		{head + ",2.3,4,4,ep,1\n", `m.csv:2:1 (node)="": empty node name`},
	} {
		_, err := Read(strings.NewReader(c.in), "m.csv")
		if err == nil || err.Error() != c.want {
			t.Errorf("Read(%q) = %v, want %s", c.in, err, c.want)
		}
	}
}

func TestFitErrors(t *testing.T) {
	const head = "node,pstate_ghz,active_cores,total_cores,app,watts\n"
	for _, c := range []struct{ in, want string }{
		{head + "n,2.0,4,4,ep,100\nn,1.0,4,4,ep,90\n", `line 2: node "n": no idle measurement (a row with active_cores 0)`},
		{head + "n,2.0,0,4,x,50\nn,2.0,2,4,ep,100\nn,1.0,4,4,ep,90\n", `line 3: node "n" app "ep" at 2 GHz: no run on all cores`},
		{head + "n,2.0,0,4,x,50\nn,2.0,4,8,ep,100\n", `line 3: node "n" has 8 cores here but 4 at line 2`},
		{head + "n,2.0,0,4,x,50\nn,2.0,4,4,ep,100\n", `line 3: node "n" app "ep": all-cores power: powercap: linear fit needs 2 distinct x values, got 1: fewer distinct points than parameters`},
	} {
		s, err := Read(strings.NewReader(c.in), "m.csv")
		if err != nil {
			t.Fatalf("Read: %v", err)
		}
		_, err = Fit(s, powercap.Linear)
		if err == nil || err.Error() != c.want {
			t.Errorf("Fit(%q) = %v, want %s", c.in, err, c.want)
		}
	}
}
