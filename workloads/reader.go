package workloads

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/klauspost/compress/gzip" // API of compress/gzip, about twice as fast to inflate
)

// ProcsField selects the SWF field that gives a job's processor count.
type ProcsField uint8

const (
	ProcsReq   ProcsField = iota // field 8 (requested), falling back to field 5 when <= 0
	ProcsAlloc                   // field 5 (allocated), falling back to field 8 when <= 0
)

// EstimateField selects what the scheduler sees as the runtime estimate.
type EstimateField uint8

const (
	EstimateReq EstimateField = iota // field 9 (requested time), falling back to the run time when <= 0
	EstimateRun                      // the run time itself (perfect estimates)
)

// Options configure a Reader. The zero value reads leniently with the
// requested processors and requested time.
type Options struct {
	File          string        // name used in errors and reports; "" means "<input>"
	ProcsField    ProcsField    // zero: ProcsReq
	EstimateField EstimateField // zero: EstimateReq
	Strict        bool          // the first anomaly is an error instead of a count
	MachineProcs  int64         // machine size override; 0: header MaxProcs, then MaxNodes, then the largest job
	MaxJobs       int           // stop after this many kept jobs; 0: all

	// Slurm accounting logs (sacct.go).
	Format        Format         // zero: FormatAuto (a first line "JobID|..." is sacct, anything else SWF)
	TZ            *time.Location // zone of sacct's zone-less times; nil: UTC
	KeepUnstarted bool           // keep sacct jobs that never started, with zero runtime; false: drop them
}

// maxLine bounds one line; a longer one (binary garbage) is an error.
const maxLine = 1 << 20

// Reader streams jobs from an SWF file, plain or gzip-compressed.
type Reader struct {
	br      *bufio.Reader
	gz      bool
	opt     Options
	hdr     Header
	rep     Report
	tok     [numFields + 1][2]int32
	started bool // the first record has been seen and the machine size decided
	prev    float64
	seen    []uint64 // bitset of job numbers in [0, len*64)
	seenBig map[int64]struct{}
	err     error // sticky: io.EOF or the first error
	decided bool  // the format is known (Options.Format, or the first non-blank line)
	sc      *sacctState
}

// NewReader returns a Reader for r, which may be gzip-compressed (detected
// by the magic bytes 1f 8b).
func NewReader(r io.Reader, opt Options) (*Reader, error) {
	if opt.File == "" {
		opt.File = "<input>"
	}
	src, gz, err := openStream(r, opt.File)
	if err != nil {
		return nil, err
	}
	return newReader(src, gz, opt), nil
}

// openStream returns r, or a gzip reader over it when r starts with the
// gzip magic bytes 1f 8b.
func openStream(r io.Reader, file string) (io.Reader, bool, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	if magic, _ := br.Peek(2); len(magic) < 2 || magic[0] != 0x1f || magic[1] != 0x8b {
		return br, false, nil
	}
	zr, err := gzip.NewReader(br)
	if err != nil {
		return nil, false, fmt.Errorf("%s: gzip: %v", file, strings.TrimPrefix(err.Error(), "gzip: "))
	}
	return zr, true, nil
}

func newReader(src io.Reader, gz bool, opt Options) *Reader {
	rd := &Reader{br: bufio.NewReaderSize(src, 64<<10), gz: gz, opt: opt}
	rd.rep.File = opt.File
	return rd
}

// Header returns the header read so far; it is complete once Next has
// returned the first job (later comment lines are still appended).
func (r *Reader) Header() *Header { return &r.hdr }

// Report returns the counts so far; final once Next has returned io.EOF.
func (r *Reader) Report() *Report { return &r.rep }

// Machine returns the machine size and where it came from ("option",
// "MaxProcs", "MaxNodes", or, at the end only, "largest job").
func (r *Reader) Machine() (int64, string) { return r.rep.MachineProcs, r.rep.MachineSource }

// Next returns the next kept job in file order with Procs and Estimate
// derived, io.EOF at the end, or an error naming file:line.
func (r *Reader) Next() (Job, error) {
	if r.err != nil {
		return Job{}, r.err
	}
	if r.opt.MaxJobs > 0 && r.rep.Kept >= int64(r.opt.MaxJobs) {
		r.rep.Truncated, r.err = true, io.EOF
		return Job{}, io.EOF
	}
	for {
		line, err := r.readLine()
		if err != nil {
			r.err = r.finish(err)
			return Job{}, r.err
		}
		i := 0
		for i < len(line) && isSpace(line[i]) {
			i++
		}
		switch {
		case i == len(line) || line[i] == '\n':
			r.rep.Blank++
			continue
		case r.sc != nil:
			j, keep, err := r.sacctRecord(line)
			if err != nil {
				r.err = err
				return Job{}, err
			}
			if keep {
				return j, nil
			}
			continue
		case !r.decided:
			r.decided = true
			if isSacct, err := r.detect(line); err != nil {
				r.err = err
				return Job{}, err
			} else if isSacct {
				continue
			}
		}
		switch {
		case line[i] == ';':
			r.rep.Comments++
			r.hdr.parseComment(bytes.TrimRight(line[i:], "\r\n"), r.where())
			continue
		}
		j, keep, err := r.record(line)
		if err != nil {
			r.err = err
			return Job{}, err
		}
		if keep {
			return j, nil
		}
	}
}

