package plot

import (
	"fmt"
	"io"
	"math"

	gplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// QueueUtil is the input of QueueAndUtilisation.
type QueueUtil struct {
	Queue  []Step     // W = jobs waiting; required, finite
	Util   []Step     // W = percent of processors busy, 0–100; required, finite
	Events []Interval // DR events in s, shaded on both panels; optional
	End    float64    // end of the drawn span in s; zero: the latest step time or event end
}

var (
	queueStyle = draw.LineStyle{Color: palette[0], Width: vg.Points(1)}
	utilStyle  = draw.LineStyle{Color: palette[4], Width: vg.Points(1)}
)

// QueueAndUtilisation draws queue length (top) and utilisation (bottom) against a
// shared time axis on two aligned panels. Both series are downsampled like
// PowerOverTime's. The default height is 1.2 × DefaultHeight.
func QueueAndUtilisation(w io.Writer, in QueueUtil, opt Options) error {
	if len(in.Queue) == 0 || len(in.Util) == 0 {
		return fmt.Errorf("plot: QueueAndUtilisation: need both queue (%d steps) and utilisation (%d steps)", len(in.Queue), len(in.Util))
	}
	if err := checkSteps("queue", in.Queue, false); err != nil {
		return err
	}
	if err := checkSteps("utilisation", in.Util, false); err != nil {
		return err
	}
	if err := checkIntervals("event", in.Events); err != nil {
		return err
	}
	if err := checkFinite("End", in.End); err != nil {
		return err
	}
	t0, t1 := span(in.End, in.Events, in.Queue, in.Util)
	if t1 < t0 {
		return fmt.Errorf("plot: QueueAndUtilisation: End %v is before the first step at %v", t1, t0)
	}
	t0, t1 = widen(t0, t1)
	unit := unitFor(t1 - t0)

	top := newPlot(opt, "", "", "Queue (jobs)")
	top.X.Label.Text = "" // the shared x label goes on the bottom panel only
	bottom := newPlot(Options{XLabel: opt.XLabel}, "", unit.label(), "Utilisation (%)")
	queue := newStepSeries(in.Queue, t0, t1, unit.secs, 1, queueStyle)
	util := newStepSeries(in.Util, t0, t1, unit.secs, 1, utilStyle)
	var ev *bands
	if len(in.Events) > 0 {
		ev = &bands{iv: in.Events, xdiv: unit.secs, color: draw.LineStyle{Color: eventColour}}
		top.Add(ev)
		bottom.Add(ev)
	}
	top.Add(queue)
	bottom.Add(util)
	entries := []legendEntry{{"Queue", queue}}
	if ev != nil {
		entries = append(entries, legendEntry{"DR event", ev})
	}
	for _, p := range []*gplot.Plot{top, bottom} {
		p.X.Min, p.X.Max = t0/unit.secs, t1/unit.secs
		p.X.Tick.Marker = unit
	}
	top.Y.Min, top.Y.Max = widen(math.Min(0, queue.lo), headroom(math.Min(0, queue.lo), queue.hi, len(entries)))
	bottom.Y.Min, bottom.Y.Max = math.Min(0, util.lo), math.Max(100, util.hi)
	addLegend(top, entries)
	if opt.Height <= 0 {
		opt.Height = DefaultHeight * 6 / 5
	}
	return render(w, opt, func(dc draw.Canvas) {
		tiles := draw.Tiles{Rows: 2, Cols: 1, PadY: vg.Points(4)}
		cs := gplot.Align([][]*gplot.Plot{{top}, {bottom}}, tiles, dc)
		top.Draw(cs[0][0])
		bottom.Draw(cs[1][0])
	})
}
