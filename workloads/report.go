package workloads

import (
	"fmt"
	"math"
)

// Reason is why a record was dropped or flagged. The order of the constants
// is the order in which a record is checked and in which reports list them;
// a dropped record counts only under its first reason.
type Reason uint8

const (
	SubmitNegative   Reason = iota // submit < 0: dropped
	RunUnknown                     // run time < 0 (SWF -1): dropped
	RunZero                        // run time = 0: dropped
	NoProcs                        // processors <= 0 after the fallback: dropped
	ProcsOverMachine               // processors > machine size: dropped
	Unsorted                       // submit earlier than the previous kept record: kept, re-sorted by Load
	RunOverRequest                 // run time > requested time: kept (the engine applies --overrun)
	DuplicateID                    // job number seen before: kept

	// Slurm accounting logs only (sacct.go); checked before the reasons above.
	NotStarted     // never started (Start None or Unknown): dropped, or kept with zero runtime under Options.KeepUnstarted
	NotFinished    // still running, pending or suspended when the log was taken (no End): dropped
	UnlimitedLimit // Timelimit UNLIMITED or Partition_Limit (requested time -1): kept
	NumReasons
)

var reasonInfo = [NumReasons]struct {
	name  string
	field int
	drop  bool
	err   error
}{
	SubmitNegative:   {"submit<0", 2, true, ErrRange},
	RunUnknown:       {"run_time<0 (unknown)", 4, true, ErrRange},
	RunZero:          {"run_time=0", 4, true, ErrRange},
	NoProcs:          {"processors<=0", 8, true, ErrRange},
	ProcsOverMachine: {"processors>machine", 8, true, ErrRange},
	Unsorted:         {"submit out of order", 2, false, ErrInconsistent},
	RunOverRequest:   {"run_time>requested_time", 4, false, ErrInconsistent},
	DuplicateID:      {"duplicate job_number", 1, false, ErrInconsistent},
	NotStarted:       {"never started", 3, true, ErrRange},
	NotFinished:      {"not finished", 4, true, ErrRange},
	UnlimitedLimit:   {"no time limit", 9, false, ErrInconsistent},
}

// sacctOnly reports whether r can only occur in a Slurm accounting log;
// reports of SWF traces leave such reasons out even at count 0, so their
// output is unchanged.
func (r Reason) sacctOnly() bool { return r >= NotStarted && r < NumReasons }

// String is the reason's short name, e.g. "run_time=0".
func (r Reason) String() string {
	if r < NumReasons {
		return reasonInfo[r].name
	}
	return fmt.Sprintf("Reason(%d)", r)
}

// Dropped reports whether records with this reason are left out.
func (r Reason) Dropped() bool { return r < NumReasons && reasonInfo[r].drop }

// Anomaly counts one reason and remembers its first occurrence.
type Anomaly struct {
	Reason    Reason
	Count     int64
	FirstLine int64  // 0 if Count is 0
	First     string // "file:line" of the first occurrence
}

// Report summarises one read: line counts, anomalies by reason, the machine
// size and the ranges of the kept jobs.
type Report struct {
	File                     string
	Lines, Comments, Blank   int64 // physical lines read, ";" lines, blank lines
	Records, Kept, Dropped   int64 // job lines parsed, returned, left out
	Anomalies                [NumReasons]Anomaly
	MachineProcs             int64
	MachineSource            string // "option", "MaxProcs", "MaxNodes" or "largest job"
	FirstSubmit, LastSubmit  float64
	MinRun, MaxRun           float64
	MinProcs, MaxProcs       int64
	MinEstimate, MaxEstimate float64
	Truncated                bool // stopped early at Options.MaxJobs

	// Slurm accounting logs only: the format read ("sacct"; "" for SWF),
	// job-step lines skipped, and the kept and dropped jobs by Slurm state.
	Format string
	Steps  int64
	States [NumStates]int64
}

func (rep *Report) add(r Reason, line int64) {
	a := &rep.Anomalies[r]
	a.Reason = r
	if a.Count == 0 {
		a.FirstLine = line
		a.First = fmt.Sprintf("%s:%d", rep.File, line)
	}
	a.Count++
}

// observe folds a kept job into the ranges.
func (rep *Report) observe(j *Job) {
	if rep.Kept == 0 {
		rep.FirstSubmit, rep.LastSubmit = math.Inf(1), math.Inf(-1)
		rep.MinRun, rep.MaxRun = math.Inf(1), math.Inf(-1)
		rep.MinEstimate, rep.MaxEstimate = math.Inf(1), math.Inf(-1)
		rep.MinProcs, rep.MaxProcs = math.MaxInt64, math.MinInt64
	}
	rep.Kept++
	rep.FirstSubmit, rep.LastSubmit = min(rep.FirstSubmit, j.Submit), max(rep.LastSubmit, j.Submit)
	rep.MinRun, rep.MaxRun = min(rep.MinRun, j.Run), max(rep.MaxRun, j.Run)
	rep.MinEstimate, rep.MaxEstimate = min(rep.MinEstimate, j.Estimate), max(rep.MaxEstimate, j.Estimate)
	rep.MinProcs, rep.MaxProcs = min(rep.MinProcs, j.Procs), max(rep.MaxProcs, j.Procs)
}

// SpanDays is (LastSubmit - FirstSubmit) / 86400.
func (rep *Report) SpanDays() float64 {
	if rep.Kept == 0 {
		return 0
	}
	return (rep.LastSubmit - rep.FirstSubmit) / 86400
}

// Count returns the number of records with reason r.
func (rep *Report) Count(r Reason) int64 { return rep.Anomalies[r].Count }

// anomalyError is the strict-mode error for reason r on line, field value v.
func anomalyError(file string, line int64, r Reason, value, detail string) *ParseError {
	f := reasonInfo[r].field
	return &ParseError{File: file, Line: int(line), Field: f, Name: fieldName(f), Value: value,
		Err: wrapf(reasonInfo[r].err, "%s", detail)}
}
