package plot

import (
	"bytes"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// samePolyline compares polylines exactly, treating NaN (a break) as equal to NaN.
func samePolyline(a, b polyline) bool {
	return slices.EqualFunc(a, b, func(p, q xy) bool {
		return p.x == q.x && (p.y == q.y || math.IsNaN(p.y) && math.IsNaN(q.y))
	})
}

func TestEnvelope(t *testing.T) {
	inf, nan := math.Inf(1), math.NaN()
	tests := []struct {
		name   string
		steps  []Step
		t0, t1 float64
		ncol   int
		want   polyline
	}{
		// hand-computed, exact
		{"exact", []Step{{0, 1}, {10, 3}, {20, 2}}, 0, 30, 10,
			polyline{{0, 1}, {10, 1}, {10, 3}, {20, 3}, {20, 2}, {30, 2}}},
		{"exact equal values merge", []Step{{0, 1}, {10, 1}, {20, 2}}, 0, 30, 10,
			polyline{{0, 1}, {20, 1}, {20, 2}, {30, 2}}},
		{"gap", []Step{{0, 5}, {10, inf}, {20, 7}}, 0, 30, 10,
			polyline{{0, 5}, {10, 5}, {10, nan}, {20, 7}, {30, 7}}},
		{"zero-length step never holds", []Step{{0, 1}, {10, 9}, {10, 3}}, 0, 20, 10,
			polyline{{0, 1}, {10, 1}, {10, 3}, {20, 3}}},
		{"starts after t0", []Step{{10, 4}}, 0, 20, 10, polyline{{10, 4}, {20, 4}}},
		// two columns [0,10) and [10,20): column 0 holds 1,5,0,2 (max before min),
		// column 1 holds 2,4,3 (min before max)
		{"columns", []Step{{0, 1}, {2, 5}, {4, 0}, {6, 2}, {12, 4}, {15, 3}}, 0, 20, 2,
			polyline{{0, 1}, {0, 5}, {0, 0}, {0, 2}, {10, 2}, {10, 4}, {10, 3}, {20, 3}}},
		{"columns with gap at entry", []Step{{0, inf}, {2, inf}, {12, 4}, {15, 3}}, 0, 20, 2,
			polyline{{10, 4}, {10, 3}, {20, 3}}}, // a leading gap needs no break
		{"empty span", []Step{{0, 1}}, 5, 5, 10, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := envelope(tc.steps, tc.t0, tc.t1, tc.ncol); !samePolyline(got, tc.want) {
				t.Errorf("envelope(%v, %v, %v, %d) = %v, want %v", tc.steps, tc.t0, tc.t1, tc.ncol, got, tc.want)
			}
		})
	}
}

// bigSteps is n one-second steps of a daily power cycle between about 120 and
// 480 kW with noise, with one 2 MW spike and one 0 W trough lasting a single step each.
func bigSteps(n int) []Step {
	r := rand.New(rand.NewPCG(1, 0))
	s := make([]Step, n)
	for i := range s {
		t := float64(i)
		s[i] = Step{T: t, W: 300e3 + 150e3*math.Sin(2*math.Pi*t/86400) + 30e3*r.Float64()}
	}
	s[n*7/9].W, s[n/8].W = 2e6, 0
	return s
}

// bigEvents is a 3 h DR event at 18:00 every day of [0, end) and a 350 kW limit
// during each (no limit elsewhere).
func bigEvents(end float64) ([]Interval, []Step) {
	var ev []Interval
	limit := []Step{{0, math.Inf(1)}}
	for d := 0.0; d*86400 < end; d++ {
		a := d*86400 + 18*3600
		ev = append(ev, Interval{a, a + 3*3600})
		limit = append(limit, Step{a, 350e3}, Step{a + 3*3600, math.Inf(1)})
	}
	return ev, limit
}

