package workloads

import (
	"bufio"
	"bytes"
	"io"
	"runtime"
	"sync/atomic"
)

// Load's parallel reader. One goroutine decompresses the input into chunks
// of whole lines; workers and the caller split the chunks into lines and
// parse their records (parseRecord and derive, which depend on nothing but
// the line and the Options); the caller takes the chunks back in file order and
// applies everything that depends on the lines before (line numbers, the
// header, the machine size, drops, flags, ranges, MaxJobs) with the
// Reader's own methods, on a Reader that has read the lines before.
//
// A chunk is applied from the workers' results only when it is clean:
// every line blank, a comment or a record with 18 good fields, none longer
// than parMaxLine, none a sacct header, and the input not failing inside
// it. From the first chunk that is not, the Reader reads the rest of the
// raw text itself (Next, as loadSequential does), so errors, sacct logs
// and odd lines get the sequential reader's own handling and messages.
// The jobs, Report, Header and errors are thus those of loadSequential;
// the tests compare the two on the shared traces and on inputs built to
// put every kind of line at every chunk boundary.

const (
	parChunkSize = 256 << 10 // bytes read per chunk
	parChunks    = 8         // chunks in flight (read, parsed, waiting to be applied)
	parMaxLine   = 16 << 10  // longer lines are left to the sequential reader
)

// loadWorkers is the number of goroutines that parse beside the caller:
// one per processor the Go scheduler runs on but the caller's, at most 3
// (the decompressor takes a share too).
func loadWorkers() int { return min(runtime.GOMAXPROCS(0)-1, 3) }

var bom = []byte("\xef\xbb\xbf")

// parChunk is one piece of the input: whole lines, except in the final
// chunk (the rest of the input) and in a chunk with no newline at all.
type parChunk struct {
	buf    []byte
	text   []byte
	err    error // final chunk: io.EOF or the read error
	final  bool
	first  bool          // the input's first chunk (a BOM starts line 1)
	claim  atomic.Bool   // a worker or the caller has taken the chunk to parse
	ready  chan struct{} // a worker has parsed it
	parsed bool          // the caller knows it is parsed

	// The worker's results.
	clean     bool
	jobs      []Job     // every record, Line counted from 1 in the chunk
	marks     []parMark // blank and comment lines, in order
	lines     int64     // lines in text
	firstText int64     // chunk line of the first non-blank line, 0 if none
}

// parMark is a blank line (start < 0) or a comment, text[start:end] from
// its ';' on, without the line end.
type parMark struct {
	line       int64
	start, end int32
}

// parse fills the chunk's results. It mirrors Reader.Next for SWF lines
// and stops, leaving clean false, at the first line it does not handle.
func (c *parChunk) parse(opt *Options) {
	c.jobs, c.marks = c.jobs[:0], c.marks[:0]
	c.lines, c.firstText, c.clean = 0, 0, false
	if c.final && c.err != io.EOF {
		return
	}
	var tok [numFields + 1][2]int32
	text := c.text
	for off := 0; off < len(text); {
		start := off
		if nl := bytes.IndexByte(text[off:], '\n'); nl >= 0 {
			off += nl + 1
		} else if c.final {
			off = len(text)
		} else {
			return // a line longer than the chunk
		}
		line := text[start:off]
		c.lines++
		if len(line) > parMaxLine {
			return
		}
		if c.first && c.lines == 1 && bytes.HasPrefix(line, bom) {
			line, start = line[len(bom):], start+len(bom)
		}
		i := 0
		for i < len(line) && isSpace(line[i]) {
			i++
		}
		if i == len(line) || line[i] == '\n' {
			c.marks = append(c.marks, parMark{line: c.lines, start: -1})
			continue
		}
		if c.firstText == 0 {
			c.firstText = c.lines
			if opt.Format != FormatSWF && isSacctHeader(line) {
				return
			}
		}
		if line[i] == ';' {
			t := bytes.TrimRight(line[i:], "\r\n")
			c.marks = append(c.marks, parMark{line: c.lines, start: int32(start + i), end: int32(start + i + len(t))})
			continue
		}
		if len(c.jobs) == cap(c.jobs) {
			c.jobs = append(c.jobs, Job{})[:len(c.jobs)]
		}
		c.jobs = c.jobs[:len(c.jobs)+1]
		j := &c.jobs[len(c.jobs)-1]
		if _, k, n := parseRecord(line, &tok, j); n != numFields || k != numOK {
			return
		}
		derive(opt, j)
		j.Line = c.lines
	}
	c.clean = true
}

