package sim

import (
	"bytes"
	"fmt"
	"math"
	"slices"

	"drsim/results"
	"drsim/results/plot"
	"drsim/scheduler"
)

// Timeline collects what a run's figures need: the power and limit steps
// and the utilisation (as a PowerObserver), and every job's submit, start
// and end (as a Recorder). Pass it as Outputs.Observer and Outputs.Record.
// It keeps processor ranges only for the first plot.MaxGanttJobs jobs.
type Timeline struct {
	procs        int
	power, limit []plot.Step
	gpu          []plot.Step // busy GPUs' power (PowerDevices), on machines with GPUs
	util         []plot.Step
	times        [][2]float64 // submit, start
	bars         []plot.Bar
	tooMany      bool
}

// NewTimeline returns an empty timeline for a machine of procs processors.
func NewTimeline(procs int) *Timeline { return &Timeline{procs: procs} }

var (
	_ scheduler.PowerObserver = (*Timeline)(nil)
	_ results.Recorder        = (*Timeline)(nil)
)

// Power records the cluster state at t.
func (tl *Timeline) Power(t, watts, limit float64, busy, _ int) error {
	tl.power = append(tl.power, plot.Step{T: t, W: watts})
	tl.limit = append(tl.limit, plot.Step{T: t, W: limit})
	tl.util = append(tl.util, plot.Step{T: t, W: 100 * float64(busy) / float64(max(tl.procs, 1))})
	return nil
}

// PowerDevices records the cluster state at t with the busy GPUs' power
// (scheduler.DevicePowerObserver): the power figure stacks GPU power under
// the total.
func (tl *Timeline) PowerDevices(t, watts, limit, gpuW float64, busy, running int) error {
	tl.gpu = append(tl.gpu, plot.Step{T: t, W: gpuW})
	return tl.Power(t, watts, limit, busy, running)
}

// Record records one finished job.
func (tl *Timeline) Record(r *results.Record) error {
	tl.times = append(tl.times, [2]float64{r.Submit, r.Start})
	if len(tl.bars) >= plot.MaxGanttJobs {
		tl.tooMany = true
		return nil
	}
	ranges := make([]plot.Range, len(r.Alloc))
	for i, a := range r.Alloc {
		ranges[i] = plot.Range{Lo: int(a.Lo), Hi: int(a.Hi)}
	}
	tl.bars = append(tl.bars, plot.Bar{Job: r.ID, Start: r.Start, End: r.End, Procs: ranges})
	return nil
}

// EventIntervals returns the DR events of a limit schedule: the stretches with a
// finite limit.
func EventIntervals(limits []scheduler.LimitStep, end float64) []plot.Interval {
	var out []plot.Interval
	for i, l := range limits {
		if math.IsInf(l.W, 1) {
			continue
		}
		stop := end
		if i+1 < len(limits) {
			stop = limits[i+1].T
		}
		if n := len(out); n > 0 && out[n-1].End == l.T {
			out[n-1].End = stop
		} else {
			out = append(out, plot.Interval{Start: l.T, End: stop})
		}
	}
	return out
}

// Queue returns the number of waiting jobs over time, from the jobs'
// submit and start times. At equal times, starts are applied after
// submits, so a job that starts at once is never counted as waiting.
func (tl *Timeline) Queue() []plot.Step {
	type ev struct {
		t float64
		d int
	}
	evs := make([]ev, 0, 2*len(tl.times))
	for _, st := range tl.times {
		evs = append(evs, ev{st[0], +1}, ev{st[1], -1})
	}
	slices.SortStableFunc(evs, func(a, b ev) int {
		if a.t != b.t {
			return cmpFloat(a.t, b.t)
		}
		return b.d - a.d // +1 first
	})
	var out []plot.Step
	n := 0
	for i, e := range evs {
		n += e.d
		if i+1 < len(evs) && evs[i+1].t == e.t {
			continue
		}
		out = append(out, plot.Step{T: e.t, W: float64(n)})
	}
	return out
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// Figure is one rendered figure.
type Figure struct {
	Name string // file name, e.g. "power.png"
	Data []byte
}

// Figures renders the run's figures in format f: power over time with the
// limit and DR events, queue length and utilisation, and (for at most
// plot.MaxGanttJobs jobs) a Gantt chart.
func (tl *Timeline) Figures(limits []scheduler.LimitStep, f plot.Format) ([]Figure, error) {
	if len(tl.power) == 0 {
		return nil, fmt.Errorf("sim: no power samples to plot")
	}
	end := tl.power[len(tl.power)-1].T
	events := EventIntervals(limits, end)
	opt := plot.Options{Format: f}
	var out []Figure
	add := func(name string, draw func(*bytes.Buffer) error) error {
		var b bytes.Buffer
		if err := draw(&b); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		out = append(out, Figure{Name: name + "." + f.String(), Data: b.Bytes()})
		return nil
	}
	if err := add("power", func(b *bytes.Buffer) error {
		return plot.PowerOverTime(b, plot.Power{Steps: tl.power, Limit: tl.limit, Events: events, End: end, GPU: tl.gpu}, opt)
	}); err != nil {
		return nil, err
	}
	if err := add("queue", func(b *bytes.Buffer) error {
		return plot.QueueAndUtilisation(b, plot.QueueUtil{Queue: tl.Queue(), Util: tl.util, Events: events, End: end}, opt)
	}); err != nil {
		return nil, err
	}
	if !tl.tooMany {
		if err := add("gantt", func(b *bytes.Buffer) error { return plot.Gantt(b, tl.bars, opt) }); err != nil {
			return nil, err
		}
	}
	return out, nil
}
