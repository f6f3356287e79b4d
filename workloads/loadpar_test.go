package workloads

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"

	"drsim/internal/sharedtest"
)

// Load's parallel reader (loadpar.go) against the sequential one it must
// equal: the same Trace (jobs in order, Report, Header, machine size) or
// the same error, for any chunk size and number of workers.

// loadSeqReader is Load on one Reader: the reference.
func loadSeqReader(r io.Reader, opt Options) (*Trace, error) {
	if opt.File == "" {
		opt.File = "<input>"
	}
	src, gz, err := openStream(r, opt.File)
	if err != nil {
		return nil, err
	}
	return loadSequential(src, gz, opt)
}

// loadParReader is Load through loadParallel with the given workers and
// chunk size.
func loadParReader(r io.Reader, opt Options, workers, size int) (*Trace, error) {
	if opt.File == "" {
		opt.File = "<input>"
	}
	src, gz, err := openStream(r, opt.File)
	if err != nil {
		return nil, err
	}
	return loadParallel(src, gz, opt, workers, size)
}

// sameLoad fails t unless loadParallel gives on data what loadSequential
// gives. It returns the reference's error.
func sameLoad(t *testing.T, what string, data []byte, opt Options, workers, size int) error {
	t.Helper()
	want, werr := loadSeqReader(bytes.NewReader(data), opt)
	got, gerr := loadParReader(bytes.NewReader(data), opt, workers, size)
	switch {
	case (werr == nil) != (gerr == nil):
		t.Fatalf("%s (workers %d, chunk %d): error %v, want %v", what, workers, size, gerr, werr)
	case werr != nil:
		if gerr.Error() != werr.Error() || !reflect.DeepEqual(gerr, werr) {
			t.Fatalf("%s (workers %d, chunk %d): error\n%v (%#v), want\n%v (%#v)", what, workers, size, gerr, gerr, werr, werr)
		}
		return werr
	}
	if len(got.Jobs) != len(want.Jobs) {
		t.Fatalf("%s (workers %d, chunk %d): %d jobs, want %d", what, workers, size, len(got.Jobs), len(want.Jobs))
	}
	for i := range want.Jobs {
		if got.Jobs[i] != want.Jobs[i] {
			t.Fatalf("%s (workers %d, chunk %d): job %d = %+v, want %+v", what, workers, size, i, got.Jobs[i], want.Jobs[i])
		}
	}
	if !reflect.DeepEqual(got.Report, want.Report) {
		t.Fatalf("%s (workers %d, chunk %d): report\n%+v, want\n%+v", what, workers, size, got.Report, want.Report)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%s (workers %d, chunk %d): trace\n%+v, want\n%+v", what, workers, size, *got, *want)
	}
	return nil
}

func gzipped(data []byte) []byte {
	var z bytes.Buffer
	zw := gzip.NewWriter(&z)
	zw.Write(data)
	zw.Close()
	return z.Bytes()
}

// Every shared trace, plain chunks and small ones (many boundaries), with
// the options a run may set.
func TestLoadParallelSharedTraces(t *testing.T) {
	for _, path := range sharedtest.Traces(t) {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		name := filepath.Base(path)
		for _, c := range []struct {
			opt           Options
			workers, size int
		}{
			{Options{File: name}, 2, parChunkSize},
			{Options{File: name, ProcsField: ProcsAlloc, EstimateField: EstimateRun}, 3, 10007},
			{Options{File: name, MaxJobs: 60000}, 2, 65536},
			{Options{File: name, MachineProcs: 64}, 0, parChunkSize},
		} {
			if err := sameLoad(t, name, data, c.opt, c.workers, c.size); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
		}
	}
}

