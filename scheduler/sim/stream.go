package sim

import (
	"io"

	"drsim/scheduler"
	"drsim/workloads"
)

// Open prepares the spec's workload for Run. A trace file is piped
// (workloads.Pipe): read on goroutines of its own while the simulation
// runs, so the run starts at once and memory does not grow with the trace;
// the returned Trace then has no Jobs, and its Report is complete only
// after Run. The embedded workload, a trace whose machine size depends on
// the whole file, and runs with DR events (whose placement and checks need
// the whole trace) load it into memory instead (Load), and so does a run
// of a sacct log on a machine file that routes jobs by their partition
// names (no --partition-map), and a run with an associations file
// (--assoc): a streamed sacct log names its partitions, users and
// accounts as it goes, and the router needs the whole table before the
// first job. An SWF trace has no names (every job goes to the default
// partition without --partition-map), so it is piped on a machine file too.
//
// A piped trace whose submits turn out not to be in order makes Run fail
// with workloads.ErrUnsorted; rerun it from Load, which re-sorts. Call
// close when the run is over.
func Open(s Spec) (tr *workloads.Trace, src scheduler.Source, close func(), err error) {
	d := s.withDefaults()
	byPart := d.Machine != "" && d.PartitionMap == "" // by partition name, if a sacct log
	if d.Trace != "" && d.DREvents == "" && d.DRRatio == 0 && d.DRDaily == "" && d.Assoc == "" {
		opt, err := readOptions(d)
		if err != nil {
			return nil, nil, func() {}, err
		}
		p, ok, err := workloads.OpenPipe(d.Trace, opt)
		if err != nil {
			return nil, nil, func() {}, err
		}
		switch {
		case ok && byPart && p.Format() == workloads.FormatSacct:
			p.Close()
		case ok:
			return p.Trace, pipeSource{p}, p.Close, nil
		}
	}
	if tr, err = Load(s); err != nil {
		return nil, nil, func() {}, err
	}
	return tr, &scheduler.SliceSource{Jobs: tr.Jobs}, func() {}, nil
}

// pipeSource marks the pipe's read errors as input errors.
type pipeSource struct{ p *workloads.Pipe }

func (s pipeSource) Next() (workloads.Job, error) {
	j, err := s.p.Next()
	if err != nil && err != io.EOF {
		err = &SpecError{err}
	}
	return j, err
}
