package sim

import (
	"context"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"strconv"
	"strings"

	"drsim/powercap"
	"drsim/results"
	"drsim/scheduler"
	"drsim/workloads"
)

// Load reads the spec's trace, or generates the embedded default workload
// when Trace is empty, applying the job and machine-size options.
func Load(s Spec) (*workloads.Trace, error) {
	d := s.withDefaults()
	opt := workloads.Options{MaxJobs: d.Jobs, MachineProcs: int64(d.Procs)}
	switch d.ProcsField {
	case "req":
	case "alloc":
		opt.ProcsField = workloads.ProcsAlloc
	default:
		return nil, oneOf("procs-field", d.ProcsField, "req", "alloc")
	}
	switch d.Estimate {
	case "req":
	case "run":
		opt.EstimateField = workloads.EstimateRun
	default:
		return nil, oneOf("estimate", d.Estimate, "req", "run")
	}
	if d.Trace != "" {
		return workloads.LoadFile(d.Trace, opt)
	}
	cfg := workloads.LublinConfig{Seed: d.Seed}
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

// Outputs are the optional per-run outputs.
type Outputs struct {
	Jobs      io.Writer        // jobs.csv
	Power     io.Writer        // power.csv
	PowerStep float64          // at most one power.csv row per step (s); 0 = every change
	Record    results.Recorder // extra per-job recorder

	// Hooks for simulations built on Run (the contract simulation).
	Observer scheduler.PowerObserver  // receives the power time series too (besides Power)
	JobLevel func(*workloads.Job) int // scheduler.Config.JobLevel: fixes a job's level; nil = governor
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
}

// Run simulates tr (from Load) under s.
func Run(ctx context.Context, s Spec, tr *workloads.Trace, out Outputs) (*Result, error) {
	d := s.withDefaults()
	procs := int(tr.MachineProcs)
	if d.Procs > 0 {
		procs = d.Procs
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
	if cfg.Governor, err = scheduler.Governors.New(d.DVFS, scheduler.GovernorConfig{Seed: d.Seed}); err != nil {
		return nil, specErr(err)
	}
	limits, err := Limits(d, tr, pw.peakW(procs))
	if err != nil {
		return nil, specErr(err)
	}
	cfg.Limits = limits

	sum := results.NewSummary(d.Policy, procs)
	sum.Dropped = int(tr.Report.Dropped)
	recs := results.Recorders{sum}
	var jobs *results.JobsCSV
	if out.Jobs != nil {
		if jobs, err = results.NewJobsCSV(out.Jobs); err != nil {
			return nil, err
		}
		recs = append(recs, jobs)
	}
	if out.Record != nil {
		recs = append(recs, out.Record)
	}
	cfg.Recorder = recs
	var pcsv *results.PowerCSV
	if out.Power != nil {
		if pcsv, err = results.NewPowerCSV(out.Power, out.PowerStep); err != nil {
			return nil, err
		}
		cfg.Power = pcsv
	}
	cfg.Power = fanPower(cfg.Power, out.Observer)
	cfg.JobLevel = out.JobLevel
	if err := useNetwork(&cfg, d, pw.names, sum); err != nil {
		return nil, err
	}
	eng, err := scheduler.New(cfg)
	if err != nil {
		return nil, specErr(err)
	}
	if err := eng.Run(ctx, &scheduler.SliceSource{Jobs: tr.Jobs}); err != nil {
		return nil, err
	}
	if jobs != nil {
		if err := jobs.Flush(); err != nil {
			return nil, err
		}
	}
	if pcsv != nil {
		if err := pcsv.Flush(); err != nil {
			return nil, err
		}
	}
	sum.Finish()
	fillEnergy(sum, eng)
	st := *eng.Stats()
	sum.Dropped += st.Dropped
	return &Result{Spec: d, Summary: sum, Stats: st, Limits: limits, Apps: pw.names, PeakW: pw.peakW(procs),
		Tables: pw.tables, AppOf: pw.appOf}, nil
}

func fillEnergy(s *results.Summary, eng *scheduler.Engine) {
	m := eng.Meter()
	if m == nil || !eng.HasPower() {
		return
	}
	s.EnergyKWh, s.JobKWh, s.IdleKWh = m.Energy()/3.6e6, m.BusyJ/3.6e6, m.IdleJ/3.6e6
	s.PeakW = m.PeakW
	s.MeanW, s.StdW = m.MeanStd()
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
	names  []string
	tables []powercap.Table
	appOf  func(*workloads.Job) int
	idleW  float64
}

func (p *power) peakW(procs int) float64 {
	peak := 0.0
	for _, t := range p.tables {
		peak = math.Max(peak, t.Max().Power)
	}
	return peak * float64(procs)
}

func buildPower(d Spec, procs int) (*power, error) {
	var profiles []powercap.Profile
	if d.Models == "builtin" {
		profiles = powercap.Builtin()
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
		if pr.Freq == nil && pr.Bound == nil {
			continue // cap-only model files serve the power-cap modes
		}
		t, err := pr.FreqTable(ps)
		if err != nil {
			return nil, fmt.Errorf("app %s: %w", pr.Name, err)
		}
		usable = append(usable, pr)
		p.tables = append(p.tables, t)
		p.names = append(p.names, pr.Name)
	}
	if len(usable) == 0 {
		return nil, fmt.Errorf("models %s: no application has a frequency model", d.Models)
	}
	m, err := powercap.NewAppMap(d.AppMap, usable, d.Seed)
	if err != nil {
		return nil, err
	}
	p.appOf = m.App
	p.idleW = d.IdleW
	if p.idleW == 0 {
		p.idleW = IdlePower(p.tables)
	}
	for i, t := range p.tables {
		if t.Min().Power < p.idleW {
			return nil, fmt.Errorf("idle power %g W per processor is above app %s's power at its lowest level (%g W)", p.idleW, p.names[i], t.Min().Power)
		}
	}
	return p, nil
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