// A trace that has every kind of line the reader meets: header comments
// (numbers, garbage, notes, continuations) before and after the first
// record, blank lines, CRLF, TABs, records kept, dropped for each reason
// and flagged (unsorted, over their request, duplicate numbers), and with
// bad set, lines that are errors.
func randSWF(rng *rand.Rand, lines int, bad bool) []byte {
	var b bytes.Buffer
	if rng.IntN(8) == 0 {
		b.WriteString("\xef\xbb\xbf")
	}
	eol := func() {
		if rng.IntN(6) == 0 {
			b.WriteString("\r\n")
		} else {
			b.WriteByte('\n')
		}
	}
	header := []string{"; MaxProcs: 128", "; MaxNodes: 64", "; UnixStartTime: 1000", "; MaxJobs: 300",
		"; Version: 2.2", "; MaxRecords: lots", ";\tindented note", "; a note without a key", ";", " ; Computer: test"}
	switch rng.IntN(4) {
	case 0: // no header: the machine is the largest job
	case 1:
		b.WriteString(header[0])
		eol()
	default:
		for range 1 + rng.IntN(5) {
			b.WriteString(header[rng.IntN(len(header))])
			eol()
		}
	}
	submit, id := int64(0), int64(1)
	sep := func() {
		switch rng.IntN(10) {
		case 0:
			b.WriteByte('\t')
		case 1:
			b.WriteString("   ")
		default:
			b.WriteByte(' ')
		}
	}
	for range lines {
		switch k := rng.IntN(100); {
		case k < 3:
			b.WriteString(header[rng.IntN(len(header))])
		case k < 6:
			b.WriteString([]string{"", "  ", "\t", " \t "}[rng.IntN(4)])
		case bad && k < 8:
			b.WriteString(badLine(rng))
		default:
			submit += int64(rng.IntN(50))
			s := submit
			if rng.IntN(40) == 0 {
				s -= int64(rng.IntN(200)) // unsorted, sometimes below 0
			}
			if rng.IntN(30) != 0 {
				id++ // otherwise a duplicate
			}
			run := []string{"100", "0", "-1", "3600", "552.21", "1e3", strconvI(rng.IntN(100000))}[rng.IntN(7)]
			procs := []string{"4", "-1", "200", "1", strconvI(1 + rng.IntN(128))}[rng.IntN(5)]
			req := []string{"-1", "60", "86400", strconvI(rng.IntN(5000))}[rng.IntN(4)]
			f := []string{strconvI(int(id)), strconvI(int(s)), "0", run, procs, "-1", "-1", procs, req,
				"-1", "1", strconvI(rng.IntN(20)), "1", "-1", "1", "-1", "-1", "-1"}
			if rng.IntN(5) == 0 {
				f[4] = "-1" // only requested processors
			}
			for i, v := range f {
				if i > 0 {
					sep()
				}
				b.WriteString(v)
			}
		}
		eol()
	}
	if rng.IntN(4) == 0 && b.Len() > 0 {
		b.Truncate(b.Len() - 1) // no final newline (or a lone CR)
	}
	return b.Bytes()
}

func strconvI(i int) string { return fmt.Sprint(i) }

// badLine is a line the reader rejects, or one too long for the parallel
// reader's chunk parser that the sequential reader may accept.
func badLine(rng *rand.Rand) string {
	good := []string{"7", "100", "0", "50", "4", "-1", "-1", "4", "60", "-1", "1", "1", "1", "-1", "1", "-1", "-1", "-1"}
	f := append([]string(nil), good...)
	switch rng.IntN(8) {
	case 0:
		f = f[:17]
	case 1:
		f = append(f, "9")
	case 2:
		f[rng.IntN(18)] = "abc"
	case 3:
		f[0] = "1.5" // fraction in an integer field
	case 4:
		f[3] = "NaN"
	case 5:
		f[1] = "1e30"
	case 6: // a long comment the sequential reader reads
		return "; " + strings.Repeat("x", parMaxLine+rng.IntN(2000))
	case 7: // longer than the sequential reader's buffer
		return strings.Repeat("1 ", 40<<10)
	}
	return strings.Join(f, " ")
}

