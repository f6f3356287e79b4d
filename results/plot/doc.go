// Package plot draws drsim's figures with gonum.org/v1/plot: power over time
// (PowerOverTime), the saving/slowdown trade-off with its Pareto front
// (SavingVsSlowdown, ParetoFront), queue length and utilisation on two aligned
// panels (QueueAndUtilisation), Gantt charts of small traces (Gantt) and
// calibration fits (FitPlot).
//
// Inputs are plain structs of this package (Step, Interval, Power, TradeOff,
// QueueUtil, Bar, Range, Fit, XY); the package depends on neither the simulator
// nor the file system. Each function writes one SVG (the default) or PNG to an
// io.Writer; Options picks the format (FormatFor maps a file extension to it),
// the size (16 cm × 10 cm by default), the title and the axis labels. Units are
// seconds and watts in, and the axes say what they show: time in min, h or d
// chosen from the span, power in kW or MW. SVG output is byte-identical for
// identical input (no maps, no clocks, fonts referenced rather than embedded);
// testdata/*_golden.svg pin it (go test -update rewrites them, go test -png DIR
// also writes PNGs to look at).
//
// Long series: a step series with more steps than the data area has device
// columns (2 per point of width, or DPI/72 if larger) is drawn as a min/max
// envelope: per column a vertical stroke covering every value held in it, then
// the value it leaves with (see envelope in steps.go). Peaks and troughs of a
// single step survive, a change moves at most one column early, and the output
// size is bounded by the plot width, not the series length: a million steps
// give a 52 kB SVG.
//
// Readability: every axis has a label with its unit; a legend appears when there
// is more than one series (inside the top right, above headroom left for it, or
// beside the data area for the trade-off plot so it never hides a point); time
// axes label at most 8 round spacings; Pareto labels that would collide are left
// out; fonts are gonum/plot's defaults. Bad input gives a one-line "plot: ..."
// error, never a panic: Gantt refuses more than MaxGanttJobs jobs.
//
// Files: render.go (formats, options, units, ticks, palette), steps.go (step
// series, envelope, shading), power.go, tradeoff.go, queue.go, gantt.go, fit.go.
package plot
