package powercap

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"drsim/internal/sharedtest"
)

// readShared runs an importer on a path of the shared power data.
func readShared(t *testing.T, imp Importer, rel string) Dataset {
	t.Helper()
	sharedtest.Path(t, filepath.Join("power", rel))
	ds, err := imp(os.DirFS(filepath.Join(sharedtest.Dir(t), "power")), rel)
	if err != nil {
		t.Fatal(err)
	}
	return ds
}

func countBy(ps []Point, key func(Point) string) map[string]int {
	n := map[string]int{}
	for _, p := range ps {
		n[key(p)]++
	}
	return n
}

// TestECPGPUImporterOnSharedData checks the row counts SOURCES.md §1b–1c
// gives: repeated sweeps are kept as points, as ReadECP keeps them.
func TestECPGPUImporterOnSharedData(t *testing.T) {
	ds := readShared(t, ReadECPGPU, ECPSingleDir)
	// 9 files of 11 rows, XSBench with two sweeps (22 rows): 8·11 + 22 = 110.
	n := countBy(ds.Points, func(p Point) string { return p.App })
	if len(ds.Points) != 110 || len(n) != 9 || n["XSBench"] != 22 || n["bert"] != 11 {
		t.Errorf("%d points over %d apps (%v), want 110 over 9, XSBench 22", len(ds.Points), len(n), n)
	}
	// Six counter wraps (negative CPU_E) are dropped with a warning each.
	if len(ds.Warnings) != 6 || !strings.Contains(strings.Join(ds.Warnings, "\n"), "bert_cap_gpu.csv:3:3: CPU_E (J) -240959.52") {
		t.Errorf("warnings %q", ds.Warnings)
	}
	for _, p := range ds.Points {
		// bert at 250 W: 26512.34 J / 113.41 s and 20752.29 J / 113.41 s.
		if p.App == "bert" && p.GPUCap == 250 && (math.Abs(p.GPUPower-26512.34/113.41) > 1e-9 || math.Abs(p.Power-20752.29/113.41) > 1e-9) {
			t.Errorf("bert@250 W = %+v", p)
		}
		if p.Cap != 540 || p.GPUCap < 150 || p.GPUCap > 250 {
			t.Errorf("point outside the sweep: %+v", p)
		}
	}

	// RTX 6000 GPU-cap sweeps: 5 apps × 9 caps × 5 repeats, runtime only.
	ds = readShared(t, ReadECPGPU, RTX6000Single)
	n = countBy(ds.Points, func(p Point) string { return p.App + "@" + strings.TrimSuffix(g17(p.GPUCap), ".0") })
	if len(ds.Points) != 225 || len(n) != 45 {
		t.Errorf("%d points at %d (app, cap) pairs, want 225 at 45", len(ds.Points), len(n))
	}
	for k, c := range n {
		if c != 5 {
			t.Errorf("%s: %d repeats, want 5", k, c)
		}
	}
	for _, p := range ds.Points {
		if !math.IsNaN(p.Power) || !math.IsNaN(p.GPUPower) || p.Cap != 240 {
			t.Fatalf("RTX 6000 point with power or CPU cap ≠ 240 W: %+v", p)
		}
	}

	// The grid: 5 apps × 90 pairs × 4 repeats, 28 counter wraps and the 3
	// implausible XSBench runs at (250 W, 260 W).
	ds = readShared(t, ReadECPDual, RTX6000Dual)
	n = countBy(ds.Points, func(p Point) string { return p.App + "@" + g17(p.Cap) + "/" + g17(p.GPUCap) })
	if len(ds.Points) != 1800 || len(n) != 450 || len(ds.Warnings) != 31 {
		t.Errorf("%d points at %d (app, CPU cap, GPU cap), %d warnings; want 1800, 450, 31", len(ds.Points), len(n), len(ds.Warnings))
	}
	for k, c := range n {
		if c != 4 {
			t.Errorf("%s: %d repeats, want 4", k, c)
		}
	}
}

