package sim

import (
	"context"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"drsim/powercap"
	"drsim/results"
	"drsim/scheduler"
	"drsim/scheduler/governor"
	"drsim/workloads"
)

// Load reads the spec's trace, or generates the embedded default workload
// when Trace is empty, applying the job and machine-size options.
func Load(s Spec) (*workloads.Trace, error) {
	d := s.withDefaults()
	opt, err := readOptions(d)
	if err != nil {
		return nil, err
	}
	if d.Trace != "" {
		return workloads.LoadFile(d.Trace, opt)
	}
	cfg := workloads.LublinConfig{Seed: d.Seed, RateFactor: workloads.DefaultRate}
	if d.Procs > 0 {
		cfg.Procs = int64(d.Procs)
	}
	if d.Jobs > 0 {
		cfg.Jobs = d.Jobs
	}
	tr, err := workloads.Lublin(cfg)
	if err != nil {
		return nil, err
	}
	if d.Estimate == "run" {
		for i := range tr.Jobs {
			tr.Jobs[i].Estimate = tr.Jobs[i].Run
		}
	}
	return tr, nil
}

// readOptions turns the spec's trace options into reader options.
func readOptions(d Spec) (workloads.Options, error) {
	opt := workloads.Options{MaxJobs: d.Jobs, MachineProcs: int64(d.Procs)}
	if err := d.Validate(); err != nil { // ranges.go
		return opt, err
	}
	if n := machineProcs(d); n > 0 {
		opt.MachineProcs = int64(n) // machine.go
	}
	switch d.ProcsField {
	case "req":
	case "alloc":
		opt.ProcsField = workloads.ProcsAlloc
	default:
		return opt, oneOf("procs-field", d.ProcsField, "req", "alloc")
	}
	switch d.Estimate {
	case "req":
	case "run":
		opt.EstimateField = workloads.EstimateRun
	default:
		return opt, oneOf("estimate", d.Estimate, "req", "run")
	}
	return opt, sacctOptions(&opt, d.TraceFormat, d.TraceTZ, d.KeepUnstarted)
}

// sacctOptions sets the reader options for Slurm accounting logs.
func sacctOptions(opt *workloads.Options, format, tz string, keep bool) error {
	f, err := workloads.ParseFormat(format)
	if err != nil {
		return oneOf("trace-format", format, "auto", "swf", "sacct")
	}
	opt.Format, opt.KeepUnstarted = f, keep
	if tz != "" && tz != "UTC" {
		loc, err := time.LoadLocation(tz)
		if err != nil {
			return specErr(fmt.Errorf("trace-tz: %q is not a time zone (want a zone database name such as Europe/Paris): %v", tz, err))
		}
		opt.TZ = loc
	}
	return nil
}

// Outputs are the optional per-run outputs.
type Outputs struct {
	Jobs      io.Writer        // jobs.csv
	Power     io.Writer        // power.csv
	PowerStep float64          // at most one power.csv row per step (s); 0 = every change
	Record    results.Recorder // extra per-job recorder
	Source    scheduler.Source // jobs to replay instead of tr.Jobs (from Open: a piped trace)

	// Hooks for simulations built on Run (the contract simulation).
	Observer scheduler.PowerObserver  // receives the power time series too (besides Power)
	JobLevel func(*workloads.Job) int // scheduler.Config.JobLevel: fixes a job's level; nil = governor
	// PriorityTrace is scheduler.Priority.Trace under --priority
	// multifactor: each user association's fair-share factor after every
	// recompute (for comparisons with sprio).
	PriorityTrace func(t float64, fs []float64)
}

// Result is what one run produced.
type Result struct {
	Spec    Spec // with defaults applied
	Summary *results.Summary
	Stats   scheduler.Stats
	Limits  []scheduler.LimitStep
	Apps    []string                 // application names, by index
	PeakW   float64                  // cluster peak power used for fractional limits (W)
	Tables  []powercap.Table         // level table per application, by index
	AppOf   func(*workloads.Job) int // the job→application mapping the run used

	// Parts sums each partition's finished jobs (machine files only).
	Parts []scheduler.PartStat

	// WindowExcessW is, in the power-cap modes, the worst excess of the
	// power averaged over the RAPL window (Spec.RAPLWindow) over a constant
	// finite limit (W), floored at 0: 0 means the RAPL invariant held.
	WindowExcessW float64
}

