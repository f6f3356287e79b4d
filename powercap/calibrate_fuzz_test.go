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
// every knob and SaveModel of every result (scripts/fuzz.sh runs them).
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
	"ecp-gpucap": {"lu_cap_gpu.csv", ReadECPGPU, []string{
		"CPU Cap (W),GPU Cap (W),CPU_E (J),GPU_E (J),Runtime (s)\n540,250,2000,1000,10\n540,200,2000,900,11\n540,150,-5,600,12\n540,100,2000,500,14\n",
		"CPU Cap (W),GPU Cap (W),Runtime (s)\n240,100,40\n240,180,30\n240,260,25\n240,220,26\n",
	}, "zzheng33__power/GPGPU/data/ecp_power_cap_res*/single_cap/*_cap_gpu.csv"},
	"ecp-dual": {"lu_cap_dual.csv", ReadECPDual, []string{
		"CPU Cap (W),GPU Cap (W),CPU_E (J),GPU_E (J),Runtime (s)\n250,260,2500,2600,20\n250,180,2500,1800,22\n250,100,2500,1000,23\n150,260,1500,2600,22\n150,180,1500,1800,24\n150,100,1500,1000,25\n70,260,700,2600,24\n70,180,700,1800,26\n70,100,700,1000,27\n",
	}, "zzheng33__power/GPGPU/data/ecp_power_cap_res_rtx6000/dual_cap/*_cap_dual.csv"},
	"nv-dvfs": {"v100-dvfs-real.csv", ReadNVDVFS, []string{
		"benchmark,core_frequency,memory_frequency,average_power,time\nmm,405,877,42.8,27.9\nmm,802,877,88.6,7.6\nmm,1087,877,122.2,5.7\nmm,1380,877,186.1,4.5\n",
	}, "blackjack2015__NV-DVFS-Benchmark/data/*.csv"},
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
			if p.App == "" || !(p.Runtime > 0) || math.IsInf(p.Runtime, 0) || math.IsInf(p.Power, 0) || math.IsInf(p.GPUPower, 0) {
				t.Fatalf("imported point %+v: want an app, a finite runtime > 0 and a finite or NaN power", p)
			}
		}
		knobs := []Knob{Freq, Cap, GPUFreq, GPUCap, Joint}
		if format == "ecp-dual" {
			knobs = []Knob{Joint} // grids are for the joint model; an exp LOO over 360 runs is slow
		}
		for _, k := range knobs {
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
func FuzzReadECPGPU(f *testing.F)     { fuzzImport(f, "ecp-gpucap") }
func FuzzReadECPDual(f *testing.F)    { fuzzImport(f, "ecp-dual") }
func FuzzReadNVDVFS(f *testing.F)     { fuzzImport(f, "nv-dvfs") }
