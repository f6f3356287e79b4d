package replay

import (
	"context"
	"fmt"
	"math"
	"slices"
	"time"

	"drsim/contracts"
	"drsim/scheduler/sim"
	"drsim/workloads"
)

// SlotMenu is one optimal menu: for one slot and one application.
type SlotMenu struct {
	Slot, App int
	Price     float64 // the (scaled) slot price it was built at
	Types     []contracts.Type
	Menu      *contracts.Menu
}

// Contract is one accepted contract.
type Contract struct {
	Job              int // index in the trace
	Slot, App, Type  int
	Level            int
	Reward, Dt       float64
	Utility, DeltaE  float64 // user utility (currency), model saving (J)
	BaseRun, SlowRun float64 // runtime in the baseline and the contract run (s)
	Price            float64 // slot price, scaled
	Bundle           int     // the bundle the user chose (its own: menus are IC)
}

// replayer is the state shared by the runs of one Run.
type replayer struct {
	cfg    Config
	tr     *workloads.Trace
	base   *sim.Result
	basePw powerSeries
	baseSp *spans
	clock  *priceClock
	jobs   []job
	cen    *census
	S      float64
	keys   map[[2]int64]int
	prices []float64 // unscaled, by slot, filled on demand
	ptimes []time.Time
}

// Run simulates tr without contracts and with them (see doc.go), plus the
// sensitivity runs, and returns the per-slot accounts and the summary.
func Run(ctx context.Context, cfg Config, tr *workloads.Trace) (*Result, error) {
	d := cfg.withDefaults()
	if err := d.check(); err != nil {
		return nil, inputErr(err)
	}
	if len(tr.Jobs) == 0 {
		return nil, fmt.Errorf("replay: the trace has no jobs")
	}
	r := &replayer{cfg: d, tr: tr, S: d.Slot.Seconds(), baseSp: newSpans(len(tr.Jobs))}
	var err error
	if r.base, err = sim.Run(ctx, d.Spec, tr, sim.Outputs{Observer: &r.basePw, Record: r.baseSp}); err != nil {
		return nil, err
	}
	if len(r.base.Tables) == 0 {
		return nil, fmt.Errorf("replay: the simulation has no power model")
	}
	if r.clock, err = newClock(&d, tr, tr.Jobs[0].Submit); err != nil {
		return nil, inputErr(err)
	}
	if err := r.classify(); err != nil {
		return nil, err
	}
	res := &Result{Theta: d.Theta, Apps: r.base.Apps, Baseline: r.base}
	main, err := r.contractRun(ctx, 1)
	if err != nil {
		return nil, err
	}
	r.fill(res, main)
	for _, s := range d.Sensitivity {
		o := main
		if s != 1 {
			if o, err = r.contractRun(ctx, s); err != nil {
				return nil, err
			}
		}
		res.Sensitivity = append(res.Sensitivity, r.sensitivityRow(s, o))
	}
	return res, nil
}

// classify assigns every job its type, app and arrival slot, and counts
// the jobs of each slot.
func (r *replayer) classify() error {
	seed := r.cfg.Spec.Seed
	if seed == 0 {
		seed = 1
	}
	rule, err := NewTypeRule(r.cfg.Rule, r.cfg.Probs, len(r.cfg.Theta), seed)
	if err != nil {
		return err
	}
	r.jobs = make([]job, len(r.tr.Jobs))
	r.keys = make(map[[2]int64]int, len(r.tr.Jobs))
	r.cen = newCensus(len(r.base.Tables), len(r.cfg.Theta))
	for i := range r.tr.Jobs {
		w := &r.tr.Jobs[i]
		key := [2]int64{w.ID, w.Line}
		if o, dup := r.keys[key]; dup {
			return fmt.Errorf("replay: jobs %d and %d share job number %d and line %d", o+1, i+1, w.ID, w.Line)
		}
		r.keys[key] = i
		app := r.base.AppOf(w)
		if app < 0 || app >= len(r.base.Tables) {
			app = 0
		}
		j := job{typ: rule.Type(w), app: app, slot: r.slotOf(w.Submit), procs: int(w.Procs)}
		r.jobs[i] = j
		r.cen.arrive(j.slot, j.app, j.typ)
		r.cen.add(j.slot, j.app, j.typ, j.procs)
		if r.cfg.Count == "active" && !math.IsNaN(r.baseSp.start[i]) {
			a, b := r.slotOf(r.baseSp.start[i]), r.slotOf(math.Nextafter(r.baseSp.end[i], math.Inf(-1)))
			for k := max(a, j.slot+1); k <= b; k++ {
				r.cen.add(k, j.app, j.typ, j.procs)
			}
		}
	}
	return nil
}

