package workloads

import (
	"fmt"
	"io"
	"text/tabwriter"
	"time"
)

// Scan reads every record of r without keeping the jobs, for reports on
// traces of any size. It returns the header and the final report.
func Scan(r io.Reader, opt Options) (*Header, *Report, error) {
	rd, err := NewReader(r, opt)
	if err != nil {
		return nil, nil, err
	}
	for {
		if _, err := rd.Next(); err == io.EOF {
			return rd.Header(), rd.Report(), nil
		} else if err != nil {
			return rd.Header(), rd.Report(), err
		}
	}
}

// Info is the summary that "drsim trace info" prints, as text or JSON.
type Info struct {
	File          string        `json:"file"`
	Header        []KV          `json:"header"`
	Notes         []string      `json:"notes,omitempty"`
	Warnings      []string      `json:"warnings,omitempty"`
	Lines         int64         `json:"lines"`
	Comments      int64         `json:"comment_lines"`
	Blank         int64         `json:"blank_lines"`
	Records       int64         `json:"jobs_read"`
	Kept          int64         `json:"jobs_kept"`
	Dropped       int64         `json:"jobs_dropped"`
	Truncated     bool          `json:"truncated,omitempty"`
	MachineProcs  int64         `json:"machine_procs"`
	MachineSource string        `json:"machine_source"`
	UnixStartTime int64         `json:"unix_start_time,omitempty"`
	FirstSubmit   float64       `json:"first_submit"`
	LastSubmit    float64       `json:"last_submit"`
	SpanDays      float64       `json:"span_days"`
	MinRun        float64       `json:"min_run"`
	MaxRun        float64       `json:"max_run"`
	MinProcs      int64         `json:"min_procs"`
	MaxProcs      int64         `json:"max_procs"`
	Anomalies     []InfoAnomaly `json:"anomalies"`

	// Slurm accounting logs only.
	Format string      `json:"format,omitempty"`
	Steps  int64       `json:"job_steps_skipped,omitempty"`
	States []InfoState `json:"states,omitempty"`
}

// InfoState counts the jobs (kept or dropped) in one Slurm state.
type InfoState struct {
	State string `json:"state"`
	Count int64  `json:"count"`
}

// InfoAnomaly is one reason of a Report, for output.
type InfoAnomaly struct {
	Reason  string `json:"reason"`
	Dropped bool   `json:"dropped"`
	Count   int64  `json:"count"`
	First   string `json:"first,omitempty"`
}

// NewInfo summarises a header and report (from Scan or a Trace).
func NewInfo(h *Header, r *Report) Info {
	in := Info{File: r.File, Header: h.Pairs, Notes: h.Notes, Warnings: h.Warnings,
		Lines: r.Lines, Comments: r.Comments, Blank: r.Blank, Records: r.Records, Kept: r.Kept,
		Dropped: r.Dropped, Truncated: r.Truncated, MachineProcs: r.MachineProcs, MachineSource: r.MachineSource,
		UnixStartTime: h.UnixStartTime, FirstSubmit: r.FirstSubmit, LastSubmit: r.LastSubmit, SpanDays: r.SpanDays(),
		MinRun: r.MinRun, MaxRun: r.MaxRun, MinProcs: r.MinProcs, MaxProcs: r.MaxProcs}
	if in.Header == nil {
		in.Header = []KV{}
	}
	in.Format, in.Steps = r.Format, r.Steps
	for s, n := range r.States {
		if n > 0 {
			in.States = append(in.States, InfoState{State(s).String(), n})
		}
	}
	for i, a := range r.Anomalies {
		reason := Reason(i) // a.Reason is unset while Count is 0
		if reason.sacctOnly() && r.Format == "" {
			continue
		}
		in.Anomalies = append(in.Anomalies, InfoAnomaly{reason.String(), reason.Dropped(), a.Count, a.First})
	}
	return in
}

// WriteText writes the summary as aligned text.
func (in *Info) WriteText(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	p := func(k, format string, a ...any) { fmt.Fprintf(tw, "%s\t"+format+"\n", append([]any{k}, a...)...) }
	p("file", "%s", in.File)
	if in.Format != "" {
		p("format", "%s", in.Format)
	}
	for _, kv := range in.Header {
		p("header "+kv.Key, "%s", kv.Value)
	}
	if in.UnixStartTime > 0 {
		p("start", "%s", time.Unix(in.UnixStartTime, 0).UTC().Format(time.RFC3339))
	}
	p("lines", "%d (%d comment, %d blank)", in.Lines, in.Comments, in.Blank)
	p("jobs", "%d read, %d kept, %d dropped", in.Records, in.Kept, in.Dropped)
	if in.Truncated {
		p("truncated", "stopped at the --jobs limit")
	}
	p("machine", "%d processors (from %s)", in.MachineProcs, in.MachineSource)
	p("submit", "%.0f .. %.0f s (%.2f days)", in.FirstSubmit, in.LastSubmit, in.SpanDays)
	p("runtime", "%g .. %g s", in.MinRun, in.MaxRun)
	p("processors", "%d .. %d", in.MinProcs, in.MaxProcs)
	for _, a := range in.Anomalies {
		action := "kept"
		if a.Dropped {
			action = "dropped"
		}
		if a.Count > 0 {
			p("anomaly "+a.Reason, "%d %s, first at %s", a.Count, action, a.First)
		}
	}
	if in.Steps > 0 {
		p("job steps", "%d lines skipped", in.Steps)
	}
	for _, s := range in.States {
		p("state "+s.State, "%d", s.Count)
	}
	for _, w := range in.Warnings {
		p("warning", "%s", w)
	}
	return tw.Flush()
}
