package sim

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"slices"
	"sync"

	"drsim/results/plot"
	"drsim/workloads"
)

// CompareConfig describes a grid of runs: every policy (governor) × DR
// ratio × machine size, on one trace. Its zero value (plus a Base) works.
type CompareConfig struct {
	Base     Spec      // everything else: trace, jobs, scheduler, DR limit and seeds, ...
	Ratios   []float64 // DR ratios; empty: Base.DRRatio
	Sizes    []int     // machine sizes (processors); empty: Base.Procs
	Policies []string  // governors (--dvfs); empty: performance, powersave, dr
	Workers  int       // concurrent runs; 0: GOMAXPROCS. Output does not depend on it.
	Series   bool      // keep each run's power series (for PlotPower)
}

// CompareRow is one (policy, DR ratio, size) cell. Savings are relative to
// the performance and powersave runs of the same ratio and size, which use
// the same DR events; "increase" is relative to performance. For the
// power-cap policies (powercap-*, powercap.go) the baselines are
// powercap-performance and powercap-powersave, on the same cap tables.
type CompareRow struct {
	Policy         string  `csv:"policy"`
	Ratio          float64 `csv:"dr_ratio"`
	Procs          int     `csv:"procs"`
	Jobs           int     `csv:"jobs"`
	EnergyKWh      float64 `csv:"energy_kwh"`
	SavingPerfPct  float64 `csv:"saving_vs_performance_pct"`
	SavingPsavePct float64 `csv:"saving_vs_powersave_pct"`
	MeanTurnS      float64 `csv:"mean_turnaround_s"`
	TurnIncPct     float64 `csv:"turnaround_increase_pct"`
	MeanWaitS      float64 `csv:"mean_wait_s"`
	MeanBSld       float64 `csv:"mean_bounded_slowdown"`
	DRHours        float64 `csv:"dr_hours"`
	DRStdW         float64 `csv:"dr_power_std_w"`
	DRStdRedPct    float64 `csv:"dr_std_reduction_vs_performance_pct"`
	DREnergyKWh    float64 `csv:"dr_energy_kwh"`
	DRSavingPct    float64 `csv:"dr_energy_saving_vs_performance_pct"`
	MaxExcessW     float64 `csv:"max_excess_w"`
	ExcessJ        float64 `csv:"energy_above_limit_j"`
	Evictions      int     `csv:"evictions"`
	WastedKWh      float64 `csv:"wasted_energy_kwh"`
	InJobs         int     `csv:"in_dr_jobs"`
	InEnergyKWh    float64 `csv:"in_dr_energy_kwh"`
	InTurnS        float64 `csv:"in_dr_mean_turnaround_s"`
	InWaitS        float64 `csv:"in_dr_mean_wait_s"`
	InBSld         float64 `csv:"in_dr_mean_bounded_slowdown"`
	OutJobs        int     `csv:"out_dr_jobs"`
	OutEnergyKWh   float64 `csv:"out_dr_energy_kwh"`
	OutTurnS       float64 `csv:"out_dr_mean_turnaround_s"`
	OutWaitS       float64 `csv:"out_dr_mean_wait_s"`
	OutBSld        float64 `csv:"out_dr_mean_bounded_slowdown"`
	Violations     int     `csv:"check_violations"`
	Clamped        int     `csv:"clamped_cap_levels"`  // cap levels whose fitted power exceeded the cap (clamped to it)
	WindowExcessW  float64 `csv:"max_window_excess_w"` // cap modes: worst RAPL-window-averaged excess (0: held)
}

// Comparison is the result of Compare: rows in (size, ratio, policy) order
// as given, plus what the plots need.
type Comparison struct {
	Rows  []CompareRow
	cells []*cell // every run, including unrequested baselines
}

// cell is one run of the grid.
type cell struct {
	policy string
	ratio  float64
	procs  int
	show   bool // a requested policy (else only a baseline)

	res    *Result
	events []Event
	power  powerSink
	err    error
}

// Compare runs the grid. For each (ratio, size) the DR events are computed
// once (they depend on the trace, size, ratio, DRLimit, DRDuration and
// DRSeed, never on the policy), so every policy faces the same events; the
// performance and powersave baselines are run even when not requested.
// Runs go to a pool of Workers goroutines; results are placed by index, so
// the output is the same for any worker count.
func Compare(ctx context.Context, cfg CompareConfig) (*Comparison, error) {
	base := cfg.Base.withDefaults()
	ratios, sizes, pols := cfg.Ratios, cfg.Sizes, cfg.Policies
	if len(ratios) == 0 {
		ratios = []float64{base.DRRatio}
	}
	if len(sizes) == 0 {
		sizes = []int{base.Procs}
	}
	if len(pols) == 0 {
		pols = []string{"performance", "powersave", "dr"}
	}
	for _, p := range pols {
		if err := checkPolicy(p); err != nil { // powercap.go: governors and powercap-* modes
			return nil, specErr(err)
		}
	}
	all := append(slices.Clone(pols), "performance", "powersave")
	all = append(all, capBaselines(pols)...)
	all = uniq(all)
	traces := make([]*workloads.Trace, len(sizes))
	for i, n := range sizes {
		s := base
		s.Procs = n
		tr, err := Load(s)
		if err != nil {
			return nil, err
		}
		traces[i] = tr
	}
	c := &Comparison{}
	for si, n := range sizes {
		for _, r := range ratios {
			s := base
			s.Procs, s.DRRatio = n, r
			tr := traces[si]
			pw, err := buildPower(s, procsOf(s, tr))
			if err != nil {
				return nil, specErr(err)
			}
			peak, err := limitPeakW(s, tr, pw, procsOf(s, tr)) // machine.go: the run's own peak
			if err != nil {
				return nil, specErr(err)
			}
			ev, err := Events(s, tr, peak)
			if err != nil {
				return nil, specErr(err)
			}
			for _, p := range all {
				c.cells = append(c.cells, &cell{policy: p, ratio: r, procs: n, show: slices.Contains(pols, p), events: ev,
					power: powerSink{keep: cfg.Series}})
			}
		}
	}
	if err := c.run(ctx, cfg, base, sizes, traces); err != nil {
		return nil, err
	}
	c.rows(pols)
	return c, nil
}

