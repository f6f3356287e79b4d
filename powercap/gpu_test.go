package powercap

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"
	"testing/fstest"
)

func TestReadNVDVFSSynthetic(t *testing.T) {
	head := "x,benchmark,core_frequency,memory_frequency,average_power,time\n"
	fsys := fstest.MapFS{
		"d/v100-dvfs-real.csv": {Data: []byte(head + "1,mm,1380,877,200,1\n2,mm,405,877,60.5,3.25\n")},
		"hz/a-dvfs-real.csv":   {Data: []byte(head + "1,mm,1380000000,877,200,1\n")},
		"khz/a-dvfs-real.csv":  {Data: []byte(head + "1,mm,1380000,877,200,1\n")},
		"ghz/a-dvfs-real.csv":  {Data: []byte(head + "1,mm,1.38,877,200,1\n")},
		"col/a-dvfs-real.csv":  {Data: []byte("benchmark,core_frequency,memory_frequency,time\nmm,1380,877,1\n")},
	}
	ds, err := ReadNVDVFS(fsys, "d")
	if err != nil {
		t.Fatal(err)
	}
	// MHz → GHz: 405 → 0.405, 1380 → 1.38; app = benchmark@device tag.
	if len(ds.Points) != 2 {
		t.Fatalf("%d points, want 2", len(ds.Points))
	}
	a, b := ds.Points[1], ds.Points[0] // sorted by clock
	if a.App != "mm@v100" || a.GPUFreq != 1.38 || a.GPUPower != 200 || a.Runtime != 1 || a.Line != 2 || a.XColumn != 3 || !math.IsNaN(a.Power) {
		t.Errorf("1380 MHz point = %+v", a)
	}
	if b.GPUFreq != 0.405 || b.GPUPower != 60.5 || b.Runtime != 3.25 || b.Line != 3 {
		t.Errorf("405 MHz point = %+v", b)
	}
	if ds.Devices["mm@v100"] != "Tesla V100" {
		t.Errorf("device = %q, want Tesla V100", ds.Devices["mm@v100"])
	}
	for _, tc := range []struct{ dir, want string }{
		{"hz", "hz/a-dvfs-real.csv:2:3: core_frequency=1.38e+09: core clock out of range 100–5000 MHz (Hz given?)"},
		{"khz", "khz/a-dvfs-real.csv:2:3: core_frequency=1.38e+06: core clock out of range 100–5000 MHz (kHz given?)"},
		{"ghz", "ghz/a-dvfs-real.csv:2:3: core_frequency=1.38: core clock out of range 100–5000 MHz (GHz given?)"},
		{"col", "col/a-dvfs-real.csv:1: average_power: missing column"},
	} {
		if _, err := ReadNVDVFS(fsys, tc.dir); err == nil || err.Error() != tc.want {
			t.Errorf("ReadNVDVFS(%s) error = %v, want %s", tc.dir, err, tc.want)
		}
	}
}

