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
		_, _, err := readAll(t, data, Options{File: fuzzFile, Strict: strict, Format: FormatSWF}) // sacct: FuzzSacctReader
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
		opt := Options{File: fuzzFile, Format: FormatSWF} // sacct: FuzzSacctReader
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

// FuzzParseRecord: the single-pass line parser agrees with splitting the
// line on SWF whitespace and parsing each field with parseInt/parseFloat:
// the same token count, the same first bad field and kind, and the same
// job, bit for bit.
func FuzzParseRecord(f *testing.F) {
	addSWFSeeds(f, func(b []byte) {
		for _, line := range bytes.Split(b, []byte("\n")) {
			f.Add(line)
		}
	})
	for _, s := range []string{
		"1 2.5 -0.125 +7 3 0.000000000000001 123456789012345678 4 1e2 -1 1 1 1 1 1 1 -1 -1",
		"1 1234567890123456.5 0 12.345678901234567 1 -1 -1 1 -1 -1 1 1 1 1 1 1 -1 -1",
		"1 0 0 5 1. -1 -1 .5 -1 -1 1 1 1 1 1 1 -1 -1",
		"1 0 0 5 2.0 -1 -1 2.50 -1 -1 1 1 1 1 1 1 -1 -1 extra",
		"9223372036854775807 0 0 5 2 -1 -1 2 -1 -1 1 1 1 1 1 1 -1 99999999999999999999",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		var tok [numFields + 1][2]int32
		var got Job
		field, k, n := parseRecord(line, &tok, &got)

		// Separator bytes are ASCII, never part of a multi-byte sequence.
		toks := bytes.FieldsFunc(line, func(r rune) bool { return r < 256 && space[r] })
		var ints [numFields + 1]int64
		var flts [numFields + 1]float64
		wfield, wk := 0, numOK
		for i, tk := range toks[:min(len(toks), numFields)] {
			fi := i + 1
			var kf numErr
			if intField[fi] {
				ints[fi], kf = parseInt(tk)
				flts[fi] = float64(ints[fi])
			} else {
				flts[fi], kf = parseFloat(tk)
			}
			if kf != numOK && wk == numOK {
				wfield, wk = fi, kf
			}
		}
		if n != len(toks) {
			t.Fatalf("%q: %d tokens, want %d", line, n, len(toks))
		}
		if n != numFields {
			return
		}
		if field != wfield || k != wk {
			t.Fatalf("%q: bad field %d kind %v, want field %d kind %v", line, field, k, wfield, wk)
		}
		if k != numOK {
			return
		}
		want := Job{
			ID: ints[1], Submit: flts[2], Wait: flts[3], Run: flts[4], AllocProcs: ints[5],
			AvgCPU: flts[6], UsedMem: flts[7], ReqProcs: ints[8], ReqTime: flts[9],
			ReqMem: flts[10], Status: ints[11], User: ints[12], Group: ints[13], Exe: ints[14],
			Queue: ints[15], Partition: ints[16], Preceding: ints[17], Think: flts[18],
		}
		if got != want {
			t.Fatalf("%q:\n got %+v\nwant %+v", line, got, want)
		}
	})
}
