package plot

import (
	"fmt"
	"image/color"
	"io"
	"math"
	"path"
	"strconv"
	"strings"

	gplot "gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"
)

// Format is an output image format.
type Format int

const (
	SVG Format = iota // the zero Format: deterministic, byte-identical for identical input
	PNG               // raster at Options.DPI
)

// String returns "svg" or "png".
func (f Format) String() string {
	switch f {
	case SVG:
		return "svg"
	case PNG:
		return "png"
	}
	return "Format(" + strconv.Itoa(int(f)) + ")"
}

// FormatFor returns the Format for a file name from its extension (.svg or .png,
// any case), so callers can write `plot.PowerOverTime(f, in, plot.Options{Format: fmt})`
// with the format chosen by --output's name.
func FormatFor(name string) (Format, error) {
	switch ext := strings.ToLower(path.Ext(name)); ext {
	case ".svg":
		return SVG, nil
	case ".png":
		return PNG, nil
	default:
		return 0, fmt.Errorf("plot: %q: unknown image extension %q (known: .png, .svg)", name, ext)
	}
}

// Default canvas size and resolution.
const (
	DefaultWidth  = 16 * vg.Centimeter
	DefaultHeight = 10 * vg.Centimeter
	DefaultDPI    = 96
)

// Options control one rendering. The zero value gives a 16 cm × 10 cm SVG with the
// plot's default title and axis labels.
type Options struct {
	Format        Format    // zero: SVG
	Width, Height vg.Length // zero: DefaultWidth, DefaultHeight
	DPI           int       // PNG resolution; zero: DefaultDPI; ignored for SVG
	Title         string    // zero: no title (FitPlot: Fit.Name)
	// XLabel and YLabel replace the default axis labels; include the unit, e.g.
	// "Energy saving (%)". Zero keeps the default. QueueAndUtilisation ignores YLabel.
	XLabel, YLabel string
}

func (o Options) size() (w, h vg.Length) {
	w, h = o.Width, o.Height
	if w <= 0 {
		w = DefaultWidth
	}
	if h <= 0 {
		h = DefaultHeight
	}
	return w, h
}

// render creates the canvas for opt, lets paint draw on it and writes it to w.
// gonum/plot panics on some degenerate inputs that validation should already have
// rejected; a panic is turned into an error rather than crashing the caller.
func render(w io.Writer, opt Options, paint func(dc draw.Canvas)) (err error) {
	width, height := opt.size()
	var cw vg.CanvasWriterTo
	switch opt.Format {
	case SVG:
		cw = vgsvg.New(width, height)
	case PNG:
		dpi := opt.DPI
		if dpi <= 0 {
			dpi = DefaultDPI
		}
		cw = vgimg.PngCanvas{Canvas: vgimg.NewWith(vgimg.UseWH(width, height), vgimg.UseDPI(dpi))}
	default:
		return fmt.Errorf("plot: unknown format %v (known: png, svg)", opt.Format)
	}
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("plot: rendering failed: %v", r)
		}
	}()
	margin := vg.Points(4) // keeps the legend and the last tick label off the top and right edges
	paint(draw.Crop(draw.New(cw), 0, -margin, 0, -margin))
	_, err = cw.WriteTo(w)
	return err
}

// newPlot returns a gonum plot with the title and labels set, opt's overriding the defaults.
func newPlot(opt Options, title, xlabel, ylabel string) *gplot.Plot {
	p := gplot.New()
	p.Title.Text = pick(opt.Title, title)
	p.X.Label.Text = pick(opt.XLabel, xlabel)
	p.Y.Label.Text = pick(opt.YLabel, ylabel)
	p.X.Tick.Marker = tidyTicks{}
	p.Y.Tick.Marker = tidyTicks{}
	return p
}

// tidyTicks are gonum's default ticks with trailing zeros dropped from the labels
// ("250" rather than "250.00"). When gonum labels fewer than three ticks, the
// minor ticks are labelled too.
type tidyTicks struct{}