// Random traces, good and bad, plain and gzip (and gzip cut short), under
// several options, chunk sizes from below a line to above the input, and
// 1 to 3 workers.
func TestLoadParallelRandom(t *testing.T) {
	rng := rand.New(rand.NewPCG(18, 4))
	sizes := []int{1, 37, 64, 100, 128, 301, 1024, 4096, parChunkSize}
	opts := []Options{{}, {ProcsField: ProcsAlloc}, {EstimateField: EstimateRun}, {MachineProcs: 100},
		{MaxJobs: 1}, {MaxJobs: 17}, {Format: FormatSWF}}
	errs := 0
	for i := range 300 {
		bad := i%3 == 0
		data := randSWF(rng, 1+rng.IntN(400), bad)
		opt := opts[rng.IntN(len(opts))]
		opt.File = "r.swf"
		what := fmt.Sprintf("trace %d (bad %v, %+v)", i, bad, opt)
		workers, size := rng.IntN(3), sizes[rng.IntN(len(sizes))]
		if sameLoad(t, what, data, opt, workers, size) != nil {
			errs++
		}
		if i%4 == 0 {
			z := gzipped(data)
			sameLoad(t, what+" gzip", z, opt, workers, size)
			sameLoad(t, what+" gzip cut", z[:len(z)*2/3], opt, workers, size)
		}
	}
	if errs == 0 || errs == 300 {
		t.Errorf("%d of 300 random traces were errors: the generator does not cover both", errs)
	}
}

// Hand-made inputs: each kind of line at each place around a chunk
// boundary (every chunk size from 16 to 200 bytes moves the boundaries
// across the lines).
func TestLoadParallelBoundaries(t *testing.T) {
	rec := func(id, submit int) string {
		return fmt.Sprintf("%d %d 0 100 4 -1 -1 4 200 -1 1 1 1 -1 1 -1 -1 -1", id, submit)
	}
	cases := map[string]string{
		"empty":                     "",
		"blank only":                "\n  \n\t\n",
		"comments only":             "; MaxProcs: 8\n; Note\n",
		"one record":                rec(1, 0),
		"crlf":                      "; MaxProcs: 8\r\n" + rec(1, 0) + "\r\n" + rec(2, 5) + "\r\n",
		"no final newline":          "; MaxProcs: 8\n" + rec(1, 0) + "\n" + rec(2, 5),
		"final lone cr":             "; MaxProcs: 8\n" + rec(1, 0) + "\r",
		"bom":                       "\xef\xbb\xbf; MaxProcs: 8\n" + rec(1, 0) + "\n",
		"two boms":                  "\xef\xbb\xbf\xef\xbb\xbf; MaxProcs: 8\n" + rec(1, 0) + "\n",
		"bom in the middle":         rec(1, 0) + "\n\xef\xbb\xbf; note\n" + rec(2, 1) + "\n",
		"bom before record":         "\xef\xbb\xbf" + rec(1, 0) + "\n" + rec(2, 1) + "\n",
		"unsorted":                  "; MaxProcs: 8\n" + rec(1, 50) + "\n" + rec(2, 10) + "\n" + rec(3, 10) + "\n" + rec(4, 5) + "\n",
		"comment in middle":         "; MaxProcs: 8\n" + rec(1, 0) + "\n; MaxProcs: 99\n; UnixStartTime: x\n;  continued\n" + rec(2, 3) + "\n",
		"header after first record": rec(1, 0) + "\n; MaxProcs: 2\n" + rec(2, 3) + "\n",
		"bad last line":             "; MaxProcs: 8\n" + rec(1, 0) + "\n" + rec(2, 1) + "\n1 2 3\n",
		"bad first line":            "; MaxProcs: 8\n1 x 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18\n" + rec(1, 0) + "\n",
		"bad then bad":              rec(1, 0) + "\n" + rec(2, 1) + "\n1 2\n1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19\n",
		"all dropped":               "; MaxProcs: 8\n1 0 0 0 4 -1 -1 4 200 -1 1 1 1 -1 1 -1 -1 -1\n",
		"sacct header":              "JobID|Submit|Start|End|NCPUS|Timelimit|State\n1|2024-01-01T00:00:00|2024-01-01T00:00:10|2024-01-01T00:01:00|4|00:10:00|COMPLETED\n",
		"sacct after blank":         "\n\nJobIDRaw|Submit|Start|End|NCPUS|Timelimit|State\n1|2024-01-01T00:00:00|2024-01-01T00:00:10|2024-01-01T00:01:00|4|00:10:00|COMPLETED\n",
		"sacct-like later":          rec(1, 0) + "\nJobID|Submit\n",
		"sacct-like comment":        "; note|JobID|x\n" + rec(1, 0) + "\n",
		"sacct-like comment late":   strings.Repeat("\n", 300) + "; note|JobID|x\n" + rec(1, 0) + "\n",
		"long comment":              rec(1, 0) + "\n; " + strings.Repeat("y", parMaxLine) + "\n" + rec(2, 1) + "\n",
		"too long":                  rec(1, 0) + "\n" + strings.Repeat("1 ", 40<<10) + "\n" + rec(2, 1) + "\n",
		"too long at end":           rec(1, 0) + "\n" + strings.Repeat("1", 65536),
		"exactly the buffer":        rec(1, 0) + "\n; " + strings.Repeat("z", 65533) + "\n",
		"comment over the buffer":   rec(1, 0) + "\n; " + strings.Repeat("z", 65534) + "\n" + rec(2, 1) + "\n",
		"record over the buffer":    rec(1, 0) + "\n" + rec(2, 1) + strings.Repeat(" ", 65536) + "\n",
	}
	for name, s := range cases {
		for _, size := range []int{4096, 65536, 100000, parChunkSize} {
			sameLoad(t, name, []byte(s), Options{File: "b.swf"}, 2, size)
		}
		for size := 16; size <= 200; size++ {
			for _, opt := range []Options{{File: "b.swf"}, {File: "b.swf", MaxJobs: 1}} {
				sameLoad(t, name, []byte(s), opt, size%3, size)
			}
		}
		sameLoad(t, name+" gzip", gzipped([]byte(s)), Options{File: "b.swf"}, 2, 64)
	}
}

