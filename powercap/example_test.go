package powercap_test

import (
	"context"
	"fmt"
	"os"
	"testing/fstest"

	"drsim/powercap"
	"drsim/workloads"
)

// Example_calibrate fits the generic long format and turns the profile into
// the Level table the simulator consumes. The data follow p(f) = 20 + 30·f
// and t(f) = 300 − 150·f + 25·f² exactly, so the fit returns them; by hand,
// t(1.2) = 156, t(2.0) = 100, t(2.7) = 77.25, so the scales are 156/77.25
// and 100/77.25.
func Example_calibrate() {
	csv := "app,x,power_w,runtime_s\n"
	for _, f := range []float64{1.2, 1.6, 2.0, 2.4, 2.7} {
		csv += fmt.Sprintf("demo,%g,%g,%g\n", f, 20+30*f, 300-150*f+25*f*f)
	}
	fsys := fstest.MapFS{"meas.csv": {Data: []byte(csv)}}
	ds, err := powercap.ReadGeneric(fsys, "meas.csv")
	if err != nil {
		fmt.Println(err)
		return
	}
	cals, err := powercap.Calibrate(context.Background(), ds, powercap.Freq)
	if err != nil {
		fmt.Println(err)
		return
	}
	p := cals[0].Profile
	fmt.Printf("t(f) = %.4g %+.4g·f %+.4g·f²\n", p.Freq.Runtime.Coef[0], p.Freq.Runtime.Coef[1], p.Freq.Runtime.Coef[2])
	tab, _ := p.FreqTable(powercap.PStates{GHz: []float64{1.2, 2.0, 2.7}})
	for _, l := range tab.Levels {
		fmt.Printf("%.1f GHz  %.1f W  scale %.4f\n", l.X, l.Power, l.Scale)
	}
	// Output:
	// t(f) = 300 -150·f +25·f²
	// 1.2 GHz  56.0 W  scale 2.0194
	// 2.0 GHz  80.0 W  scale 1.2945
	// 2.7 GHz  101.0 W  scale 1.0000
}

// ExampleProfile_CapTable shows the clamping rule: a job's power never
// exceeds its cap, whatever the fit says. Here p(P) = 10 + P is above every
// cap, so every Level is clamped to P. Scales by hand: t(P) = 100·e^(−P/100)
// + 10 gives 46.788, 32.313 and 23.534 s at 100, 150 and 200 W.
func ExampleProfile_CapTable() {
	p := powercap.Profile{Name: "hot", Cap: &powercap.Model{XMin: 100, XMax: 200,
		Power:   &powercap.Curve{Form: powercap.Cubic, Coef: []float64{10, 1, 0, 0}},
		Runtime: powercap.Curve{Form: powercap.Exp, Coef: []float64{100, -0.01, 10}},
	}}
	tab, _ := p.CapTable(powercap.CapGrid{Min: 100, Max: 200, Step: 50})
	for _, l := range tab.Levels {
		fmt.Printf("%.0f W cap: %.0f W, scale %.4f\n", l.X, l.Power, l.Scale)
	}
	fmt.Println("clamped:", tab.Clamped)
	// Output:
	// 100 W cap: 100 W, scale 1.9881
	// 150 W cap: 150 W, scale 1.3731
	// 200 W cap: 200 W, scale 1.0000
	// clamped: 3
}

// ExampleFallback: a half CPU-bound job (β = 0.5) at 1.35 GHz = fmax/2 runs
// 0.5·2 + 0.5 = 1.5× longer; V(1.35) = 0.80 + 0.30·0.15/1.5 = 0.83 V, so its
// power is 40 W static plus 80 W · (1.35·0.83²)/(2.7·1.10²) = 22.77 W dynamic.
func ExampleFallback() {
	p := powercap.Fallback("unknown", 0.5)
	tab, _ := p.FreqTable(powercap.PStates{GHz: []float64{1.35, 2.7}})
	for _, l := range tab.Levels {
		fmt.Printf("%.2f GHz  %.2f W  scale %.2f\n", l.X, l.Power, l.Scale)
	}
	// Output:
	// 1.35 GHz  62.77 W  scale 1.50
	// 2.70 GHz  120.00 W  scale 1.00
}

// ExampleNewAppMap maps jobs by executable number (field 14): exe mod 3,
// and the job number when the executable is unknown (-1).
func ExampleNewAppMap() {
	apps := []powercap.Profile{{Name: "bt"}, {Name: "cg"}, {Name: "lulesh"}}
	m, _ := powercap.NewAppMap("exe", apps, 1)
	for _, j := range []workloads.Job{{ID: 1, Exe: 7}, {ID: 2, Exe: 3}, {ID: 5, Exe: -1}} {
		fmt.Printf("job %d exe %d -> %s\n", j.ID, j.Exe, apps[m.App(&j)].Name)
	}
	// Output:
	// job 1 exe 7 -> cg
	// job 2 exe 3 -> bt
	// job 5 exe -1 -> lulesh
}

// ExampleSaveModel writes a model file in the documented JSON schema.
func ExampleSaveModel() {
	p := powercap.Profile{Name: "demo", Freq: &powercap.Model{XMin: 1.2, XMax: 2.7,
		Runtime: powercap.Curve{Form: powercap.Quadratic, Coef: []float64{300, -150, 25}, N: 5, R2: 1},
	}}
	if err := powercap.SaveModel(os.Stdout, p); err != nil {
		fmt.Println(err)
	}
	// Output:
	// {
	//   "schema": "drsim-powercap-model/1",
	//   "app": "demo",
	//   "freq": {
	//     "x_min": 1.2,
	//     "x_max": 2.7,
	//     "power": null,
	//     "runtime": {
	//       "form": "quadratic",
	//       "coef": [
	//         300,
	//         -150,
	//         25
	//       ],
	//       "n": 5,
	//       "r2": 1,
	//       "rmse": 0,
	//       "loo_rmse": 0
	//     }
	//   }
	// }
}
