package workloads

import (
	"cmp"
	"io"
	"os"
	"slices"
)

// Trace is a whole workload in memory: jobs sorted by submit time (stable,
// so ties keep file order), the header and the read report.
type Trace struct {
	Header        Header
	Jobs          []Job
	Report        Report
	MachineProcs  int64
	MachineSource string // see Reader.Machine
	File          string
	Names         Names // names behind the numeric identifiers (sacct); empty for SWF
}

// Load reads every job from r (plain or gzip; SWF or a sacct log, see
// Options.Format), keeps at most opt.MaxJobs, and sorts the jobs by submit
// time. With GOMAXPROCS above 1, SWF lines are parsed on the caller and
// worker goroutines and applied in file order (loadpar.go); strict reads,
// sacct logs and GOMAXPROCS 1 use one Reader. Either way the result, or
// the error, is the Reader's.
func Load(r io.Reader, opt Options) (*Trace, error) {
	if opt.File == "" {
		opt.File = "<input>"
	}
	src, gz, err := openStream(r, opt.File)
	if err != nil {
		return nil, err
	}
	if w := loadWorkers(); w > 0 && !opt.Strict && opt.Format != FormatSacct {
		return loadParallel(src, gz, opt, w, parChunkSize)
	}
	return loadSequential(src, gz, opt)
}

// loadSequential is Load on one Reader (src from openStream), with
// decompression on a goroutine of its own.
func loadSequential(src io.Reader, gz bool, opt Options) (*Trace, error) {
	if gz {
		ra := newReadAhead(src)
		defer ra.Close()
		src = ra
	}
	rd := newReader(src, gz, opt)
	var jobs []Job
	for {
		j, err := rd.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		if jobs == nil {
			jobs = make([]Job, 0, capHint(rd.Header(), opt.MaxJobs))
		}
		jobs = append(jobs, j)
	}
	return rd.trace(jobs), nil
}

// trace is the Trace of a Reader that has returned io.EOF, with its kept
// jobs: shifted to the earliest submit (sacct) and sorted by submit
// (stable) when they were out of order.
func (rd *Reader) trace(jobs []Job) *Trace {
	if d := rd.Shift(); d != 0 {
		for i := range jobs {
			jobs[i].Submit += d
		}
	}
	if rd.Report().Count(Unsorted) > 0 {
		slices.SortStableFunc(jobs, func(a, b Job) int { return cmp.Compare(a.Submit, b.Submit) })
	}
	procs, source := rd.Machine()
	return &Trace{Header: *rd.Header(), Jobs: jobs, Report: *rd.Report(),
		MachineProcs: procs, MachineSource: source, File: rd.opt.File, Names: rd.Names()}
}

// capHint guesses the job count from the header (which may describe the raw
// log rather than this file, so it is only a hint, and bounded).
func capHint(h *Header, maxJobs int) int {
	n := int(max(h.MaxRecords, h.MaxJobs))
	if n <= 0 || n > 4<<20 {
		n = 1024
	}
	if maxJobs > 0 && maxJobs < n {
		n = maxJobs
	}
	return n
}

// LoadFile opens path and calls Load; opt.File defaults to path.
func LoadFile(path string, opt Options) (*Trace, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if opt.File == "" {
		opt.File = path
	}
	return Load(f, opt)
}
