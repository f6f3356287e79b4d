package sim

import (
	"bytes"
	"fmt"
	"math"
	"strconv"

	"drsim/results/plot"
)

// powerSink is the io.Writer given to Run as Outputs.Power: it parses the
// power.csv stream as it is written (time,power_w,limit_w,busy,running, one
// row per change at the end of an instant) and integrates what compare
// needs, keeping the steps only when asked to.
type powerSink struct {
	keep    bool
	steps   []plot.Step
	partial []byte
	header  bool
	err     error

	last    float64 // time of the previous row
	lastP   float64
	lastL   float64
	have    bool
	drJ     float64 // ∫ power dt while a finite limit is in force (J)
	maxExcW float64 // worst power above a finite limit, at the end of an instant (W)
}

func (p *powerSink) Write(b []byte) (int, error) {
	n := len(b)
	if p.err != nil {
		return n, nil
	}
	p.partial = append(p.partial, b...)
	for {
		i := bytes.IndexByte(p.partial, '\n')
		if i < 0 {
			break
		}
		p.row(p.partial[:i])
		p.partial = p.partial[i+1:]
	}
	// Keep the tail at the front so the buffer does not grow.
	p.partial = append(p.partial[:0:0], p.partial...)
	return n, nil
}

func (p *powerSink) row(line []byte) {
	if !p.header {
		p.header = true
		return
	}
	var f [3][]byte
	k := 0
	for i := 0; k < 3; k++ {
		j := bytes.IndexByte(line[i:], ',')
		if j < 0 {
			p.err = fmt.Errorf("sim: power row %q: too few fields", line)
			return
		}
		f[k] = line[i : i+j]
		i += j + 1
	}
	t, err1 := strconv.ParseFloat(string(f[0]), 64)
	w, err2 := strconv.ParseFloat(string(f[1]), 64)
	l, err3 := strconv.ParseFloat(string(f[2]), 64) // "inf" parses as +Inf
	if err1 != nil || err2 != nil || err3 != nil {
		p.err = fmt.Errorf("sim: power row %q: bad number", line)
		return
	}
	p.advance(t)
	p.lastP, p.lastL, p.have = w, l, true
	if !math.IsInf(l, 1) {
		p.maxExcW = math.Max(p.maxExcW, w-l)
	}
	if p.keep {
		p.steps = append(p.steps, plot.Step{T: t, W: w})
	}
}

// advance integrates the previous row's state up to t.
func (p *powerSink) advance(t float64) {
	if !p.have || t <= p.last {
		p.last = t
		return
	}
	if !math.IsInf(p.lastL, 1) {
		p.drJ += p.lastP * (t - p.last)
	}
	p.last = t
}
