package workloads

import (
	"bytes"
	"fmt"
	"strconv"
)

// This file reads Slurm accounting logs: the output of sacct --parsable2
// --allocations (-P -X) or --parsable (-p), header line first. See doc.go
// for how columns map onto Job.

// maxSacctCols bounds the header; sacct has about 120 fields in all.
const maxSacctCols = 256

// sacctState is what a Reader keeps for a sacct log.
type sacctState struct {
	header []byte
	names  []string                     // the header's column names, as written
	col    [numSacctCols]int16          // column index of each understood column, -1 if absent
	tok    [maxSacctCols + 1][2]int32   // [start, end) of each field of the current line
	zone   zoneCache                    // resolves the zone-less times
	base   int64                        // Unix seconds of trace time 0: the first kept job's submit
	based  bool                         // base is set
	shift  float64                      // add to the submits Next returned (set at the end; see sacctFinish)
	intern [4]map[string]int64          // name -> 1-based index, per table of Names
	tables Names                        // partitions, users, accounts, QOS in order of first appearance
	peak   []uint64                     // allocation changes of kept jobs, packed (see addPeak), for the machine size
	wide   []peakEvent                  // the changes that do not pack
	prevOK bool                         // a job was kept before (for the unsorted check)
	vals   [numSacctCols]sacctValueSpan // current line: the value of each understood column
}

// sacctValueSpan locates one understood column's value in the line.
type sacctValueSpan struct {
	start, end int32
	ok         bool // the column exists
}

// peakEvent is a job's allocation starting (+procs) or ending (-procs).
type peakEvent struct{ t, d int64 }

// Names tables, in Names order.
const (
	tabPartition = iota
	tabUser
	tabAccount
	tabQOS
)

// Names returns the names behind Job.Partition, User, Group and Queue of a
// sacct log read so far (empty for SWF).
func (r *Reader) Names() Names {
	if r.sc == nil {
		return Names{}
	}
	return r.sc.tables
}

// Format returns FormatSacct or FormatSWF once the first line is read.
func (r *Reader) Format() Format {
	if r.sc != nil {
		return FormatSacct
	}
	return FormatSWF
}

// Shift is the value Load adds to the submits of the jobs Next returned:
// the Reader counts time from the first kept job's submit, and at the end
// moves time 0 to the earliest kept submit (non-zero only for unsorted
// sacct logs, which Load re-sorts anyway).
func (r *Reader) Shift() float64 {
	if r.sc == nil {
		return 0
	}
	return r.sc.shift
}

// split records the fields of line as offsets and returns their number.
// sacct fields are short, so a plain loop beats a bytes.IndexByte call per
// field.
func (sc *sacctState) split(line []byte) int {
	n, start := 0, 0
	for i, c := range line {
		if c != '|' {
			continue
		}
		if n < len(sc.tok) {
			sc.tok[n] = [2]int32{int32(start), int32(i)}
		}
		n++
		start = i + 1
	}
	if n < len(sc.tok) {
		sc.tok[n] = [2]int32{int32(start), int32(len(line))}
	}
	return n + 1
}

// v returns the value of column c in line and whether the column exists.
func (sc *sacctState) v(line []byte, c sacctCol) ([]byte, bool) {
	s := sc.vals[c]
	return line[s.start:s.end], s.ok
}

