package sim

import (
	"os"

	"drsim/scheduler"
	"drsim/workloads"
)

// StreamThreshold is the trace file size above which Open streams jobs
// from the file instead of loading them: memory then grows with the running
// and queued jobs, not with the length of the trace.
const StreamThreshold = 32 << 20

// Open prepares the spec's workload for Run. Small traces and the embedded
// workload are loaded into memory (Load). A trace file larger than
// StreamThreshold, or any trace file when stream is set, is scanned once
// (header, anomaly report, submit order) and then streamed: the returned
// Trace has no Jobs and the returned Source reads them from the file as the
// engine needs them. Streaming needs submits in order and, for --dr-ratio,
// the whole trace (the span depends on every job); otherwise Open falls
// back to loading. Call close when the run is over.
func Open(s Spec, stream bool) (tr *workloads.Trace, src scheduler.Source, close func(), err error) {
	d := s.withDefaults()
	nop := func() {}
	if d.Trace != "" && d.DRRatio == 0 {
		if fi, err := os.Stat(d.Trace); err == nil && (stream || fi.Size() > StreamThreshold) {
			tr, fs, ok, err := openStream(d)
			if err != nil {
				return nil, nil, nop, err
			}
			if ok {
				return tr, fs, func() { fs.f.Close() }, nil
			}
		}
	}
	if tr, err = Load(s); err != nil {
		return nil, nil, nop, err
	}
	return tr, &scheduler.SliceSource{Jobs: tr.Jobs}, nop, nil
}

// fileSource streams kept jobs from an SWF file in file order.
type fileSource struct {
	f *os.File
	r *workloads.Reader
}

func (s *fileSource) Next() (workloads.Job, error) { return s.r.Next() }

func openStream(d Spec) (*workloads.Trace, *fileSource, bool, error) {
	opt, err := readOptions(d)
	if err != nil {
		return nil, nil, false, err
	}
	opt.File = d.Trace
	f, err := os.Open(d.Trace)
	if err != nil {
		return nil, nil, false, err
	}
	h, rep, err := workloads.Scan(f, opt)
	f.Close()
	if err != nil {
		return nil, nil, false, err
	}
	if rep.Count(workloads.Unsorted) > 0 || rep.Kept == 0 {
		return nil, nil, false, nil // needs the stable re-sort of Load, or its error
	}
	if f, err = os.Open(d.Trace); err != nil {
		return nil, nil, false, err
	}
	r, err := workloads.NewReader(f, opt)
	if err != nil {
		f.Close()
		return nil, nil, false, err
	}
	tr := &workloads.Trace{Header: *h, Report: *rep, MachineProcs: rep.MachineProcs, MachineSource: rep.MachineSource, File: d.Trace}
	return tr, &fileSource{f: f, r: r}, true, nil
}
