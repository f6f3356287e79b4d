package workloads

import (
	"errors"
	"io"
)

// readAhead decompresses on a second goroutine while the caller parses, so
// Load on a gzip trace takes about max(gunzip, parse) rather than the sum
// on a multi-core machine. Only Load and Pipe use it, because they read to
// the end or stop it with Close; a plain Reader stays single-threaded.
type readAhead struct {
	full  chan chunk
	free  chan []byte
	done  chan struct{}
	cur   []byte
	err   error
	owned []byte // the buffer cur points into, returned to free when drained
}

type chunk struct {
	buf []byte
	err error
}

const (
	readAheadBufs = 4
	readAheadSize = 256 << 10
)

func newReadAhead(src io.Reader) *readAhead {
	ra := &readAhead{full: make(chan chunk, readAheadBufs), free: make(chan []byte, readAheadBufs), done: make(chan struct{})}
	for range readAheadBufs {
		ra.free <- make([]byte, readAheadSize)
	}
	go ra.fill(src)
	return ra
}

func (ra *readAhead) fill(src io.Reader) {
	for {
		var buf []byte
		select {
		case buf = <-ra.free:
		case <-ra.done:
			return
		}
		n, err := fillBuf(src, buf)
		select {
		case ra.full <- chunk{buf[:n], err}:
		case <-ra.done:
			return
		}
		if err != nil {
			return
		}
	}
}

func (ra *readAhead) Read(p []byte) (int, error) {
	for len(ra.cur) == 0 {
		if ra.err != nil {
			return 0, ra.err
		}
		if ra.owned != nil {
			ra.free <- ra.owned[:cap(ra.owned)]
			ra.owned = nil
		}
		select {
		case c := <-ra.full:
			ra.cur, ra.owned, ra.err = c.buf, c.buf, c.err
		case <-ra.done:
			return 0, errReadAheadClosed
		}
	}
	n := copy(p, ra.cur)
	ra.cur = ra.cur[n:]
	return n, nil
}

var errReadAheadClosed = errors.New("read after close")

// Close stops the decompressing goroutine.
func (ra *readAhead) Close() { close(ra.done) }

// fillBuf reads into buf until it is full or src fails; unlike io.ReadFull
// it passes src's own error (io.EOF, or gzip's io.ErrUnexpectedEOF for a
// truncated stream) through unchanged.
func fillBuf(src io.Reader, buf []byte) (int, error) {
	n := 0
	for n < len(buf) {
		m, err := src.Read(buf[n:])
		n += m
		if err != nil {
			return n, err
		}
	}
	return n, nil
}
