package powercap

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"path"
	"slices"
	"strings"
)

// ECP column holding the GPU energy (the others are in import_ecp.go).
const ecpGPUE = "GPU_E (J)"

// ReadECPGPU reads the GPU-cap sweeps of the ECP/ML apps (zzheng33/power
// GPGPU/data/ecp_power_cap_res*/single_cap/<app>_cap_gpu.csv: GPU cap swept,
// CPU cap fixed): name is one file or a directory searched recursively. Each
// row is one Point with GPUCap = "GPU Cap (W)", Cap = "CPU Cap (W)", Runtime,
// GPUPower = GPU_E / Runtime and Power = CPU_E / Runtime: average powers
// over the run. Files without energy columns (the RTX 6000 sweeps) give
// runtime only (powers NaN); a non-positive energy (a counter wrap) drops
// that power with a warning. Repeated sweeps are kept as separate points,
// as ReadECP does. The _cap_both files (one or two rows at one setting) are
// not sweeps and are skipped.
func ReadECPGPU(fsys fs.FS, name string) (Dataset, error) {
	return readECPGrid(fsys, name, "_cap_gpu.csv", "ECP GPU-cap sweep ")
}

// ReadECPDual reads CPU-cap × GPU-cap grids (zzheng33/power
// GPGPU/data/ecp_power_cap_res_rtx6000/dual_cap/<app>_cap_dual.csv): every
// row is one Point with both caps, CPU and GPU average power and runtime, as
// in ReadECPGPU. Calibrate with knob Joint fits the JointModel.
//
// Repeats whose CPU or GPU power is under half, or over twice, the median
// of the repeats at the neighbouring grid nodes (the next caps up and down
// on either axis) are implausible — power moves by far less between
// adjacent caps — and are dropped with a warning (XSBench_cap_dual.csv
// lines 92, 182 and 272: CPU_E ≈ 45 J where the first repeat and every
// neighbour give ≈ 800 J).
func ReadECPDual(fsys fs.FS, name string) (Dataset, error) {
	ds, err := readECPGrid(fsys, name, "_cap_dual.csv", "ECP CPU×GPU cap grid ")
	if err != nil {
		return ds, err
	}
	for _, q := range []struct {
		what string
		get  func(*Point) *float64
	}{{ecpCPUE, func(p *Point) *float64 { return &p.Power }}, {ecpGPUE, func(p *Point) *float64 { return &p.GPUPower }}} {
		dropGridOutliers(ds.Points, q.what, q.get, &ds.Warnings)
	}
	return ds, nil
}

// dropGridOutliers sets to NaN, with a warning, the values that are under
// half or over twice the median of the values at the neighbouring nodes of
// the same app's grid.
func dropGridOutliers(pts []Point, what string, get func(*Point) *float64, warn *[]string) {
	type node struct {
		app  string
		c, g float64
	}
	at := map[node][]float64{}
	caps := map[string][2][]float64{}
	for i := range pts {
		p := &pts[i]
		if v := *get(p); !math.IsNaN(v) {
			k := node{p.App, p.Cap, p.GPUCap}
			at[k] = append(at[k], v)
		}
		cg := caps[p.App]
		cg[0], cg[1] = append(cg[0], p.Cap), append(cg[1], p.GPUCap)
		caps[p.App] = cg
	}
	for app, cg := range caps {
		for a := range cg {
			slices.Sort(cg[a])
			cg[a] = slices.Compact(cg[a])
		}
		caps[app] = cg
	}
	near := func(xs []float64, x float64) []float64 {
		i, _ := slices.BinarySearch(xs, x)
		var out []float64
		if i > 0 {
			out = append(out, xs[i-1])
		}
		if i+1 < len(xs) {
			out = append(out, xs[i+1])
		}
		return out
	}
	for i := range pts {
		p := &pts[i]
		v := get(p)
		if math.IsNaN(*v) {
			continue
		}
		var nb []float64
		for _, c := range near(caps[p.App][0], p.Cap) {
			nb = append(nb, at[node{p.App, c, p.GPUCap}]...)
		}
		for _, g := range near(caps[p.App][1], p.GPUCap) {
			nb = append(nb, at[node{p.App, p.Cap, g}]...)
		}
		if len(nb) == 0 {
			continue
		}
		slices.Sort(nb)
		med := (nb[(len(nb)-1)/2] + nb[len(nb)/2]) / 2
		if *v < med/2 || *v > 2*med {
			*warn = append(*warn, fmt.Sprintf("%s:%d: %s gives %.4g W, but the neighbouring caps' runs give %.4g W (median): power of this run ignored", p.File, p.Line, what, *v, med))
			*v = math.NaN()
		}
	}
}

