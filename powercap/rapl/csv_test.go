package rapl

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gocarina/gocsv"
)

func TestMeasureFileParsesBack(t *testing.T) {
	r := newRig(t, defaultZone)
	r.cfg.Caps = []float64{100.07, 150}
	out := filepath.Join(t.TempDir(), "meas.csv")
	if _, err := MeasureFile(context.Background(), r.cfg, "miniMD", out, false); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if header, _, _ := strings.Cut(string(b), "\n"); header != "app,x,power_w,runtime_s,nodes,energy_j" {
		t.Errorf("header %q", header)
	}
	var rows []Row
	if err := gocsv.UnmarshalBytes(b, &rows); err != nil {
		t.Fatal(err)
	}
	// Hand-computed (see TestMeasureSweep): x is the read-back cap.
	want := []Row{
		{App: "miniMD", X: 100, PowerW: 85, RuntimeS: 20, Nodes: 1, EnergyJ: 1700},
		{App: "miniMD", X: 150, PowerW: 1700.0 / 15, RuntimeS: 15, Nodes: 1, EnergyJ: 1700},
	}
	if !slices.Equal(rows, want) {
		t.Errorf("rows =\n%+v\nwant\n%+v\nfile:\n%s", rows, want, b)
	}
	if ents, _ := os.ReadDir(filepath.Dir(out)); len(ents) != 1 {
		t.Errorf("directory holds %d entries, want only meas.csv (no temp files)", len(ents))
	}
}

func TestMeasureFileFailureLeavesNoFile(t *testing.T) {
	r := newRig(t, defaultZone)
	r.cfg.Caps = []float64{90, 120}
	r.app.fail = map[int]error{2: errors.New("exit status 1")}
	dir := t.TempDir()
	if _, err := MeasureFile(context.Background(), r.cfg, "a", filepath.Join(dir, "m.csv"), false); err == nil {
		t.Fatal("no error")
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Errorf("directory holds %v after a failed sweep", ents)
	}
}

func TestWriteCSVFileOverwrite(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "m.csv")
	must(os.WriteFile(path, []byte("precious\n"), 0o644))
	rows := []Row{{App: "a", X: 80, PowerW: 79.5, RuntimeS: 12.25, Nodes: 1, EnergyJ: 973.875}}
	err := WriteCSVFile(path, rows, false)
	if !errors.Is(err, fs.ErrExist) || err.Error() != "rapl: "+path+" already exists: file already exists" {
		t.Errorf("WriteCSVFile without overwrite = %v", err)
	}
	r := newRig(t, defaultZone)
	r.cfg.Caps = []float64{100}
	if _, err := MeasureFile(context.Background(), r.cfg, "a", path, false); !errors.Is(err, fs.ErrExist) || len(r.app.argvs) != 0 {
		t.Errorf("MeasureFile onto an existing file = %v after %d runs; want ErrExist before running", err, len(r.app.argvs))
	}
	if b, _ := os.ReadFile(path); string(b) != "precious\n" {
		t.Errorf("existing file changed to %q", b)
	}
	if err := WriteCSVFile(path, rows, true); err != nil {
		t.Fatal(err)
	}
	want := "app,x,power_w,runtime_s,nodes,energy_j\na,80,79.5,12.25,1,973.875\n"
	if b, _ := os.ReadFile(path); string(b) != want {
		t.Errorf("file = %q, want %q", b, want)
	}
	var buf bytes.Buffer
	if err := WriteCSV(&buf, rows); err != nil || buf.String() != want {
		t.Errorf("WriteCSV = %q, %v", buf.String(), err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("directory holds %d entries, want 1", len(ents))
	}
}

func TestParseCaps(t *testing.T) {
	tests := []struct {
		in   string
		want []float64
		err  string
	}{
		{"80,100,250", []float64{80, 100, 250}, ""},
		{"80:120:10", []float64{80, 90, 100, 110, 120}, ""},
		{"80:125:10", []float64{80, 90, 100, 110, 120}, ""},     // hi not on the grid
		{"1:1.3:0.1", []float64{1, 1.1, 1.2, 1.3}, ""},          // 0.1 W steps stay exact
		{"250, 80:100:20 ,60", []float64{250, 80, 100, 60}, ""}, // items mix
		{"100:100:5", []float64{100}, ""},
		{"", nil, `rapl: caps "": item 1 (""): invalid syntax`},
		{"80,x", nil, `rapl: caps "80,x": item 2 ("x"): invalid syntax`},
		{"80,-5", nil, `rapl: caps "80,-5": item 2 ("-5"): not a positive power in W`},
		{"NaN", nil, `rapl: caps "NaN": item 1 ("NaN"): not a positive power in W`},
		{"100:80:10", nil, `rapl: caps "100:80:10": item 1 ("100:80:10"): hi 80 is below lo 100`},
		{"80:100", nil, `rapl: caps "80:100": item 1 ("80:100"): a range is lo:hi:step`},
		{"80:100:0", nil, `rapl: caps "80:100:0": item 1 ("80:100:0"): step: not a positive power in W`},
		{"1:1000000:1", nil, `rapl: caps "1:1000000:1": item 1 ("1:1000000:1"): more than 10000 caps`},
	}
	for _, tt := range tests {
		got, err := ParseCaps(tt.in)
		if tt.err != "" {
			if err == nil || err.Error() != tt.err {
				t.Errorf("ParseCaps(%q) error = %v, want %s", tt.in, err, tt.err)
			}
			continue
		}
		if err != nil || !slices.Equal(got, tt.want) {
			t.Errorf("ParseCaps(%q) = %v, %v; want %v", tt.in, got, err, tt.want)
		}
	}
}
