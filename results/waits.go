package results

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
)

// spillChunk is how many waits a waitSet keeps in memory (2 MiB); it
// spills them to disk in chunks of this size.
const spillChunk = 1 << 18

// waitSet holds the jobs' waits for the exact median and p95 in memory
// that does not grow with the trace. The first spillChunk values stay in
// memory; past that, every full chunk is appended to an unlinked temporary
// file (8 bytes a value, nothing left behind however the process ends),
// and the order statistics are found by radix selection over the file:
// each pass counts, among the values whose top bits match the digits found
// so far, the next 16 bits of their order-preserving key, until the bucket
// holding the rank fits in memory and is selected there. Two passes are
// typical, at most four. The answers are exactly the sorted order's.
type waitSet struct {
	chunk int // values kept in memory; 0 means spillChunk (tests use less)
	buf   []float64
	n     int
	f     *os.File
	name  string // still to remove at close (where unlinking an open file failed)
	bytes []byte
}

// add appends one wait.
func (s *waitSet) add(v float64) error {
	if s.chunk == 0 {
		s.chunk = spillChunk
	}
	if s.buf == nil {
		// The whole chunk at once: growing by appends copied and cleared
		// about twice its size on the simulation's goroutine (3 % of
		// HPC2N's hopper run). The pages are only touched as values come.
		s.buf = make([]float64, 0, s.chunk)
	}
	s.buf = append(s.buf, v)
	s.n++
	if len(s.buf) == s.chunk {
		return s.spill()
	}
	return nil
}

func (s *waitSet) spill() error {
	if s.f == nil {
		f, err := os.CreateTemp("", "drsim-waits-*")
		if err != nil {
			return fmt.Errorf("summary: spilling waits to disk: %w", err)
		}
		s.f = f
		if os.Remove(f.Name()) != nil { // Unix: gone from the directory at once
			s.name = f.Name()
		}
		s.bytes = make([]byte, 8*s.chunk)
	}
	b := s.bytes[:0]
	for _, v := range s.buf {
		b = binary.LittleEndian.AppendUint64(b, math.Float64bits(v))
	}
	if _, err := s.f.Write(b); err != nil {
		return fmt.Errorf("summary: spilling waits to disk: %w", err)
	}
	s.buf = s.buf[:0]
	return nil
}

// close releases the temporary file.
func (s *waitSet) close() {
	if s.f != nil {
		s.f.Close()
		if s.name != "" {
			os.Remove(s.name)
		}
		s.f, s.name, s.bytes = nil, "", nil
	}
}

// quantiles returns the linear-interpolation quantiles (numpy's default)
// for qs, which must be ascending, and releases the temporary file.
func (s *waitSet) quantiles(qs ...float64) ([]float64, error) {
	out := make([]float64, len(qs))
	if s.n == 0 {
		return out, nil
	}
	if s.f == nil {
		for i, q := range qs {
			out[i] = quantile(s.buf, q)
		}
		return out, nil
	}
	defer s.close()
	var ranks []int
	for _, q := range qs {
		i := int(math.Floor(q * float64(s.n-1)))
		ranks = append(ranks, i)
		if i+1 < s.n {
			ranks = append(ranks, i+1)
		}
	}
	vals, err := s.selectRanks(ranks)
	if err != nil {
		return nil, err
	}
	for i, q := range qs {
		h := q * float64(s.n-1)
		lo := math.Floor(h)
		k := int(lo)
		v := vals[k]
		if k+1 < s.n {
			v += (h - lo) * (vals[k+1] - v)
		}
		out[i] = v
	}
	return out, nil
}

// key maps a float64 to a uint64 with the same order (for non-NaN values).
func key(v float64) uint64 {
	b := math.Float64bits(v)
	if b>>63 != 0 {
		return ^b
	}
	return b | 1<<63
}

func unkey(k uint64) float64 {
	if k>>63 != 0 {
		return math.Float64frombits(k &^ (1 << 63))
	}
	return math.Float64frombits(^k)
}

// radix is the selection state of one rank.
type radix struct {
	want    int    // the rank asked for
	rank    int    // the rank among the values matching prefix
	prefix  uint64 // the top bits found so far
	bits    int    // how many (0, 16, 32, 48)
	collect bool   // the bucket fits in memory: gather it next pass
	hist    []int
	got     []float64
	done    bool
	val     float64
}

func (r *radix) matches(k uint64) bool { return r.bits == 0 || k>>(64-r.bits) == r.prefix }

// selectRanks returns the values at the given ranks of the sorted order.
func (s *waitSet) selectRanks(ranks []int) (map[int]float64, error) {
	var rs []*radix
	byRank := map[int]*radix{}
	for _, k := range ranks {
		if byRank[k] == nil {
			r := &radix{want: k, rank: k, hist: make([]int, 1<<16)}
			byRank[k] = r
			rs = append(rs, r)
		}
	}
	for {
		var active []*radix
		for _, r := range rs {
			if !r.done {
				active = append(active, r)
			}
		}
		if len(active) == 0 {
			break
		}
		err := s.each(func(v float64) {
			k := key(v)
			for _, r := range active {
				if !r.matches(k) {
					continue
				}
				if r.collect {
					r.got = append(r.got, v)
				} else {
					r.hist[k>>(48-r.bits)&0xffff]++
				}
			}
		})
		if err != nil {
			return nil, err
		}
		for _, r := range active {
			if r.collect {
				r.val, r.done, r.got = nthElement(r.got, r.rank), true, nil
				continue
			}
			d, below := 0, 0
			for below+r.hist[d] <= r.rank {
				below += r.hist[d]
				d++
			}
			r.rank -= below
			r.prefix = r.prefix<<16 | uint64(d)
			r.bits += 16
			switch {
			case r.bits == 64: // every value in the bucket is this one
				r.val, r.done = unkey(r.prefix), true
			case r.hist[d] <= s.chunk:
				r.collect = true
			}
			clear(r.hist)
		}
	}
	out := make(map[int]float64, len(rs))
	for _, r := range rs {
		out[r.want] = r.val
	}
	return out, nil
}

// each calls fn on every value: the spilled chunks, then the tail in memory.
func (s *waitSet) each(fn func(float64)) error {
	if _, err := s.f.Seek(0, io.SeekStart); err != nil {
		return fmt.Errorf("summary: reading spilled waits: %w", err)
	}
	for {
		n, err := io.ReadFull(s.f, s.bytes)
		for b := s.bytes[:n-n%8]; len(b) > 0; b = b[8:] {
			fn(math.Float64frombits(binary.LittleEndian.Uint64(b)))
		}
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			break
		}
		if err != nil {
			return fmt.Errorf("summary: reading spilled waits: %w", err)
		}
	}
	for _, v := range s.buf {
		fn(v)
	}
	return nil
}
