package powercap

import (
	"fmt"
	"io"
	"math"

	"drsim/results/plot"
)

// PlotCalibration draws the measured points of c against the fitted curve
// for quantity "power" or "runtime" and writes the image to w in format
// "svg" or "png", through results/plot.FitPlot (the project's one figure
// style: units on both axes, legend clear of the data).
func PlotCalibration(w io.Writer, c *Calibration, quantity, format string) error {
	m := c.Profile.Model(c.Knob)
	if m == nil {
		return fmt.Errorf("powercap: app %q: no %s curve to plot", c.Profile.Name, c.Knob)
	}
	curve, ylabel := &m.Runtime, "Runtime (s)"
	switch quantity {
	case "runtime":
	case "power":
		curve, ylabel = m.Power, "Mean power per processor (W)"
		if c.Knob.IsGPU() {
			ylabel = "Mean power per GPU (W)"
		}
		if curve == nil {
			return fmt.Errorf("powercap: app %q has no power data to plot", c.Profile.Name)
		}
	default:
		return fmt.Errorf("powercap: cannot plot %q (known: power, runtime)", quantity)
	}
	f, err := plot.FormatFor("x." + format)
	if err != nil {
		return fmt.Errorf("powercap: %v", err)
	}
	var xy []plot.XY
	for _, pt := range c.Points {
		y := pt.Runtime
		if quantity == "power" {
			y = pt.PowerOf(c.Knob)
		}
		if !math.IsNaN(y) {
			xy = append(xy, plot.XY{X: pt.X(c.Knob), Y: y})
		}
	}
	knob := map[Knob]string{Freq: "CPU frequency", Cap: "Package power cap", GPUFreq: "GPU core clock", GPUCap: "GPU power cap"}[c.Knob]
	return plot.FitPlot(w, plot.Fit{
		Name:       fmt.Sprintf("%s: %s vs %s (%s fit, R² %.3f)", c.Profile.Name, quantity, c.Knob, curve.Form, curve.R2),
		XLabel:     fmt.Sprintf("%s (%s)", knob, unitOf(c.Knob)),
		YLabel:     ylabel,
		Points:     xy,
		Curve:      curve.At,
		CurveLabel: string(curve.Form) + " fit",
	}, plot.Options{Format: f})
}