// The envelope keeps the extremes of a million steps in a bounded number of
// vertices, in time order.
func TestEnvelopeKeepsExtremes(t *testing.T) {
	s := bigSteps(1_000_000)
	const ncol = 800
	env := envelope(s, 0, 1e6, ncol)
	if len(env) > 4*ncol+2 {
		t.Errorf("envelope has %d vertices, want at most %d", len(env), 4*ncol+2)
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for i, v := range env {
		lo, hi = math.Min(lo, v.y), math.Max(hi, v.y)
		if i > 0 && v.x < env[i-1].x {
			t.Fatalf("vertex %d at x=%v is before vertex %d at %v", i, v.x, i-1, env[i-1].x)
		}
	}
	if lo != 0 || hi != 2e6 {
		t.Errorf("envelope spans [%v, %v] W, want the trough 0 and spike 2e6", lo, hi)
	}
	// the spike's column starts at or before it and within one column width
	spikeT := float64(len(s) * 7 / 9)
	for _, v := range env {
		if v.y == 2e6 && (v.x > spikeT || spikeT-v.x > 1e6/ncol) {
			t.Errorf("spike drawn at x=%v, want within one column before %v", v.x, spikeT)
		}
	}
}

func TestPowerOverTimeLarge(t *testing.T) {
	var buf bytes.Buffer
	in := Power{Steps: bigSteps(1_000_000), End: 1e6}
	in.Events, in.Limit = bigEvents(1e6)
	if err := PowerOverTime(&buf, in, Options{}); err != nil {
		t.Fatal(err)
	}
	writePreview(t, "power_1e6", func(w io.Writer, o Options) error { return PowerOverTime(w, in, o) })
	if buf.Len() > 200_000 {
		t.Errorf("SVG of 1e6 steps is %d bytes, want under 200 kB", buf.Len())
	}
	// 1e6 s is 11.6 days; the 2 MW spike switches the axis to MW
	for _, want := range []string{"Time (d)", "Power (MW)", "DR event", "Power limit"} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("SVG lacks %q", want)
		}
	}
}

// writePreview writes a PNG rendering to -png DIR, when given, for looking at.
func writePreview(t *testing.T, name string, render func(w io.Writer, opt Options) error) {
	t.Helper()
	if *pngDir == "" {
		return
	}
	var buf bytes.Buffer
	if err := render(&buf, Options{Format: PNG}); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(*pngDir, name+".png"), buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestUnits(t *testing.T) {
	for _, tc := range []struct {
		span float64
		want string
	}{{0, "min"}, {7200, "min"}, {7201, "h"}, {3 * 86400, "h"}, {3*86400 + 1, "d"}} {
		if got := unitFor(tc.span).name; got != tc.want {
			t.Errorf("unitFor(%v) = %q, want %q", tc.span, got, tc.want)
		}
	}
	for _, tc := range []struct {
		maxW float64
		want string
	}{{0, "kW"}, {999e3, "kW"}, {1e6, "MW"}} {
		if _, got := powerUnit(tc.maxW); got != tc.want {
			t.Errorf("powerUnit(%v) = %q, want %q", tc.maxW, got, tc.want)
		}
	}
}

func TestTimeTicks(t *testing.T) {
	for _, tc := range []struct {
		u        timeUnit
		min, max float64
		want     string
	}{
		{hours, 0, 6, "0 1 2 3 4 5 6"},
		{hours, 0, 72, "0 12 24 36 48 60 72"},
		{hours, 0.1, 1.9, "0.25 0.5 0.75 1 1.25 1.5 1.75"},
		{days, 0, 10, "0 2 4 6 8 10"},
		{minutes, 0, 90, "0 15 30 45 60 75 90"},
	} {
		var labels []string
		for _, tk := range tc.u.Ticks(tc.min, tc.max) {
			labels = append(labels, tk.Label)
		}
		if got := strings.Join(labels, " "); got != tc.want {
			t.Errorf("%s.Ticks(%v, %v) = %q, want %q", tc.u.name, tc.min, tc.max, got, tc.want)
		}
	}
	for _, tk := range (tidyTicks{}).Ticks(0, 530) {
		if strings.HasSuffix(tk.Label, ".00") || strings.HasSuffix(tk.Label, ".") {
			t.Errorf("tidyTicks label %q keeps trailing zeros", tk.Label)
		}
	}
}

func TestFormatFor(t *testing.T) {
	for _, tc := range []struct {
		name string
		want Format
		err  bool
	}{{"a.svg", SVG, false}, {"out/A.SVG", SVG, false}, {"x.png", PNG, false}, {"x.pdf", 0, true}, {"x", 0, true}} {
		got, err := FormatFor(tc.name)
		if (err != nil) != tc.err || got != tc.want {
			t.Errorf("FormatFor(%q) = %v, %v; want %v, error %v", tc.name, got, err, tc.want, tc.err)
		}
	}
}

func TestParetoFront(t *testing.T) {
	tests := []struct {
		name string
		pts  []TradeOff
		want []int
	}{
		// by hand: 2.0 GHz (6 %, 4 %) is dominated by cap 0.8 (9 %, 3.5 %), 1.6 GHz by
		// 30 %, 20 % by cap 0.7
		{"fixture", fixtureTradeOffs(), []int{0, 7, 1, 5, 2, 9, 3}},
		{"empty", nil, nil},
		{"duplicates keep the first", []TradeOff{{Saving: 5, Increase: 1}, {Saving: 5, Increase: 1}}, []int{0}},
		{"same increase, more saving wins", []TradeOff{{Saving: 5, Increase: 1}, {Saving: 6, Increase: 1}}, []int{1}},
		{"same saving, less increase wins", []TradeOff{{Saving: 5, Increase: 2}, {Saving: 5, Increase: 1}}, []int{1}},
		{"negative values", []TradeOff{{Saving: -1, Increase: -2}, {Saving: 3, Increase: 0}}, []int{0, 1}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := ParetoFront(tc.pts); !slices.Equal(got, tc.want) {
				t.Errorf("ParetoFront(%v) = %v, want %v", tc.pts, got, tc.want)
			}
		})
	}
}

