package workloads

import (
	"bytes"
	"compress/gzip"
	"errors"
	"io"
	"math"
	"strings"
	"testing"
)

// a valid 18-field record; rows below vary one thing at a time.
const okLine = "1 0 5 100 4 -1 -1 4 200 -1 1 2 3 -1 -1 -1 -1 -1"

func TestParseRecord(t *testing.T) {
	tests := []struct {
		name, line string
		want       Job     // checked only when err == nil
		field      int     // 1-based field of the error
		err        error   // nil: valid
		run        float64 // spot value for decimal rows
	}{
		{"plain", okLine, Job{ID: 1, Wait: 5, Run: 100, AllocProcs: 4, AvgCPU: -1, UsedMem: -1, ReqProcs: 4, ReqTime: 200, ReqMem: -1, Status: 1, User: 2, Group: 3, Exe: -1, Queue: -1, Partition: -1, Preceding: -1, Think: -1}, 0, nil, 100},
		{"tabs+crlf", strings.ReplaceAll(okLine, " ", "\t") + "\r\n", Job{}, 0, nil, 100},
		{"leading+trailing ws", "   " + okLine + " \t \n", Job{}, 0, nil, 100},
		{"decimal float field", "1 0 5 100.25 4 552.21 -1 4 200 -1 1 2 3 -1 -1 -1 -1 -1", Job{}, 0, nil, 100.25},
		{"int field as 123.0", "1 0 5 100 4.0 -1 -1 4 200 -1 1 2 3 -1 -1 -1 -1 -1", Job{}, 0, nil, 100},
		{"exponent", "1 0 5 1e2 4 -1 -1 4 200 -1 1 2 3 -1 -1 -1 -1 -1", Job{}, 0, nil, 100},
		{"int field 123.5", "1 0 5 100 4.5 -1 -1 4 200 -1 1 2 3 -1 -1 -1 -1 -1", Job{}, 5, ErrSyntax, 0},
		{"17 fields", "1 0 5 100 4 -1 -1 4 200 -1 1 2 3 -1 -1 -1 -1", Job{}, 18, ErrFieldCount, 0},
		{"19 fields", okLine + " 7", Job{}, 19, ErrFieldCount, 0},
		{"non-numeric", "1 0 5 abc 4 -1 -1 4 200 -1 1 2 3 -1 -1 -1 -1 -1", Job{}, 4, ErrSyntax, 0},
		{"NaN", "1 0 5 NaN 4 -1 -1 4 200 -1 1 2 3 -1 -1 -1 -1 -1", Job{}, 4, ErrSyntax, 0},
		{"Inf", "1 0 5 100 4 -1 -1 4 +Inf -1 1 2 3 -1 -1 -1 -1 -1", Job{}, 9, ErrSyntax, 0},
		{"1e30 in int field", "1 0 5 100 1e30 -1 -1 4 200 -1 1 2 3 -1 -1 -1 -1 -1", Job{}, 5, ErrRange, 0},
		{"1e30 in float field", "1 1e30 5 100 4 -1 -1 4 200 -1 1 2 3 -1 -1 -1 -1 -1", Job{}, 2, ErrRange, 0},
		{"int64 overflow digits", "99999999999999999999 0 5 100 4 -1 -1 4 200 -1 1 2 3 -1 -1 -1 -1 -1", Job{}, 1, ErrRange, 0},
		{"19-digit int ok", "1000000000000000000 0 5 100 4 -1 -1 4 200 -1 1 2 3 -1 -1 -1 -1 -1", Job{}, 0, nil, 100},
		{"1e400", "1 0 5 1e400 4 -1 -1 4 200 -1 1 2 3 -1 -1 -1 -1 -1", Job{}, 4, ErrRange, 0},
		{"negative procs parse", "1 0 5 100 -4 -1 -1 -4 200 -1 1 2 3 -1 -1 -1 -1 -1", Job{}, 0, nil, 100},
		{"garbage bytes", "\x00\x01\x02 0 5 100 4 -1 -1 4 200 -1 1 2 3 -1 -1 -1 -1 -1", Job{}, 1, ErrSyntax, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var tok [numFields + 1][2]int32
			var j Job
			field, k, n := parseRecord([]byte(tt.line), &tok, &j)
			var err error
			switch {
			case n != numFields:
				err, field = ErrFieldCount, min(n+1, numFields+1)
			case k != numOK:
				err = k.err()
			}
			if tt.err == nil {
				if err != nil {
					t.Fatalf("parseRecord(%q) = %v, want ok", tt.line, err)
				}
				if j.Run != tt.run {
					t.Errorf("parseRecord(%q).Run = %v, want %v", tt.line, j.Run, tt.run)
				}
				if tt.want.ID != 0 && j != tt.want {
					t.Errorf("parseRecord(%q) = %+v, want %+v", tt.line, j, tt.want)
				}
				return
			}
			if !errors.Is(err, tt.err) || field != tt.field {
				t.Errorf("parseRecord(%q) = field %d, %v; want field %d, %v", tt.line, field, err, tt.field, tt.err)
			}
		})
	}
}

