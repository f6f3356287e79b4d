package workloads

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
)

// Format is the trace format a Reader expects.
type Format uint8

const (
	FormatAuto  Format = iota // sacct when the first non-blank line is a "|"-separated header naming JobID or JobIDRaw, else SWF
	FormatSWF                 // the Standard Workload Format
	FormatSacct               // sacct --parsable2 (-P) or --parsable (-p) output with its header line
)

// ParseFormat maps "auto", "swf" or "sacct" (the CLI and config spelling).
func ParseFormat(s string) (Format, error) {
	switch s {
	case "auto", "":
		return FormatAuto, nil
	case "swf":
		return FormatSWF, nil
	case "sacct":
		return FormatSacct, nil
	}
	return 0, fmt.Errorf("workloads: trace format %q: want auto, swf or sacct", s)
}

// sacctCol is a sacct column this reader understands.
type sacctCol uint8

const (
	colJobID sacctCol = iota
	colJobIDRaw
	colSubmit
	colEligible
	colStart
	colEnd
	colElapsed
	colElapsedRaw
	colTimelimit
	colTimelimitRaw
	colNNodes
	colNCPUS
	colReqCPUS
	colReqTRES
	colAllocTRES
	colPartition
	colQOS
	colUser
	colAccount
	colGroup
	colState
	colExitCode
	colEnergy
	colEnergyRaw
	numSacctCols
)

// sacctColNames are the header spellings (compared without case); AllocCPUS
// is the old name of NCPUS, AllocNodes of NNodes.
var sacctColNames = [numSacctCols][]string{
	colJobID: {"JobID"}, colJobIDRaw: {"JobIDRaw"}, colSubmit: {"Submit"}, colEligible: {"Eligible"},
	colStart: {"Start"}, colEnd: {"End"}, colElapsed: {"Elapsed"}, colElapsedRaw: {"ElapsedRaw"},
	colTimelimit: {"Timelimit"}, colTimelimitRaw: {"TimelimitRaw"}, colNNodes: {"NNodes", "AllocNodes"},
	colNCPUS: {"NCPUS", "AllocCPUS"}, colReqCPUS: {"ReqCPUS"}, colReqTRES: {"ReqTRES"}, colAllocTRES: {"AllocTRES"},
	colPartition: {"Partition"}, colQOS: {"QOS"}, colUser: {"User"}, colAccount: {"Account"}, colGroup: {"Group"},
	colState: {"State"}, colExitCode: {"ExitCode"}, colEnergy: {"ConsumedEnergy"}, colEnergyRaw: {"ConsumedEnergyRaw"},
}

// isSacctHeader reports whether line looks like a sacct -P header: at
// least one '|' and a column named JobID or JobIDRaw.
func isSacctHeader(line []byte) bool {
	if bytes.IndexByte(line, '|') < 0 {
		return false
	}
	for f := range bytes.SplitSeq(bytes.TrimRight(line, "\r\n"), []byte("|")) {
		f = bytes.TrimSpace(f)
		if bytes.EqualFold(f, []byte("JobID")) || bytes.EqualFold(f, []byte("JobIDRaw")) {
			return true
		}
	}
	return false
}

// detect decides the format from the first non-blank line (or
// Options.Format) and, for sacct, reads that line as the header. It
// reports whether the line was consumed as a sacct header.
func (r *Reader) detect(line []byte) (bool, error) {
	switch r.opt.Format {
	case FormatSWF:
		return false, nil
	case FormatAuto:
		if !isSacctHeader(line) {
			return false, nil
		}
	case FormatSacct:
		if !isSacctHeader(line) {
			return false, fmt.Errorf("%s:%d: not a sacct log: the first line is not a sacct --parsable2 header (JobID|...|Submit|...)", r.opt.File, r.rep.Lines)
		}
	}
	sc, err := newSacctState(bytes.TrimRight(line, "\r\n"), r.opt, r.rep.Lines)
	if err != nil {
		return false, err
	}
	r.sc = sc
	r.rep.Format = "sacct"
	r.rep.Comments++ // the header line
	return true, nil
}

