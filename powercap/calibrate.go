package powercap

import (
	"context"
	"fmt"
	"io"
	"math"
	"sort"
	"strings"
	"text/tabwriter"
)

// Calibration is the fit of one application for one knob: the profile (with
// only that knob's model) and the points it was fitted to.
type Calibration struct {
	Profile Profile
	Knob    Knob
	Points  []Point
}

// Calibrate fits, for every application in ds (sorted by name), the power
// and runtime regressions of knob k: cubic p(f) and quadratic t(f) for Freq,
// cubic p(P) and exponential t(P) for Cap. Points without power are used for
// the runtime fit only; an app with no power at all gets no power curve.
// Errors name the file and line of the app's first point.
func Calibrate(ctx context.Context, ds Dataset, k Knob) ([]Calibration, error) {
	byApp := map[string][]Point{}
	for _, p := range ds.Points {
		byApp[p.App] = append(byApp[p.App], p)
	}
	apps := make([]string, 0, len(byApp))
	for a := range byApp {
		apps = append(apps, a)
	}
	sort.Strings(apps)
	if len(apps) == 0 {
		return nil, fmt.Errorf("powercap: no measurements to calibrate")
	}
	out := make([]Calibration, 0, len(apps))
	for _, app := range apps {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("powercap: calibration stopped before app %q: %w", app, context.Cause(ctx))
		}
		prof := Profile{Name: app, Source: ds.Source, IdleW: ds.IdleW[app], Device: ds.Devices[app]}
		if k == Joint { // joint.go
			j, err := calibrateJoint(byApp[app])
			if err != nil {
				return nil, err
			}
			prof.Joint = j
			out = append(out, Calibration{Profile: prof, Knob: k, Points: byApp[app]})
			continue
		}
		m, err := fitModel(byApp[app], k)
		if err != nil {
			return nil, err
		}
		switch k {
		case Cap:
			prof.Cap = m
		case Freq:
			prof.Freq = m
		case GPUCap:
			prof.GPUCap = m
		case GPUFreq:
			prof.GPUFreq = m
		}
		out = append(out, Calibration{Profile: prof, Knob: k, Points: byApp[app]})
	}
	return out, nil
}

func fitModel(pts []Point, k Knob) (*Model, error) {
	first := pts[0]
	fail := func(what string, err error) error {
		return &FileError{File: first.File, Line: first.Line, Column: first.XColumn, Field: fmt.Sprintf("app %q %s %s", first.App, k, what), Err: err}
	}
	var x, t, px, pw []float64
	for _, p := range pts {
		v := p.X(k)
		if !(v > 0) {
			return nil, &FileError{File: p.File, Line: p.Line, Field: fmt.Sprintf("app %q", p.App), Err: fmt.Errorf("no %s setting recorded (use --x %s?)", k, other(k))}
		}
		if err := checkX(p, k, v); err != nil {
			return nil, err
		}
		x, t = append(x, v), append(t, p.Runtime)
		if w := p.PowerOf(k); !math.IsNaN(w) {
			px, pw = append(px, v), append(pw, w)
		}
	}
	pf, rf := forms(k)
	m := &Model{XMin: x[0], XMax: x[0]}
	for _, v := range x {
		m.XMin, m.XMax = math.Min(m.XMin, v), math.Max(m.XMax, v)
	}
	var err error
	if m.Runtime, err = FitCurve(rf, x, t); err != nil {
		return nil, fail("runtime", err)
	}
	if len(px) > 0 {
		c, err := FitCurve(pf, px, pw)
		if err != nil {
			return nil, fail("power", err)
		}
		m.Power = &c
	}
	return m, nil
}

// Plausible settings: outside them the unit is most likely wrong.
const (
	minGHz, maxGHz = 0.1, 10.0   // frequency
	minW, maxW     = 1.0, 5000.0 // cap and power per processor
)

// checkX rejects a setting outside the plausible range of its knob, naming
// the unit the value was probably given in.
func checkX(p Point, k Knob, v float64) error {
	lo, hi, what, unit, big, small := minGHz, maxGHz, "frequency", "GHz", "MHz", "Hz"
	if k.IsCap() {
		lo, hi, what, unit, big, small = minW, maxW, "cap", "W", "mW", "kW"
	}
	hint := ""
	switch {
	case v > hi:
		hint = " (" + big + " given?)"
	case v < lo:
		hint = " (" + small + " given?)"
	default:
		return nil
	}
	return &FileError{File: p.File, Line: p.Line, Column: p.XColumn,
		Err: fmt.Errorf("x=%v: %s out of range %v–%v %s%s", v, what, lo, hi, unit, hint)}
}

