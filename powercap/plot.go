package powercap

import (
	"fmt"
	"io"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// PlotCalibration draws the measured points of c against the fitted curve
// for quantity "power" or "runtime" and writes the image to w in format
// ("svg", "png", "pdf" or "eps"), 5×3.5 in.
func PlotCalibration(w io.Writer, c *Calibration, quantity, format string) error {
	m := c.Profile.Model(c.Knob)
	curve, ylabel := &m.Runtime, "runtime (s)"
	switch quantity {
	case "runtime":
	case "power":
		curve, ylabel = m.Power, "mean power per processor (W)"
		if curve == nil {
			return fmt.Errorf("powercap: app %q has no power data to plot", c.Profile.Name)
		}
	default:
		return fmt.Errorf("powercap: cannot plot %q (known: power, runtime)", quantity)
	}
	p := plot.New()
	p.Title.Text = fmt.Sprintf("%s: %s vs %s (%s fit, R² %.3f)", c.Profile.Name, quantity, c.Knob, curve.Form, curve.R2)
	p.X.Label.Text = fmt.Sprintf("%s (%s)", map[Knob]string{Freq: "CPU frequency", Cap: "package power cap"}[c.Knob], unitOf(c.Knob))
	p.Y.Label.Text = ylabel
	var xy plotter.XYs
	for _, pt := range c.Points {
		y := pt.Runtime
		if quantity == "power" {
			y = pt.Power
		}
		if !math.IsNaN(y) {
			xy = append(xy, plotter.XY{X: pt.X(c.Knob), Y: y})
		}
	}
	sc, err := plotter.NewScatter(xy)
	if err != nil {
		return fmt.Errorf("powercap: plot: %v", err)
	}
	fit := plotter.NewFunction(curve.At)
	fit.XMin, fit.XMax, fit.Samples = m.XMin, m.XMax, 200
	p.Add(sc, fit, plotter.NewGrid())
	p.Legend.Add("measured", sc)
	p.Legend.Add("fit", fit)
	p.Legend.Top = true
	wt, err := p.WriterTo(5*vg.Inch, 3.5*vg.Inch, format)
	if err != nil {
		return fmt.Errorf("powercap: plot: %v", err)
	}
	_, err = wt.WriteTo(w)
	return err
}
