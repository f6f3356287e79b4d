package sim

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/gocarina/gocsv"

	"drsim/results"
	"drsim/results/plot"
)

// WriteCSV writes one CSV row per CompareRow (header from the csv tags).
// Floats are written in shortest round-trip form, so the bytes depend only
// on the values.
func (c *Comparison) WriteCSV(w io.Writer) error {
	return gocsv.Marshal(c.Rows, w)
}

// WriteMarkdown writes two Markdown tables: the main figures, and the
// figures split by jobs started inside and outside DR periods.
func (c *Comparison) WriteMarkdown(w io.Writer) error {
	main := &results.Table{Header: []string{"policy", "DR ratio", "procs", "energy kWh", "saving vs perf %", "saving vs psave %",
		"turnaround s", "turnaround +% vs perf", "wait s", "bsld", "DR power std kW", "DR std −% vs perf", "DR energy saving %",
		"max excess W", "energy above limit J", "evictions", "wasted kWh", "clamped cap levels"}}
	split := &results.Table{Header: []string{"policy", "DR ratio", "procs", "in-DR jobs", "in-DR kWh", "in-DR turnaround s", "in-DR wait s", "in-DR bsld",
		"out-DR jobs", "out-DR kWh", "out-DR turnaround s", "out-DR wait s", "out-DR bsld"}}
	for _, r := range c.Rows {
		main.Add(r.Policy, g(r.Ratio), strconv.Itoa(r.Procs), f(r.EnergyKWh, 1), f(r.SavingPerfPct, 2), f(r.SavingPsavePct, 2),
			f(r.MeanTurnS, 0), f(r.TurnIncPct, 2), f(r.MeanWaitS, 0), f(r.MeanBSld, 2), f(r.DRStdW/1e3, 2), f(r.DRStdRedPct, 2),
			f(r.DRSavingPct, 2), f(r.MaxExcessW, 1), f(r.ExcessJ, 0), strconv.Itoa(r.Evictions), f(r.WastedKWh, 2), strconv.Itoa(r.Clamped))
		split.Add(r.Policy, g(r.Ratio), strconv.Itoa(r.Procs), strconv.Itoa(r.InJobs), f(r.InEnergyKWh, 1), f(r.InTurnS, 0), f(r.InWaitS, 0), f(r.InBSld, 2),
			strconv.Itoa(r.OutJobs), f(r.OutEnergyKWh, 1), f(r.OutTurnS, 0), f(r.OutWaitS, 0), f(r.OutBSld, 2))
	}
	if err := main.WriteMarkdown(w); err != nil {
		return err
	}
	if _, err := io.WriteString(w, "\nBy jobs started inside / outside DR periods:\n\n"); err != nil {
		return err
	}
	return split.WriteMarkdown(w)
}

func f(x float64, prec int) string {
	if x == 0 {
		x = 0 // no "-0"
	}
	s := strconv.FormatFloat(x, 'f', prec, 64)
	if s == "-0" || (len(s) > 1 && s[0] == '-' && isZero(s[1:])) {
		return s[1:]
	}
	return s
}

func isZero(s string) bool {
	for _, ch := range s {
		if ch != '0' && ch != '.' {
			return false
		}
	}
	return true
}

func g(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }

// A PlotFile is one plot of a comparison, written by Write.
type PlotFile struct {
	Name  string
	Write func(io.Writer) error
}

// Plots returns the comparison's plots: power over time, with the limit
// and DR events, for every requested cell (when Series was set), and
// energy saving against turnaround increase (both vs performance) for
// every policy but performance.
func (c *Comparison) Plots() []PlotFile {
	var out []PlotFile
	var pts []plot.TradeOff
	for _, r := range c.Rows {
		if in, ok := c.PowerSeries(r.Policy, r.Ratio, r.Procs); ok {
			title := fmt.Sprintf("%s, DR ratio %g, %d processors", r.Policy, r.Ratio, r.Procs)
			out = append(out, PlotFile{
				Name:  fmt.Sprintf("power-%s-r%g-p%d.svg", r.Policy, r.Ratio, r.Procs),
				Write: func(w io.Writer) error { return plot.PowerOverTime(w, in, plot.Options{Title: title}) },
			})
		}
		if r.Policy != "performance" && !math.IsNaN(r.SavingPerfPct+r.TurnIncPct) {
			pts = append(pts, plot.TradeOff{Label: fmt.Sprintf("r%g/%d", r.Ratio, r.Procs), Policy: r.Policy,
				Saving: r.SavingPerfPct, Increase: r.TurnIncPct})
		}
	}
	if len(pts) > 0 {
		out = append(out, PlotFile{Name: "saving-vs-turnaround.svg", Write: func(w io.Writer) error {
			return plot.SavingVsSlowdown(w, pts, plot.Options{XLabel: "Turnaround increase vs performance (%)", YLabel: "Energy saving vs performance (%)"})
		}})
	}
	return out
}

// ParseRatios reads a comma list of DR ratios ("0.2,0.4,1").
func ParseRatios(s string) ([]float64, error) {
	var out []float64
	for _, x := range splitList(s) {
		v, err := strconv.ParseFloat(x, 64)
		if err != nil || !(v >= 0 && v <= 1) {
			return nil, specErr(fmt.Errorf("dr-ratio: %q is not a fraction in [0, 1]", x))
		}
		out = append(out, v)
	}
	return out, nil
}

// ParseSizes reads a comma list of machine sizes ("128,256,512").
func ParseSizes(s string) ([]int, error) {
	var out []int
	for _, x := range splitList(s) {
		v, err := strconv.Atoi(x)
		if err != nil || v <= 0 {
			return nil, specErr(fmt.Errorf("procs: %q is not a processor count", x))
		}
		out = append(out, v)
	}
	return out, nil
}

// ParseNames reads a comma list of names.
func ParseNames(s string) []string { return splitList(s) }

func splitList(s string) []string {
	var out []string
	for _, x := range strings.Split(s, ",") {
		if x = strings.TrimSpace(x); x != "" {
			out = append(out, x)
		}
	}
	return out
}