func TestReadECPGPUSynthetic(t *testing.T) {
	head := "CPU Cap (W),GPU Cap (W),CPU_E (J),GPU_E (J),Runtime (s)\n"
	fsys := fstest.MapFS{
		"d/app_cap_gpu.csv":  {Data: []byte(head + "540,250,2000,1000,10\n540,150,-5,600,12\n")},
		"d/app_cap_both.csv": {Data: []byte("CPU Cap (W),GPU Cap (W),Runtime (s)\n105,260,0.28\n")},
		"d/app_cap_dual.csv": {Data: []byte(head + "250,260,1,1,1\n")},
		"d/old_cap_gpu.csv":  {Data: []byte("CPU Cap (W),GPU Cap (W),Runtime (s)\n240,100,40\n")},
		"e/bad_cap_gpu.csv":  {Data: []byte("CPU Cap (W),GPU Cap (W),CPU_E (J),Runtime (s)\n540,250,1,1\n")},
		"f/a_cap_gpu.csv":    {Data: []byte("CPU Cap (W),GPU Cap (W),CPU_E (J),GPU_E (J)\n540,250,1,1\n")},
		"g/a_cap_gpu.csv":    {Data: []byte(head + "540,0,1,1,1\n")},
	}
	ds, err := ReadECPGPU(fsys, "d")
	if err != nil {
		t.Fatal(err)
	}
	// Power = CPU_E/Runtime, GPUPower = GPU_E/Runtime: 2000/10, 1000/10, 600/12;
	// the negative CPU_E is dropped with a warning; _cap_both and _cap_dual skipped.
	if len(ds.Points) != 3 {
		t.Fatalf("points %+v, want 3", ds.Points)
	}
	a, b, c := ds.Points[1], ds.Points[0], ds.Points[2] // sorted by app, CPU cap, GPU cap
	if a.App != "app" || a.GPUCap != 250 || a.Cap != 540 || a.Power != 200 || a.GPUPower != 100 || a.Runtime != 10 {
		t.Errorf("first point = %+v", a)
	}
	if b.GPUCap != 150 || !math.IsNaN(b.Power) || b.GPUPower != 50 || b.Runtime != 12 {
		t.Errorf("second point = %+v", b)
	}
	if c.App != "old" || c.GPUCap != 100 || !math.IsNaN(c.Power) || !math.IsNaN(c.GPUPower) || c.Runtime != 40 {
		t.Errorf("runtime-only point = %+v", c)
	}
	if len(ds.Warnings) != 1 || !strings.HasPrefix(ds.Warnings[0], "d/app_cap_gpu.csv:3:3: CPU_E (J) -5 is not positive") {
		t.Errorf("warnings %q", ds.Warnings)
	}
	for _, tc := range []struct{ dir, want string }{
		{"e", "e/bad_cap_gpu.csv:1: GPU_E (J): missing column (the other energy column is present)"},
		{"f", "f/a_cap_gpu.csv:1: Runtime (s): missing column"},
		{"g", "g/a_cap_gpu.csv:2:2: GPU Cap (W): 0 is not positive"},
	} {
		if _, err := ReadECPGPU(fsys, tc.dir); err == nil || err.Error() != tc.want {
			t.Errorf("ReadECPGPU(%s) error = %v, want %s", tc.dir, err, tc.want)
		}
	}
	// A 3×3 grid of 100 W CPU power with one run at 5 W: under half the
	// median of its neighbours' runs (100 W), so dropped with a warning.
	var grid strings.Builder
	grid.WriteString(head)
	for _, c := range []int{100, 200, 300} {
		for _, g := range []int{10, 20, 30} {
			e := 200 // J over 2 s
			if c == 300 && g == 30 {
				e = 10
			}
			fmt.Fprintf(&grid, "%d,%d,%d,100,2\n", c, g, e)
		}
	}
	og, err := ReadECPDual(fstest.MapFS{"o/x_cap_dual.csv": {Data: []byte(grid.String())}}, "o")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range og.Points {
		if want := 100.0; p.Cap == 300 && p.GPUCap == 30 {
			if !math.IsNaN(p.Power) {
				t.Errorf("outlier kept: %+v", p)
			}
		} else if p.Power != want || p.GPUPower != 50 {
			t.Errorf("good run changed: %+v", p)
		}
	}
	if len(og.Warnings) != 1 || og.Warnings[0] != "o/x_cap_dual.csv:10: CPU_E (J) gives 5 W, but the neighbouring caps' runs give 100 W (median): power of this run ignored" {
		t.Errorf("outlier warnings %q", og.Warnings)
	}
	dual, err := ReadECPDual(fsys, "d")
	if err != nil || len(dual.Points) != 1 || dual.Points[0].Cap != 250 || dual.Points[0].GPUCap != 260 {
		t.Errorf("ReadECPDual = %+v, %v; want the one dual row", dual.Points, err)
	}
}

