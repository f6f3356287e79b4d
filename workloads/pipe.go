package workloads

import (
	"errors"
	"fmt"
	"io"
	"os"
)

// ErrUnsorted is returned by Pipe.Next when a kept job is submitted
// earlier than the one before it. A pipe hands jobs over in file order and
// cannot re-sort them; the caller starts again from Load, which does.
var ErrUnsorted = errors.New("submit times out of order")

// Pipe reads a trace file on goroutines of its own (gunzip, then parse)
// and hands its kept jobs to one consumer in file order, in batches. A
// simulation fed by a pipe starts at once and overlaps the reading, and its
// memory does not grow with the trace. The jobs are those Load would
// return, in the same order, as long as the submits are in order; at the
// first one that is not, Next returns ErrUnsorted.
//
// Trace describes the file: its header and machine size are known when
// OpenPipe returns; its Report (and header lines after the first record)
// only once Next has returned io.EOF.
type Pipe struct {
	Trace *Trace

	format Format // of the file: FormatSWF or FormatSacct
	f      *os.File
	ra     *readAhead
	full   chan pipeBatch
	free   chan []Job
	done   chan struct{}
	cur    []Job
	owned  []Job
	err    error
	closed bool
}

type pipeBatch struct {
	jobs []Job
	err  error // after jobs: io.EOF or the first error
	tr   Trace // at io.EOF: the final header and report
}

const (
	pipeBatchJobs = 4096
	pipeBatches   = 4
)

// OpenPipe opens path and reads up to its first kept job, so that errors in
// the header or the first record are reported here, and the machine size
// is known. ok is false (and nothing is open) when the machine size depends
// on the whole file (no MaxProcs or MaxNodes in the header and no
// opt.MachineProcs): use Load then.
func OpenPipe(path string, opt Options) (p *Pipe, ok bool, err error) {
	if opt.File == "" {
		opt.File = path
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, false, err
	}
	src, gz, err := openStream(f, opt.File)
	if err != nil {
		f.Close()
		return nil, false, err
	}
	p = &Pipe{f: f, full: make(chan pipeBatch, pipeBatches), free: make(chan []Job, pipeBatches+1), done: make(chan struct{})}
	if gz {
		p.ra = newReadAhead(src)
		src = p.ra
	}
	rd := newReader(src, gz, opt)
	first, err := rd.Next()
	if err != nil && err != io.EOF {
		p.Close()
		return nil, false, err
	}
	procs, source := rd.Machine()
	if err == io.EOF || procs == 0 {
		p.Close()
		return nil, false, nil
	}
	p.Trace = &Trace{Header: *rd.Header(), MachineProcs: procs, MachineSource: source, File: opt.File}
	p.format = rd.Format()
	for range pipeBatches + 1 {
		p.free <- make([]Job, 0, pipeBatchJobs)
	}
	go p.read(rd, first)
	return p, true, nil
}

// Format returns the file's format, FormatSWF or FormatSacct: a sacct
// log's names (Trace.Names) are complete only once the pipe is drained.
func (p *Pipe) Format() Format { return p.format }

// read parses the rest of the file into batches.
func (p *Pipe) read(rd *Reader, first Job) {
	prev := first.Submit
	var buf []Job
	select {
	case buf = <-p.free:
	case <-p.done:
		return
	}
	buf = append(buf, first)
	for {
		j, err := rd.Next()
		if err == nil && j.Submit < prev {
			err = fmt.Errorf("%s:%d: field 2 (submit_time): %w (%v after %v); the trace is re-sorted when loaded whole", rd.opt.File, j.Line, ErrUnsorted, j.Submit, prev)
		}
		if err != nil {
			b := pipeBatch{jobs: buf, err: err}
			if err == io.EOF {
				procs, source := rd.Machine()
				b.tr = Trace{Header: *rd.Header(), Report: *rd.Report(), MachineProcs: procs, MachineSource: source, File: rd.opt.File, Names: rd.Names()}
			}
			select {
			case p.full <- b:
			case <-p.done:
			}
			return
		}
		prev = j.Submit
		buf = append(buf, j)
		if len(buf) < cap(buf) {
			continue
		}
		select {
		case p.full <- pipeBatch{jobs: buf}:
		case <-p.done:
			return
		}
		select {
		case buf = <-p.free:
		case <-p.done:
			return
		}
	}
}

// Next returns the next kept job, io.EOF at the end (Trace is then
// complete), ErrUnsorted (wrapped, naming the line) at the first job out of
// submit order, or the reader's error.
func (p *Pipe) Next() (Job, error) {
	for len(p.cur) == 0 {
		if p.err != nil {
			return Job{}, p.err
		}
		if p.owned != nil {
			p.free <- p.owned[:0]
			p.owned = nil
		}
		b := <-p.full
		p.cur, p.owned, p.err = b.jobs, b.jobs, b.err
		if b.err == io.EOF {
			*p.Trace = b.tr
		}
	}
	j := p.cur[0]
	p.cur = p.cur[1:]
	return j, nil
}

// Close stops the reading goroutines and closes the file, whether or not
// the jobs were all read. Later calls do nothing.
func (p *Pipe) Close() {
	if p.closed {
		return
	}
	p.closed = true
	close(p.done)
	if p.ra != nil {
		p.ra.Close()
	}
	p.f.Close()
}