// sacctRecord parses one line of a sacct log and applies the anomaly
// policy; keep is false for a dropped job, a job step or a repeated header.
func (r *Reader) sacctRecord(line []byte) (j Job, keep bool, err error) {
	sc := r.sc
	line = bytes.TrimRight(line, "\r\n")
	if len(line) > 0 && (line[0] < '0' || line[0] > '9') && bytes.Equal(line, sc.header) {
		r.rep.Comments++ // the header again: concatenated dumps
		return j, false, nil
	}
	n, want := sc.split(line), len(sc.names)
	if n == want+1 && sc.tok[want][0] == sc.tok[want][1] {
		n = want // sacct -p: a trailing '|'
	}
	if n != want {
		return j, false, r.sacctCountError(line, n)
	}
	for c := range sc.col {
		if i := sc.col[c]; i >= 0 {
			sc.vals[c] = sacctValueSpan{sc.tok[i][0], sc.tok[i][1], true}
		} else {
			sc.vals[c] = sacctValueSpan{}
		}
	}
	if isStep(sc.v(line, colJobID)) || isStep(sc.v(line, colJobIDRaw)) {
		r.rep.Steps++
		return j, false, nil
	}
	if !r.started {
		r.decideMachine()
	}
	r.rep.Records++
	var f sacctFields
	if c, err := f.parse(sc, line); err != nil {
		return j, false, r.sacctError(line, c, err)
	}
	r.rep.States[f.state]++
	f.fill(sc, line, &j)
	j.Line = r.rep.Lines
	derive(&r.opt, &j)
	if reason, c, ok := r.sacctDropReason(&f, &j); ok {
		if r.opt.Strict {
			return j, false, r.sacctStrict(line, reason, c, &j)
		}
		r.rep.add(reason, r.rep.Lines)
		r.rep.Dropped++
		return j, false, nil
	}
	if !sc.based {
		sc.base, sc.based = f.submit, true
		r.hdr.UnixStartTime, r.hdr.TimeZone = sc.base, sc.zone.name()
		r.hdr.Pairs = append(r.hdr.Pairs, KV{"UnixStartTime", strconv.FormatInt(sc.base, 10)},
			KV{"TimeZoneString", sc.zone.name()})
	}
	j.Submit = float64(f.submit - sc.base)
	if err := r.sacctFlag(line, &f, &j); err != nil {
		return j, false, err
	}
	if r.opt.MachineProcs == 0 && j.Run > 0 {
		sc.addPeak(f.submit+int64(j.Wait), int64(j.Run), j.Procs)
	}
	r.rep.observe(&j)
	return j, true, nil
}

// isStep reports whether a job id names a job step: "123.batch", "123.0".
func isStep(id []byte, ok bool) bool { return ok && bytes.IndexByte(id, '.') >= 0 }

// sacctFields are one line's values, parsed.
type sacctFields struct {
	id                            int64
	submit, start, end            int64 // Unix seconds
	startOK, endOK                bool
	started                       bool  // startOK, and the job was allocated something (AllocTRES)
	elapsed                       int64 // s, -1 unknown
	limit                         int64 // s, -1 unlimited
	nnodes, ncpus, reqcpus        int64 // -1 unknown
	allocCPU, allocNode, allocGPU int64
	reqCPU, reqNode, reqGPU       int64
	energy                        float64
	state                         State
}