// Run simulates tr (from Load) under s.
func Run(ctx context.Context, s Spec, tr *workloads.Trace, out Outputs) (*Result, error) {
	d := s.withDefaults()
	if err := d.Validate(); err != nil { // ranges.go
		return nil, err
	}
	procs := int(tr.MachineProcs)
	if d.Procs > 0 {
		procs = d.Procs
	}
	if d.Machine == "" && d.ProcsPerNode > 1 && procs%d.ProcsPerNode != 0 {
		return nil, specErr(fmt.Errorf("procs-per-node: %d does not divide the machine's %d processors (the last node would be partial); give --procs as a multiple of it",
			d.ProcsPerNode, procs))
	}
	cfg := scheduler.Config{
		Procs: procs, ProcsPerNode: d.ProcsPerNode, Policy: d.Policy, Order: d.Order,
		Placement: d.Placement, Seed: d.Seed, Check: d.Check, Workload: workloadName(d.Trace),
	}
	switch d.Pass {
	case "instant":
	case "event":
		cfg.Pass = scheduler.PassEvent
	default:
		return nil, oneOf("pass", d.Pass, "instant", "event")
	}
	switch d.Overrun {
	case "kill":
	case "extend":
		cfg.Overrun = scheduler.OverrunExtend
	default:
		return nil, oneOf("overrun", d.Overrun, "kill", "extend")
	}
	pw, err := buildPower(d, procs)
	if err != nil {
		return nil, specErr(err)
	}
	cfg.Apps, cfg.AppOf, cfg.IdleW = pw.tables, pw.appOf, pw.idleW
	mach, machPeakW, err := useMachine(&cfg, d, tr, pw.idleW, pw.peakW(1)) // machine.go
	if err != nil {
		return nil, specErr(err)
	}
	if err := partitionApps(&cfg, d, mach, pw); err != nil { // machine.go
		return nil, specErr(err)
	}
	if err := usePriority(&cfg, d, tr, mach); err != nil { // priority.go
		return nil, specErr(err)
	}
	if cfg.Priority != nil {
		cfg.Priority.Trace = out.PriorityTrace
	}
	peakW := pw.peakW(procs)
	if mach != nil {
		procs, peakW = cfg.Procs, machPeakW
	}
	if cfg.Governor, err = governorFor(d, pw.names); err != nil { // powercap.go
		return nil, specErr(err)
	}
	limits, err := Limits(d, routed(tr, cfg.PartOf), peakW) // limits.go
	if err != nil {
		return nil, specErr(err)
	}
	cfg.Limits = limits
	if err := useNodePower(&cfg, d); err != nil { // nodepower.go
		return nil, specErr(err)
	}
	if err := useVariability(&cfg, d, mach); err != nil { // variability.go
		return nil, specErr(err)
	}
	if err := useNodeStatic(&cfg, d, mach); err != nil { // nodepower.go
		return nil, specErr(err)
	}

	sum := results.NewSummary(d.Policy, procs)
	sum.MachineSource, sum.ModelExtrapolation = MachineSource(d, tr), extrapolationStrings(pw.extrap) // ranges_models.go
	recs := results.Recorders{sum}
	var jobs *results.JobsCSV
	var async *results.Async
	if out.Jobs != nil {
		newJobs := results.NewJobsCSV
		if machineHasGPUs(mach) {
			newJobs = results.NewJobsCSVDevices // gpu.go
		}
		if jobs, err = newJobs(out.Jobs); err != nil {
			return nil, err
		}
		async = results.NewAsync(jobs) // jobs.csv is formatted on its own goroutine
		defer async.Close()
		recs = append(recs, async)
	}
	if out.Record != nil {
		recs = append(recs, out.Record)
	}
	cfg.Recorder = recs
	var pcsv *results.PowerCSV
	var apow *results.AsyncPower
	if out.Power != nil {
		newPower := results.NewPowerCSV
		if machineHasGPUs(mach) {
			newPower = results.NewPowerCSVDevices // gpu.go
		}
		if pcsv, err = newPower(out.Power, out.PowerStep); err != nil {
			return nil, err
		}
		apow = results.NewAsyncPower(pcsv) // power.csv is formatted on its own goroutine
		defer apow.Close()
		cfg.Power = apow
	}
	cfg.Power = fanPower(cfg.Power, out.Observer)
	win := capWindow(d) // powercap_window.go: RAPL window check (cap modes only)
	cfg.Power = fanPower(cfg.Power, win.observer())
	cfg.JobLevel = out.JobLevel
	if err := useNetwork(&cfg, d, pw.names, sum); err != nil {
		return nil, err
	}
	var src scheduler.Source = &scheduler.SliceSource{Jobs: tr.Jobs}
	if out.Source != nil {
		src = out.Source
	}
	src, gpuNames, gpuTables, err := useGPUs(&cfg, d, mach, src) // gpu.go
	if err != nil {
		return nil, specErr(err)
	}
	eng, err := scheduler.New(cfg)
	if err != nil {
		return nil, specErr(err)
	}
	if err := eng.Run(ctx, src); err != nil {
		return nil, err
	}
	if jobs != nil {
		if err := async.Close(); err != nil {
			return nil, err
		}
		if err := jobs.Flush(); err != nil {
			return nil, err
		}
	}
	if pcsv != nil {
		if err := apow.Close(); err != nil {
			return nil, err
		}
		if err := pcsv.Flush(); err != nil {
			return nil, err
		}
	}
	// The read report is complete now, also for a piped trace.
	sum.Dropped = int(tr.Report.Dropped)
	var why []string
	for _, a := range tr.Report.Anomalies {
		if a.Count > 0 && a.Reason.Dropped() {
			why = append(why, fmt.Sprintf("%s: %d", a.Reason, a.Count))
		}
	}
	if err := sum.Finish(); err != nil {
		return nil, err
	}
	fillEnergy(sum, eng)
	if eng.GPUOn() {
		g := eng.GPUEnergy() / 3.6e6
		c := sum.JobKWh - g
		sum.CPUKWh, sum.GPUKWh = &c, &g
	}
	if g, ok := cfg.Governor.(interface{ LevelStats() governor.LevelStats }); ok {
		ls := g.LevelStats()
		sum.LevelSolves, sum.ApproxSolves, sum.MaxGapPct = ls.Solves, ls.OverBudget, 100*ls.MaxGap
	}
	st := *eng.Stats()
	sum.Dropped += st.Dropped
	for i, n := range st.DroppedBy {
		if n > 0 {
			why = append(why, fmt.Sprintf("%s (engine): %d", scheduler.DropReasons[i], n))
		}
	}
	sum.DropWhy = strings.Join(why, ", ")
	return &Result{Spec: d, Summary: sum, Stats: st, Limits: limits, Apps: append(slices.Clip(pw.names), gpuNames...), PeakW: peakW,
		Tables: append(slices.Clip(pw.tables), gpuTables...), AppOf: cfg.AppOf, WindowExcessW: win.result(sum.LastEnd), Parts: eng.PartStats()}, nil
}