func (r *Reader) where() string { return fmt.Sprintf("%s:%d", r.opt.File, r.rep.Lines) }

// readLine returns the next line (without guarantees about a trailing
// newline) in the Reader's buffer, valid until the next call.
func (r *Reader) readLine() ([]byte, error) {
	line, err := r.br.ReadSlice('\n')
	switch {
	case err == bufio.ErrBufferFull:
		return nil, fmt.Errorf("%s:%d: line longer than %d bytes (binary data?)", r.opt.File, r.rep.Lines+1, r.br.Size())
	case err == io.EOF && len(line) == 0:
		return nil, io.EOF
	case err != nil && err != io.EOF:
		what := "read"
		if r.gz {
			what = "gzip (truncated or corrupt?)"
		}
		return nil, fmt.Errorf("%s:%d: %s: %s", r.opt.File, r.rep.Lines+1, what, strings.TrimPrefix(err.Error(), "gzip: "))
	}
	r.rep.Lines++
	if r.rep.Lines == 1 {
		line = bytes.TrimPrefix(line, []byte("\xef\xbb\xbf"))
	}
	return line, nil
}

// finish turns the end of input into io.EOF, or into an error when there
// was nothing usable, and settles the machine size.
func (r *Reader) finish(err error) error {
	if err != io.EOF {
		return err
	}
	switch {
	case r.rep.Lines == 0:
		return fmt.Errorf("%s: empty file: no SWF job records", r.opt.File)
	case r.rep.Records == 0:
		return fmt.Errorf("%s: no job records (%d header or blank lines only)", r.opt.File, r.rep.Lines)
	case r.rep.Kept == 0:
		return fmt.Errorf("%s: all %d job records were dropped (%s)", r.opt.File, r.rep.Records, r.firstDrop())
	}
	if r.sc != nil {
		r.sacctFinish()
	}
	if r.rep.MachineProcs == 0 {
		r.rep.MachineProcs, r.rep.MachineSource = r.rep.MaxProcs, "largest job"
		r.hdr.Warnings = append(r.hdr.Warnings, fmt.Sprintf("%s: no MaxProcs or MaxNodes in header; machine size taken from the largest job (%d)", r.opt.File, r.rep.MaxProcs))
	}
	return io.EOF
}

func (r *Reader) firstDrop() string {
	for _, a := range r.rep.Anomalies {
		if a.Count > 0 && a.Reason.Dropped() {
			return fmt.Sprintf("%d %s, first at %s", a.Count, a.Reason, a.First)
		}
	}
	return "no reason recorded"
}

// decideMachine fixes the machine size when the first record is seen.
func (r *Reader) decideMachine() {
	r.started = true
	switch {
	case r.opt.MachineProcs > 0:
		r.rep.MachineProcs, r.rep.MachineSource = r.opt.MachineProcs, "option"
	case r.hdr.MaxProcs > 0:
		r.rep.MachineProcs, r.rep.MachineSource = r.hdr.MaxProcs, "MaxProcs"
	case r.hdr.MaxNodes > 0:
		r.rep.MachineProcs, r.rep.MachineSource = r.hdr.MaxNodes, "MaxNodes"
	}
}

// record parses one job line and applies the anomaly policy. keep is false
// for a dropped record.
func (r *Reader) record(line []byte) (j Job, keep bool, err error) {
	if !r.started {
		r.decideMachine()
	}
	r.rep.Records++
	field, k, n := parseRecord(line, &r.tok, &j)
	if n != numFields {
		return j, false, r.countError(line, n)
	}
	if k != numOK {
		return j, false, &ParseError{File: r.opt.File, Line: int(r.rep.Lines), Field: field,
			Name: fieldName(field), Value: string(r.token(line, field)), Err: k.err()}
	}
	j.Line = r.rep.Lines
	procsField := derive(&r.opt, &j)
	keep, err = r.admit(line, &j, procsField)
	return j, keep, err
}

