package results

import (
	"bufio"
	"io"
	"math"
	"strconv"
)

// PowerCSV streams power.csv: one row per change of cluster power, limit
// or occupancy (or per step when Step > 0): time, power_w, limit_w,
// busy_procs, running_jobs. An infinite limit is written as "inf".
type PowerCSV struct {
	w    *bufio.Writer
	buf  []byte
	Step float64 // when > 0, write at most one row per Step seconds (the last state in each step)

	last    float64
	pending bool
	row     [6]float64
	devices bool // gpu_w column (NewPowerCSVDevices)
}

// NewPowerCSVDevices is NewPowerCSV with one more column, gpu_w: the
// power drawn by busy GPUs (of the limited partition's, as power_w), on
// machines with GPUs. power_w − gpu_w is everything else: CPU packages,
// the nodes' other draw and idle nodes.
func NewPowerCSVDevices(w io.Writer, step float64) (*PowerCSV, error) {
	bw := bufio.NewWriterSize(w, 1<<16)
	if _, err := bw.WriteString("time,power_w,limit_w,busy_procs,running_jobs,gpu_w\n"); err != nil {
		return nil, err
	}
	return &PowerCSV{w: bw, Step: step, last: math.Inf(-1), devices: true}, nil
}

// PowerDevices records the state at time t with the busy GPUs' power.
func (p *PowerCSV) PowerDevices(t, watts, limit, gpuW float64, busy, running int) error {
	return p.record([6]float64{t, watts, limit, float64(busy), float64(running), gpuW})
}

// NewPowerCSV writes the header and returns the writer.
func NewPowerCSV(w io.Writer, step float64) (*PowerCSV, error) {
	bw := bufio.NewWriterSize(w, 1<<16)
	if _, err := bw.WriteString("time,power_w,limit_w,busy_procs,running_jobs\n"); err != nil {
		return nil, err
	}
	return &PowerCSV{w: bw, Step: step, last: math.Inf(-1)}, nil
}

// Power records the state at time t.
func (p *PowerCSV) Power(t, watts, limit float64, busy, running int) error {
	return p.record([6]float64{t, watts, limit, float64(busy), float64(running)})
}

func (p *PowerCSV) record(row [6]float64) error {
	if p.Step > 0 {
		if p.pending && math.Floor(row[0]/p.Step) == math.Floor(p.row[0]/p.Step) {
			p.row = row
			return nil
		}
		if err := p.flushRow(); err != nil {
			return err
		}
		p.row, p.pending = row, true
		return nil
	}
	p.row, p.pending = row, true
	return p.flushRow()
}

func (p *PowerCSV) flushRow() error {
	if !p.pending {
		return nil
	}
	p.pending = false
	b := p.buf[:0]
	b = appendNum(b, p.row[0])
	b = append(b, ',')
	b = strconv.AppendFloat(b, p.row[1], 'f', 3, 64)
	b = append(b, ',')
	if math.IsInf(p.row[2], 1) {
		b = append(b, "inf"...)
	} else {
		b = strconv.AppendFloat(b, p.row[2], 'f', 3, 64)
	}
	b = append(b, ',')
	b = strconv.AppendInt(b, int64(p.row[3]), 10)
	b = append(b, ',')
	b = strconv.AppendInt(b, int64(p.row[4]), 10)
	if p.devices {
		b = append(b, ',')
		b = strconv.AppendFloat(b, p.row[5], 'f', 3, 64)
	}
	b = append(b, '\n')
	p.buf = b
	_, err := p.w.Write(b)
	return err
}

// Flush writes any pending row and buffered data.
func (p *PowerCSV) Flush() error {
	if err := p.flushRow(); err != nil {
		return err
	}
	return p.w.Flush()
}