// parLoad runs the reading and parsing goroutines of one loadParallel.
type parLoad struct {
	opt     Options
	size    int
	workers int
	work    chan *parChunk // to the workers
	order   chan *parChunk // to the caller, in file order
	free    chan *parChunk
	done    chan struct{}
	raw     atomic.Bool // the caller reads raw text from now on: do not parse
	ahead   []*parChunk // the caller's: chunks from order, in file order
}

func startParLoad(src io.Reader, opt Options, workers, size int) *parLoad {
	p := &parLoad{opt: opt, size: size, workers: workers, ahead: make([]*parChunk, 0, parChunks),
		work: make(chan *parChunk, parChunks), order: make(chan *parChunk, parChunks),
		free: make(chan *parChunk, parChunks), done: make(chan struct{})}
	for range parChunks {
		p.free <- &parChunk{ready: make(chan struct{}, 1)}
	}
	// Strict (every anomaly an error) or a sacct log: all sequential.
	p.raw.Store(opt.Strict || opt.Format == FormatSacct)
	go p.read(src)
	for range workers {
		go p.parse()
	}
	return p
}

// get returns a free chunk, or nil once the load is stopped.
func (p *parLoad) get() *parChunk {
	select {
	case <-p.done:
		return nil
	default:
	}
	select {
	case c := <-p.free:
		if c.buf == nil {
			c.buf = make([]byte, p.size)
		}
		return c
	case <-p.done:
		return nil
	}
}

// read fills chunks from src and cuts each after its last newline, the
// rest starting the next one.
func (p *parLoad) read(src io.Reader) {
	defer close(p.work)
	c := p.get()
	if c == nil {
		return
	}
	n, first := 0, true
	for {
		m, err := fillBuf(src, c.buf[n:])
		n += m
		c.first, first = first, false
		if err != nil {
			c.text, c.err, c.final = c.buf[:n], err, true
			p.send(c)
			return
		}
		next := p.get()
		if next == nil {
			return
		}
		cut := bytes.LastIndexByte(c.buf[:n], '\n') + 1
		if cut == 0 {
			cut = n // no newline: the worker finds the line unfinished
		}
		k := copy(next.buf, c.buf[cut:n])
		c.text, c.err, c.final = c.buf[:cut], nil, false
		p.send(c)
		c, n = next, k
	}
}

// send hands a filled chunk to the caller, and to the workers unless
// their queue is full (of chunks the caller took before them, if they are
// not running): the caller then parses it. Neither send blocks: the
// caller's queue holds every chunk.
func (p *parLoad) send(c *parChunk) {
	c.claim.Store(false)
	c.parsed = false
	if p.workers > 0 {
		select {
		case p.work <- c:
		default:
		}
	}
	p.order <- c
}

// parse is a worker: it parses the chunks the caller has not taken.
func (p *parLoad) parse() {
	for c := range p.work {
		if c.claim.CompareAndSwap(false, true) {
			p.run(c)
			c.ready <- struct{}{}
		}
	}
}

func (p *parLoad) run(c *parChunk) {
	c.clean = false
	if !p.raw.Load() {
		c.parse(&p.opt)
	}
}

// next returns the next chunk in file order, parsed: by the caller when
// no worker has taken it; else, while a worker parses it, the caller
// parses later chunks that no worker has taken, and waits only when there
// are none.
func (p *parLoad) next() *parChunk {
	if len(p.ahead) == 0 {
		p.ahead = append(p.ahead, <-p.order)
	}
	c := p.ahead[0]
	for !c.parsed {
		if c.claim.CompareAndSwap(false, true) {
			p.run(c)
			c.parsed = true
			break
		}
		select {
		case <-c.ready: // before stealing more: the chunks go back to the reader soonest
			c.parsed = true
			continue
		default:
		}
		if p.steal() {
			continue
		}
		select {
		case <-c.ready:
			c.parsed = true
		case d := <-p.order:
			p.ahead = append(p.ahead, d)
		}
	}
	p.ahead = p.ahead[:copy(p.ahead, p.ahead[1:])]
	return c
}