// parse reads every understood column of line; on error it returns the
// column at fault.
func (f *sacctFields) parse(sc *sacctState, line []byte) (sacctCol, error) {
	var err error
	idc := colJobIDRaw
	if sc.col[idc] < 0 {
		idc = colJobID
	}
	if f.id, err = parseJobID(sc.v(line, idc)); err != nil {
		return idc, err
	}
	times := [3]struct {
		c     sacctCol
		dst   *int64
		known *bool
	}{{colSubmit, &f.submit, nil}, {colStart, &f.start, &f.startOK}, {colEnd, &f.end, &f.endOK}}
	for _, t := range times {
		b, ok := sc.v(line, t.c)
		if !ok {
			continue
		}
		local, known, err := parseSacctTime(b)
		if err != nil {
			return t.c, err
		}
		if !known {
			if t.known == nil {
				return t.c, wrapf(ErrSyntax, "submit time unknown")
			}
			continue
		}
		if *t.dst, err = sc.zone.unix(local); err != nil {
			return t.c, err
		}
		if t.known != nil {
			*t.known = true
		}
	}
	f.elapsed = -1
	if b, ok := sc.v(line, colElapsed); ok {
		s, unl, err := parseDuration(b)
		if err != nil || unl {
			return colElapsed, orSyntax(err)
		}
		f.elapsed = s
	} else if b, ok := sc.v(line, colElapsedRaw); ok {
		if f.elapsed, err = parseCount(b); err != nil || f.elapsed < 0 {
			return colElapsedRaw, orSyntax(err)
		}
	}
	f.limit = -1
	if b, ok := sc.v(line, colTimelimit); ok {
		s, unl, err := parseDuration(b)
		if err != nil {
			return colTimelimit, err
		}
		if !unl {
			f.limit = s
		}
	} else if b, ok := sc.v(line, colTimelimitRaw); ok {
		if m, unl, err := parseDuration(b); err != nil {
			return colTimelimitRaw, err
		} else if !unl {
			f.limit = m // a bare number is minutes
		}
	}
	for _, c := range [3]struct {
		c   sacctCol
		dst *int64
	}{{colNNodes, &f.nnodes}, {colNCPUS, &f.ncpus}, {colReqCPUS, &f.reqcpus}} {
		*c.dst = -1
		if b, ok := sc.v(line, c.c); ok {
			if i := bytes.IndexByte(b, '-'); c.c == colNNodes && i > 0 {
				b = b[:i] // a pending job's node range "1-2": its minimum
			}
			if *c.dst, err = parseCount(b); err != nil {
				return c.c, err
			}
		}
	}
	if f.allocCPU, f.allocNode, f.allocGPU, err = parseTRES(sc.v(line, colAllocTRES)); err != nil {
		return colAllocTRES, err
	}
	if f.reqCPU, f.reqNode, f.reqGPU, err = parseTRES(sc.v(line, colReqTRES)); err != nil {
		return colReqTRES, err
	}
	if b, ok := sc.v(line, colEnergyRaw); ok {
		if f.energy, err = parseEnergy(b); err != nil {
			return colEnergyRaw, err
		}
	} else if b, ok := sc.v(line, colEnergy); ok {
		if f.energy, err = parseEnergy(b); err != nil {
			return colEnergy, err
		}
	}
	if b, ok := sc.v(line, colState); ok {
		f.state = parseState(b)
	}
	// Fill in what the missing columns imply.
	if sc.col[colStart] < 0 && f.endOK && f.elapsed >= 0 {
		f.start, f.startOK = f.end-f.elapsed, true
	}
	if sc.col[colEnd] < 0 && f.startOK && f.elapsed >= 0 {
		f.end, f.endOK = f.start+f.elapsed, true
	}
	if f.elapsed < 0 && f.startOK && f.endOK {
		f.elapsed = f.end - f.start
	}
	// A job cancelled while pending has Start None, or sometimes Start =
	// End (Slurm 22.05, testdata/sacct/README.md); either way it was
	// allocated nothing, so its AllocTRES is empty. Without that column, a
	// cancelled job with Start = End and no Elapsed counts as never started.
	f.started = f.startOK
	if b, ok := sc.v(line, colAllocTRES); ok {
		f.started = f.started && len(b) > 0
	} else if f.state == StateCancelled && f.elapsed == 0 && f.endOK && f.start == f.end {
		f.started = false
	}
	return 0, nil
}

func orSyntax(err error) error {
	if err == nil {
		return errDurSyntax
	}
	return err
}

// fill sets the Job fields from f (Submit is set by the caller).
func (f *sacctFields) fill(sc *sacctState, line []byte, j *Job) {
	j.ID = f.id
	j.Wait, j.Run = -1, -1
	if f.started {
		j.Wait = float64(f.start - f.submit)
		j.Run = float64(f.elapsed)
	}
	j.AllocProcs = firstKnown(f.ncpus, f.allocCPU)
	j.ReqProcs = firstKnown(f.reqcpus, f.reqCPU)
	j.ReqTime = float64(f.limit)
	j.AvgCPU, j.UsedMem, j.ReqMem, j.Think = -1, -1, -1, -1
	j.Exe, j.Preceding = -1, -1
	j.Status = stateInfo[f.state].status
	j.Partition = sc.name(tabPartition, line, colPartition)
	j.User = sc.name(tabUser, line, colUser)
	j.Group = sc.name(tabAccount, line, colAccount)
	j.Queue = sc.name(tabQOS, line, colQOS)
	j.Nodes = max(firstKnown(f.nnodes, f.allocNode, f.reqNode), 0)
	j.ReqNodes = max(f.reqNode, 0)
	j.GPUs = max(firstKnown(f.allocGPU, f.reqGPU), 0)
	j.Energy = f.energy
}