// TestNVDVFSImporterOnSharedData checks SOURCES.md §3: 20 apps × 10 clocks
// per GPU, the clock lists (MHz → GHz) and the ranges of average_power.
func TestNVDVFSImporterOnSharedData(t *testing.T) {
	ds := readShared(t, ReadNVDVFS, NVDVFSDir)
	if len(ds.Points) != 400 {
		t.Fatalf("%d points, want 400", len(ds.Points))
	}
	for _, dev := range []struct {
		tag, name  string
		clocks     []float64
		minW, maxW float64
	}{
		{"v100", "Tesla V100", []float64{0.405, 0.502, 0.6, 0.705, 0.802, 0.945, 1.087, 1.102, 1.237, 1.38}, 26.6, 207.7},
		{"rtx8000", "Quadro RTX 8000", []float64{0.705, 0.87, 0.945, 1.11, 1.215, 1.305, 1.41, 1.5, 1.605, 1.71}, 63.0, 255.3},
	} {
		apps := map[string]int{}
		clocks := map[float64]bool{}
		lo, hi := math.Inf(1), math.Inf(-1)
		for _, p := range ds.Points {
			if !strings.HasSuffix(p.App, "@"+dev.tag) {
				continue
			}
			apps[p.App]++
			clocks[p.GPUFreq] = true
			lo, hi = math.Min(lo, p.GPUPower), math.Max(hi, p.GPUPower)
			if ds.Devices[p.App] != dev.name {
				t.Errorf("%s: device %q, want %q", p.App, ds.Devices[p.App], dev.name)
			}
		}
		if len(apps) != 20 || apps["matrixMul@"+dev.tag] != 10 {
			t.Errorf("%s: %d apps (%v), want 20 with 10 clocks each", dev.tag, len(apps), apps)
		}
		for _, f := range dev.clocks {
			if !clocks[f] {
				t.Errorf("%s: no point at %v GHz", dev.tag, f)
			}
		}
		if len(clocks) != 10 || math.Abs(lo-dev.minW) > 0.05 || math.Abs(hi-dev.maxW) > 0.05 {
			t.Errorf("%s: %d clocks, average_power %.2f–%.2f W; SOURCES.md says 10, %.1f–%.1f W", dev.tag, len(clocks), lo, hi, dev.minW, dev.maxW)
		}
	}
}

// TestJointTableBeatsBiquadratic is the reason the joint model is a table:
// on every measured grid and for every quantity, its leave-one-node-out
// error is below that of the biquadratic regression.
func TestJointTableBeatsBiquadratic(t *testing.T) {
	cs, err := Calibrate(context.Background(), readShared(t, ReadECPDual, RTX6000Dual), Joint)
	if err != nil {
		t.Fatal(err)
	}
	if len(cs) != 5 {
		t.Fatalf("%d grids, want 5", len(cs))
	}
	for _, c := range cs {
		f := c.Profile.Joint.Fit
		for _, q := range []struct {
			what string
			q    *JointQuality
		}{{"runtime", &f.Runtime}, {"cpu power", f.CPUPower}, {"gpu power", f.GPUPower}} {
			if q.q == nil || !(q.q.Table.LOORMSE < q.q.Quad.LOORMSE) {
				t.Errorf("%s %s: table %+v, biquadratic %+v", c.Profile.Name, q.what, q.q.Table, q.q.Quad)
			}
		}
	}
}

// TestSeparableErrorOnGrids measures the separable fallback against the five
// grids (the figures docs/gpu.md quotes): runtime within 3 % RMS (8 % at
// worst) and node power (CPU + GPU) within 5 % RMS (11 % at worst) on every
// app.
func TestSeparableErrorOnGrids(t *testing.T) {
	es, err := MeasureSeparable(context.Background(), readShared(t, ReadECPDual, RTX6000Dual))
	if err != nil {
		t.Fatal(err)
	}
	if len(es) != 5 {
		t.Fatalf("%d grids, want 5", len(es))
	}
	for _, e := range es {
		t.Logf("%-8s runtime RMS %.1f %% max %.1f %%, node power RMS %.1f %% max %.1f %%", e.App,
			100*e.RuntimeRMSRel, 100*e.RuntimeMaxRel, 100*e.PowerRMSRel, 100*e.PowerMaxRel)
		if e.Nodes != 90 || e.RuntimeRMSRel > 0.03 || e.RuntimeMaxRel > 0.08 || e.PowerRMSRel > 0.05 || e.PowerMaxRel > 0.11 {
			t.Errorf("%s: %+v exceeds runtime 3 %% RMS / 8 %% max, power 5 %% RMS / 11 %% max", e.App, e)
		}
	}
}

// TestGPUBuiltinsValid: every built-in GPU profile validates, tabulates
// pairs where it has both powers, and names its device and source.
func TestGPUBuiltinsValid(t *testing.T) {
	ps := BuiltinGPU()
	if len(ps) != 54 {
		t.Errorf("%d GPU profiles, want 54 (9 @ecp, 5 @rtx6000, 20 @v100, 20 @rtx8000)", len(ps))
	}
	for _, p := range ps {
		if err := p.Validate(); err != nil || p.Device == "" || p.Source == "" || !p.HasGPU() {
			t.Errorf("%s: %v (device %q)", p.Name, err, p.Device)
		}
		if p.Joint == nil && (p.Cap == nil || p.GPUCap == nil) {
			continue
		}
		tab, err := p.PairTable([]float64{120, 250}, []float64{150, 250}, 4)
		if err != nil {
			t.Errorf("%s: %v", p.Name, err)
			continue
		}
		if top := tab.Levels[len(tab.Levels)-1]; top.Scale != 1 || !(tab.Levels[0].Scale >= 1) {
			t.Errorf("%s: pair levels %+v: want Scale 1 at the top, >= 1 at the bottom", p.Name, tab.Levels)
		}
	}
}