// steal parses the first chunk after the next one in file order that no
// worker has taken, if any.
func (p *parLoad) steal() bool {
	for {
		select {
		case d := <-p.order:
			p.ahead = append(p.ahead, d)
			continue
		default:
		}
		break
	}
	for _, d := range p.ahead[1:] {
		if !d.parsed && d.claim.CompareAndSwap(false, true) {
			p.run(d)
			d.parsed = true
			return true
		}
	}
	return false
}

func (p *parLoad) release(c *parChunk) { p.free <- c }

// stop ends the goroutines; a read in progress finishes first.
func (p *parLoad) stop() {
	p.raw.Store(true)
	close(p.done)
}

// parStream is the raw text from a chunk on, then the input's own end or
// error, for the sequential reader.
type parStream struct {
	p    *parLoad
	cur  *parChunk
	rest []byte
}

func (s *parStream) Read(b []byte) (int, error) {
	for len(s.rest) == 0 {
		if s.cur.final {
			return 0, s.cur.err
		}
		s.p.release(s.cur)
		s.cur = s.p.next()
		s.rest = s.cur.text
	}
	n := copy(b, s.rest)
	s.rest = s.rest[n:]
	return n, nil
}

// loadParallel is loadSequential with the SWF lines parsed by the caller
// and workers more goroutines, the input read in chunks of size bytes.
func loadParallel(src io.Reader, gz bool, opt Options, workers, size int) (*Trace, error) {
	p := startParLoad(src, opt, workers, size)
	defer p.stop()
	rd := &Reader{gz: gz, opt: opt}
	rd.rep.File = opt.File
	var jobs []Job
	for {
		c := p.next()
		if !c.clean {
			// From here on the Reader reads the raw text itself.
			p.raw.Store(true)
			rd.br = bufio.NewReaderSize(&parStream{p: p, cur: c, rest: c.text}, 64<<10)
			for {
				j, err := rd.Next()
				if err == io.EOF {
					return rd.trace(jobs), nil
				}
				if err != nil {
					return nil, err
				}
				if jobs == nil {
					jobs = make([]Job, 0, capHint(rd.Header(), opt.MaxJobs))
				}
				jobs = append(jobs, j)
			}
		}
		if rd.apply(c, &jobs) {
			return rd.trace(jobs), nil
		}
		if c.final {
			if err := rd.finish(io.EOF); err != io.EOF {
				return nil, err
			}
			return rd.trace(jobs), nil
		}
		p.release(c)
	}
}

// apply does for a clean chunk's lines what Next does after parsing them,
// appending the kept jobs, and reports whether opt.MaxJobs was reached
// (Next's next call would return io.EOF without reading on).
func (r *Reader) apply(c *parChunk, jobs *[]Job) (truncated bool) {
	if c.firstText > 0 {
		r.decided = true // the first non-blank line is not a sacct header
	}
	base := r.rep.Lines
	marks := c.marks
	for i := range c.jobs {
		j := &c.jobs[i]
		for len(marks) > 0 && marks[0].line < j.Line {
			r.mark(c, marks[0], base)
			marks = marks[1:]
		}
		r.rep.Lines = base + j.Line
		if !r.started {
			r.decideMachine()
		}
		r.rep.Records++
		j.Line = r.rep.Lines
		if keep, _ := r.admit(nil, j, 0); !keep { // not strict: no error
			continue
		}
		if *jobs == nil {
			*jobs = make([]Job, 0, capHint(&r.hdr, r.opt.MaxJobs))
		}
		*jobs = append(*jobs, *j)
		if r.opt.MaxJobs > 0 && r.rep.Kept >= int64(r.opt.MaxJobs) {
			r.rep.Truncated = true
			return true
		}
	}
	for _, m := range marks {
		r.mark(c, m, base) // every line is a job or a mark, so Lines ends at the chunk's last
	}
	return false
}

// mark counts a blank line or reads a comment into the header.
func (r *Reader) mark(c *parChunk, m parMark, base int64) {
	r.rep.Lines = base + m.line
	if m.start < 0 {
		r.rep.Blank++
		return
	}
	r.rep.Comments++
	r.hdr.parseComment(c.text[m.start:m.end], r.where())
}