// TestCalibrateGPUKnobs fits noise-free data of the prescribed forms: cubic
// GPU power and quadratic runtime in the clock, cubic power and exponential
// runtime in the GPU cap; the coefficients come back to rel 1e-9.
func TestCalibrateGPUKnobs(t *testing.T) {
	pw := []float64{20, 10, 30, 40} // p(f) = 20 + 10f + 30f² + 40f³
	rt := []float64{9, -6, 2}       // t(f) = 9 − 6f + 2f²
	var ds Dataset
	for _, f := range []float64{0.5, 0.8, 1.0, 1.2, 1.5} {
		ds.Points = append(ds.Points, Point{App: "k", GPUFreq: f, GPUPower: Cubic.eval(pw, f), Power: math.NaN(), Runtime: Quadratic.eval(rt, f)})
	}
	cs, err := Calibrate(context.Background(), ds, GPUFreq)
	if err != nil {
		t.Fatal(err)
	}
	m := cs[0].Profile.GPUFreq
	if m == nil || cs[0].Profile.Freq != nil || m.XMin != 0.5 || m.XMax != 1.5 {
		t.Fatalf("profile %+v: want a gpufreq model on 0.5–1.5 GHz only", cs[0].Profile)
	}
	closeCoef(t, "gpufreq power", m.Power.Coef, pw, 1e-9)
	closeCoef(t, "gpufreq runtime", m.Runtime.Coef, rt, 1e-9)
	p := cs[0].Profile
	// At 1 GHz: p = 20+10+30+40 = 100 W, t = 9−6+2 = 5.
	if v, _ := p.Power(GPUFreq, 1); math.Abs(v-100) > 1e-9 {
		t.Errorf("Power(gpufreq, 1) = %v, want 100", v)
	}
	if v, _ := p.Runtime(GPUFreq, 1); math.Abs(v-5) > 1e-9 {
		t.Errorf("Runtime(gpufreq, 1) = %v, want 5", v)
	}
	if _, err := p.Power(Freq, 1); err == nil {
		t.Error("a gpufreq-only profile answered a CPU freq question")
	}

	cp := []float64{10, 0.5, 0, 0} // p(g) = 10 + g/2 W
	ce := []float64{50, -0.02, 10} // t(g) = 50·exp(−0.02 g) + 10
	ds = Dataset{}
	for g := 100.0; g <= 250; g += 25 {
		ds.Points = append(ds.Points, Point{App: "k", GPUCap: g, GPUPower: Cubic.eval(cp, g), Runtime: Exp.eval(ce, g)})
	}
	if cs, err = Calibrate(context.Background(), ds, GPUCap); err != nil {
		t.Fatal(err)
	}
	m = cs[0].Profile.GPUCap
	closeCoef(t, "gpucap power", m.Power.Coef[:2], cp[:2], 1e-9)
	closeCoef(t, "gpucap runtime", m.Runtime.Coef, ce, 1e-6)
	// A point with no GPU cap is refused with its place.
	ds.Points[0].GPUCap = 0
	ds.Points[0].File, ds.Points[0].Line = "m.csv", 7
	if _, err := Calibrate(context.Background(), ds, GPUCap); err == nil || !strings.HasPrefix(err.Error(), `m.csv:7: app "k": no gpucap setting recorded`) {
		t.Errorf("missing GPU cap: error %v", err)
	}
}

func closeCoef(t *testing.T, what string, got, want []float64, rel float64) {
	t.Helper()
	for i := range want {
		if math.Abs(got[i]-want[i]) > rel*math.Abs(want[i])+1e-12 {
			t.Errorf("%s coef[%d] = %.15g, want %.15g", what, i, got[i], want[i])
		}
	}
}

// gridPoints returns one point per repeat at every (c, g) of the 4×3 grid
// c ∈ {100, 200, 300, 400} W, g ∈ {10, 20, 30} W.
func gridPoints(runtime func(c, g float64) []float64) Dataset {
	var ds Dataset
	for _, c := range []float64{100, 200, 300, 400} {
		for _, g := range []float64{10, 20, 30} {
			for _, r := range runtime(c, g) {
				ds.Points = append(ds.Points, Point{App: "j", Cap: c, GPUCap: g, Runtime: r, Power: c / 2, GPUPower: g / 2})
			}
		}
	}
	return ds
}