func readECPGrid(fsys fs.FS, name, suffix, what string) (Dataset, error) {
	files, err := walk(fsys, name, func(b string) bool { return strings.HasSuffix(b, suffix) })
	if err != nil {
		return Dataset{}, err
	}
	if len(files) == 0 {
		return Dataset{}, &FileError{File: name, Err: fmt.Errorf("no <app>%s files", suffix)}
	}
	return readEach(fsys, files, what+name, readECPGPUFile)
}

func readECPGPUFile(fsys fs.FS, name string, warn *[]string) ([]Point, error) {
	app := strings.TrimSuffix(path.Base(name), ".csv")
	if i := strings.LastIndex(app, "_cap_"); i > 0 {
		app = app[:i]
	}
	recs, err := readCSV(fsys, name)
	if err != nil {
		return nil, err
	}
	if len(recs) < 2 {
		return nil, &FileError{File: name, Err: errors.New("no data rows")}
	}
	head := recs[0]
	idx, err := columns(name, 1, head, ecpCPUCap, ecpGPUCap, ecpRuntime)
	if err != nil {
		return nil, err
	}
	ccol, gcol := slices.Index(head, ecpCPUE), slices.Index(head, ecpGPUE)
	if (ccol < 0) != (gcol < 0) { // one energy without the other: a damaged header
		missing := ecpCPUE
		if gcol < 0 {
			missing = ecpGPUE
		}
		return nil, &FileError{File: name, Line: 1, Field: missing, Err: errors.New("missing column (the other energy column is present)")}
	}
	var pts []Point
	for i, rec := range recs[1:] {
		line := i + 2
		if len(rec) != len(head) {
			return nil, &FileError{File: name, Line: line, Err: fmt.Errorf("%d fields, header has %d", len(rec), len(head))}
		}
		p := Point{App: app, Power: math.NaN(), GPUPower: math.NaN(), File: name, Line: line, XColumn: idx[1] + 1}
		for _, c := range []struct {
			dst *float64
			col int
		}{{&p.Cap, idx[0]}, {&p.GPUCap, idx[1]}, {&p.Runtime, idx[2]}} {
			if *c.dst, err = parseNum(rec[c.col], name, line, c.col+1, head[c.col]); err != nil {
				return nil, err
			}
		}
		for _, c := range []int{idx[0], idx[1], idx[2]} {
			v, _ := parseNum(rec[c], name, line, c+1, head[c])
			if !(v > 0) {
				return nil, &FileError{name, line, c + 1, head[c], fmt.Errorf("%v is not positive", v)}
			}
		}
		if p.Runtime > maxRuntime {
			return nil, &FileError{name, line, idx[2] + 1, ecpRuntime, fmt.Errorf("%v: runtime over %v s (ms given?)", p.Runtime, maxRuntime)}
		}
		if ccol >= 0 {
			for _, e := range []struct {
				dst *float64
				col int
			}{{&p.Power, ccol}, {&p.GPUPower, gcol}} {
				v, err := parseNum(rec[e.col], name, line, e.col+1, head[e.col])
				if err != nil {
					return nil, err
				}
				if !(v > 0) { // RAPL / NVML counter wrap (e.g. bert_cap_gpu.csv line 3)
					*warn = append(*warn, fmt.Sprintf("%s:%d:%d: %s %v is not positive: power of this run ignored", name, line, e.col+1, head[e.col], v))
					continue
				}
				*e.dst = v / p.Runtime
				if err := checkPower(*e.dst, name, line, e.col+1, "power from "+head[e.col]); err != nil {
					return nil, err
				}
			}
		}
		pts = append(pts, p)
	}
	return pts, nil
}
