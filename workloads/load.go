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
// time.
func Load(r io.Reader, opt Options) (*Trace, error) {
	if opt.File == "" {
		opt.File = "<input>"
	}
	src, gz, err := openStream(r, opt.File)
	if err != nil {
		return nil, err
	}
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
		MachineProcs: procs, MachineSource: source, File: rd.opt.File, Names: rd.Names()}, nil
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