func (tidyTicks) Ticks(lo, hi float64) []gplot.Tick {
	ticks := gplot.DefaultTicks{}.Ticks(lo, hi)
	labelled, delta := 0, math.Inf(1)
	for i, t := range ticks {
		if t.Label != "" {
			labelled++
		}
		if i > 0 {
			delta = math.Min(delta, math.Abs(t.Value-ticks[i-1].Value))
		}
	}
	decimals := 6
	if delta > 0 && !math.IsInf(delta, 0) {
		decimals = max(0, min(6, 1-int(math.Floor(math.Log10(delta)))))
	}
	for i, t := range ticks {
		if t.Label == "" && labelled >= 3 {
			continue
		}
		if strings.ContainsAny(t.Label, "eE") {
			continue
		}
		l := strconv.FormatFloat(t.Value, 'f', decimals, 64)
		if strings.Contains(l, ".") {
			l = strings.TrimSuffix(strings.TrimRight(l, "0"), ".")
		}
		if l == "-0" {
			l = "0"
		}
		ticks[i].Label = l
	}
	return ticks
}

func pick(s, def string) string {
	if s != "" {
		return s
	}
	return def
}

// timeUnit is the display unit of a time axis.
type timeUnit struct {
	name  string  // "min", "h", "d"
	secs  float64 // seconds per unit
	steps []float64
}

// Candidate label spacings per unit, fine to coarse; beyond the last, DefaultTicks decides.
var (
	minutes = timeUnit{"min", 60, []float64{1, 2, 5, 10, 15, 20, 30, 60}}
	hours   = timeUnit{"h", 3600, []float64{0.25, 0.5, 1, 2, 3, 4, 6, 12, 24}}
	days    = timeUnit{"d", 86400, []float64{1, 2, 5, 7, 14, 28, 56, 91, 182, 364}}
)

// unitFor picks minutes up to a 2 h span, hours up to 3 days, days beyond.
func unitFor(span float64) timeUnit {
	switch {
	case span <= 2*3600:
		return minutes
	case span <= 3*86400:
		return hours
	default:
		return days
	}
}

// maxTimeLabels bounds the labelled ticks on a time axis; at 16 cm and 10 pt
// labels of up to 4 characters this leaves at least one label width between labels.
const maxTimeLabels = 8

// Ticks labels multiples of the finest spacing that gives at most maxTimeLabels labels.
func (u timeUnit) Ticks(min, max float64) []gplot.Tick {
	for _, s := range u.steps {
		first := math.Ceil(min/s) * s
		if n := math.Floor((max-first)/s) + 1; n > maxTimeLabels || n < 2 {
			continue
		}
		var ticks []gplot.Tick
		for i := 0; ; i++ {
			v := first + float64(i)*s
			if v > max+s*1e-9 {
				break
			}
			ticks = append(ticks, gplot.Tick{Value: v, Label: strconv.FormatFloat(v, 'f', -1, 64)})
		}
		return ticks
	}
	return tidyTicks{}.Ticks(min, max)
}

// label returns "Time (h)" etc.
func (u timeUnit) label() string { return "Time (" + u.name + ")" }

// powerUnit returns the divisor and name for watts: kW, or MW from 1 MW up.
func powerUnit(maxW float64) (float64, string) {
	if maxW >= 1e6 {
		return 1e6, "MW"
	}
	return 1e3, "kW"
}

// palette is Tableau 10: ten colours distinguishable in print and by most
// colour-blind readers, in a fixed order.
var palette = [...]color.NRGBA{
	{0x4e, 0x79, 0xa7, 0xff}, // blue
	{0xf2, 0x8e, 0x2b, 0xff}, // orange
	{0xe1, 0x57, 0x59, 0xff}, // red
	{0x76, 0xb7, 0xb2, 0xff}, // teal
	{0x59, 0xa1, 0x4f, 0xff}, // green
	{0xed, 0xc9, 0x48, 0xff}, // yellow
	{0xb0, 0x7a, 0xa1, 0xff}, // purple
	{0xff, 0x9d, 0xa7, 0xff}, // pink
	{0x9c, 0x75, 0x5f, 0xff}, // brown
	{0xba, 0xb0, 0xac, 0xff}, // grey
}

// eventColour shades DR event intervals behind the data.
var eventColour = color.NRGBA{0xf2, 0x8e, 0x2b, 0x40}

// checkFinite reports the first NaN or infinite value among vs, named by what.
func checkFinite(what string, vs ...float64) error {
	for _, v := range vs {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("plot: %s: value %v is not finite", what, v)
		}
	}
	return nil
}

// widen makes [lo, hi] a usable axis range: gonum's tickers panic on an empty range.
func widen(lo, hi float64) (float64, float64) {
	if hi > lo {
		return lo, hi
	}
	d := math.Max(math.Abs(lo)*0.05, 1)
	return lo - d, hi + d
}