// The sacct fixtures and the bad-input cases of drsim's CLI tests go
// through Load's parallel entry (sacct detected from the header line) as
// through one Reader.
func TestLoadParallelFixtures(t *testing.T) {
	paths, _ := filepath.Glob("../testdata/sacct/*.sacct")
	for _, pat := range []string{"swf-*/*.swf*", "sacct-*/*.sacct"} {
		more, _ := filepath.Glob(filepath.Join("../testdata/bad", pat))
		paths = append(paths, more...)
	}
	if len(paths) < 10 {
		t.Fatalf("only %d fixtures under ../testdata", len(paths))
	}
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		for _, size := range []int{64, 1000, parChunkSize} {
			for _, strict := range []bool{false, true} {
				sameLoad(t, p, data, Options{File: p, Strict: strict}, 2, size)
			}
		}
	}
}

// Load stopped early (MaxJobs) or failing leaves no goroutine behind once
// the reads in progress end, and the results are right.
func TestLoadParallelStops(t *testing.T) {
	before := runtime.NumGoroutine()
	data := randSWF(rand.New(rand.NewPCG(1, 2)), 5000, false)
	for i := range 200 {
		tr, err := loadParReader(bytes.NewReader(data), Options{MaxJobs: 1 + i}, 2, 128)
		if err != nil {
			t.Fatal(err)
		}
		if len(tr.Jobs) != 1+i || !tr.Report.Truncated {
			t.Fatalf("MaxJobs %d: %d jobs, truncated %v", 1+i, len(tr.Jobs), tr.Report.Truncated)
		}
	}
	bad := append(append([]byte(nil), data[:len(data)/2]...), "x\n"...)
	for range 50 {
		if _, err := loadParReader(bytes.NewReader(append(bad, data...)), Options{}, 2, 128); err == nil {
			t.Fatal("no error for a bad line")
		}
	}
	for wait := 0; runtime.NumGoroutine() > before; wait++ {
		if wait == 100 {
			t.Fatalf("%d goroutines left running (%d before)", runtime.NumGoroutine()-before, before)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// FuzzLoadParallel: loadParallel equals loadSequential on any input (SWF
// or not, plain or gzip), with chunks of 16 to 527 bytes (so that lines
// straddle them), 0 to 2 workers and any MaxJobs.
func FuzzLoadParallel(f *testing.F) {
	addSWFSeeds(f, func(b []byte) { f.Add(b, false, uint16(64), uint8(1), uint8(0)) })
	f.Add([]byte(strings.Repeat("1 0 0 5 1 -1 -1 1 -1 -1 1 1 1 1 1 1 -1 -1\n", 20)), true, uint16(40), uint8(2), uint8(7))
	f.Fuzz(func(t *testing.T, data []byte, gz bool, size uint16, workers, maxJobs uint8) {
		if gz {
			data = gzipped(data)
		}
		sameLoad(t, "fuzz", data, Options{File: fuzzFile, MaxJobs: int(maxJobs % 8)}, int(workers%3), 16+int(size%512))
	})
}
