package powercap

import (
	"bytes"
	"context"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/fstest"

	"drsim/internal/sharedtest"
)

// Fuzz targets for the calibration importers, each followed by Calibrate on
// both knobs and SaveModel of every result (scripts/fuzz.sh runs them).
// Seeds: small inline files, the cal-* cases of testdata/bad and, when
// DRSIM_SHARED is set, real measurement files (first 16 KiB).

// fuzzImporter names the file an importer finds in the fuzz file system.
type fuzzImporter struct {
	file   string
	read   Importer
	seeds  []string
	shared string // glob under $DRSIM_SHARED/power
}

var fuzzImporters = map[string]fuzzImporter{
	"generic": {"m.csv", ReadGeneric, []string{
		"app,x,power_w,runtime_s\nlu,1.2,80,300\nlu,1.6,100,240\nlu,2.0,125,200\nlu,2.4,150,160\n",
		"app,x,power_w,runtime_s,nodes,energy_j\nft,100,,50,2,8000\nft,150,,40,2,9000\nft,200,,35,2,9800\nft,250,,33,2,11000\n",
		"app,x,runtime_s,power_w\n\"a,b\",1,2,3\n",
	}, ""},
	"pcm-capsweep": {"pcm_lu_120.csv", ReadPCMSweep, []string{
		";System;;Socket 0\nDate;Time;CFREQ;Proc Energy (Joules)\n2024-01-01;10:00:00.000;2.1;100\n2024-01-01;10:00:01.000;2.2;120\n2024-01-01;10:00:02.500;2.0;110\n",
		",,\nDate,Time,CFREQ,Proc Energy (Joules)\nx,10:00:00.000,2.1,100\nx,10:00:01.000,2.2,120\nx,10:00:03.000,2.3,90\n",
	}, "zzheng33__power/GPGPU/data/cpu_performance/small/*/pcm_*.csv"},
	"ecp-cap": {"lu_cap_cpu.csv", ReadECP, []string{
		"CPU Cap (W),GPU Cap (W),Runtime (s),CPU_E\n100,250,50,5000\n150,250,40,6000\n200,250,35,7000\n250,250,33,8250\n",
		"CPU Cap (W),GPU Cap (W),Runtime (s)\n100,250,50\n150,250,-1\n",
	}, "zzheng33__power/GPGPU/data/ecp_power_cap_res/single_cap/*_cap_cpu.csv"},
	"iconoclast": {"data.csv", ReadIconoclast, []string{
		"data.csv,\nminimd-1.2GHz.out,3m06s359112us,1000,2000\nminimd-2.4GHz.out,1m36s000000us,1200,2500\nsleep-1.2GHz.out,0m10s0us,100,200\n",
	}, "csrhau__Iconoclast/Tools/Power/*/*/*/data.csv"},
}

func fuzzImport(f *testing.F, format string) {
	imp := fuzzImporters[format]
	for _, s := range imp.seeds {
		f.Add([]byte(s))
	}
	seeds, _ := filepath.Glob("../testdata/bad/cal-*/*.csv")
	if dir := os.Getenv(sharedtest.Env); dir != "" && imp.shared != "" {
		shared, _ := filepath.Glob(filepath.Join(dir, "power", imp.shared))
		seeds = append(seeds, shared...)
	}
	for _, p := range seeds {
		if b := fileHead(p, 16<<10); b != nil {
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		ds, err := imp.read(fstest.MapFS{imp.file: {Data: data}}, imp.file)
		if err != nil {
			checkFileErr(t, err, imp.file)
			return
		}
		for _, p := range ds.Points {
			if p.App == "" || !(p.Runtime > 0) || math.IsInf(p.Runtime, 0) || math.IsInf(p.Power, 0) {
				t.Fatalf("imported point %+v: want an app, a finite runtime > 0 and a finite or NaN power", p)
			}
		}
		for _, k := range []Knob{Freq, Cap} {
			cals, err := Calibrate(context.Background(), ds, k)
			if err != nil {
				checkFileErr(t, err, imp.file)
				continue
			}
			for _, c := range cals {
				if err := c.Profile.Validate(); err != nil {
					t.Fatalf("calibrated profile does not validate: %v", err)
				}
				var b bytes.Buffer
				if err := SaveModel(&b, c.Profile); err != nil {
					t.Fatalf("calibrated profile cannot be saved: %v", err)
				}
				if err := c.WriteReport(io.Discard); err != nil {
					t.Fatal(err)
				}
			}
		}
	})
}

// fileHead returns the first n bytes of path cut at a line end.
func fileHead(path string, n int64) []byte {
	fh, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer fh.Close()
	b, _ := io.ReadAll(io.LimitReader(fh, n))
	if i := bytes.LastIndexByte(b, '\n'); int64(len(b)) == n && i > 0 {
		b = b[:i+1]
	}
	return b
}

// checkFileErr fails unless err is one line naming file first.
func checkFileErr(t *testing.T, err error, file string) {
	t.Helper()
	msg := err.Error()
	if strings.ContainsAny(msg, "\n\r") || !strings.HasPrefix(msg, file+":") {
		t.Fatalf("error is not one line starting with %s: %q", file, msg)
	}
}

func FuzzReadGeneric(f *testing.F)    { fuzzImport(f, "generic") }
func FuzzReadPCMSweep(f *testing.F)   { fuzzImport(f, "pcm-capsweep") }
func FuzzReadECP(f *testing.F)        { fuzzImport(f, "ecp-cap") }
func FuzzReadIconoclast(f *testing.F) { fuzzImport(f, "iconoclast") }