// TestJointHandComputed: the table's fit statistics and interpolation on
// grids whose answers are known exactly.
func TestJointHandComputed(t *testing.T) {
	// Bilinear runtime f = 1 + u + w + u·w (u = c/100, w = g/10), measured
	// as f − 0.5 and f + 0.5: node means are f, the table's residuals are
	// ±0.5 (RMSE 0.5); leaving a node out, linear interpolation along either
	// axis recovers f exactly (LOO RMSE 0.5); f is biquadratic, so the
	// regression does the same.
	f := func(c, g float64) float64 { u, w := c/100, g/10; return 1 + u + w + u*w }
	cs, err := Calibrate(context.Background(), gridPoints(func(c, g float64) []float64 { return []float64{f(c, g) - 0.5, f(c, g) + 0.5} }), Joint)
	if err != nil {
		t.Fatal(err)
	}
	j := cs[0].Profile.Joint
	q := j.Fit.Runtime
	for _, v := range []struct {
		what      string
		got, want float64
	}{
		{"table RMSE", q.Table.RMSE, 0.5}, {"table LOO", q.Table.LOORMSE, 0.5},
		{"biquadratic RMSE", q.Quad.RMSE, 0.5}, {"biquadratic LOO", q.Quad.LOORMSE, 0.5},
		{"N", float64(j.N), 24},
	} {
		if math.Abs(v.got-v.want) > 1e-9 {
			t.Errorf("%s = %.12g, want %v", v.what, v.got, v.want)
		}
	}
	p := cs[0].Profile
	for _, tc := range []struct {
		c, g          float64
		t, cpuW, gpuW float64 // hand-computed
	}{
		{150, 15, 1 + 1.5 + 1.5 + 2.25, 75, 7.5}, // bilinear is exact on f
		{300, 30, 1 + 3 + 3 + 9, 150, 15},
		{400, 30, 1 + 4 + 3 + 12, 200, 15},
		{50, 40, 1 + 1 + 3 + 3, 50, 15}, // outside: nearest edge (100, 30); CPU 50 W clamped to the 50 W cap
	} {
		v, err := p.JointAt(tc.c, tc.g)
		if err != nil || math.Abs(v.Runtime-tc.t) > 1e-12 || math.Abs(v.CPUPower-tc.cpuW) > 1e-12 || math.Abs(v.GPUPower-tc.gpuW) > 1e-12 {
			t.Errorf("JointAt(%v, %v) = %+v, %v; want runtime %v, CPU %v W, GPU %v W", tc.c, tc.g, v, err, tc.t, tc.cpuW, tc.gpuW)
		}
	}

	// A bump: runtime 1 everywhere but 5 at (200, 20), one run each. The
	// table fits exactly (RMSE 0). Leaving a node out, the prediction is the
	// mean of the interpolations along its row and its column:
	//   (200, 20): 1 and 1 → residual 5 − 1 = 4
	//   (100, 20): 1, and 9 extrapolated from 5 at 200 W, 1 at 300 W → 5, residual −4
	//   (300, 20): 1, and 3 between 5 at 200 W and 1 at 400 W → 2, residual −1
	//   (400, 20): 1, and −3 extrapolated from 5 at 200 W, 1 at 300 W → −1, residual 2
	//   (200, 10) and (200, 30): 9 extrapolated along g, and 1 → 5, residual −4
	//   the other six nodes: 1 → residual 0
	// LOO RMSE = √((16+16+1+4+16+16)/12) = √(69/12).
	cs, err = Calibrate(context.Background(), gridPoints(func(c, g float64) []float64 {
		if c == 200 && g == 20 {
			return []float64{5}
		}
		return []float64{1}
	}), Joint)
	if err != nil {
		t.Fatal(err)
	}
	q = cs[0].Profile.Joint.Fit.Runtime
	if q.Table.RMSE != 0 || q.Table.R2 != 1 || math.Abs(q.Table.LOORMSE-math.Sqrt(69.0/12)) > 1e-12 {
		t.Errorf("bump: table %+v, want RMSE 0, R² 1, LOO %v", q.Table, math.Sqrt(69.0/12))
	}

	// An incomplete grid names the app's first point.
	ds := gridPoints(func(c, g float64) []float64 { return []float64{1} })
	ds.Points = ds.Points[1:]
	ds.Points[0].File, ds.Points[0].Line = "g.csv", 3
	if _, err := Calibrate(context.Background(), ds, Joint); err == nil || !strings.HasPrefix(err.Error(), `g.csv:3: app "j" joint: the grid is incomplete: no runtime at CPU cap 100 W, GPU cap 10 W`) {
		t.Errorf("incomplete grid: error %v", err)
	}
	// A pair whose every run lost its energy leaves a hole in the power
	// table: an error too, not a silently dropped power model.
	ds = gridPoints(func(c, g float64) []float64 { return []float64{1} })
	ds.Points[4].Power = math.NaN() // (200 W, 20 W)
	if _, err := Calibrate(context.Background(), ds, Joint); err == nil || !strings.Contains(err.Error(), "no CPU power at CPU cap 200 W, GPU cap 20 W") {
		t.Errorf("hole in the power table: error %v", err)
	}
}

