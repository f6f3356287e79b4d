package powercap

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/gocarina/gocsv"
)

// An Importer reads one measurement file or directory (name, inside fsys)
// into a Dataset. Errors are *FileError naming the file relative to fsys.
type Importer func(fsys fs.FS, name string) (Dataset, error)

// Importers is the registry of measurement formats, keyed by the name
// `drsim calibrate --format` takes.
var Importers = map[string]Importer{
	"generic":      ReadGeneric,
	"pcm-capsweep": ReadPCMSweep,
	"ecp-cap":      ReadECP,
	"iconoclast":   ReadIconoclast,
	"ecp-gpucap":   ReadECPGPU,  // import_ecp_gpu.go
	"ecp-dual":     ReadECPDual, // import_ecp_gpu.go
	"nv-dvfs":      ReadNVDVFS,  // import_nvdvfs.go
}

// ImporterNames returns the registry keys, sorted.
func ImporterNames() []string {
	names := make([]string, 0, len(Importers))
	for k := range Importers {
		names = append(names, k)
	}
	sort.Strings(names)
	return names
}

// genericRow is one line of the generic long format, read by gocsv as text
// so that every bad value can be reported with its line and column.
type genericRow struct {
	App     string `csv:"app"`
	X       string `csv:"x"`
	Power   string `csv:"power_w"`
	Runtime string `csv:"runtime_s"`
	Nodes   string `csv:"nodes"`
	Energy  string `csv:"energy_j"`
}

// ReadGeneric reads the generic long format: a headered CSV with columns
// app, x, power_w, runtime_s and optionally nodes and energy_j, one row per
// measurement, repeats allowed. x is the setting (GHz or W: the knob is
// chosen at calibration, so Point.Cap and Point.Freq both hold x). power_w
// is the mean power per processor; when it is empty and energy_j (the whole
// job's energy) is given, power = energy_j / (nodes · runtime_s), nodes
// defaulting to 1. Quoted fields must not span lines.
func ReadGeneric(fsys fs.FS, name string) (Dataset, error) {
	data, err := fs.ReadFile(fsys, name)
	if err != nil {
		return Dataset{}, &FileError{File: name, Err: pathErr(err)}
	}
	header, err := csv.NewReader(bytes.NewReader(data)).Read()
	if err != nil {
		return Dataset{}, &FileError{File: name, Line: 1, Err: fmt.Errorf("reading header: %v", err)}
	}
	cols := map[string]int{}
	for i, h := range header {
		cols[strings.TrimSpace(h)] = i + 1
	}
	for _, need := range []string{"app", "x", "power_w", "runtime_s"} {
		if cols[need] == 0 {
			return Dataset{}, &FileError{File: name, Line: 1, Field: need, Err: fmt.Errorf("missing column (header has %s)", oneLine(strings.Join(header, ",")))}
		}
	}
	var rows []genericRow
	if err := gocsv.UnmarshalBytes(data, &rows); err != nil {
		return Dataset{}, csvErr(name, err)
	}
	if len(rows) == 0 {
		return Dataset{}, &FileError{File: name, Err: errors.New("no measurement rows after the header")}
	}
	ds := Dataset{Source: "generic CSV " + name}
	for i, r := range rows {
		p, err := r.point(name, i+2, cols)
		if err != nil {
			return Dataset{}, err
		}
		ds.Points = append(ds.Points, p)
	}
	return ds, nil
}

func (r genericRow) point(file string, line int, cols map[string]int) (Point, error) {
	p := Point{App: strings.TrimSpace(r.App), Power: math.NaN(), GPUPower: math.NaN(), File: file, Line: line, XColumn: cols["x"]}
	if p.App == "" {
		return p, &FileError{file, line, cols["app"], "app", errors.New("empty application name")}
	}
	num := func(s, field string) (float64, error) {
		return parseNum(strings.TrimSpace(s), file, line, cols[field], field)
	}
	var err error
	if p.Cap, err = num(r.X, "x"); err != nil {
		return p, err
	}
	p.Freq, p.GPUCap, p.GPUFreq = p.Cap, p.Cap, p.Cap
	if p.Runtime, err = num(r.Runtime, "runtime_s"); err != nil {
		return p, err
	}
	if !(p.Cap > 0) {
		return p, &FileError{file, line, cols["x"], "x", fmt.Errorf("%v is not positive", p.Cap)}
	}
	if !(p.Runtime > 0) {
		return p, &FileError{file, line, cols["runtime_s"], "runtime_s", fmt.Errorf("%v is not positive", p.Runtime)}
	}
	if p.Runtime > maxRuntime {
		return p, &FileError{file, line, cols["runtime_s"], "", fmt.Errorf("runtime_s=%v: runtime over %v s (ms given?)", p.Runtime, maxRuntime)}
	}
	if strings.TrimSpace(r.Power) != "" {
		if p.Power, err = num(r.Power, "power_w"); err != nil {
			return p, err
		}
		p.GPUPower = p.Power
		return p, checkPower(p.Power, file, line, cols["power_w"], "power_w")
	}
	if strings.TrimSpace(r.Energy) == "" {
		return p, nil
	}
	nodes := 1.0
	if strings.TrimSpace(r.Nodes) != "" {
		if nodes, err = num(r.Nodes, "nodes"); err != nil {
			return p, err
		}
		if !(nodes >= 1) {
			return p, &FileError{file, line, cols["nodes"], "nodes", fmt.Errorf("%v is not >= 1", nodes)}
		}
	}
	e, err := num(r.Energy, "energy_j")
	if err != nil {
		return p, err
	}
	p.Power = e / (nodes * p.Runtime)
	p.GPUPower = p.Power
	return p, checkPower(p.Power, file, line, cols["energy_j"], "power from energy_j")
}