// admit applies the anomaly policy to j, parsed from line (the current
// line) with Procs from procsField: it counts a dropped record and
// returns false, or flags a kept one and folds it into the ranges. line
// and procsField are read only for strict-mode errors.
func (r *Reader) admit(line []byte, j *Job, procsField int) (bool, error) {
	if reason, ok := r.dropReason(j); ok {
		if r.opt.Strict {
			return false, r.strictError(line, reason, procsField, j)
		}
		r.rep.add(reason, r.rep.Lines)
		r.rep.Dropped++
		return false, nil
	}
	if err := r.flag(line, j); err != nil {
		return false, err
	}
	r.rep.observe(j)
	return true, nil
}

func (r *Reader) token(line []byte, field int) []byte {
	t := r.tok[field-1]
	return line[t[0]:t[1]]
}

func (r *Reader) countError(line []byte, n int) error {
	e := &ParseError{File: r.opt.File, Line: int(r.rep.Lines), Err: wrapf(ErrFieldCount, "%d fields, want %d", n, numFields)}
	if n < numFields {
		e.Field = n + 1
	} else {
		e.Field = numFields + 1
		e.Value = string(r.token(line, numFields+1))
	}
	e.Name = fieldName(e.Field)
	return e
}

// derive fills Procs and Estimate as opt says and returns the field Procs
// came from.
func derive(opt *Options, j *Job) int {
	f := 8
	first, second := j.ReqProcs, j.AllocProcs
	if opt.ProcsField == ProcsAlloc {
		f, first, second = 5, j.AllocProcs, j.ReqProcs
	}
	j.Procs = first
	if first <= 0 {
		j.Procs = second
		if second > 0 {
			f = 13 - f // 8 <-> 5
		}
	}
	j.Estimate = j.Run
	if opt.EstimateField == EstimateReq && j.ReqTime > 0 {
		j.Estimate = j.ReqTime
	}
	return f
}

// dropReason returns the first reason, in Reason order, to drop j.
func (r *Reader) dropReason(j *Job) (Reason, bool) {
	switch {
	case j.Submit < 0:
		return SubmitNegative, true
	case j.Run < 0:
		return RunUnknown, true
	case j.Run == 0:
		return RunZero, true
	case j.Procs <= 0:
		return NoProcs, true
	case r.rep.MachineProcs > 0 && j.Procs > r.rep.MachineProcs:
		return ProcsOverMachine, true
	}
	return 0, false
}

// flag counts the anomalies of a kept job (or, strict, fails on the first).
func (r *Reader) flag(line []byte, j *Job) error {
	var flags [3]Reason
	n := 0
	if r.rep.Kept > 0 && j.Submit < r.prev {
		flags[n], n = Unsorted, n+1
	}
	if j.ReqTime > 0 && j.Run > j.ReqTime {
		flags[n], n = RunOverRequest, n+1
	}
	if r.seenBefore(j.ID) {
		flags[n], n = DuplicateID, n+1
	}
	if n > 0 && r.opt.Strict {
		return r.strictError(line, flags[0], 0, j)
	}
	for _, f := range flags[:n] {
		r.rep.add(f, r.rep.Lines)
	}
	r.prev = j.Submit
	return nil
}

// seenBefore records id and reports whether it was already recorded.
func (r *Reader) seenBefore(id int64) bool {
	if id >= 0 && id < 1<<28 {
		w, bit := id>>6, uint64(1)<<(id&63)
		if w >= int64(len(r.seen)) {
			r.seen = append(r.seen, make([]uint64, int(w)+1-len(r.seen)+len(r.seen)/2)...)
		}
		dup := r.seen[w]&bit != 0
		r.seen[w] |= bit
		return dup
	}
	if r.seenBig == nil {
		r.seenBig = map[int64]struct{}{}
	}
	_, dup := r.seenBig[id]
	r.seenBig[id] = struct{}{}
	return dup
}

// strictError describes reason for the record on the current line.
func (r *Reader) strictError(line []byte, reason Reason, procsField int, j *Job) error {
	field := reasonInfo[reason].field
	var detail string
	switch reason {
	case SubmitNegative:
		detail = "submit time before 0"
	case RunUnknown:
		detail = "run time unknown"
	case RunZero:
		detail = "run time is 0"
	case NoProcs:
		field, detail = procsField, "no usable processor count in fields 5 and 8"
	case ProcsOverMachine:
		field, detail = procsField, fmt.Sprintf("more processors than the machine's %d (%s)", r.rep.MachineProcs, r.rep.MachineSource)
	case Unsorted:
		detail = fmt.Sprintf("submit time before the previous record's %v", r.prev)
	case RunOverRequest:
		detail = fmt.Sprintf("run time exceeds requested time %v", j.ReqTime)
	case DuplicateID:
		detail = "job number seen before"
	}
	e := anomalyError(r.opt.File, r.rep.Lines, reason, string(r.token(line, field)), detail)
	e.Field, e.Name = field, fieldName(field)
	return e
}