// TestParseFloatMatchesStrconv checks the decimal fast path rounds exactly
// like strconv.ParseFloat.
func TestParseFloatMatchesStrconv(t *testing.T) {
	for _, s := range []string{"552.21", "0.1", "-0.3", "123456789012.345", "1.000000000000001", "0.000001", "99999999999999.9", "7.", ".5"} {
		got, k := parseFloat([]byte(s))
		want, err := parseFloatStd(s)
		if k != numOK || err != nil || got != want {
			t.Errorf("parseFloat(%q) = %v (%v), want %v (%v)", s, got, k, want, err)
		}
	}
}

func parseFloatStd(s string) (float64, error) {
	var f float64
	_, err := fmtSscan(s, &f)
	return f, err
}

func TestHeader(t *testing.T) {
	src := "\xef\xbb\xbf; Version: 2.2\r\n" +
		";   --- free text ---\n" +
		"; MaxNodes: 338 (batch partition; 512 total)\n" +
		"; MaxProcs: lots\n" +
		"; Information: http://example.org/x\n" +
		";\thttp://continuation.example.org\n" +
		"; UnixStartTime: 835823160\n" +
		"; TimeZoneString: US/Eastern\n" +
		"; MaxNodes: 999\n" +
		okLine + "\n"
	r, err := NewReader(strings.NewReader(src), Options{File: "h.swf"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Next(); err != nil {
		t.Fatal(err)
	}
	h := r.Header()
	if h.Version != "2.2" || h.MaxNodes != 338 || h.MaxProcs != 0 || h.UnixStartTime != 835823160 || h.TimeZone != "US/Eastern" {
		t.Errorf("header = %+v", h)
	}
	if len(h.Warnings) != 1 || !strings.Contains(h.Warnings[0], `h.swf:4: header MaxProcs "lots"`) {
		t.Errorf("warnings = %q, want one about MaxProcs at h.swf:4", h.Warnings)
	}
	wantPairs := []KV{{"Version", "2.2"}, {"MaxNodes", "338 (batch partition; 512 total)"}, {"MaxProcs", "lots"},
		{"Information", "http://example.org/x"}, {"UnixStartTime", "835823160"}, {"TimeZoneString", "US/Eastern"}, {"MaxNodes", "999"}}
	if !equalKV(h.Pairs, wantPairs) {
		t.Errorf("pairs = %q, want %q", h.Pairs, wantPairs)
	}
	if wantNotes := []string{"--- free text ---", "http://continuation.example.org"}; strings.Join(h.Notes, "|") != strings.Join(wantNotes, "|") {
		t.Errorf("notes = %q, want %q", h.Notes, wantNotes)
	}
	if p, src := r.Machine(); p != 338 || src != "MaxNodes" {
		t.Errorf("Machine() = %d, %s; want 338 from MaxNodes (MaxProcs garbage)", p, src)
	}
}

func equalKV(a, b []KV) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestMachineFromLargestJob(t *testing.T) {
	src := "; Version: 2\n" + okLine + "\n" + strings.Replace(okLine, " 4 200", " 16 200", 1) + "\n"
	tr, err := Load(strings.NewReader(src), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if tr.MachineProcs != 16 || tr.MachineSource != "largest job" || len(tr.Header.Warnings) != 1 {
		t.Errorf("machine = %d from %q, warnings %q; want 16 from largest job with a warning", tr.MachineProcs, tr.MachineSource, tr.Header.Warnings)
	}
}

// anomalous is a small trace with one record per reason, in file order:
// line 2 submit<0, 3 run -1, 4 run 0, 5 no procs, 6 procs>machine (8),
// 7 ok, 8 out of order, 9 run>req, 10 duplicate id 7.
const anomalous = `; MaxProcs: 8
1 -1 0 100 4 -1 -1 4 200 -1 1 1 1 -1 -1 -1 -1 -1
2 10 0 -1 4 -1 -1 4 200 -1 1 1 1 -1 -1 -1 -1 -1
3 10 0 0 4 -1 -1 4 200 -1 1 1 1 -1 -1 -1 -1 -1
4 10 0 100 -1 -1 -1 -1 200 -1 1 1 1 -1 -1 -1 -1 -1
5 10 0 100 16 -1 -1 16 200 -1 1 1 1 -1 -1 -1 -1 -1
6 50 0 100 4 -1 -1 4 200 -1 1 1 1 -1 -1 -1 -1 -1
7 40 0 100 4 -1 -1 4 200 -1 1 1 1 -1 -1 -1 -1 -1
8 60 0 300 4 -1 -1 4 200 -1 1 1 1 -1 -1 -1 -1 -1
7 70 0 100 4 -1 -1 4 200 -1 1 1 1 -1 -1 -1 -1 -1
`

func TestLenientReport(t *testing.T) {
	tr, err := Load(strings.NewReader(anomalous), Options{File: "a.swf"})
	if err != nil {
		t.Fatal(err)
	}
	r := tr.Report
	for reason := range NumReasons {
		if reason.sacctOnly() {
			continue // sacct_test.go
		}
		a, line := r.Anomalies[reason], int(reason)+2
		if !reason.Dropped() {
			line++ // after the clean record on line 7
		}
		if a.Count != 1 || a.FirstLine != int64(line) || a.First != "a.swf:"+itoa(line) {
			t.Errorf("%v: count %d first %q, want 1 at a.swf:%d", reason, a.Count, a.First, line)
		}
	}
	if r.Records != 9 || r.Kept != 4 || r.Dropped != 5 {
		t.Errorf("records/kept/dropped = %d/%d/%d, want 9/4/5", r.Records, r.Kept, r.Dropped)
	}
	var ids []int64
	for _, j := range tr.Jobs {
		ids = append(ids, j.ID)
	}
	if got := fmtInts(ids); got != "7 6 8 7" { // stable sort by submit: 40, 50, 60, 70
		t.Errorf("job order = %s, want 7 6 8 7", got)
	}
}

func TestStrict(t *testing.T) {
	lines := strings.Split(anomalous, "\n")
	for reason := range NumReasons {
		if reason.sacctOnly() {
			continue // sacct_test.go
		}
		t.Run(reason.String(), func(t *testing.T) {
			// the header, then the record(s) that show this reason (lines[i] is file line i+1)
			src := lines[0] + "\n" + lines[reason+1] + "\n"
			switch reason {
			case Unsorted:
				src = lines[0] + "\n" + lines[6] + "\n" + lines[7] + "\n"
			case RunOverRequest:
				src = lines[0] + "\n" + lines[8] + "\n"
			case DuplicateID:
				src = lines[0] + "\n" + lines[7] + "\n" + lines[9] + "\n"
			}
			_, err := Load(strings.NewReader(src), Options{File: "s.swf", Strict: true})
			pe, ok := errors.AsType[*ParseError](err)
			if !ok {
				t.Fatalf("Load(strict) = %v, want *ParseError", err)
			}
			wantErr := ErrRange
			if !reason.Dropped() {
				wantErr = ErrInconsistent
			}
			if !errors.Is(err, wantErr) || pe.File != "s.swf" || pe.Field != reasonInfo[reason].field {
				t.Errorf("Load(strict) = %v (field %d), want %v in field %d", err, pe.Field, wantErr, reasonInfo[reason].field)
			}
		})
	}
	_, err := Load(strings.NewReader(lines[0]+"\n"+lines[2]+"\n"), Options{File: "s.swf", Strict: true})
	if want := `s.swf:2: field 4 (run_time)="-1": out of range: run time unknown`; err == nil || err.Error() != want {
		t.Errorf("strict error = %v, want %s", err, want)
	}
}

func TestBadInputs(t *testing.T) {
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	io.WriteString(zw, strings.Repeat(okLine+"\n", 2000))
	zw.Close()
	full := gz.Bytes()
	tests := []struct {
		name string
		src  []byte
		want string
	}{
		{"empty", nil, "b.swf: empty file"},
		{"header only", []byte("; MaxProcs: 4\n;\n \n"), "b.swf: no job records (3 header or blank lines only)"},
		{"all dropped", []byte("1 0 0 0 4 -1 -1 4 200 -1 1 1 1 -1 -1 -1 -1 -1\n"), "b.swf: all 1 job records were dropped (1 run_time=0, first at b.swf:1)"},
		{"truncated gzip", full[:len(full)/2], "b.swf:"},
		{"corrupt gzip", append(append([]byte{}, full[:len(full)-8]...), 1, 2, 3, 4, 5, 6, 7, 8), "gzip"},
		{"binary", bytes.Repeat([]byte{0xff, 0x00, 0x13}, 1<<19), "b.swf:1: line longer than"},
		{"17 fields", []byte(okLine[:strings.LastIndexByte(okLine, ' ')] + "\n"), `b.swf:1: field 18 (think_time)="": wrong number of fields: 17 fields, want 18`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Load(bytes.NewReader(tt.src), Options{File: "b.swf"})
			if err == nil || !strings.Contains(err.Error(), tt.want) || strings.Contains(err.Error(), "\n") {
				t.Errorf("Load = %v, want one line containing %q", err, tt.want)
			}
		})
	}
}

func TestGzipDetection(t *testing.T) {
	plain := "; MaxProcs: 8\n" + okLine + "\n"
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	io.WriteString(zw, plain)
	zw.Close()
	a, err1 := Load(strings.NewReader(plain), Options{})
	b, err2 := Load(&gz, Options{})
	if err1 != nil || err2 != nil {
		t.Fatal(err1, err2)
	}
	if len(a.Jobs) != 1 || a.Jobs[0] != b.Jobs[0] || b.MachineProcs != 8 {
		t.Errorf("gzip and plain differ: %+v vs %+v", a.Jobs, b.Jobs)
	}
}

func TestRoundTrip(t *testing.T) {
	src := "; Version: 2.2\n; MaxProcs: 64\n; Note: two\n;   free text\n" +
		"1 0 5 100.25 4 552.21 -1 4 200 -1 1 2 3 -1 -1 -1 -1 -1\n" +
		"2 10 -1 3600 64 -1 1024 -1 -1 -1 0 2 3 7 1 2 1 0.5\n"
	a, err := Load(strings.NewReader(src), Options{})
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := WriteSWF(&buf, &a.Header, a.Jobs); err != nil {
		t.Fatal(err)
	}
	b, err := Load(bytes.NewReader(buf.Bytes()), Options{})
	if err != nil {
		t.Fatalf("re-read: %v\n%s", err, buf.Bytes())
	}
	if !equalKV(a.Header.Pairs, b.Header.Pairs) || strings.Join(a.Header.Notes, "|") != strings.Join(b.Header.Notes, "|") {
		t.Errorf("header changed: %+v -> %+v", a.Header, b.Header)
	}
	for i := range a.Jobs {
		x, y := a.Jobs[i], b.Jobs[i]
		x.Line, y.Line = 0, 0
		if x != y {
			t.Errorf("job %d: %+v -> %+v", i, x, y)
		}
	}
	if a.Jobs[1].Procs != 64 || a.Jobs[1].Estimate != 3600 || math.Abs(a.Jobs[0].AvgCPU-552.21) > 0 {
		t.Errorf("derived fields: %+v", a.Jobs[1])
	}
}

// TestOptions checks the processor and estimate fallbacks and MaxJobs.
func TestOptions(t *testing.T) {
	src := "; MaxProcs: 1000\n" +
		"1 0 -1 100 472 -1 -1 156 -1 -1 0 16 -1 64 -1 1 -1 -1\n" + // LLNL job 1: alloc 472, req 156, no req time
		"2 5 -1 100 -1 -1 -1 24 300 -1 0 16 -1 64 -1 1 -1 -1\n" +
		"3 9 -1 100 8 -1 -1 -1 300 -1 0 16 -1 64 -1 1 -1 -1\n"
	tests := []struct {
		opt   Options
		procs string
		est   string
	}{
		{Options{}, "156 24 8", "100 300 300"},
		{Options{ProcsField: ProcsAlloc, EstimateField: EstimateRun}, "472 24 8", "100 100 100"},
		{Options{MaxJobs: 2}, "156 24", "100 300"},
	}
	for _, tt := range tests {
		tr, err := Load(strings.NewReader(src), tt.opt)
		if err != nil {
			t.Fatal(err)
		}
		var p, e []int64
		for _, j := range tr.Jobs {
			p, e = append(p, j.Procs), append(e, int64(j.Estimate))
		}
		if fmtInts(p) != tt.procs || fmtInts(e) != tt.est {
			t.Errorf("Load(%+v) procs %s est %s, want %s / %s", tt.opt, fmtInts(p), fmtInts(e), tt.procs, tt.est)
		}
	}
}

// benchSWF builds an in-memory SWF shaped like the PWA logs: right-aligned
// columns, -1 fields and a decimal in field 6 on every other line.
func benchSWF(n int) []byte {
	var b bytes.Buffer
	b.WriteString("; Version: 2.2\n; MaxProcs: 8192\n; MaxNodes: 1024\n")
	for i := range n {
		cpu := "    -1"
		if i%2 == 0 {
			cpu = "552.21"
		}
		b.WriteString(strings.Repeat(" ", 2) + itoa(i+1) + "  " + itoa(1000+i*37) + "  " + itoa(i%5000) + "  " + itoa(1+i%86400) + "  " +
			itoa(1+i%512) + " " + cpu + "    -1  " + itoa(1+i%512) + "  86400 1024000  1  " + itoa(i%300) + "  " + itoa(i%40) + "  -1  1 -1 -1 -1\n")
	}
	return b.Bytes()
}

var sinkJob Job

func BenchmarkParse(b *testing.B) {
	data := benchSWF(100_000)
	b.Run("line", func(b *testing.B) {
		line := []byte("   12   342343      5    553   40 552.21    -1   40  43200    -1  1   4   1  -1 -1  1 -1 -1\n")
		var tok [numFields + 1][2]int32
		b.ReportAllocs()
		b.SetBytes(int64(len(line)))
		for b.Loop() {
			if _, k, n := parseRecord(line, &tok, &sinkJob); k != numOK || n != numFields {
				b.Fatal("bad line")
			}
		}
	})
	b.Run("reader", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(data)))
		jobs := 0
		for b.Loop() {
			r, err := NewReader(bytes.NewReader(data), Options{})
			if err != nil {
				b.Fatal(err)
			}
			for {
				j, err := r.Next()
				if err == io.EOF {
					break
				} else if err != nil {
					b.Fatal(err)
				}
				sinkJob = j
				jobs++
			}
		}
		b.ReportMetric(float64(jobs)/b.Elapsed().Seconds(), "jobs/s")
	})
}
