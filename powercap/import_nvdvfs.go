package powercap

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"path"
	"strings"
)

// NV-DVFS-Benchmark column names.
const (
	nvBench = "benchmark"
	nvCore  = "core_frequency"
	nvMem   = "memory_frequency"
	nvPower = "average_power"
	nvTime  = "time"
)

// Plausible GPU core clocks in MHz, the unit of the NV-DVFS data: outside
// them the clock was most likely given in Hz or kHz (or GHz).
const minMHz, maxMHz = 100.0, 5000.0

// ReadNVDVFS reads the GPU DVFS sweeps of blackjack2015/NV-DVFS-Benchmark
// (data/<device>-dvfs-real.csv: 20 CUDA apps × 10 core clocks, 141 columns of
// which drsim reads benchmark, core_frequency, memory_frequency,
// average_power and time). name is one file or a directory of
// *-dvfs-real.csv files. Each row is one Point: App = "<benchmark>@<device>"
// (device = the file name before "-dvfs", so the same benchmark on two GPUs
// gives two apps), GPUFreq = core_frequency / 1000 (MHz → GHz; a clock
// outside 100–5000 MHz is an error naming the unit it was probably given
// in), GPUPower = average_power (W) and Runtime = time, the mean kernel time
// in the file's undocumented unit (its values, 0.04–69, look like ms): only
// ratios t(f)/t(fmax) reach the simulator.
func ReadNVDVFS(fsys fs.FS, name string) (Dataset, error) {
	files, err := walk(fsys, name, func(b string) bool { return strings.HasSuffix(b, ".csv") })
	if err != nil {
		return Dataset{}, err
	}
	if len(files) == 0 {
		return Dataset{}, &FileError{File: name, Err: errors.New("no <device>-dvfs-real.csv files")}
	}
	ds := Dataset{Source: "NV-DVFS-Benchmark GPU clock sweep " + name, Devices: map[string]string{}}
	for _, f := range files {
		ps, err := readNVDVFSFile(fsys, f)
		if err != nil {
			return Dataset{}, err
		}
		for _, p := range ps {
			ds.Devices[p.App] = deviceName(f)
		}
		ds.Points = append(ds.Points, ps...)
	}
	sortPoints(ds.Points)
	return ds, nil
}

// deviceTag is the file name before "-dvfs" ("v100", "rtx8000").
func deviceTag(file string) string {
	b := path.Base(file)
	if i := strings.Index(b, "-dvfs"); i > 0 {
		return b[:i]
	}
	return strings.TrimSuffix(b, ".csv")
}

// deviceName spells the GPU of a NV-DVFS file as SOURCES.md does.
func deviceName(file string) string {
	switch t := deviceTag(file); t {
	case "v100":
		return "Tesla V100"
	case "rtx8000":
		return "Quadro RTX 8000"
	default:
		return t
	}
}

func readNVDVFSFile(fsys fs.FS, name string) ([]Point, error) {
	recs, err := readCSV(fsys, name)
	if err != nil {
		return nil, err
	}
	if len(recs) < 2 {
		return nil, &FileError{File: name, Err: errors.New("no data rows")}
	}
	head := recs[0]
	idx, err := columns(name, 1, head, nvBench, nvCore, nvMem, nvPower, nvTime)
	if err != nil {
		return nil, err
	}
	tag := deviceTag(name)
	var pts []Point
	for i, rec := range recs[1:] {
		line := i + 2
		if len(rec) != len(head) {
			return nil, &FileError{File: name, Line: line, Err: fmt.Errorf("%d fields, header has %d", len(rec), len(head))}
		}
		bench := strings.TrimSpace(rec[idx[0]])
		if bench == "" {
			return nil, &FileError{name, line, idx[0] + 1, nvBench, errors.New("empty benchmark name")}
		}
		var v [4]float64
		for k, c := range idx[1:] {
			if v[k], err = parseNum(rec[c], name, line, c+1, head[c]); err != nil {
				return nil, err
			}
		}
		mhz := v[0]
		if hint := clockHint(mhz); hint != "" {
			return nil, &FileError{name, line, idx[1] + 1, "", fmt.Errorf("%s=%v: core clock out of range %v–%v MHz (%s given?)", nvCore, mhz, minMHz, maxMHz, hint)}
		}
		if !(v[3] > 0) {
			return nil, &FileError{name, line, idx[4] + 1, nvTime, fmt.Errorf("%v is not positive", v[3])}
		}
		if err := checkPower(v[2], name, line, idx[3]+1, nvPower); err != nil {
			return nil, err
		}
		pts = append(pts, Point{App: bench + "@" + tag, GPUFreq: mhz / 1000, Power: math.NaN(), GPUPower: v[2],
			Runtime: v[3], File: name, Line: line, XColumn: idx[1] + 1})
	}
	return pts, nil
}

// clockHint names the unit an out-of-range clock (meant in MHz) was most
// likely given in, or "" when it is plausible.
func clockHint(mhz float64) string {
	switch {
	case mhz >= minMHz && mhz <= maxMHz:
		return ""
	case mhz > 1e7:
		return "Hz"
	case mhz > maxMHz:
		return "kHz"
	case mhz > 0 && mhz < 10:
		return "GHz"
	}
	return "not MHz"
}