func (r *replayer) slotOf(t float64) int { return int(math.Floor((t - r.clock.t0) / r.S)) }

// price returns the unscaled price of slot k.
func (r *replayer) price(k int) (float64, error) {
	for len(r.prices) <= k {
		p, ts, err := r.clock.price(len(r.prices), r.S)
		if err != nil {
			return 0, inputErr(err)
		}
		r.prices, r.ptimes = append(r.prices, p), append(r.ptimes, ts)
	}
	return r.prices[k], nil
}

// outcome is one contract run at one price scale.
type outcome struct {
	scale     float64
	menus     []SlotMenu
	contracts []Contract
	run       *sim.Result
	pw        powerSeries
	slots     int
	eBase     []float64 // J per slot
	eDR       []float64
}

// contractRun builds the menus at price × scale, lets users choose, and
// replays the trace with the accepted levels.
func (r *replayer) contractRun(ctx context.Context, scale float64) (*outcome, error) {
	o := &outcome{scale: scale}
	level := make([]int, len(r.jobs))
	for i := range level {
		level[i] = -1
	}
	menus := map[[2]int]int{} // (slot, app) → index in o.menus
	slots := make([]int, 0, len(r.cen.arrivals))
	for k := range r.cen.arrivals {
		slots = append(slots, k)
	}
	slices.Sort(slots)
	for _, k := range slots {
		p, err := r.price(k)
		if err != nil {
			return nil, err
		}
		for a, t := range r.base.Tables {
			types, ok := r.cen.typesOf(k, a, r.cfg.Theta, t)
			if !ok {
				continue
			}
			m, err := contracts.Optimal(types, contracts.SlotOptions{Price: p * scale, PUE: r.cfg.PUE, Slot: r.S, Cost: r.cfg.Cost})
			if err != nil {
				return nil, fmt.Errorf("replay: slot %d app %s: %w", k, r.base.Apps[a], err)
			}
			menus[[2]int{k, a}] = len(o.menus)
			o.menus = append(o.menus, SlotMenu{Slot: k, App: a, Price: p * scale, Types: types, Menu: m})
		}
	}
	for i, j := range r.jobs {
		sm := &o.menus[menus[[2]int{j.slot, j.app}]]
		th := r.cfg.Theta[j.typ]
		b := contracts.Choose(sm.Menu.Bundles, th, j.typ, r.cfg.Cost)
		if b < 0 || !(sm.Menu.Bundles[b].Dt > 0) {
			continue
		}
		bu := sm.Menu.Bundles[b]
		ls := r.base.Tables[j.app].Levels
		level[i] = bu.Level
		o.contracts = append(o.contracts, Contract{Job: i, Slot: j.slot, App: j.app, Type: j.typ, Level: bu.Level,
			Reward: bu.Reward, Dt: bu.Dt, Utility: bu.Reward - th*r.cfg.Cost.C(bu.Dt),
			DeltaE: float64(j.procs) * (ls[len(ls)-1].Power - ls[bu.Level].Power) * r.S,
			Price:  sm.Price, Bundle: b})
	}
	sp := newSpans(len(r.jobs))
	out := sim.Outputs{Observer: &o.pw, Record: sp, JobLevel: func(w *workloads.Job) int {
		if i, ok := r.keys[[2]int64{w.ID, w.Line}]; ok {
			return level[i]
		}
		return -1
	}}
	var err error
	if o.run, err = sim.Run(ctx, r.cfg.Spec, r.tr, out); err != nil {
		return nil, err
	}
	for c := range o.contracts {
		i := o.contracts[c].Job
		o.contracts[c].BaseRun = r.baseSp.end[i] - r.baseSp.start[i]
		o.contracts[c].SlowRun = sp.end[i] - sp.start[i]
	}
	end := max(r.basePw.last(), o.pw.last())
	o.slots = max(1, int(math.Ceil((end-r.clock.t0)/r.S)))
	if _, err := r.price(o.slots - 1); err != nil {
		return nil, err
	}
	o.eBase = r.basePw.slotEnergy(r.clock.t0, r.S, o.slots, end)
	o.eDR = o.pw.slotEnergy(r.clock.t0, r.S, o.slots, end)
	return o, nil
}
