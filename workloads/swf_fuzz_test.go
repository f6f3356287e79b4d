package workloads

import (
	"bytes"
	"cmp"
	"compress/gzip"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"drsim/internal/sharedtest"
)

// Fuzz targets for the SWF reader (scripts/fuzz.sh runs them). Seeds: small
// inline traces, the SWF cases of testdata/bad, and, when DRSIM_SHARED is
// set, the first 32 KiB of every shared trace.

const fuzzFile = "f.swf"

func addSWFSeeds(f *testing.F, add func([]byte)) {
	for _, s := range []string{
		"; MaxProcs: 8\n1 0 0 100 2 -1 -1 2 200 -1 1 1 1 1 1 1 -1 -1\n2 10 0 50 4 -1 -1 4 100 -1 1 1 1 1 1 1 -1 -1\n",
		"\xef\xbb\xbf; MaxNodes: 4\r\n1\t0\t0\t1.5\t2\t-1\t-1\t-1\t-1\t-1\t1\t1\t1\t1\t1\t1\t-1\t-1\r\n",
		"1 5 0 10 1 -1 -1 1 5 -1 1 1 1 1 1 1 -1 -1\n1 3 0 1e3 1 -1 -1 1 -1 -1 1 1 1 1 1 1 -1 -1\n",
		"; MaxProcs: lots\n1 0 0 100 -2 -1 -1 -2 200 -1 1 1 1 1 1 1 -1 -1\n2 0 0 0 4 -1 -1 4 100 -1 1 1 1 1 1 1 -1 -1\n",
		"1 0 0 NaN 2 -1 -1 2 200 -1 1 1 1 1 1 1 -1 -1 9\n",
		"",
	} {
		add([]byte(s))
	}
	bad, _ := filepath.Glob("../testdata/bad/swf-*/trace.swf*")
	for _, p := range bad {
		if b, err := os.ReadFile(p); err == nil {
			add(b)
		}
	}
	if dir := os.Getenv(sharedtest.Env); dir != "" {
		traces, _ := filepath.Glob(filepath.Join(dir, "traces", "*.swf*"))
		for _, p := range traces {
			if b := headOf(p, 32<<10); b != nil {
				add(b)
			}
		}
	}
}

// headOf returns the first n bytes of a (possibly gzip) file, decompressed.
func headOf(path string, n int64) []byte {
	fh, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer fh.Close()
	var r io.Reader = fh
	if strings.HasSuffix(path, ".gz") {
		zr, err := gzip.NewReader(fh)
		if err != nil {
			return nil
		}
		r = zr
	}
	b, _ := io.ReadAll(io.LimitReader(r, n))
	return b
}

// checkErr fails unless err is one line naming the input file first.
func checkErr(t *testing.T, err error) {
	t.Helper()
	msg := err.Error()
	if strings.ContainsAny(msg, "\n\r") {
		t.Fatalf("error is not one line: %q", msg)
	}
	if !strings.HasPrefix(msg, fuzzFile+":") {
		t.Fatalf("error does not start with the file name: %q", msg)
	}
}

// checkJob fails unless a kept job is usable by the simulator.
func checkJob(t *testing.T, j Job, machine int64) {
	t.Helper()
	if j.Procs < 1 || !(j.Run > 0) || !(j.Submit >= 0) || !(j.Estimate > 0) || j.Line < 1 {
		t.Fatalf("line %d: kept job %+v breaks Procs >= 1, Run > 0, Submit >= 0, Estimate > 0", j.Line, j)
	}
	if machine > 0 && j.Procs > machine {
		t.Fatalf("line %d: kept job with %d processors on a %d-processor machine", j.Line, j.Procs, machine)
	}
}

// readAll reads data with a Reader, checking every job and the report.
func readAll(t *testing.T, data []byte, opt Options) ([]Job, *Report, error) {
	r, err := NewReader(bytes.NewReader(data), opt)
	if err != nil {
		return nil, nil, err
	}
	var jobs []Job
	for {
		j, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, nil, err
		}
		machine, _ := r.Machine()
		checkJob(t, j, machine)
		if opt.Strict && len(jobs) > 0 && j.Submit < jobs[len(jobs)-1].Submit {
			t.Fatalf("strict reader returned unsorted submits %v then %v", jobs[len(jobs)-1].Submit, j.Submit)
		}
		jobs = append(jobs, j)
	}
	rep := r.Report()
	if rep.Kept != int64(len(jobs)) || rep.Records != rep.Kept+rep.Dropped || rep.Kept == 0 {
		t.Fatalf("report counts: kept %d (returned %d), records %d, dropped %d", rep.Kept, len(jobs), rep.Records, rep.Dropped)
	}
	if m, _ := r.Machine(); m < rep.MaxProcs {
		t.Fatalf("machine %d smaller than the largest kept job %d", m, rep.MaxProcs)
	}
	return jobs, rep, nil
}

// FuzzReader: the streaming reader never panics, fails with one line naming
// the file, and keeps only usable jobs (strict: in submit order).
func FuzzReader(f *testing.F) {
	addSWFSeeds(f, func(b []byte) { f.Add(b, false); f.Add(b, true) })
	f.Fuzz(func(t *testing.T, data []byte, strict bool) {
		_, _, err := readAll(t, data, Options{File: fuzzFile, Strict: strict})
		if err != nil {
			checkErr(t, err)
			if pe, ok := errors.AsType[*ParseError](err); ok && (pe.Line < 1 || pe.Field < 1 || pe.Field > numFields+1) {
				t.Fatalf("ParseError at line %d field %d: %v", pe.Line, pe.Field, err)
			}
		}
	})
}

// FuzzLoad: Load (through gzip and the read-ahead goroutine when gz is set)
// returns the Reader's jobs, sorted by submit time, or the Reader's error.
func FuzzLoad(f *testing.F) {
	addSWFSeeds(f, func(b []byte) { f.Add(b, false); f.Add(b, true) })
	f.Fuzz(func(t *testing.T, data []byte, gz bool) {
		if gz && bytes.HasPrefix(data, []byte{0x1f, 0x8b}) {
			return // gzip inside gzip: Load reads one layer, as it should
		}
		opt := Options{File: fuzzFile}
		want, _, werr := readAll(t, data, opt)
		in := data
		if gz {
			var b bytes.Buffer
			zw := gzip.NewWriter(&b)
			zw.Write(data)
			zw.Close()
			in = b.Bytes()
		}
		tr, err := Load(bytes.NewReader(in), opt)
		if err != nil {
			checkErr(t, err)
			if werr == nil {
				t.Fatalf("Load failed but the Reader did not: %v", err)
			}
			return
		}
		if werr != nil {
			t.Fatalf("Load succeeded but the Reader failed: %v", werr)
		}
		slices.SortStableFunc(want, func(a, b Job) int { return cmp.Compare(a.Submit, b.Submit) })
		if !slices.Equal(tr.Jobs, want) {
			t.Fatalf("Load returned %d jobs differing from the Reader's %d sorted", len(tr.Jobs), len(want))
		}
		if int64(len(tr.Jobs)) != tr.Report.Kept || tr.MachineProcs < tr.Report.MaxProcs {
			t.Fatalf("trace: %d jobs, kept %d, machine %d < largest %d", len(tr.Jobs), tr.Report.Kept, tr.MachineProcs, tr.Report.MaxProcs)
		}
	})
}