func TestErrors(t *testing.T) {
	nan := math.NaN()
	manyJobs := make([]Bar, MaxGanttJobs+1)
	for i := range manyJobs {
		manyJobs[i] = Bar{Job: int64(i), Start: 0, End: 1, Procs: []Range{{0, 1}}}
	}
	fit := fixtureFit()
	noLabels, infCurve := fit, fit
	noLabels.XLabel = ""
	infCurve.Curve = func(x float64) float64 { return math.Sqrt(x - 100) } // NaN below 100 W
	tests := []struct {
		name string
		run  func(w io.Writer) error
		want string
	}{
		{"no power", func(w io.Writer) error { return PowerOverTime(w, Power{}, Options{}) }, "no power steps"},
		{"power time backwards", func(w io.Writer) error {
			return PowerOverTime(w, Power{Steps: []Step{{5, 1}, {4, 1}}}, Options{})
		}, "power step 1: time 4 is before step 0's 5"},
		{"power NaN", func(w io.Writer) error { return PowerOverTime(w, Power{Steps: []Step{{0, nan}}}, Options{}) }, "power step 0: value NaN"},
		{"end before start", func(w io.Writer) error { return PowerOverTime(w, Power{Steps: []Step{{10, 1}}, End: 5}, Options{}) }, "End 5 is before"},
		{"event backwards", func(w io.Writer) error {
			return PowerOverTime(w, Power{Steps: []Step{{0, 1}}, Events: []Interval{{5, 4}}}, Options{})
		}, "event 0: end 4 is before start 5"},
		{"unknown format", func(w io.Writer) error { return PowerOverTime(w, fixturePower(), Options{Format: 7}) }, "unknown format"},
		{"no trade-offs", func(w io.Writer) error { return SavingVsSlowdown(w, nil, Options{}) }, "no points"},
		{"trade-off NaN", func(w io.Writer) error {
			return SavingVsSlowdown(w, []TradeOff{{Label: "x", Policy: "p", Saving: nan}}, Options{})
		}, "point 0 (p x): value NaN"},
		{"no util", func(w io.Writer) error { return QueueAndUtilisation(w, QueueUtil{Queue: []Step{{0, 1}}}, Options{}) }, "need both"},
		{"too many jobs", func(w io.Writer) error { return Gantt(w, manyJobs, Options{}) }, "5001 jobs is more than 5000"},
		{"bad range", func(w io.Writer) error { return Gantt(w, []Bar{{7, 0, 1, []Range{{3, 3}}}}, Options{}) }, "job 7 (bar 0): bad processor range [3, 3)"},
		{"no procs", func(w io.Writer) error { return Gantt(w, []Bar{{7, 0, 1, nil}}, Options{}) }, "no processors"},
		{"fit labels", func(w io.Writer) error { return FitPlot(w, noLabels, Options{}) }, "axis labels with units are required"},
		{"fit curve", func(w io.Writer) error { return FitPlot(w, infCurve, Options{}) }, "is not finite"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.run(io.Discard)
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "plot: ") {
				t.Errorf("error = %v, want one starting \"plot: \" containing %q", err, tc.want)
			}
		})
	}
}

