package powercap

import (
	"context"
	"fmt"
	"io/fs"
	"math"
	"sort"
	"strings"
)

// Provenance of the built-in GPU profiles (see /work/shared/power/SOURCES.md).
const (
	ECPSingleDir  = "zzheng33__power/GPGPU/data/ecp_power_cap_res/single_cap"
	RTX6000Single = "zzheng33__power/GPGPU/data/ecp_power_cap_res_rtx6000/single_cap"
	RTX6000Dual   = "zzheng33__power/GPGPU/data/ecp_power_cap_res_rtx6000/dual_cap"
	NVDVFSDir     = "blackjack2015__NV-DVFS-Benchmark/data"
	NVDVFSCommit  = "f189504ff7810168a7b98ad0b1bc418ccb5e0d60"
)

// Devices of the built-in GPU profiles. SOURCES.md does not name the GPU of
// the ecp_power_cap_res sweeps; its caps run to 250 W.
const (
	ECPDevice     = "not recorded (ECP node)"
	RTX6000Device = "Quadro RTX 6000"
)

// FitGPUBuiltins fits the built-in GPU profiles from the shared power data
// (fsys rooted at the directory that holds SOURCES.md):
//
//   - <app>@ecp for the 9 ECP/ML apps of ecp_power_cap_res/single_cap: a
//     gpucap model (GPU power and runtime) and a cap model (CPU power and
//     runtime, CPU-cap sweep at GPU cap 250 W); their joint model is the
//     separable fallback;
//   - <app>@rtx6000 for the 5 apps of ecp_power_cap_res_rtx6000: the joint
//     table of the CPU-cap × GPU-cap grid, and runtime-only gpucap and cap
//     models from the single-knob sweeps (those files have no energy);
//   - <benchmark>@v100 and <benchmark>@rtx8000 for the 20 CUDA apps of
//     NV-DVFS-Benchmark: a gpufreq model (GPU power and kernel time).
//
// Names are lower case. BuiltinGPU returns the same profiles with their
// coefficients embedded; a test keeps the two equal.
func FitGPUBuiltins(ctx context.Context, fsys fs.FS) ([]Profile, error) {
	byName := map[string]Profile{}
	add := func(suffix, device, source string, imp Importer, dir string, k Knob) error {
		ds, err := imp(fsys, dir)
		if err != nil {
			return err
		}
		cs, err := Calibrate(ctx, ds, k)
		if err != nil {
			return err
		}
		for _, c := range cs {
			p := c.Profile
			p.Name = strings.ToLower(p.Name) + suffix
			if device != "" {
				p.Device = device
			}
			p.Source = fmt.Sprintf(source, inRepo(c.Points[0].File), len(c.Points))
			old := byName[p.Name]
			src := strings.TrimPrefix(old.Source+"; "+p.Source, "; ")
			p = Merge(old, p)
			p.Source = src
			byName[p.Name] = p
		}
		return nil
	}
	zz := "zzheng33/power@" + PCMCommit + " "
	steps := []struct {
		suffix, device, source string
		imp                    Importer
		dir                    string
		k                      Knob
	}{
		{"@ecp", ECPDevice, zz + "%s: %d runs, GPU caps 150–250 W at CPU cap 540 W, power = GPU_E/Runtime", ReadECPGPU, ECPSingleDir, GPUCap},
		{"@ecp", ECPDevice, zz + "%s: %d runs, CPU caps 120–540 W at GPU cap 250 W, power = CPU_E/Runtime", ReadECP, ECPSingleDir, Cap},
		{"@rtx6000", RTX6000Device, zz + "%s: %d runs (4 per pair), CPU caps 70–250 W × GPU caps 100–260 W, table of means", ReadECPDual, RTX6000Dual, Joint},
		{"@rtx6000", RTX6000Device, zz + "%s: %d runs (5 per cap), GPU caps 100–260 W at CPU cap 240 W, runtime only", ReadECPGPU, RTX6000Single, GPUCap},
		{"@rtx6000", RTX6000Device, zz + "%s: %d runs (5 per cap), CPU caps 60–240 W at GPU cap 260 W, runtime only", ReadECP, RTX6000Single, Cap},
		{"", "", "blackjack2015/NV-DVFS-Benchmark@" + NVDVFSCommit + " %s: %d core clocks, average_power and kernel time (unit not documented)", ReadNVDVFS, NVDVFSDir, GPUFreq},
	}
	for _, s := range steps {
		if err := add(s.suffix, s.device, s.source, s.imp, s.dir, s.k); err != nil {
			return nil, err
		}
	}
	out := make([]Profile, 0, len(byName))
	for _, p := range byName {
		out = append(out, p)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// SeparableError measures the separable fallback (Profile.JointAt without
// a grid) on a measured grid: the cap and gpucap models are fitted, with the
// usual forms, to the grid's own edges (the row at the highest GPU cap and
// the column at the highest CPU cap, every repeat), as single-knob sweeps
// would have measured them, and the separable prediction is compared with
// the mean of the repeats at every node. It returns the RMS and the largest
// relative error of runtime and of node power (one CPU + one GPU).
type SeparableError struct {
	App                          string
	Nodes                        int
	RuntimeRMSRel, RuntimeMaxRel float64
	PowerRMSRel, PowerMaxRel     float64 // node power = CPU + GPU
}

// MeasureSeparable computes the SeparableError of every app with a grid in
// ds (an ecp-dual Dataset), sorted by app.
func MeasureSeparable(ctx context.Context, ds Dataset) ([]SeparableError, error) {
	cals, err := Calibrate(ctx, ds, Joint)
	if err != nil {
		return nil, err
	}
	var out []SeparableError
	for _, c := range cals {
		j := c.Profile.Joint
		cmax, gmax := j.CPUCaps[len(j.CPUCaps)-1], j.GPUCaps[len(j.GPUCaps)-1]
		var row, col Dataset
		for _, p := range c.Points {
			if p.GPUCap == gmax {
				row.Points = append(row.Points, p)
			}
			if p.Cap == cmax {
				col.Points = append(col.Points, p)
			}
		}
		rc, err := Calibrate(ctx, row, Cap)
		if err != nil {
			return nil, err
		}
		cc, err := Calibrate(ctx, col, GPUCap)
		if err != nil {
			return nil, err
		}
		sep := Profile{Name: c.Profile.Name, Cap: rc[0].Profile.Cap, GPUCap: cc[0].Profile.GPUCap}
		e := SeparableError{App: c.Profile.Name, Nodes: len(j.Runtime)}
		ng := len(j.GPUCaps)
		for k := range j.Runtime {
			v, err := sep.JointAt(j.CPUCaps[k/ng], j.GPUCaps[k%ng])
			if err != nil {
				return nil, err
			}
			rt := (v.Runtime - j.Runtime[k]) / j.Runtime[k]
			rp := math.NaN() // no energy in the grid: no power error
			if len(j.CPUPower) > 0 && len(j.GPUPower) > 0 {
				w := j.CPUPower[k] + j.GPUPower[k]
				rp = (v.CPUPower + v.GPUPower - w) / w
			}
			e.RuntimeRMSRel += rt * rt
			e.PowerRMSRel += rp * rp
			e.RuntimeMaxRel = math.Max(e.RuntimeMaxRel, math.Abs(rt))
			e.PowerMaxRel = math.Max(e.PowerMaxRel, math.Abs(rp))
		}
		e.RuntimeRMSRel = math.Sqrt(e.RuntimeRMSRel / float64(e.Nodes))
		e.PowerRMSRel = math.Sqrt(e.PowerRMSRel / float64(e.Nodes))
		out = append(out, e)
	}
	return out, nil
}

// GPUTable returns the app's Levels for GPU knob k at the settings xs
// (strictly ascending; GHz for GPUFreq, W for GPUCap): Power = p(x) per GPU,
// never above a cap (Table.Clamped counts the clamped Levels), and Scale =
// t(x)/t(x_max). It is the GPU counterpart of FreqTable and CapTable; the
// profile needs a power curve for k.
func (p *Profile) GPUTable(k Knob, xs []float64) (Table, error) {
	if !k.IsGPU() {
		return Table{}, fmt.Errorf("powercap: GPUTable of knob %s: want gpufreq or gpucap", k)
	}
	if len(xs) == 0 {
		return Table{}, fmt.Errorf("powercap: no %s settings to tabulate", k)
	}
	if _, err := ascending(xs, k.String()+" setting"); err != nil {
		return Table{}, err
	}
	if p.Model(k) == nil {
		return Table{}, fmt.Errorf("powercap: app %q has no %s model", p.Name, k)
	}
	return p.table(k, xs)
}