// newSacctState maps the header's columns and checks that the required
// ones are there.
func newSacctState(hdr []byte, opt Options, line int64) (*sacctState, error) {
	sc := &sacctState{header: append([]byte(nil), hdr...), zone: newZoneCache(opt.TZ)}
	for i := range sc.col {
		sc.col[i] = -1
	}
	names := strings.Split(string(hdr), "|")
	if len(names) > 1 && strings.TrimSpace(names[len(names)-1]) == "" {
		names = names[:len(names)-1] // sacct -p ends every line with '|'
	}
	if len(names) > maxSacctCols {
		return nil, fmt.Errorf("%s:%d: sacct header: %d columns, at most %d", opt.File, line, len(names), maxSacctCols)
	}
	sc.names = names
	for i, n := range names {
		n = strings.TrimSpace(n)
		for c, spell := range sacctColNames {
			for _, s := range spell {
				if strings.EqualFold(n, s) && sc.col[c] < 0 {
					sc.col[c] = int16(i)
				}
			}
		}
	}
	for i, n := range names {
		if strings.ContainsFunc(n, func(r rune) bool { return r < ' ' || r == 0x7f }) {
			names[i] = strconv.Quote(n) // error messages stay one line
		}
	}
	has := func(c sacctCol) bool { return sc.col[c] >= 0 }
	var missing []string
	if !has(colJobID) && !has(colJobIDRaw) {
		missing = append(missing, "JobID or JobIDRaw")
	}
	if !has(colSubmit) {
		missing = append(missing, "Submit")
	}
	if !has(colStart) && !has(colEnd) {
		missing = append(missing, "Start or End")
	}
	if !has(colElapsed) && !has(colElapsedRaw) && !(has(colStart) && has(colEnd)) {
		missing = append(missing, "Elapsed (or both Start and End)")
	}
	if !has(colTimelimit) && !has(colTimelimitRaw) {
		missing = append(missing, "Timelimit")
	}
	if !has(colNCPUS) && !has(colReqCPUS) && !has(colAllocTRES) && !has(colReqTRES) {
		missing = append(missing, "NCPUS, ReqCPUS, AllocTRES or ReqTRES")
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("%s:%d: sacct header: missing column %s (have %s)", opt.File, line,
			strings.Join(missing, ", "), strings.Join(names, "|"))
	}
	return sc, nil
}

// State is a Slurm job state as sacct prints it (the first word of State).
type State uint8

const (
	StateOther State = iota // anything else (counted, SWF status -1)
	StateBootFail
	StateCancelled
	StateCompleted
	StateDeadline
	StateFailed
	StateNodeFail
	StateOutOfMemory
	StatePending
	StatePreempted
	StateRequeued
	StateResizing
	StateRevoked
	StateRunning
	StateSuspended
	StateTimeout
	NumStates
)

var stateInfo = [NumStates]struct {
	name   string
	status int64 // SWF status: 1 completed, 0 failed, 5 cancelled, -1 unknown
	done   bool  // a final state: the job has ended
}{
	StateOther:       {"other", -1, true},
	StateBootFail:    {"BOOT_FAIL", 0, true},
	StateCancelled:   {"CANCELLED", 5, true},
	StateCompleted:   {"COMPLETED", 1, true},
	StateDeadline:    {"DEADLINE", 0, true},
	StateFailed:      {"FAILED", 0, true},
	StateNodeFail:    {"NODE_FAIL", 0, true},
	StateOutOfMemory: {"OUT_OF_MEMORY", 0, true},
	StatePending:     {"PENDING", -1, false},
	StatePreempted:   {"PREEMPTED", 0, true},
	StateRequeued:    {"REQUEUED", -1, false},
	StateResizing:    {"RESIZING", -1, false},
	StateRevoked:     {"REVOKED", 5, true},
	StateRunning:     {"RUNNING", -1, false},
	StateSuspended:   {"SUSPENDED", -1, false},
	StateTimeout:     {"TIMEOUT", 0, true},
}

// String is the state as sacct prints it, e.g. "OUT_OF_MEMORY".
func (s State) String() string {
	if s < NumStates {
		return stateInfo[s].name
	}
	return fmt.Sprintf("State(%d)", s)
}

// parseState reads the first word of a State value: "CANCELLED by 0" is
// StateCancelled; sacct's abbreviations (CA, CD, F, TO, ...) are accepted.
func parseState(b []byte) State {
	if i := bytes.IndexByte(b, ' '); i >= 0 {
		b = b[:i]
	}
	switch string(b) { // no allocation: the compiler switches on the bytes
	case "COMPLETED", "CD":
		return StateCompleted
	case "CANCELLED", "CA":
		return StateCancelled
	case "FAILED", "F":
		return StateFailed
	case "TIMEOUT", "TO":
		return StateTimeout
	case "NODE_FAIL", "NF":
		return StateNodeFail
	case "OUT_OF_MEMORY", "OOM":
		return StateOutOfMemory
	case "PREEMPTED", "PR":
		return StatePreempted
	case "BOOT_FAIL", "BF":
		return StateBootFail
	case "DEADLINE", "DL":
		return StateDeadline
	case "PENDING", "PD":
		return StatePending
	case "RUNNING", "R":
		return StateRunning
	case "REQUEUED", "RQ":
		return StateRequeued
	case "RESIZING", "RS":
		return StateResizing
	case "REVOKED", "RV":
		return StateRevoked
	case "SUSPENDED", "S":
		return StateSuspended
	}
	return StateOther
}