// maxRuntime bounds a measured run (s): a longer one was most likely given
// in milliseconds.
const maxRuntime = 1e6

// checkPower rejects a power per processor outside minW–maxW, naming the
// unit it was probably given in.
func checkPower(w float64, file string, line, col int, what string) error {
	hint := ""
	switch {
	case w > maxW:
		hint = " (mW given?)"
	case w > 0 && w < minW:
		hint = " (kW given?)"
	case w >= minW:
		return nil
	}
	return &FileError{file, line, col, "", fmt.Errorf("%s=%v: power per processor out of range %v–%v W%s", what, w, minW, maxW, hint)}
}

// readCSV reads a small CSV file whole, with a variable number of fields.
func readCSV(fsys fs.FS, name string) ([][]string, error) {
	f, err := fsys.Open(name)
	if err != nil {
		return nil, &FileError{File: name, Err: pathErr(err)}
	}
	defer f.Close()
	r := csv.NewReader(f)
	r.FieldsPerRecord = -1
	var recs [][]string
	for {
		rec, err := r.Read()
		if err == io.EOF {
			return recs, nil
		}
		if err != nil {
			return nil, csvErr(name, err)
		}
		recs = append(recs, rec)
	}
}

// oneLine escapes the line breaks a quoted CSV field may hold, so that an
// error quoting it stays one line.
func oneLine(s string) string { return strings.NewReplacer("\r", `\r`, "\n", `\n`).Replace(s) }

// csvErr places an encoding/csv error at its line and column of name.
func csvErr(name string, err error) error {
	line, col := 0, 0
	if pe, ok := errors.AsType[*csv.ParseError](err); ok {
		line, col, err = pe.Line, pe.Column, pe.Err
	}
	return &FileError{File: name, Line: line, Column: col, Err: err}
}

// pathErr drops the operation and path of an *fs.PathError: the FileError
// carrying it names the file already.
func pathErr(err error) error {
	if pe, ok := errors.AsType[*fs.PathError](err); ok {
		return pe.Err
	}
	return err
}

// columns maps the wanted header names to 0-based indices, or names the
// first missing one.
func columns(file string, line int, header []string, want ...string) ([]int, error) {
	idx := make([]int, len(want))
	for i, w := range want {
		idx[i] = slices.Index(header, w)
		if idx[i] < 0 {
			return nil, &FileError{File: file, Line: line, Field: w, Err: errors.New("missing column")}
		}
	}
	return idx, nil
}

// walk lists the regular files under name (or name itself), sorted, whose
// base name satisfies keep.
func walk(fsys fs.FS, name string, keep func(base string) bool) ([]string, error) {
	var out []string
	err := fs.WalkDir(fsys, name, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && keep(d.Name()) {
			out = append(out, p)
		}
		return nil
	})
	if err != nil {
		return nil, &FileError{File: name, Err: err}
	}
	sort.Strings(out)
	return out, nil
}

func sortPoints(ps []Point) {
	sort.SliceStable(ps, func(i, j int) bool {
		a, b := ps[i], ps[j]
		if a.App != b.App {
			return a.App < b.App
		}
		if a.Cap != b.Cap {
			return a.Cap < b.Cap
		}
		if a.Freq != b.Freq {
			return a.Freq < b.Freq
		}
		if a.GPUCap != b.GPUCap {
			return a.GPUCap < b.GPUCap
		}
		return a.GPUFreq < b.GPUFreq
	})
}
