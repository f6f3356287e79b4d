package plot

import (
	"fmt"
	"math"

	gplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Step is one piece of a piecewise-constant series: the value W holds from time T
// (seconds) until the next Step's T (or the series end). W is watts for power
// series, jobs for queue length, percent for utilisation. A W of ±Inf or NaN is a
// gap (for a power limit: "no limit"); such stretches are not drawn. Steps must be
// in non-decreasing T; a Step followed by one at the same T never holds and is
// ignored.
type Step struct {
	T, W float64
}

// Interval is a time interval [Start, End) in seconds, e.g. a DR event.
type Interval struct {
	Start, End float64
}

// checkSteps validates a step series named what.
func checkSteps(what string, s []Step, allowGaps bool) error {
	for i, st := range s {
		if math.IsNaN(st.T) || math.IsInf(st.T, 0) {
			return fmt.Errorf("plot: %s step %d: time %v is not finite", what, i, st.T)
		}
		if i > 0 && st.T < s[i-1].T {
			return fmt.Errorf("plot: %s step %d: time %v is before step %d's %v", what, i, st.T, i-1, s[i-1].T)
		}
		if !allowGaps && (math.IsNaN(st.W) || math.IsInf(st.W, 0)) {
			return fmt.Errorf("plot: %s step %d: value %v is not finite", what, i, st.W)
		}
	}
	return nil
}

func checkIntervals(what string, iv []Interval) error {
	for i, e := range iv {
		if err := checkFinite(fmt.Sprintf("%s %d", what, i), e.Start, e.End); err != nil {
			return err
		}
		if e.End < e.Start {
			return fmt.Errorf("plot: %s %d: end %v is before start %v", what, i, e.End, e.Start)
		}
	}
	return nil
}

// xy is a polyline vertex in seconds and raw units; a NaN y breaks the line.
type xy struct{ x, y float64 }

// gapValue maps the non-finite values that mean "no value here" to NaN.
func gapValue(w float64) float64 {
	if math.IsInf(w, 0) {
		return math.NaN()
	}
	return w
}

// polyline accumulates vertices, dropping repeats and merging horizontal runs.
type polyline []xy

func (p *polyline) add(x, y float64) {
	l := *p
	n := len(l)
	switch {
	case math.IsNaN(y):
		if n > 0 && !math.IsNaN(l[n-1].y) {
			*p = append(l, xy{x, y})
		}
		return
	case n >= 2 && l[n-1].y == y && l[n-2].y == y:
		l[n-1].x = x // extend a horizontal run instead of adding a vertex
		return
	case n >= 1 && l[n-1] == (xy{x, y}):
		return
	}
	*p = append(l, xy{x, y})
}

// envelope returns the polyline drawing step series s over [t0, t1].
//
// With at most ncol steps it is exact: a horizontal segment per step joined by
// vertical risers. With more, the span is cut into ncol equal columns and each
// column is drawn as a vertical stroke at its left edge covering every value held
// in it (in time order: entry value, minimum and maximum, exit value), followed by
// a horizontal segment at the exit value. Peaks and troughs therefore survive
// however short they are, the output has at most about 4·ncol vertices whatever
// len(s) is, and a change is drawn at most one column (one device pixel when ncol
// matches the data area's pixel width) early. Gaps (non-finite W) shorter than a
// column inside it are bridged; a column whose entry or exit value is a gap
// breaks the line there.
func envelope(s []Step, t0, t1 float64, ncol int) polyline {
	if t1 <= t0 || len(s) == 0 {
		return nil
	}
	if len(s) <= ncol {
		return exactSteps(s, t0, t1)
	}
	return columns(s, t0, t1, ncol)
}

// holds reports the interval [a, b) over which step i is in effect, clipped to [t0, t1].
func holds(s []Step, i int, t0, t1 float64) (a, b float64) {
	a, b = s[i].T, t1 // plain comparisons: math.Max and math.Min dominate a million-step profile
	if a < t0 {
		a = t0
	}
	if i+1 < len(s) && s[i+1].T < b {
		b = s[i+1].T
	}
	return a, b
}

func exactSteps(s []Step, t0, t1 float64) polyline {
	out := make(polyline, 0, 2*len(s)+2)
	for i := range s {
		a, b := holds(s, i, t0, t1)
		if b <= a {
			continue
		}
		y := gapValue(s[i].W)
		out.add(a, y)
		out.add(b, y)
	}
	return out
}

func columns(s []Step, t0, t1 float64, ncol int) polyline {
	out := make(polyline, 0, 4*ncol+2)
	dt := (t1 - t0) / float64(ncol)
	i := 0 // the step in effect at the current column's start, or the first step after it
	for i+1 < len(s) && s[i+1].T <= t0 {
		i++
	}
	last := math.NaN()
	for c := range ncol {
		a, b := t0+float64(c)*dt, t0+float64(c+1)*dt
		if c == ncol-1 {
			b = t1
		}
		var col colStats
		for ; i < len(s) && s[i].T < b; i++ {
			if ha, hb := holds(s, i, a, b); hb > ha {
				col.add(gapValue(s[i].W))
			}
			if i+1 == len(s) || s[i+1].T > b {
				break // step i is still in effect at b: the next column starts with it
			}
		}
		col.emit(&out, a)
		last = col.exit
	}
	out.add(t1, last)
	return out
}

// colStats summarises the values held within one column.
type colStats struct {
	n           int // values added
	entry, exit float64
	lo, hi      float64
	loAt, hiAt  int // when lo and hi were first seen
	anyFinite   bool
}

func (c *colStats) add(y float64) {
	if c.n == 0 {
		c.entry = y
	}
	c.n++
	c.exit = y
	if math.IsNaN(y) {
		return
	}
	if !c.anyFinite || y < c.lo {
		c.lo, c.loAt = y, c.n
	}
	if !c.anyFinite || y > c.hi {
		c.hi, c.hiAt = y, c.n
	}
	c.anyFinite = true
}

// emit draws the column at x: entry, then minimum and maximum in the order they
// occurred, then exit. An empty column (before the first step) is a gap.
func (c *colStats) emit(out *polyline, x float64) {
	if c.n == 0 {
		c.exit = math.NaN()
	}
	if !c.anyFinite {
		out.add(x, math.NaN())
		return
	}
	out.add(x, c.entry)
	if c.loAt < c.hiAt {
		out.add(x, c.lo)
		out.add(x, c.hi)
	} else {
		out.add(x, c.hi)
		out.add(x, c.lo)
	}
	out.add(x, c.exit)
}

// stepSeries is a gonum plotter for a step series, downsampled at draw time to
// colsPerPoint columns per point of data-area width (at least one per pixel up to
// 144 DPI, more for PNGs at higher DPI).
type stepSeries struct {
	steps      []Step
	t0, t1     float64 // drawn span, s
	xdiv, ydiv float64 // display unit divisors (s per unit, W per unit)
	lo, hi     float64 // finite value range, raw units
	finite     bool    // any finite value
	style      draw.LineStyle
}

func newStepSeries(s []Step, t0, t1, xdiv, ydiv float64, style draw.LineStyle) *stepSeries {
	ss := &stepSeries{steps: s, t0: t0, t1: t1, xdiv: xdiv, ydiv: ydiv, style: style}
	for i := range s {
		if a, b := holds(s, i, t0, t1); b <= a {
			continue
		}
		w := s[i].W
		if math.IsNaN(w) || math.IsInf(w, 0) {
			continue
		}
		if !ss.finite || w < ss.lo {
			ss.lo = w
		}
		if !ss.finite || w > ss.hi {
			ss.hi = w
		}
		ss.finite = true
	}
	return ss
}

const colsPerPoint = 2

func (s *stepSeries) Plot(c draw.Canvas, p *gplot.Plot) {
	trX, trY := p.Transforms(&c)
	perPoint := float64(colsPerPoint)
	if d, ok := c.Canvas.(interface{ DPI() float64 }); ok {
		perPoint = math.Max(perPoint, d.DPI()/72)
	}
	ncol := max(1, int(math.Ceil(float64(c.Max.X-c.Min.X)*perPoint)))
	var lines [][]vg.Point
	var cur []vg.Point
	for _, v := range envelope(s.steps, s.t0, s.t1, ncol) {
		if math.IsNaN(v.y) {
			if len(cur) > 0 {
				lines = append(lines, cur)
			}
			cur = nil
			continue
		}
		cur = append(cur, vg.Point{X: trX(v.x / s.xdiv), Y: trY(v.y / s.ydiv)})
	}
	if len(cur) > 0 {
		lines = append(lines, cur)
	}
	c.StrokeLines(s.style, c.ClipLinesXY(lines...)...)
}

func (s *stepSeries) DataRange() (xmin, xmax, ymin, ymax float64) {
	return s.t0 / s.xdiv, s.t1 / s.xdiv, s.lo / s.ydiv, s.hi / s.ydiv
}

func (s *stepSeries) Thumbnail(c *draw.Canvas) {
	y := c.Center().Y
	c.StrokeLine2(s.style, c.Min.X, y, c.Max.X, y)
}

// bands shades time intervals over the full height of the data area.
type bands struct {
	iv    []Interval
	xdiv  float64
	color draw.LineStyle // only Color is used
}

func (b *bands) Plot(c draw.Canvas, p *gplot.Plot) {
	trX, _ := p.Transforms(&c)
	for _, e := range b.iv {
		x0, x1 := trX(e.Start/b.xdiv), trX(e.End/b.xdiv)
		rect := []vg.Point{{X: x0, Y: c.Min.Y}, {X: x1, Y: c.Min.Y}, {X: x1, Y: c.Max.Y}, {X: x0, Y: c.Max.Y}}
		if poly := c.ClipPolygonX(rect); len(poly) > 0 {
			c.FillPolygon(b.color.Color, poly)
		}
	}
}

func (b *bands) Thumbnail(c *draw.Canvas) {
	c.FillPolygon(b.color.Color, []vg.Point{c.Min, {X: c.Max.X, Y: c.Min.Y}, c.Max, {X: c.Min.X, Y: c.Max.Y}})
}

// span returns the time span [t0, t1] covered by the series and intervals: from the
// earliest step to end, or when end is zero to the latest step or interval end.
func span(end float64, iv []Interval, series ...[]Step) (t0, t1 float64) {
	t0, t1 = math.Inf(1), math.Inf(-1)
	for _, s := range series {
		if len(s) > 0 {
			t0 = math.Min(t0, s[0].T)
			t1 = math.Max(t1, s[len(s)-1].T)
		}
	}
	for _, e := range iv {
		t1 = math.Max(t1, e.End)
	}
	if end != 0 {
		t1 = end
	}
	return t0, t1
}
