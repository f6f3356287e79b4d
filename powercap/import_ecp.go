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

// ECP cap-sweep column names.
const (
	ecpCPUCap  = "CPU Cap (W)"
	ecpGPUCap  = "GPU Cap (W)"
	ecpCPUE    = "CPU_E (J)"
	ecpRuntime = "Runtime (s)"
)

// ReadECP reads the CPU-cap sweeps of GPU-accelerated ECP/ML apps
// (zzheng33/power GPGPU/data/ecp_power_cap_res*): name is one file or a
// directory searched recursively for <app>_cap_cpu.csv (CPU cap swept, GPU
// cap fixed) and <app>_cap_dual.csv (CPU × GPU grid: only the rows at the
// file's highest GPU cap are kept, so the GPU does not limit). GPU-cap sweeps
// (_cap_gpu, _cap_both) have a constant CPU cap and are skipped. X is the CPU
// cap; Power = CPU_E / Runtime when the file has a CPU_E column, else NaN
// (also NaN, with a warning, when CPU_E is not positive: a counter wrap).
func ReadECP(fsys fs.FS, name string) (Dataset, error) {
	files, err := walk(fsys, name, func(b string) bool {
		return strings.HasSuffix(b, "_cap_cpu.csv") || strings.HasSuffix(b, "_cap_dual.csv")
	})
	if err != nil {
		return Dataset{}, err
	}
	if len(files) == 0 {
		return Dataset{}, &FileError{File: name, Err: errors.New("no <app>_cap_cpu.csv or <app>_cap_dual.csv files")}
	}
	return readEach(fsys, files, "ECP CPU-cap sweep "+name, readECPFile)
}

// readEach reads every file with read into one dataset, points sorted.
func readEach(fsys fs.FS, files []string, source string, read func(fs.FS, string, *[]string) ([]Point, error)) (Dataset, error) {
	ds := Dataset{Source: source}
	for _, f := range files {
		ps, err := read(fsys, f, &ds.Warnings)
		if err != nil {
			return Dataset{}, err
		}
		ds.Points = append(ds.Points, ps...)
	}
	sortPoints(ds.Points)
	return ds, nil
}

func readECPFile(fsys fs.FS, name string, warn *[]string) ([]Point, error) {
	app := path.Base(name)
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
	idx, err := columns(name, 1, recs[0], ecpCPUCap, ecpGPUCap, ecpRuntime)
	if err != nil {
		return nil, err
	}
	ecol := slices.Index(recs[0], ecpCPUE)
	var pts []Point
	var gpu []float64
	for i, rec := range recs[1:] {
		line := i + 2
		if len(rec) != len(recs[0]) {
			return nil, &FileError{File: name, Line: line, Err: fmt.Errorf("%d fields, header has %d", len(rec), len(recs[0]))}
		}
		p := Point{App: app, Power: math.NaN(), File: name, Line: line, XColumn: idx[0] + 1}
		var g float64
		for _, c := range []struct {
			dst *float64
			col int
		}{{&p.Cap, idx[0]}, {&g, idx[1]}, {&p.Runtime, idx[2]}} {
			if *c.dst, err = parseNum(rec[c.col], name, line, c.col+1, recs[0][c.col]); err != nil {
				return nil, err
			}
		}
		if !(p.Runtime > 0) {
			return nil, &FileError{name, line, idx[2] + 1, ecpRuntime, fmt.Errorf("%v is not positive", p.Runtime)}
		}
		if ecol >= 0 {
			e, err := parseNum(rec[ecol], name, line, ecol+1, ecpCPUE)
			if err != nil {
				return nil, err
			}
			if e > 0 {
				p.Power = e / p.Runtime
			} else { // RAPL counter wrap (e.g. Resnet50_cap_cpu.csv line 5): keep the runtime only
				*warn = append(*warn, fmt.Sprintf("%s:%d:%d: %s %v is not positive: power of this run ignored", name, line, ecol+1, ecpCPUE, e))
			}
		}
		pts = append(pts, p)
		gpu = append(gpu, g)
	}
	if strings.HasSuffix(name, "_cap_dual.csv") {
		top := slices.Max(gpu)
		kept := pts[:0]
		for i, p := range pts {
			if gpu[i] == top {
				kept = append(kept, p)
			}
		}
		pts = kept
	}
	return pts, nil
}