func fillEnergy(s *results.Summary, eng *scheduler.Engine) {
	m := eng.Meter()
	if m == nil || !eng.HasPower() {
		return
	}
	s.EnergyKWh, s.JobKWh, s.IdleKWh = m.Energy()/3.6e6, m.BusyJ/3.6e6, m.IdleJ/3.6e6
	s.OffKWh, s.TransitionKWh, s.Boots = m.OffJ/3.6e6, m.TransJ/3.6e6, eng.Stats().Boots
	s.PeakW = m.PeakW
	s.MeanW, s.StdW = m.MeanStd()
	if lm := eng.LimitMeter(); lm != nil {
		m = lm // the limited partition's with Spec.DRPartition
	}
	if m.DRTime > 0 {
		s.DRHours = m.DRTime / 3600
		_, s.DRStdW = m.DRMeanStd()
		s.MaxExcessW, s.ExcessJ = m.MaxExcessW, m.ExcessJ
	}
}

func workloadName(trace string) string {
	if trace == "" {
		return "lublin"
	}
	b := filepath.Base(trace)
	for _, ext := range []string{".gz", ".swf"} {
		b = strings.TrimSuffix(b, ext)
	}
	return b
}

// power is the resolved power model of a run.
type power struct {
	names    []string
	tables   []powercap.Table
	appOf    func(*workloads.Job) int
	idleW    float64
	used     []bool             // the app map can choose tables[i]
	extrap   []Extrapolation    // models asked outside their fitted range (ranges_models.go)
	profiles []powercap.Profile // by index, as tables (machine.go: per-partition app maps)
}

// peakW is the cluster's peak power: every processor busy with the most
// power-hungry application the map can choose, at its top level.
func (p *power) peakW(procs int) float64 {
	peak := 0.0
	for _, t := range p.usedTables() {
		peak = math.Max(peak, t.Max().Power)
	}
	return peak * float64(procs)
}

