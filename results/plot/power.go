package plot

import (
	"fmt"
	"io"
	"math"

	gplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Power is the input of PowerOverTime.
type Power struct {
	Steps  []Step     // cluster power in W; required, finite
	Limit  []Step     // power limit in W; optional; +Inf (or NaN) means no limit and is not drawn
	Events []Interval // DR events in s, shaded behind the lines; optional
	End    float64    // end of the drawn span in s; zero: the latest step time or event end
	// GPU is the busy GPUs' part of Steps in W, optional: drawn as the
	// lower layer of a stack whose top is the cluster power, so the band
	// between the two is everything else (CPU packages, the nodes' rest).
	GPU []Step
}

var (
	powerStyle = draw.LineStyle{Color: palette[0], Width: vg.Points(1)}
	limitStyle = draw.LineStyle{Color: palette[2], Width: vg.Points(1.5), Dashes: []vg.Length{vg.Points(5), vg.Points(3)}}
	gpuStyle   = draw.LineStyle{Color: palette[1], Width: vg.Points(1)}
)

// PowerOverTime draws cluster power (and the power limit, where there is one)
// against time, with DR events shaded behind. Time is in minutes, hours or days
// from the span (see unitFor); power in kW, or MW from 1 MW. Series with more
// steps than the data area has pixel columns are drawn as a min/max envelope per
// column (see envelope), so a million steps give a plot of the same size as a
// thousand.
func PowerOverTime(w io.Writer, in Power, opt Options) error {
	if len(in.Steps) == 0 {
		return fmt.Errorf("plot: PowerOverTime: no power steps")
	}
	if err := checkSteps("power", in.Steps, false); err != nil {
		return err
	}
	if err := checkSteps("limit", in.Limit, true); err != nil {
		return err
	}
	if err := checkSteps("GPU", in.GPU, false); err != nil {
		return err
	}
	if err := checkIntervals("event", in.Events); err != nil {
		return err
	}
	if err := checkFinite("End", in.End); err != nil {
		return err
	}
	t0, t1 := span(in.End, in.Events, in.Steps, in.Limit)
	if t1 < t0 {
		return fmt.Errorf("plot: PowerOverTime: End %v is before the first step at %v", t1, t0)
	}
	t0, t1 = widen(t0, t1)
	unit := unitFor(t1 - t0)

	power := newStepSeries(in.Steps, t0, t1, unit.secs, 1, powerStyle)
	limit := newStepSeries(in.Limit, t0, t1, unit.secs, 1, limitStyle)
	hi := power.hi
	if limit.finite {
		hi = math.Max(hi, limit.hi)
	}
	ydiv, yname := powerUnit(hi)
	power.ydiv, limit.ydiv = ydiv, ydiv

	p := newPlot(opt, "", unit.label(), "Power ("+yname+")")
	p.X.Tick.Marker = unit
	var ev *bands
	if len(in.Events) > 0 { // added first: drawn behind the lines
		ev = &bands{iv: in.Events, xdiv: unit.secs, color: draw.LineStyle{Color: eventColour}}
		p.Add(ev)
	}
	p.Add(power)
	entries := []legendEntry{{"Cluster power", power}}
	if len(in.GPU) > 0 {
		gpu := newStepSeries(in.GPU, t0, t1, unit.secs, 1, gpuStyle)
		gpu.ydiv = ydiv
		p.Add(gpu)
		entries = []legendEntry{{"Total (CPU, rest, GPU)", power}, {"GPU (lower layer)", gpu}}
	}
	if limit.finite {
		p.Add(limit)
		entries = append(entries, legendEntry{"Power limit", limit})
	}
	if ev != nil {
		entries = append(entries, legendEntry{"DR event", ev})
	}
	lo := math.Min(0, power.lo)
	if limit.finite {
		lo = math.Min(lo, limit.lo)
	}
	p.X.Min, p.X.Max = t0/unit.secs, t1/unit.secs
	p.Y.Min, p.Y.Max = widen(lo/ydiv, headroom(lo, hi, len(entries))/ydiv)
	addLegend(p, entries)
	return render(w, opt, p.Draw)
}

// legendEntry is one line of a legend.
type legendEntry struct {
	name  string
	thumb gplot.Thumbnailer
}

// addLegend adds entries to p's legend, top right inside the data area, when there
// is more than one.
func addLegend(p *gplot.Plot, entries []legendEntry) {
	if len(entries) < 2 {
		return
	}
	p.Legend.Top = true
	p.Legend.TextStyle.Font.Size = vg.Points(10)
	p.Legend.Padding = vg.Points(1)
	for _, e := range entries {
		p.Legend.Add(e.name, e.thumb)
	}
}

// headroom returns the top of a y axis whose data reach hi, leaving the top of the
// data area free for a legend of n entries (a 10 pt line each, about 6% of a 10 cm
// plot's data area).
func headroom(lo, hi float64, n int) float64 {
	frac := 0.05
	if n >= 2 {
		frac = 0.08 * float64(n+1)
	}
	return hi + (hi-lo)*frac/(1-frac)
}
