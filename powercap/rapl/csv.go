package rapl

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/gocarina/gocsv"
)

// Row is one line of the generic calibration CSV that "drsim calibrate"
// reads: app,x,power_w,runtime_s,nodes,energy_j. For a cap sweep x is the
// applied cap in W. One Row per run: repeats are separate rows.
type Row struct {
	App      string  `csv:"app"`
	X        float64 `csv:"x"`
	PowerW   float64 `csv:"power_w"`   // mean power of the zone (one package), W
	RuntimeS float64 `csv:"runtime_s"` // s
	Nodes    int     `csv:"nodes"`     // always 1: measure runs on one machine
	EnergyJ  float64 `csv:"energy_j"`  // J
}

// Rows turns measurements of application app into calibration rows.
func Rows(app string, ms []Measurement) []Row {
	rows := make([]Row, len(ms))
	for i, m := range ms {
		rows[i] = Row{App: app, X: m.Cap, PowerW: m.Power, RuntimeS: m.Runtime, Nodes: 1, EnergyJ: m.Energy}
	}
	return rows
}

// WriteCSV writes rows, with a header line, to w.
func WriteCSV(w io.Writer, rows []Row) error {
	if err := gocsv.Marshal(rows, w); err != nil {
		return fmt.Errorf("rapl: writing CSV: %w", err)
	}
	return nil
}

// WriteCSVFile writes rows to path all at once: through a temporary file in
// the same directory, synced and renamed into place, so path never holds a
// partial CSV. Unless overwrite is set, an existing path is an error wrapping
// fs.ErrExist and is left untouched.
func WriteCSVFile(path string, rows []Row, overwrite bool) (err error) {
	if !overwrite {
		if err := checkAbsent(path); err != nil {
			return err
		}
	}
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp*")
	if err != nil {
		return fmt.Errorf("rapl: %w", err)
	}
	tmp := f.Name()
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(tmp)
		}
	}()
	bw := bufio.NewWriter(f)
	if err := WriteCSV(bw, rows); err != nil {
		return err
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("rapl: %w", err)
	}
	if err := f.Chmod(0o644); err != nil {
		return fmt.Errorf("rapl: %w", err)
	}
	if err := f.Sync(); err != nil {
		return fmt.Errorf("rapl: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("rapl: %w", err)
	}
	if overwrite {
		if err := os.Rename(tmp, path); err != nil {
			return fmt.Errorf("rapl: %w", err)
		}
		return nil
	}
	// A hard link fails if path appeared meanwhile, where a rename would
	// silently replace it.
	if err := os.Link(tmp, path); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return fmt.Errorf("rapl: %s already exists: %w", path, fs.ErrExist)
		}
		return fmt.Errorf("rapl: %w", err)
	}
	os.Remove(tmp)
	return nil
}

// checkAbsent fails, wrapping fs.ErrExist, when path exists.
func checkAbsent(path string) error {
	if _, err := os.Lstat(path); err == nil {
		return fmt.Errorf("rapl: %s already exists: %w", path, fs.ErrExist)
	}
	return nil
}

// MeasureFile runs Measure and, only if every run succeeded, writes the rows
// of application app to path with WriteCSVFile. An existing path (without
// overwrite) is refused before anything is measured; on any error no file is
// created.
func MeasureFile(ctx context.Context, cfg Config, app, path string, overwrite bool) ([]Measurement, error) {
	if !overwrite {
		if err := checkAbsent(path); err != nil {
			return nil, err
		}
	}
	ms, err := Measure(ctx, cfg)
	if err != nil {
		return ms, err
	}
	return ms, WriteCSVFile(path, Rows(app, ms), overwrite)
}

// maxCaps bounds the length of a cap list, so a range with a tiny step is
// refused rather than run for days.
const maxCaps = 10000

// ParseCaps reads a comma-separated list of caps in W whose items are numbers
// ("80,100,150") or inclusive ranges lo:hi:step ("80:250:10" is 80, 90, …,
// 250). Range values are rounded to whole µW, so 0.1 W steps stay exact.
func ParseCaps(s string) ([]float64, error) {
	var caps []float64
	for i, item := range strings.Split(s, ",") {
		item = strings.TrimSpace(item)
		var vs []float64
		var err error
		if strings.Contains(item, ":") {
			vs, err = parseRange(item)
		} else {
			var v float64
			v, err = parseCap(item)
			vs = []float64{v}
		}
		if err != nil {
			return nil, fmt.Errorf("rapl: caps %q: item %d (%q): %w", s, i+1, item, err)
		}
		caps = append(caps, vs...)
		if len(caps) > maxCaps {
			return nil, fmt.Errorf("rapl: caps %q: more than %d caps", s, maxCaps)
		}
	}
	return caps, nil
}

func parseCap(s string) (float64, error) {
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0, errors.Unwrap(err)
	}
	if !(v > 0 && v < 1e9) {
		return 0, errors.New("not a positive power in W")
	}
	return v, nil
}

func parseRange(s string) ([]float64, error) {
	parts := strings.Split(s, ":")
	if len(parts) != 3 {
		return nil, errors.New("a range is lo:hi:step")
	}
	var v [3]float64
	for i, p := range parts {
		var err error
		if v[i], err = parseCap(strings.TrimSpace(p)); err != nil {
			return nil, fmt.Errorf("%s: %w", [...]string{"lo", "hi", "step"}[i], err)
		}
	}
	lo, hi, step := v[0], v[1], v[2]
	if hi < lo {
		return nil, fmt.Errorf("hi %v is below lo %v", hi, lo)
	}
	n := math.Floor((hi-lo)/step+1e-9) + 1
	if n > maxCaps {
		return nil, fmt.Errorf("more than %d caps", maxCaps)
	}
	vs := make([]float64, int(n))
	for i := range vs {
		vs[i] = math.Round((lo+float64(i)*step)*1e6) / 1e6
	}
	return vs, nil
}