func procsOf(s Spec, tr *workloads.Trace) int {
	if s.Procs > 0 {
		return s.Procs
	}
	return int(tr.MachineProcs)
}

func uniq(s []string) []string {
	var out []string
	for _, x := range s {
		if !slices.Contains(out, x) {
			out = append(out, x)
		}
	}
	return out
}

// run executes every cell on a worker pool and returns the error of the
// first failed cell in grid order.
func (c *Comparison) run(ctx context.Context, cfg CompareConfig, base Spec, sizes []int, traces []*workloads.Trace) error {
	workers := cfg.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	next := make(chan *cell)
	var wg sync.WaitGroup
	for range min(workers, len(c.cells)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := range next {
				s := base
				s.Procs, s.DRRatio = k.procs, k.ratio
				applyPolicy(&s, k.policy)
				tr := traces[slices.Index(sizes, k.procs)]
				k.res, k.err = Run(ctx, s, tr, Outputs{Observer: &k.power})
			}
		}()
	}
	for _, k := range c.cells {
		if ctx.Err() != nil {
			break
		}
		next <- k
	}
	close(next)
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("sim: compare stopped: %w", context.Cause(ctx))
	}
	for _, k := range c.cells {
		if k.err != nil {
			return fmt.Errorf("sim: compare %s, DR ratio %g, %d processors: %w", k.policy, k.ratio, k.procs, k.err)
		}
	}
	return nil
}

// find returns the cell of policy p at the same ratio and size as k.
func (c *Comparison) find(k *cell, p string) *cell {
	for _, x := range c.cells {
		if x.policy == p && x.ratio == k.ratio && x.procs == k.procs {
			return x
		}
	}
	return nil
}

func (c *Comparison) rows(pols []string) {
	for _, k := range c.cells {
		if !k.show {
			continue
		}
		s := k.res.Summary
		perfCell := c.find(k, baselineOf(k.policy, "performance"))
		perf, psave := perfCell.res.Summary, c.find(k, baselineOf(k.policy, "powersave")).res.Summary
		perfDR := perfCell.power.drJ
		row := CompareRow{
			Policy: k.policy, Ratio: k.ratio, Procs: k.procs, Jobs: s.Jobs,
			EnergyKWh: s.EnergyKWh, SavingPerfPct: saving(perf.EnergyKWh, s.EnergyKWh), SavingPsavePct: saving(psave.EnergyKWh, s.EnergyKWh),
			MeanTurnS: s.MeanTurn, TurnIncPct: -saving(perf.MeanTurn, s.MeanTurn), MeanWaitS: s.MeanWait, MeanBSld: s.MeanBSld,
			DRHours: s.DRHours, DRStdW: s.DRStdW, DRStdRedPct: saving(perf.DRStdW, s.DRStdW),
			DREnergyKWh: k.power.drJ / 3.6e6, DRSavingPct: saving(perfDR, k.power.drJ),
			MaxExcessW: k.power.maxExcW, ExcessJ: s.ExcessJ, Evictions: s.Evictions, WastedKWh: s.WastedKWh,
			InJobs: s.InDR.Jobs, InEnergyKWh: s.InDR.EnergyKWh, InTurnS: s.InDR.MeanTurn, InWaitS: s.InDR.MeanWait, InBSld: s.InDR.MeanBSld,
			OutJobs: s.OutDR.Jobs, OutEnergyKWh: s.OutDR.EnergyKWh, OutTurnS: s.OutDR.MeanTurn, OutWaitS: s.OutDR.MeanWait, OutBSld: s.OutDR.MeanBSld,
			Violations: k.res.Stats.NViolations,
		}
		if row.Procs == 0 && k.res.Spec.Machine != "" {
			row.Procs = s.Procs // the machine file's size
		}
		row.Clamped, _ = clampedLevels(k.res)
		row.WindowExcessW = k.res.WindowExcessW
		c.Rows = append(c.Rows, row)
	}
}

// saving is the relative reduction from base to x, in percent (0 when base
// is 0).
func saving(base, x float64) float64 {
	if base == 0 || math.IsNaN(base) {
		return 0
	}
	return 100 * (base - x) / base
}

// PowerSeries returns the power steps, limit steps and DR events of one
// cell (Series must have been set), for plot.PowerOverTime.
func (c *Comparison) PowerSeries(policy string, ratio float64, procs int) (plot.Power, bool) {
	for _, k := range c.cells {
		if k.policy != policy || k.ratio != ratio || k.procs != procs || len(k.power.steps) == 0 {
			continue
		}
		in := plot.Power{Steps: k.power.steps}
		t0 := k.power.steps[0].T
		in.Limit = append(in.Limit, plot.Step{T: t0, W: math.Inf(1)})
		for _, l := range k.res.Limits {
			in.Limit = append(in.Limit, plot.Step{T: math.Max(l.T, t0), W: l.W})
		}
		for _, e := range k.events {
			in.Events = append(in.Events, plot.Interval{Start: e.Start, End: e.End})
		}
		in.End = math.Max(k.power.steps[len(k.power.steps)-1].T, k.res.Summary.LastEnd)
		return in, true
	}
	return plot.Power{}, false
}
