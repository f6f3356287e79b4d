package plot

import (
	"fmt"
	"io"
	"math"

	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// XY is one measured point.
type XY struct {
	X, Y float64
}

// Fit is the input of FitPlot: measurements and the curve fitted to them.
type Fit struct {
	Name           string                  // title, e.g. "LULESH runtime vs cap"; Options.Title overrides it
	XLabel, YLabel string                  // axis labels with units, e.g. "Power cap (W)", "Runtime (s)"; required
	Points         []XY                    // measurements; required, finite
	Curve          func(x float64) float64 // the fitted y(x); required, finite over the points' x range
	CurveLabel     string                  // legend text for the curve; zero: "fit"
	PointsLabel    string                  // legend text for the points; zero: "measured"
}

// fitSamples is how many points along x the curve is evaluated at.
const fitSamples = 200

// FitPlot draws measured points as markers and the fitted curve as a line over the
// points' x range (200 samples), with a legend.
func FitPlot(w io.Writer, f Fit, opt Options) error {
	if len(f.Points) == 0 || f.Curve == nil {
		return fmt.Errorf("plot: FitPlot %q: need points (have %d) and a curve", f.Name, len(f.Points))
	}
	if pick(opt.XLabel, f.XLabel) == "" || pick(opt.YLabel, f.YLabel) == "" {
		return fmt.Errorf("plot: FitPlot %q: axis labels with units are required (XLabel %q, YLabel %q)", f.Name, f.XLabel, f.YLabel)
	}
	pts := make(plotter.XYs, len(f.Points))
	for i, pt := range f.Points {
		if err := checkFinite(fmt.Sprintf("FitPlot %q point %d", f.Name, i), pt.X, pt.Y); err != nil {
			return err
		}
		pts[i] = plotter.XY{X: pt.X, Y: pt.Y}
	}
	x0, x1, _, _ := plotter.XYRange(pts)
	curve := make(plotter.XYs, fitSamples)
	for i := range curve {
		x := x0 + (x1-x0)*float64(i)/(fitSamples-1)
		y := f.Curve(x)
		if math.IsNaN(y) || math.IsInf(y, 0) {
			return fmt.Errorf("plot: FitPlot %q: curve(%v) = %v is not finite", f.Name, x, y)
		}
		curve[i] = plotter.XY{X: x, Y: y}
	}
	p := newPlot(opt, f.Name, f.XLabel, f.YLabel)
	line, err := plotter.NewLine(curve)
	if err != nil {
		return fmt.Errorf("plot: FitPlot %q: %v", f.Name, err)
	}
	line.LineStyle = draw.LineStyle{Color: palette[2], Width: vg.Points(1.5)}
	sc, err := plotter.NewScatter(pts)
	if err != nil {
		return fmt.Errorf("plot: FitPlot %q: %v", f.Name, err)
	}
	sc.GlyphStyle = draw.GlyphStyle{Color: palette[0], Radius: vg.Points(3), Shape: draw.CircleGlyph{}}
	p.Add(line, sc)
	_, _, ya, yb := plotter.XYRange(append(pts, curve...))
	p.X.Min, p.X.Max = widen(x0, x1)
	p.Y.Min, p.Y.Max = widen(ya, headroom(ya, yb, 2)) // room for the legend
	addLegend(p, []legendEntry{{pick(f.PointsLabel, "measured"), sc}, {pick(f.CurveLabel, "fit"), line}})
	return render(w, opt, p.Draw)
}
