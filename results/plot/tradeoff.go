package plot

import (
	"fmt"
	"image/color"
	"io"
	"slices"

	gplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// TradeOff is one run of a DR policy: its energy (or cost) saving and the
// increase in slowdown it costs, both in percent relative to a baseline run.
type TradeOff struct {
	Label    string  // names the run, e.g. "cap 0.8"; written next to Pareto-front points
	Policy   string  // colour and marker group
	Saving   float64 // %, larger is better
	Increase float64 // %, smaller is better
}

// ParetoFront returns the indices of the points no other point dominates
// (maximising Saving, minimising Increase), ordered by increasing Increase.
// Of exact duplicates only the first is kept.
func ParetoFront(pts []TradeOff) []int {
	idx := make([]int, len(pts))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int {
		pa, pb := pts[a], pts[b]
		if pa.Increase != pb.Increase {
			return cmpFloat(pa.Increase, pb.Increase)
		}
		return cmpFloat(pb.Saving, pa.Saving)
	})
	var front []int
	for _, i := range idx {
		if len(front) == 0 || pts[i].Saving > pts[front[len(front)-1]].Saving {
			front = append(front, i)
		}
	}
	return front
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

var glyphShapes = [...]draw.GlyphDrawer{
	draw.CircleGlyph{}, draw.BoxGlyph{}, draw.PyramidGlyph{}, draw.CrossGlyph{}, draw.PlusGlyph{}, draw.SquareGlyph{}, draw.TriangleGlyph{},
}

// policyStyle gives the k-th policy (in sorted name order) its colour and marker.
func policyStyle(k int) draw.GlyphStyle {
	return draw.GlyphStyle{Color: palette[k%len(palette)], Radius: vg.Points(3), Shape: glyphShapes[k%len(glyphShapes)]}
}

// SavingVsSlowdown draws one marker per run, coloured (and shaped) by policy in
// sorted policy-name order, with the Pareto front as a dashed line through ringed
// points labelled with their Label. Labels that would overlap an earlier one are
// left out. The legend sits to the right of the data area so it never hides a point.
func SavingVsSlowdown(w io.Writer, pts []TradeOff, opt Options) error {
	if len(pts) == 0 {
		return fmt.Errorf("plot: SavingVsSlowdown: no points")
	}
	for i, pt := range pts {
		if err := checkFinite(fmt.Sprintf("point %d (%s %s)", i, pt.Policy, pt.Label), pt.Saving, pt.Increase); err != nil {
			return err
		}
	}
	p := newPlot(opt, "", "Slowdown increase (%)", "Energy saving (%)")
	var entries []legendEntry
	for k, pol := range policies(pts) {
		var xys plotter.XYs
		for _, pt := range pts {
			if pt.Policy == pol {
				xys = append(xys, plotter.XY{X: pt.Increase, Y: pt.Saving})
			}
		}
		sc, err := plotter.NewScatter(xys)
		if err != nil {
			return fmt.Errorf("plot: SavingVsSlowdown: policy %q: %v", pol, err)
		}
		sc.GlyphStyle = policyStyle(k)
		p.Add(sc)
		entries = append(entries, legendEntry{pick(pol, "(no policy)"), sc})
	}
	front := ParetoFront(pts)
	fxy := make(plotter.XYs, len(front))
	labels := make([]string, len(front))
	for j, i := range front {
		fxy[j] = plotter.XY{X: pts[i].Increase, Y: pts[i].Saving}
		labels[j] = pts[i].Label
	}
	line, err := plotter.NewLine(fxy)
	if err != nil {
		return fmt.Errorf("plot: SavingVsSlowdown: Pareto front: %v", err)
	}
	line.LineStyle = draw.LineStyle{Color: color.Black, Width: vg.Points(1), Dashes: []vg.Length{vg.Points(4), vg.Points(2)}}
	rings, _ := plotter.NewScatter(fxy) // same finite points as line
	rings.GlyphStyle = draw.GlyphStyle{Color: color.Black, Radius: vg.Points(5.5), Shape: draw.RingGlyph{}}
	p.Add(line, rings, &pointLabels{xys: fxy, labels: labels})
	entries = append(entries, legendEntry{"Pareto front", multiThumb{line, rings}})
	x0, x1, y0, y1 := plotter.XYRange(allXYs(pts))
	p.X.Min, p.X.Max = pad(widen(x0, x1))
	p.Y.Min, p.Y.Max = pad(widen(y0, y1))
	return render(w, opt, func(dc draw.Canvas) { drawBesideLegend(dc, p, entries) })
}

// policies returns the distinct policy names, sorted.
func policies(pts []TradeOff) []string {
	var names []string
	for _, pt := range pts {
		names = append(names, pt.Policy)
	}
	slices.Sort(names)
	return slices.Compact(names)
}

func allXYs(pts []TradeOff) plotter.XYs {
	xys := make(plotter.XYs, len(pts))
	for i, pt := range pts {
		xys[i] = plotter.XY{X: pt.Increase, Y: pt.Saving}
	}
	return xys
}

// multiThumb draws several thumbnails on top of each other.
type multiThumb []gplot.Thumbnailer

func (m multiThumb) Thumbnail(c *draw.Canvas) {
	for _, t := range m {
		t.Thumbnail(c)
	}
}

// drawBesideLegend draws p in dc with the legend in a column to its right
// (entries top-aligned with the data area), or without one for a single entry.
func drawBesideLegend(dc draw.Canvas, p *gplot.Plot, entries []legendEntry) {
	if len(entries) < 2 {
		p.Draw(dc)
		return
	}
	leg := gplot.NewLegend()
	leg.Left, leg.Top = true, true
	leg.TextStyle.Font.Size = vg.Points(10)
	leg.Padding = vg.Points(2)
	var width vg.Length
	for _, e := range entries {
		leg.Add(e.name, e.thumb)
		width = max(width, leg.ThumbnailWidth+leg.TextStyle.Rectangle(" "+e.name).Max.X)
	}
	gap := vg.Points(8)
	pc := draw.Crop(dc, 0, -(width + 2*gap), 0, 0)
	p.Draw(pc)
	da := p.DataCanvas(pc)
	lc := draw.Crop(dc, pc.Max.X-dc.Min.X+gap, -gap, da.Min.Y-dc.Min.Y, da.Max.Y-dc.Max.Y)
	leg.Draw(lc)
}

// pointLabels writes the Pareto-front labels. The first choice is above left of
// the point: on a front (maximise y, minimise x) that quadrant holds no point and
// no front segment, since any point there would dominate this one. Near the
// data area's edges it tries above right, below right and below left instead, and
// leaves out a label that would still overlap an earlier one or the edge.
type pointLabels struct {
	xys    plotter.XYs
	labels []string
}

func (l *pointLabels) Plot(c draw.Canvas, p *gplot.Plot) {
	trX, trY := p.Transforms(&c)
	sty := text.Style{Color: color.Black, Font: p.Legend.TextStyle.Font, Handler: p.TextHandler}
	sty.Font.Size = vg.Points(8)
	off := vg.Points(4)
	var taken []vg.Rectangle
	for i, xy := range l.xys {
		if l.labels[i] == "" {
			continue
		}
		x, y := trX(xy.X), trY(xy.Y)
		size := sty.Rectangle(l.labels[i]).Size()
		for _, corner := range []vg.Point{
			{X: x - off - size.X, Y: y + off},          // above left
			{X: x + off, Y: y + off},                   // above right
			{X: x + off, Y: y - off - size.Y},          // below right
			{X: x - off - size.X, Y: y - off - size.Y}, // below left
		} {
			box := vg.Rectangle{Min: corner, Max: corner.Add(size)}
			if box.Min.X < c.Min.X || box.Max.X > c.Max.X || box.Min.Y < c.Min.Y || box.Max.Y > c.Max.Y ||
				slices.ContainsFunc(taken, func(t vg.Rectangle) bool { return overlaps(t, box) }) {
				continue
			}
			taken = append(taken, box)
			c.FillText(sty, corner, l.labels[i])
			break
		}
	}
}

// pad widens [lo, hi] by 6% on each side so markers clear the axes.
func pad(lo, hi float64) (float64, float64) {
	d := (hi - lo) * 0.06
	return lo - d, hi + d
}

func overlaps(a, b vg.Rectangle) bool {
	return a.Min.X < b.Max.X && b.Min.X < a.Max.X && a.Min.Y < b.Max.Y && b.Min.Y < a.Max.Y
}
