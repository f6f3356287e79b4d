package results

import (
	"bufio"
	"io"
	"math"
	"strconv"

	"drsim/cluster"
)

// JobsHeader is the header of jobs.csv: Batsim's columns, then drsim's.
const JobsHeader = jobsCols + "\n"

const jobsCols = "job_id,workload_name,submission_time,requested_number_of_resources,requested_time," +
	"success,final_state,starting_time,execution_time,finish_time,waiting_time,turnaround_time," +
	"stretch,allocated_resources,consumed_energy,bounded_slowdown,evictions,wasted_energy"

// JobsCSV streams jobs.csv. It formats numbers by hand into one reused
// buffer: no reflection, no allocation per row.
type JobsCSV struct {
	w       *bufio.Writer
	buf     []byte
	devices bool // cpu_energy,gpu_energy columns (NewJobsCSVDevices)
}

// JobsDevicesHeader is the header of jobs.csv on machines with GPUs: two
// more columns, the finishing run's energy drawn by its GPUs
// (gpu_energy) and the rest of it (cpu_energy: CPU packages and the
// nodes' other draw); they sum to consumed_energy.
const JobsDevicesHeader = jobsCols + ",cpu_energy,gpu_energy\n"

// NewJobsCSVDevices is NewJobsCSV with the per-device columns.
func NewJobsCSVDevices(w io.Writer) (*JobsCSV, error) {
	bw := bufio.NewWriterSize(w, 1<<16)
	if _, err := bw.WriteString(JobsDevicesHeader); err != nil {
		return nil, err
	}
	return &JobsCSV{w: bw, buf: make([]byte, 0, 256), devices: true}, nil
}

// NewJobsCSV writes the header to w and returns the writer. Call Flush at
// the end.
func NewJobsCSV(w io.Writer) (*JobsCSV, error) {
	bw := bufio.NewWriterSize(w, 1<<16)
	if _, err := bw.WriteString(JobsHeader); err != nil {
		return nil, err
	}
	return &JobsCSV{w: bw, buf: make([]byte, 0, 256)}, nil
}

// Record writes one row.
func (j *JobsCSV) Record(r *Record) error {
	b := j.buf[:0]
	b = strconv.AppendInt(b, r.ID, 10)
	b = append(b, ',')
	b = append(b, r.Workload...)
	b = append(b, ',')
	b = appendNum(b, r.Submit)
	b = append(b, ',')
	b = strconv.AppendInt(b, r.Procs, 10)
	b = append(b, ',')
	b = appendNum(b, r.ReqTime)
	if r.State == StateCompleted {
		b = append(b, ",1,"...)
	} else {
		b = append(b, ",0,"...)
	}
	b = append(b, r.State...)
	b = append(b, ',')
	b = appendNum(b, r.Start)
	b = append(b, ',')
	b = appendNum(b, r.Runtime())
	b = append(b, ',')
	b = appendNum(b, r.End)
	b = append(b, ',')
	b = appendNum(b, r.Wait())
	b = append(b, ',')
	b = appendNum(b, r.Turnaround())
	b = append(b, ',')
	st, s0 := r.Stretch(), len(b)
	b = appendNum(b, st)
	s1 := len(b)
	b = append(b, ',')
	b = cluster.AppendIntervalSet(b, r.Alloc)
	b = append(b, ',')
	b = appendMilli(b, r.Energy)
	b = append(b, ',')
	if bs := r.BoundedSlowdown(); math.Float64bits(bs) == math.Float64bits(st) {
		b = append(b, b[s0:s1]...) // the same number, already formatted (usually, as runs are longer than τ)
	} else {
		b = appendNum(b, bs)
	}
	b = append(b, ',')
	b = strconv.AppendInt(b, int64(r.Evictions), 10)
	b = append(b, ',')
	b = appendMilli(b, r.Wasted)
	if j.devices {
		b = append(b, ',')
		b = appendMilli(b, r.Energy-r.GPUEnergy)
		b = append(b, ',')
		b = appendMilli(b, r.GPUEnergy)
	}
	b = append(b, '\n')
	j.buf = b
	_, err := j.w.Write(b)
	return err
}

// Flush writes any buffered rows.
func (j *JobsCSV) Flush() error { return j.w.Flush() }

// appendNum formats v compactly and exactly: integers without a decimal
// point, other values with the shortest representation that round-trips.
func appendNum(b []byte, v float64) []byte {
	if v == math.Trunc(v) && math.Abs(v) < 1e15 {
		return strconv.AppendInt(b, int64(v), 10)
	}
	return strconv.AppendFloat(b, v, 'f', -1, 64)
}

// appendMilli formats an energy in J to the millijoule: integers as
// integers, anything else with exactly three decimals. It is exact to
// 0.5 mJ and much cheaper than the shortest round-trip form.
func appendMilli(b []byte, v float64) []byte {
	if v == math.Trunc(v) || math.Abs(v) >= 1e15 || math.IsNaN(v) {
		return appendNum(b, v)
	}
	m := int64(math.Round(v * 1000))
	if m < 0 {
		b = append(b, '-')
		m = -m
	}
	b = strconv.AppendInt(b, m/1000, 10)
	f := m % 1000
	return append(b, '.', byte('0'+f/100), byte('0'+f/10%10), byte('0'+f%10))
}