// firstKnown returns the first positive value, or -1.
func firstKnown(v ...int64) int64 {
	for _, x := range v {
		if x > 0 {
			return x
		}
	}
	return -1
}

// name interns the value of column c in table t: its 1-based index in
// order of first appearance, -1 when the column is absent or empty.
func (sc *sacctState) name(t int, line []byte, c sacctCol) int64 {
	b, ok := sc.v(line, c)
	if !ok || len(b) == 0 {
		return -1
	}
	m := sc.intern[t]
	if v, ok := m[string(b)]; ok { // no allocation for the lookup
		return v
	}
	if m == nil {
		m = map[string]int64{}
		sc.intern[t] = m
	}
	tab := [4]*[]string{&sc.tables.Partitions, &sc.tables.Users, &sc.tables.Accounts, &sc.tables.QOS}[t]
	s := string(b)
	*tab = append(*tab, s)
	m[s] = int64(len(*tab))
	return int64(len(*tab))
}

// sacctDropReason returns the first reason to drop j, and the column that
// shows it.
func (r *Reader) sacctDropReason(f *sacctFields, j *Job) (Reason, sacctCol, bool) {
	sc := r.sc
	done := stateInfo[f.state].done
	switch {
	case !f.started && done && r.opt.KeepUnstarted:
		j.Run, j.Wait = 0, -1 // kept: a submit that never ran
		derive(&r.opt, j)
	case !f.started:
		if !done {
			return NotFinished, colState, true
		}
		return NotStarted, sc.pick(colStart, colEnd), true
	case !done || sc.col[colEnd] >= 0 && !f.endOK:
		return NotFinished, sc.pick(colEnd, colState), true
	case j.Run < 0: // End before Start (no Elapsed to say otherwise)
		return RunUnknown, sc.pick(colElapsed, colElapsedRaw, colEnd), true
	case j.Run == 0:
		return RunZero, sc.pick(colElapsed, colElapsedRaw, colEnd), true
	}
	procsCol := sc.procsCol(r.opt.ProcsField)
	switch {
	case j.Procs <= 0:
		return NoProcs, procsCol, true
	case r.rep.MachineProcs > 0 && j.Procs > r.rep.MachineProcs:
		return ProcsOverMachine, procsCol, true
	}
	return 0, 0, false
}

// pick returns the first of cols present in the header.
func (sc *sacctState) pick(cols ...sacctCol) sacctCol {
	for _, c := range cols {
		if sc.col[c] >= 0 {
			return c
		}
	}
	return cols[0]
}

// procsCol is the column the processor count comes from first.
func (sc *sacctState) procsCol(pf ProcsField) sacctCol {
	if pf == ProcsAlloc {
		return sc.pick(colNCPUS, colAllocTRES, colReqCPUS, colReqTRES)
	}
	return sc.pick(colReqCPUS, colReqTRES, colNCPUS, colAllocTRES)
}

// sacctFlag counts the anomalies of a kept job (or, strict, fails on the
// first), like flag for SWF.
func (r *Reader) sacctFlag(line []byte, f *sacctFields, j *Job) error {
	sc := r.sc
	var flags [4]Reason
	var cols [4]sacctCol
	n := 0
	add := func(re Reason, c sacctCol) { flags[n], cols[n], n = re, c, n+1 }
	if sc.prevOK && j.Submit < r.prev {
		add(Unsorted, colSubmit)
	}
	if j.ReqTime > 0 && j.Run > j.ReqTime {
		add(RunOverRequest, sc.pick(colElapsed, colElapsedRaw, colEnd))
	}
	if j.ReqTime < 0 {
		add(UnlimitedLimit, sc.pick(colTimelimit, colTimelimitRaw))
	}
	if r.seenBefore(j.ID) {
		add(DuplicateID, sc.pick(colJobIDRaw, colJobID))
	}
	if n > 0 && r.opt.Strict {
		return r.sacctStrict(line, flags[0], cols[0], j)
	}
	for _, fl := range flags[:n] {
		r.rep.add(fl, r.rep.Lines)
	}
	r.prev, sc.prevOK = j.Submit, true
	return nil
}