func buildPower(d Spec, procs int) (*power, error) {
	var profiles []powercap.Profile
	named := appMapNames(d.AppMap)
	if d.Models == "builtin" {
		profiles = powercap.Builtin()
		if named == nil {
			// Rules that spread jobs over every profile (exe, user, plain
			// mix) use the profiles measured on one machine: the PCM sweeps,
			// which have cap models. miniMD was measured on a desktop
			// package an order of magnitude smaller; name it to use it.
			profiles = slices.DeleteFunc(profiles, func(p powercap.Profile) bool { return p.Cap == nil })
		}
	} else {
		var err error
		if profiles, err = powercap.LoadModels(d.Models); err != nil {
			return nil, err
		}
	}
	ps, err := parsePStates(d.PStates)
	if err != nil {
		return nil, err
	}
	p := &power{}
	var usable []powercap.Profile
	for _, pr := range profiles {
		t, ok, err := profileTable(d, pr, ps) // powercap.go: frequency or cap table
		if !ok {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("app %s: %w", pr.Name, err)
		}
		usable = append(usable, pr)
		p.tables = append(p.tables, t)
		p.names = append(p.names, pr.Name)
	}
	if len(usable) == 0 {
		return nil, noModels(d)
	}
	m, err := powercap.NewAppMap(d.AppMap, usable, d.Seed)
	if err != nil {
		return nil, err
	}
	p.appOf, p.profiles = m.App, usable
	// Idle and peak power come from the applications the map can choose.
	p.used = make([]bool, len(p.tables))
	for i, n := range p.names {
		p.used[i] = named == nil || slices.Contains(named, strings.ToLower(n))
	}
	p.idleW = d.IdleW
	if p.idleW == 0 {
		p.idleW = IdlePower(p.usedTables())
	}
	for i, t := range p.tables {
		if p.used[i] && t.Min().Power < p.idleW {
			return nil, fmt.Errorf("idle power %g W per processor is above app %s's power at its lowest level (%g W)", p.idleW, p.names[i], t.Min().Power)
		}
	}
	knob := powercap.Freq
	if capMode(d) {
		knob = powercap.Cap
	}
	p.extrap = extrapolations(knob, usable, p.tables, p.used)
	return p, nil
}

// appMapNames returns the application names an app-map spec names
// (one:NAME, mix:a=w,b=w with w > 0), lower-cased, or nil for rules that
// use every profile.
func appMapNames(spec string) []string {
	kind, arg, _ := strings.Cut(spec, ":")
	if arg == "" || (kind != "one" && kind != "mix") {
		return nil
	}
	var out []string
	for _, part := range strings.Split(arg, ",") {
		name, w, hasW := strings.Cut(part, "=")
		if hasW {
			if v, err := strconv.ParseFloat(strings.TrimSpace(w), 64); err == nil && v <= 0 {
				continue
			}
		}
		out = append(out, strings.ToLower(strings.TrimSpace(name)))
	}
	return out
}

func (p *power) usedTables() []powercap.Table {
	var out []powercap.Table
	for i, t := range p.tables {
		if p.used[i] {
			out = append(out, t)
		}
	}
	return out
}

// IdlePower is the default idle draw of a processor: 40% of the lowest
// busy power of any application at its lowest level. The ratio is the
// measured idle/busy package power of the Iconoclast miniMD sweep (6.2 W
// idle against 15.5 W busy at 3.2 GHz, SOURCES.md).
func IdlePower(tables []powercap.Table) float64 {
	low := math.Inf(1)
	for _, t := range tables {
		low = math.Min(low, t.Min().Power)
	}
	return 0.4 * low
}

func parsePStates(s string) (powercap.PStates, error) {
	switch s {
	case "":
		return powercap.DefaultPStates(), nil
	case "continuous":
		return powercap.ContinuousPStates(0, 0), nil
	}
	var ghz []float64
	for _, f := range strings.Split(s, ",") {
		v, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
		if err != nil || v <= 0 || math.IsInf(v, 0) {
			return powercap.PStates{}, fmt.Errorf("pstates: %q is not a frequency in GHz", f)
		}
		ghz = append(ghz, v)
	}
	ps := powercap.PStates{GHz: ghz}
	_, err := ps.List()
	return ps, err
}