// TestSeparableFallback: without a grid, JointAt multiplies the cap and
// gpucap slowdowns and takes each device's power from its own sweep.
func TestSeparableFallback(t *testing.T) {
	p := Profile{Name: "s",
		Cap: &Model{XMin: 100, XMax: 300,
			Power:   &Curve{Form: Cubic, Coef: []float64{10, 0.5, 0, 0}},
			Runtime: Curve{Form: Exp, Coef: []float64{100, -0.01, 10}}},
		GPUCap: &Model{XMin: 100, XMax: 250,
			Power:   &Curve{Form: Cubic, Coef: []float64{5, 1.2, 0, 0}},
			Runtime: Curve{Form: Exp, Coef: []float64{400, -0.02, 5}}},
	}
	v, err := p.JointAt(200, 150)
	if err != nil {
		t.Fatal(err)
	}
	// t = t_cap(200) · t_gpucap(150) / t_gpucap(250)
	//   = (100e^−2 + 10)(400e^−3 + 5)/(400e^−5 + 5); CPU 10 + 100 = 110 W;
	// GPU 5 + 1.2·150 = 185 W > the 150 W cap: clamped to 150 W.
	want := (100*math.Exp(-2) + 10) * (400*math.Exp(-3) + 5) / (400*math.Exp(-5) + 5)
	if math.Abs(v.Runtime-want) > 1e-12*want || v.CPUPower != 110 || v.GPUPower != 150 {
		t.Errorf("JointAt(200, 150) = %+v, want runtime %v, CPU 110 W, GPU 150 W", v, want)
	}
	if _, err := (&Profile{Name: "c", Cap: p.Cap}).JointAt(200, 150); err == nil {
		t.Error("a cap-only profile gave a joint prediction")
	}
}

// TestPairTableMCKP: the pair levels of a 2×2 joint table become one MCKP
// class per job, and the solver picks the hand-computed pairs.
func TestPairTableMCKP(t *testing.T) {
	p := Profile{Name: "pt", Joint: &JointModel{Form: JointTable,
		CPUCaps: []float64{100, 200}, GPUCaps: []float64{100, 200},
		Runtime:  []float64{2, 1.5, 1.25, 1},
		CPUPower: []float64{80, 80, 150, 150},
		GPUPower: []float64{90, 180, 90, 180},
	}}
	if err := p.Validate(); err != nil {
		t.Fatal(err)
	}
	tab, err := p.PairTable([]float64{100, 200}, []float64{100, 200}, 2)
	if err != nil {
		t.Fatal(err)
	}
	// Node power = CPU + 2·GPU; Scale = t / t(200, 200).
	want := []PairLevel{{100, 100, 260, 2}, {100, 200, 440, 1.5}, {200, 100, 330, 1.25}, {200, 200, 510, 1}}
	if !reflect.DeepEqual(tab.Levels, want) {
		t.Fatalf("levels %+v, want %+v", tab.Levels, want)
	}
	opts := tab.Options(nil, 1, 100) // cost = power · scale · 100 s
	wantOpts := []Option{{260, 52000}, {440, 66000}, {330, 41250}, {510, 51000}}
	if !reflect.DeepEqual(opts, wantOpts) {
		t.Fatalf("options %+v, want %+v", opts, wantOpts)
	}
	var m MCKP
	for _, tc := range []struct {
		capW   float64
		choice []int
		cost   float64
	}{
		{700, []int{2, 2}, 82500}, // (200 W, 100 W) for both: 660 W, cheaper than uncapped
		{600, []int{0, 2}, 93250}, // 590 W; ties go to the lower option of the first job
		{1100, []int{2, 2}, 82500},
	} {
		choice, cost, ok := m.Solve([][]Option{opts, opts}, tc.capW)
		if !ok || !reflect.DeepEqual(choice, tc.choice) || math.Abs(cost-tc.cost) > 1e-9 {
			t.Errorf("capacity %v W: choice %v cost %v ok %v, want %v %v", tc.capW, choice, cost, ok, tc.choice, tc.cost)
		}
	}
}