// sacctError is a *ParseError for column c of the current line.
func (r *Reader) sacctError(line []byte, c sacctCol, err error) *ParseError {
	sc := r.sc
	e := &ParseError{File: r.opt.File, Line: int(r.rep.Lines), Err: err, Name: sacctColNames[c][0], Column: 1}
	if i := sc.col[c]; i >= 0 {
		t := sc.tok[i]
		e.Field, e.Name, e.Value, e.Column = int(i)+1, sc.names[i], string(line[t[0]:t[1]]), int(t[0])+1
	}
	return e
}

func (r *Reader) sacctCountError(line []byte, n int) error {
	sc, want := r.sc, len(r.sc.names)
	e := &ParseError{File: r.opt.File, Line: int(r.rep.Lines), Err: wrapf(ErrFieldCount, "%d columns, the header has %d", n, want)}
	if n < want {
		e.Field, e.Name, e.Column = n+1, sc.names[n], len(line)+1
	} else {
		t := sc.tok[want]
		e.Field, e.Name, e.Value, e.Column = want+1, "extra", string(line[t[0]:t[1]]), int(t[0])+1
	}
	return e
}

// sacctStrict describes reason for the current line in strict mode.
func (r *Reader) sacctStrict(line []byte, reason Reason, c sacctCol, j *Job) error {
	var detail string
	switch reason {
	case NotStarted:
		detail = "job never started (give --keep-unstarted to keep it with zero runtime)"
	case NotFinished:
		detail = "job had not finished when the log was taken"
	case RunZero:
		detail = "run time is 0"
	case NoProcs:
		detail = "no usable processor count (NCPUS, ReqCPUS, AllocTRES cpu=, ReqTRES cpu=)"
	case ProcsOverMachine:
		detail = fmt.Sprintf("more processors than the machine's %d (%s)", r.rep.MachineProcs, r.rep.MachineSource)
	case Unsorted:
		detail = fmt.Sprintf("submit time before the previous job's (%v s before it)", r.prev-j.Submit)
	case RunOverRequest:
		detail = fmt.Sprintf("run time %v s exceeds the time limit %v s", j.Run, j.ReqTime)
	case UnlimitedLimit:
		detail = "no time limit"
	case DuplicateID:
		detail = "job id seen before"
	}
	return r.sacctError(line, c, wrapf(reasonInfo[reason].err, "%s", detail))
}

// sacctFinish moves time 0 to the earliest kept submit and, without a
// machine size option, takes the machine size from the peak concurrent
// allocation of the kept jobs (sacct has no header to give it).
func (r *Reader) sacctFinish() {
	sc := r.sc
	if d := r.rep.FirstSubmit; d != 0 && r.rep.Kept > 0 {
		sc.shift = -d
		r.rep.FirstSubmit, r.rep.LastSubmit = 0, r.rep.LastSubmit-d
		r.hdr.UnixStartTime += int64(d)
		for i := range r.hdr.Pairs {
			if r.hdr.Pairs[i].Key == "UnixStartTime" {
				r.hdr.Pairs[i].Value = strconv.FormatInt(r.hdr.UnixStartTime, 10)
			}
		}
	}
	if r.rep.MachineProcs > 0 || len(sc.peak)+len(sc.wide) == 0 {
		return
	}
	peak := sc.peakAlloc()
	sc.peak, sc.wide = nil, nil
	if r.rep.MaxProcs > peak { // a larger job kept without running (KeepUnstarted)
		return // finish takes the largest job
	}
	r.rep.MachineProcs, r.rep.MachineSource = peak, "peak concurrent allocation"
	r.hdr.Warnings = append(r.hdr.Warnings, fmt.Sprintf("%s: a sacct log has no machine size; taken from the peak concurrent allocation (%d processors); give --procs for the real one", r.opt.File, peak))
}