func other(k Knob) Knob {
	switch k {
	case Cap:
		return Freq
	case GPUCap:
		return GPUFreq
	case GPUFreq:
		return GPUCap
	}
	return Cap
}

// Merge returns old with the models that upd has replaced: used to add a
// freq model to a model file that already holds a cap model, and back.
func Merge(old, upd Profile) Profile {
	out := old
	if out.Name == "" {
		out.Name = upd.Name
	}
	if upd.Freq != nil {
		out.Freq = upd.Freq
	}
	if upd.Cap != nil {
		out.Cap = upd.Cap
	}
	if upd.GPUFreq != nil {
		out.GPUFreq = upd.GPUFreq
	}
	if upd.GPUCap != nil {
		out.GPUCap = upd.GPUCap
	}
	if upd.Joint != nil {
		out.Joint = upd.Joint
	}
	if upd.Device != "" {
		out.Device = upd.Device
	}
	if upd.Bound != nil {
		out.Bound = upd.Bound
	}
	if upd.IdleW != 0 {
		out.IdleW = upd.IdleW
	}
	if upd.Source != "" && !strings.Contains(out.Source, upd.Source) {
		out.Source = strings.TrimPrefix(out.Source+"; "+upd.Source, "; ")
	}
	return out
}

// WriteReport prints the fitted coefficients, R², RMSE, leave-one-out RMSE
// and the residual table of c.
func (c *Calibration) WriteReport(w io.Writer) error {
	if c.Knob == Joint {
		return c.writeJointReport(w)
	}
	m := c.Profile.Model(c.Knob)
	unit := unitOf(c.Knob)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(w, "app %s  knob %s  points %d  range %.4g–%.4g %s\n", c.Profile.Name, c.Knob, len(c.Points), m.XMin, m.XMax, unit)
	curves := []struct {
		name, unit string
		c          *Curve
	}{{"power", "W", m.Power}, {"runtime", "s", &m.Runtime}}
	for _, cv := range curves {
		if cv.c == nil {
			fmt.Fprintf(w, "  %-7s  (no power or energy in the data)\n", cv.name)
			continue
		}
		loo := fmt.Sprintf("%.4g %s", cv.c.LOORMSE, cv.unit)
		if cv.c.LOORMSE == 0 && cv.c.RMSE > 0 {
			loo = "n/a (a leave-one-out fit failed)"
		}
		fmt.Fprintf(w, "  %-7s  %-9s %s  R²=%.5f  RMSE=%.4g %s  LOO-RMSE=%s\n", cv.name, cv.c.Form,
			formula(cv.c), cv.c.R2, cv.c.RMSE, cv.unit, loo)
	}
	fmt.Fprintf(tw, "\t%s (%s)\tpower W\tfit\tresid\truntime s\tfit\tresid\t\n", c.Knob, unit)
	for _, p := range c.Points {
		x := p.X(c.Knob)
		pw := "-\t-\t-"
		if w := p.PowerOf(c.Knob); m.Power != nil && !math.IsNaN(w) {
			f := m.Power.At(x)
			pw = fmt.Sprintf("%.4g\t%.4g\t%+.3g", w, f, w-f)
		}
		f := m.Runtime.At(x)
		fmt.Fprintf(tw, "\t%.4g\t%s\t%.4g\t%.4g\t%+.3g\t\n", x, pw, p.Runtime, f, p.Runtime-f)
	}
	return tw.Flush()
}

func unitOf(k Knob) string {
	if k.IsCap() {
		return "W"
	}
	return "GHz"
}

// formula writes the curve with its coefficients, e.g.
// "y = 1.2 + 3.4·x − 0.5·x² + 0.1·x³".
func formula(c *Curve) string {
	g := func(v float64) string { return fmt.Sprintf("%.6g", v) }
	switch c.Form {
	case Exp:
		return fmt.Sprintf("y = %s·exp(%s·x) + %s", g(c.Coef[0]), g(c.Coef[1]), g(c.Coef[2]))
	default:
		s := "y = " + g(c.Coef[0])
		for i, v := range c.Coef[1:] {
			s += fmt.Sprintf(" + %s·x%s", g(v), []string{"", "²", "³"}[i])
		}
		return s
	}
}