// TestGPUModelFile: GPU profiles round-trip through schema /2; CPU-only
// profiles still write /1; a /1 file with GPU keys is refused.
func TestGPUModelFile(t *testing.T) {
	for _, p := range BuiltinGPU() {
		var b bytes.Buffer
		if err := SaveModel(&b, p); err != nil {
			t.Fatalf("%s: %v", p.Name, err)
		}
		if !strings.Contains(b.String(), `"schema": "`+ModelSchemaGPU+`"`) {
			t.Fatalf("%s: not written as %s", p.Name, ModelSchemaGPU)
		}
		got, err := DecodeModel(&b, p.Name+".json")
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, p) {
			t.Errorf("%s: round trip changed the profile", p.Name)
		}
	}
	var b bytes.Buffer
	if err := SaveModel(&b, Builtin()[0]); err != nil || !strings.Contains(b.String(), `"schema": "`+ModelSchema+`"`) {
		t.Errorf("CPU profile: %v, written as\n%s", err, b.String())
	}
	_, err := DecodeModel(strings.NewReader(`{"schema":"drsim-powercap-model/1","app":"a","device":"V100",
"gpu_freq":{"x_min":1,"x_max":2,"power":null,"runtime":{"form":"quadratic","coef":[1,2,3]}}}`), "m.json")
	if fe, ok := errors.AsType[*FileError](err); !ok || !strings.Contains(err.Error(), "has no GPU keys") || fe.File != "m.json" {
		t.Errorf("/1 with GPU keys: error %v", err)
	}
}

// TestGPUTable: a GPU-cap table holds power at the cap and scales runtime
// to the top setting.
func TestGPUTable(t *testing.T) {
	p := Profile{Name: "g", GPUCap: &Model{XMin: 100, XMax: 200,
		Power:   &Curve{Form: Cubic, Coef: []float64{20, 0.5, 0, 0}}, // 20 + g/2 W
		Runtime: Curve{Form: Exp, Coef: []float64{100, -0.01, 10}}}}
	tab, err := p.GPUTable(GPUCap, []float64{30, 100, 200})
	if err != nil {
		t.Fatal(err)
	}
	// 30 W: outside (held at 100 W: 70 W) and clamped to the 30 W cap.
	// Scale = t(x)/t(200) with t(x) = 100e^(−x/100) + 10.
	top := 100*math.Exp(-2) + 10
	want := []Level{{30, 30, (100*math.Exp(-1) + 10) / top}, {100, 70, (100*math.Exp(-1) + 10) / top}, {200, 120, 1}}
	for i, w := range want {
		l := tab.Levels[i]
		if l.X != w.X || math.Abs(l.Power-w.Power) > 1e-12 || math.Abs(l.Scale-w.Scale) > 1e-12 {
			t.Errorf("level %d = %+v, want %+v", i, l, w)
		}
	}
	if tab.Clamped != 1 || tab.Outside != 1 || tab.Knob != GPUCap {
		t.Errorf("clamped %d, outside %d, knob %s; want 1, 1, gpucap", tab.Clamped, tab.Outside, tab.Knob)
	}
	if _, err := p.GPUTable(GPUFreq, []float64{1}); err == nil {
		t.Error("a gpucap-only profile gave a gpufreq table")
	}
	if _, err := p.GPUTable(Cap, []float64{100}); err == nil {
		t.Error("GPUTable accepted a CPU knob")
	}
}

var sinkOpts []Option

// BenchmarkPairOptions: building one job's MCKP class from its PairTable
// (the per-job step of a joint DR decision) into a reused buffer.
func BenchmarkPairOptions(b *testing.B) {
	p, err := Lookup(BuiltinGPU(), "minigan@rtx6000")
	if err != nil {
		b.Fatal(err)
	}
	j := p.Joint
	tab, err := p.PairTable(j.CPUCaps, j.GPUCaps, 4)
	if err != nil {
		b.Fatal(err)
	}
	buf := make([]Option, 0, len(tab.Levels))
	b.ReportAllocs()
	for b.Loop() {
		sinkOpts = tab.Options(buf[:0], 2, 1000)
	}
}
