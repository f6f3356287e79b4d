package workloads

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"drsim/internal/sharedtest"
)

// traceWant is what a lenient default read of one shared trace must give.
// Sources (shared/traces/SOURCES.md, "Summary" and "Quirk counters" tables):
//   - records: the "Jobs" column (every non-blank, non-";" line).
//   - machine: the MaxProcs header column, or MaxNodes when MaxProcs is absent.
//   - drop counts follow the reader's precedence (submit<0, run<0, run=0,
//     procs<=0, procs>machine; a record counts under its first reason only):
//     submit<0 is the "submit<0" column; run<0 is "run=-1" minus records
//     already dropped for submit<0; run=0 is the "run=0" column (no overlap
//     with the earlier reasons in any file); procs<=0 is the "no usable proc
//     count" column minus records already dropped. Where an overlap had to be
//     removed, the comment on the row says so; those residuals come from an
//     independent awk pass (same precedence, fields split on whitespace) over
//     the decompressed files, which also reproduced every number above.
//   - runOver is the "run > req time" column (all such records are kept).
//   - unsorted and duplicates are 0 for every kept set: SOURCES.md says the
//     only unsorted pairs (LLNL, 808) come from the submit=-1 records, which
//     are dropped.
type traceWant struct {
	file                                 string
	records                              int64
	machine                              int64
	source                               string
	submitNeg, runUnknown, runZero, noPr int64
	runOver                              int64
}

var traceWants = []traceWant{
	// hpc2n.swf: 3,170 jobs, MaxProcs 240, 25 run=-1, 320 run>req. The final " " line is blank.
	{"hpc2n.swf", 3170, 240, "MaxProcs", 0, 25, 0, 0, 320},
	// lublin_256.swf: no MaxProcs, MaxNodes 256.
	{"lublin_256.swf", 10000, 256, "MaxNodes", 0, 0, 0, 0, 0},
	{"NASA-iPSC-1993-3.1-cln.swf.gz", 18239, 128, "MaxProcs", 0, 0, 173, 0, 0},
	// KTH: 8 run=0; the 1 job without a usable size has runtime > 0.
	{"KTH-SP2-1996-2.1-cln.swf.gz", 28476, 100, "MaxProcs", 0, 0, 8, 1, 475},
	// CTC: "MaxNodes: 338 (batch partition; 512 total)", MaxProcs 338.
	{"CTC-SP2-1996-3.1-cln.swf.gz", 77222, 338, "MaxProcs", 0, 0, 17, 0, 7174},
	// LLNL: 1,190 submit=-1 records (all of the 1,190 run=-1); of the 2,248
	// without processors, 1,190 are those and the other 1,058 have run=0 (awk).
	{"LLNL-Thunder-2007-1.1-cln.swf.gz", 121039, 4008, "MaxProcs", 1190, 0, 6236, 0, 1101},
	{"LANL-CM5-1994-4.1-cln.swf.gz", 122060, 1024, "MaxProcs", 0, 0, 2, 3, 40180},
	{"HPC2N-2002-2.2-cln.swf.gz", 202871, 240, "MaxProcs", 0, 0, 0, 0, 14817},
	{"SDSC-BLUE-2000-4.2-cln.swf.gz", 243306, 1152, "MaxProcs", 0, 10744, 26, 0, 23434},
	// CEA: the 19 jobs without processors all have run=0 (awk).
	{"CEA-Curie-2011-2.1-cln.swf.gz", 312826, 93312, "MaxProcs", 0, 0, 17286, 0, 5416},
	{"RICC-2010-2.swf.gz", 447794, 8192, "MaxProcs", 0, 0, 10, 0, 7092},
}

func TestAcceptanceTraces(t *testing.T) {
	wants := map[string]traceWant{}
	for _, w := range traceWants {
		wants[w.file] = w
	}
	for _, path := range sharedtest.Traces(t) {
		name := filepath.Base(path)
		t.Run(name, func(t *testing.T) {
			w, ok := wants[name]
			if !ok {
				t.Fatalf("no expected counts for %s: add a row from SOURCES.md", name)
			}
			tr, err := LoadFile(path, Options{})
			if err != nil {
				t.Fatal(err)
			}
			r := &tr.Report
			dropped := w.submitNeg + w.runUnknown + w.runZero + w.noPr
			got := []int64{r.Records, tr.MachineProcs, r.Count(SubmitNegative), r.Count(RunUnknown), r.Count(RunZero),
				r.Count(NoProcs), r.Count(ProcsOverMachine), r.Count(RunOverRequest), r.Count(Unsorted), r.Count(DuplicateID), r.Dropped, r.Kept, int64(len(tr.Jobs))}
			want := []int64{w.records, w.machine, w.submitNeg, w.runUnknown, w.runZero,
				w.noPr, 0, w.runOver, 0, 0, dropped, w.records - dropped, w.records - dropped}
			if fmtInts(got) != fmtInts(want) {
				t.Errorf("records machine submit<0 run<0 run=0 procs<=0 procs>machine run>req unsorted dup dropped kept jobs:\n got %s\nwant %s", fmtInts(got), fmtInts(want))
			}
			if tr.MachineSource != w.source || len(tr.Header.Warnings) != 0 {
				t.Errorf("machine source %q warnings %q, want %q and none", tr.MachineSource, tr.Header.Warnings, w.source)
			}
			for i := 1; i < len(tr.Jobs); i++ {
				if j := tr.Jobs[i]; j.Submit < tr.Jobs[i-1].Submit || j.Procs <= 0 || j.Procs > tr.MachineProcs || j.Run <= 0 || j.Estimate <= 0 {
					t.Fatalf("job %d (line %d) breaks an invariant: %+v", i, j.Line, j)
				}
			}
		})
	}
}

