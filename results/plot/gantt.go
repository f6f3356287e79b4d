package plot

import (
	"fmt"
	"image/color"
	"io"
	"math"
	"strconv"

	gplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Bar is one job in a Gantt chart: it ran on the processors in Procs from Start
// to End (seconds).
type Bar struct {
	Job        int64
	Start, End float64
	Procs      []Range
}

// Range is the processors Lo, Lo+1, …, Hi-1 (half-open, like a slice).
type Range struct {
	Lo, Hi int
}

// MaxGanttJobs is the most bars Gantt draws; beyond it the chart is unreadable
// and the SVG large, so Gantt returns an error instead.
const MaxGanttJobs = 5000

// Gantt draws each job as rectangles (one per processor range) over time (x) and
// processor index (y), filled with a colour picked from a fixed palette by a hash
// of the job id, so a job keeps its colour across plots. Job ids are written
// inside rectangles large enough to hold them.
func Gantt(w io.Writer, bars []Bar, opt Options) error {
	if len(bars) == 0 {
		return fmt.Errorf("plot: Gantt: no jobs")
	}
	if len(bars) > MaxGanttJobs {
		return fmt.Errorf("plot: Gantt: %d jobs is more than %d; plot a shorter stretch of the trace", len(bars), MaxGanttJobs)
	}
	t0, t1 := math.Inf(1), math.Inf(-1)
	p0, p1 := math.MaxInt, math.MinInt
	for i, b := range bars {
		if err := checkFinite(fmt.Sprintf("Gantt job %d (bar %d)", b.Job, i), b.Start, b.End); err != nil {
			return err
		}
		if b.End < b.Start {
			return fmt.Errorf("plot: Gantt job %d (bar %d): end %v is before start %v", b.Job, i, b.End, b.Start)
		}
		if len(b.Procs) == 0 {
			return fmt.Errorf("plot: Gantt job %d (bar %d): no processors", b.Job, i)
		}
		for _, r := range b.Procs {
			if r.Lo < 0 || r.Hi <= r.Lo {
				return fmt.Errorf("plot: Gantt job %d (bar %d): bad processor range [%d, %d)", b.Job, i, r.Lo, r.Hi)
			}
			p0, p1 = min(p0, r.Lo), max(p1, r.Hi)
		}
		t0, t1 = math.Min(t0, b.Start), math.Max(t1, b.End)
	}
	t0, t1 = widen(t0, t1)
	unit := unitFor(t1 - t0)
	p := newPlot(opt, "", unit.label(), "Processor (index)")
	p.X.Tick.Marker = unit
	p.X.Min, p.X.Max = t0/unit.secs, t1/unit.secs
	p.Y.Min, p.Y.Max = float64(p0), float64(p1)
	p.Add(&gantt{bars: bars, xdiv: unit.secs})
	return render(w, opt, p.Draw)
}

// minEdged is the smallest bar side that gets a white edge separating it from
// its neighbours.
const minEdged = vg.Length(3)

type gantt struct {
	bars []Bar
	xdiv float64
}

// jobColour hashes a job id (splitmix64 finaliser) onto the palette.
func jobColour(job int64) color.Color {
	z := uint64(job) + 0x9e3779b97f4a7c15
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	z ^= z >> 31
	return palette[z%uint64(len(palette))]
}

func (g *gantt) Plot(c draw.Canvas, p *gplot.Plot) {
	trX, trY := p.Transforms(&c)
	edge := draw.LineStyle{Color: color.White, Width: vg.Points(0.5)}
	sty := text.Style{Color: color.Black, Font: p.X.Tick.Label.Font, Handler: p.TextHandler,
		XAlign: draw.XCenter, YAlign: draw.YCenter}
	sty.Font.Size = vg.Points(7)
	for _, b := range g.bars {
		x0, x1 := trX(b.Start/g.xdiv), trX(b.End/g.xdiv)
		for _, r := range b.Procs {
			y0, y1 := trY(float64(r.Lo)), trY(float64(r.Hi))
			rect := []vg.Point{{X: x0, Y: y0}, {X: x1, Y: y0}, {X: x1, Y: y1}, {X: x0, Y: y1}, {X: x0, Y: y0}}
			c.FillPolygon(jobColour(b.Job), c.ClipPolygonXY(rect))
			if x1-x0 > minEdged && y1-y0 > minEdged { // on tiny bars the edge would hide the colour
				c.StrokeLines(edge, c.ClipLinesXY(rect)...)
			}
			label := strconv.FormatInt(b.Job, 10)
			if size := sty.Rectangle(label).Size(); size.X+vg.Points(2) < x1-x0 && size.Y < y1-y0 {
				c.FillText(sty, vg.Point{X: (x0 + x1) / 2, Y: (y0 + y1) / 2}, label)
			}
		}
	}
}