// Gantt draws exactly MaxGanttJobs bars (and refuses one more, see TestErrors).
func TestGanttMaxJobs(t *testing.T) {
	bars := make([]Bar, MaxGanttJobs)
	for i := range bars {
		lo := i % 100 * 10
		bars[i] = Bar{Job: int64(i), Start: float64(i * 60), End: float64(i*60 + 3000), Procs: []Range{{lo, lo + 10}}}
	}
	var buf bytes.Buffer
	if err := Gantt(&buf, bars, Options{}); err != nil {
		t.Fatal(err)
	}
	if n := bytes.Count(buf.Bytes(), []byte("<path")); n < MaxGanttJobs {
		t.Errorf("SVG has %d paths, want at least one per bar (%d)", n, MaxGanttJobs)
	}
	writePreview(t, "gantt_max", func(w io.Writer, o Options) error { return Gantt(w, bars, o) })
}

var sink int64

func BenchmarkPowerOverTime(b *testing.B) {
	in := Power{Steps: bigSteps(1_000_000)}
	in.Events, in.Limit = bigEvents(1e6)
	for _, f := range []Format{SVG, PNG} {
		b.Run(f.String()+"-1e6-steps", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				var n countWriter
				if err := PowerOverTime(&n, in, Options{Format: f}); err != nil {
					b.Fatal(err)
				}
				sink += int64(n)
			}
		})
	}
}

type countWriter int

func (c *countWriter) Write(p []byte) (int, error) { *c += countWriter(len(p)); return len(p), nil }

// Degenerate but valid inputs (zero spans, one point, constant values) render
// without error: gonum's tickers panic on empty ranges, which widen prevents.
func TestDegenerate(t *testing.T) {
	tests := []struct {
		name string
		run  func() error
	}{
		{"one power step", func() error { return PowerOverTime(io.Discard, Power{Steps: []Step{{0, 0}}}, Options{}) }},
		{"zero span PNG", func() error {
			return PowerOverTime(io.Discard, Power{Steps: []Step{{5, 100}, {5, 100}}}, Options{Format: PNG})
		}},
		{"one trade-off", func() error { return SavingVsSlowdown(io.Discard, []TradeOff{{"a", "", 1, 1}}, Options{}) }},
		{"one fit point", func() error {
			return FitPlot(io.Discard, Fit{XLabel: "x (W)", YLabel: "y (s)", Points: []XY{{1, 1}}, Curve: func(float64) float64 { return 1 }}, Options{})
		}},
		{"flat queue", func() error {
			return QueueAndUtilisation(io.Discard, QueueUtil{Queue: []Step{{0, 0}}, Util: []Step{{0, 0}}}, Options{})
		}},
		{"zero-length job", func() error { return Gantt(io.Discard, []Bar{{1, 5, 5, []Range{{0, 1}}}}, Options{}) }},
	}
	for _, tc := range tests {
		if err := tc.run(); err != nil {
			t.Errorf("%s: %v", tc.name, err)
		}
	}
}