// TestAcceptanceQuirks checks header quirks that SOURCES.md calls out.
func TestAcceptanceQuirks(t *testing.T) {
	dir := filepath.Join(sharedtest.Dir(t), "traces")
	load := func(name string) *Trace {
		tr, err := LoadFile(sharedtest.Path(t, "traces/"+name), Options{})
		if err != nil {
			t.Fatal(err)
		}
		return tr
	}
	ctc := load("CTC-SP2-1996-3.1-cln.swf.gz")
	if v, _ := ctc.Header.Get("MaxNodes"); ctc.Header.MaxNodes != 338 || v != "338 (batch partition; 512 total)" {
		t.Errorf("CTC MaxNodes = %d (%q), want 338", ctc.Header.MaxNodes, v)
	}
	cea := load("CEA-Curie-2011-2.1-cln.swf.gz")
	// "starts with a free-text comment line, and contains TAB characters in two Note lines"
	if len(cea.Header.Notes) == 0 || cea.Header.Notes[0] != "--- SWF file converted from SACCT ---" || cea.Header.Computer != "" {
		t.Errorf("CEA notes %q computer %q", cea.Header.Notes, cea.Header.Computer)
	}
	// "The first submit is 31,656,837 s after UnixStartTime"
	if cea.Jobs[0].Submit != 31656837 || cea.Header.UnixStartTime != 1296571124 {
		t.Errorf("CEA first submit %v start %d", cea.Jobs[0].Submit, cea.Header.UnixStartTime)
	}
	ricc := load("RICC-2010-2.swf.gz") // "There is no ; Version: line"
	if ricc.Header.Version != "" || ricc.Header.Computer != "Fujitsu RX200S5 Cluster" || ricc.Header.MaxRecords != 447794 {
		t.Errorf("RICC header %+v", ricc.Header)
	}
	lub := load("lublin_256.swf") // "The first submit is 5094"; 89.2 days span
	if lub.Jobs[0].Submit != 5094 || lub.Header.MaxRuntime != 162754 || int(lub.Report.SpanDays()*10+0.5) != 892 {
		t.Errorf("lublin first submit %v MaxRuntime %d span %.2f", lub.Jobs[0].Submit, lub.Header.MaxRuntime, lub.Report.SpanDays())
	}
	// LLNL strict: the first anomaly is named by file:line:field.
	f, err := os.Open(filepath.Join(dir, "LLNL-Thunder-2007-1.1-cln.swf.gz"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := Load(f, Options{File: "llnl", Strict: true}); err == nil {
		t.Error("strict LLNL: no error")
	}
}

var sinkJobs int

func BenchmarkLoadRICC(b *testing.B) {
	path := sharedtest.Path(b, "traces/RICC-2010-2.swf.gz")
	data, err := os.ReadFile(path)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.SetBytes(42432598) // uncompressed size (SOURCES.md), so MB/s is parse throughput
	for b.Loop() {
		tr, err := Load(bytesReader(data), Options{})
		if err != nil {
			b.Fatal(err)
		}
		sinkJobs = len(tr.Jobs)
	}
	b.ReportMetric(float64(sinkJobs)*float64(b.N)/b.Elapsed().Seconds(), "jobs/s")
}

// BenchmarkLoadFile reads three shared traces from disk as a DR run does
// (LoadFile: parallel parse), and as one Reader ("sequential"), reporting
// the CPU time per load beside the wall time (ns/op), since on a shared
// machine only the CPU time is steady.
func BenchmarkLoadFile(b *testing.B) {
	for _, name := range []string{"RICC-2010-2.swf.gz", "CEA-Curie-2011-2.1-cln.swf.gz", "HPC2N-2002-2.2-cln.swf.gz"} {
		path := sharedtest.Path(b, "traces/"+name)
		short, _, _ := strings.Cut(name, "-20")
		for _, seq := range []bool{false, true} {
			sub := short
			if seq {
				sub += "/sequential"
			}
			b.Run(sub, func(b *testing.B) {
				b.ReportAllocs()
				cpu0 := cpuTime()
				for b.Loop() {
					tr, err := loadFileWith(path, seq)
					if err != nil {
						b.Fatal(err)
					}
					sinkJobs = len(tr.Jobs)
				}
				b.ReportMetric(float64(cpuTime()-cpu0)/float64(b.N), "cpu-ns/op")
			})
		}
	}
}

// loadFileWith is LoadFile, or LoadFile on one Reader.
func loadFileWith(path string, seq bool) (*Trace, error) {
	if !seq {
		return LoadFile(path, Options{})
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return loadSeqReader(f, Options{File: path})
}

// cpuTime is the process's user and system time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
