package sim

import (
	"fmt"
	"math"
	"strings"

	"drsim/powercap"
	"drsim/scheduler"
	"drsim/scheduler/governor"
)

// The power-cap modes (docs/powercap.md). With Spec.PowerCap set, the
// level tables are cap tables (Profile.CapTable on Spec.CapGrid) and the
// governor is chosen by PowerCap instead of DVFS:
//
//	performance  every job at Pmax (the Non-DR baseline: all nodes, max cap)
//	powersave    every job at Pmin
//	dr           the DR governor over cap tables; with Malleable > 0, DRScale
//	uniform      the hardware-only centre-wide cap limit/processors (governor.Uniform)
//
// Applications with neither a cap model nor a boundness (fallback) model
// are left out of the cap modes, as cap-only models are left out of the
// frequency modes: the built-in miniMD profile has only a frequency model.
// A boundness model's cap behaviour is Boundness's (the highest frequency
// whose power fits the cap).

// PowerCapModes are the values of Spec.PowerCap ("" and "off": DVFS mode).
var PowerCapModes = []string{"performance", "powersave", "dr", "uniform"}

func capMode(d Spec) bool { return d.PowerCap != "" && d.PowerCap != "off" }

// profileTable returns the level table of pr for the spec's mode: its
// frequency table, or in a power-cap mode its cap table. ok is false when
// the profile has no model for the mode's knob (it is then left out).
func profileTable(d Spec, pr powercap.Profile, ps powercap.PStates) (t powercap.Table, ok bool, err error) {
	if !capMode(d) {
		if pr.Freq == nil && pr.Bound == nil {
			return t, false, nil // cap-only model files serve the power-cap modes
		}
		t, err = pr.FreqTable(ps)
		return t, true, err
	}
	if pr.Cap == nil && pr.Bound == nil {
		return t, false, nil
	}
	g, err := powercap.ParseCapGrid(d.CapGrid)
	if err != nil {
		return t, true, err
	}
	t, err = pr.CapTable(g)
	return t, true, err
}

// noModels is the error of a model set with no table for the mode.
func noModels(d Spec) error {
	if capMode(d) {
		return fmt.Errorf("models %s: no application has a cap (or boundness) model", d.Models)
	}
	return fmt.Errorf("models %s: no application has a frequency model", d.Models)
}

// governorFor builds the run's governor: Spec.DVFS, or in a power-cap mode
// Spec.PowerCap (with Malleable > 0, dr is DRScale over the apps' ETS
// models).
func governorFor(d Spec, names []string) (scheduler.Governor, error) {
	if err := checkCapSpec(d); err != nil {
		return nil, err
	}
	if !capMode(d) {
		return governor.DVFS.New(d.DVFS, scheduler.GovernorConfig{Seed: d.Seed})
	}
	cfg := scheduler.GovernorConfig{Seed: d.Seed}
	if d.PowerCap == "dr" && d.Malleable > 0 {
		if err := scaleConfig(&cfg, d, names); err != nil {
			return nil, err
		}
	}
	return governor.Caps.New(d.PowerCap, cfg)
}

func checkCapSpec(d Spec) error {
	if d.PowerCap != "" && d.PowerCap != "off" {
		if err := oneOf("powercap", d.PowerCap, append([]string{"off"}, PowerCapModes...)...); err != nil {
			return err
		}
		if d.DVFS != "performance" {
			return fmt.Errorf("dvfs %s and powercap %s are alternatives; give one", d.DVFS, d.PowerCap)
		}
	}
	switch {
	case !(d.Malleable >= 0 && d.Malleable <= 1):
		return fmt.Errorf("malleable: %v is not a fraction of jobs in [0, 1]", d.Malleable)
	case !(d.ResizeCost >= 0) || math.IsInf(d.ResizeCost, 0):
		return fmt.Errorf("resize-cost: %v s is not a duration >= 0", d.ResizeCost)
	case !(d.RAPLWindow >= 0) || math.IsInf(d.RAPLWindow, 0):
		return fmt.Errorf("rapl-window: %v s is not a duration >= 0", d.RAPLWindow)
	case d.Malleable > 0 && !capMode(d):
		return fmt.Errorf("malleable needs a power-cap mode (powercap dr)")
	case d.Malleable > 0 && d.NetModel == "on":
		return fmt.Errorf("malleable jobs and the network model are not supported together")
	}
	return nil
}

// scaleConfig configures DR-Scale (governor.DRScale): a seeded fraction
// Malleable of jobs may shrink to half their size during events, with
// ResizeCost seconds per resize and each application's runtime factor from
// its ETS predictor.
func scaleConfig(cfg *scheduler.GovernorConfig, d Spec, names []string) error {
	f, err := ScaleFactors(names)
	if err != nil {
		return err
	}
	frac, seed := d.Malleable, d.Seed
	cfg.Malleable = func(id int64) bool { return IsMalleable(id, frac, seed) }
	cfg.Factor = func(app int, r float64) float64 { return f[app](r) }
	cfg.ResizeCost = d.ResizeCost
	return nil
}

// IsMalleable reports whether job id is among the malleable fraction frac
// of jobs under seed: a splitmix64 hash of (id, seed) mapped to [0, 1) is
// below frac. It depends on nothing else, so the choice is the same in any
// job order, trace cut or policy.
func IsMalleable(id int64, frac float64, seed uint64) bool {
	if frac <= 0 {
		return false
	}
	h := mix64(mix64(uint64(id)) ^ seed)
	return float64(h>>11)/(1<<53) < frac
}

func mix64(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}

// ScaleRefNodes is the reference size of the synthetic node-scaling model
// (the runtime factor is a ratio, so it only sets the sampling grid).
const ScaleRefNodes = 64

// SerialFraction is the serial (non-scaling) fraction s of an application
// in the synthetic node-scaling model: its communication fraction from
// netmodel.Apps (communication is taken not to speed up with more nodes),
// or DefaultNetApp's 0.2 for applications netmodel does not list. It is
// an estimate, not a measurement.
func SerialFraction(name string) float64 { return NetApps([]string{name})[0].Fraction }

// ScaleModel is the synthetic energy-to-solution model of one application
// over node count, and the ETS predictor fitted to it. THERE IS NO
// MEASURED NODE-COUNT DATA: the points come from an Amdahl-style model
// with runtime t(n) = t(n0)·(s + (1 − s)·n0/n) and energy n·p·t(n) (per
// processor power p independent of n), sampled at n = n0/4 … n0 every
// n0/16 with n0 = ScaleRefNodes, t(n0) = 1 s, p = 1 W. FitETS then
// chooses among its five predictors (on this model, whose energy is
// linear in n, the linear one fits exactly).
func ScaleModel(name string) (powercap.ETSModel, []powercap.ETSScore, error) {
	s := SerialFraction(name)
	var nodes, energy []float64
	for k := 4; k <= 16; k++ {
		n := float64(ScaleRefNodes * k / 16)
		nodes = append(nodes, n)
		energy = append(energy, n*(s+(1-s)*ScaleRefNodes/n))
	}
	m, scores, err := powercap.FitETS(nodes, energy)
	if err != nil {
		return nil, nil, fmt.Errorf("app %s: %w", name, err)
	}
	return m, scores, nil
}

// ScaleFactors returns, per application, the runtime factor F(r) =
// t(r·n0)/t(n0) = E(r·n0)/(r·E(n0)) given by its fitted ETS predictor E.
func ScaleFactors(names []string) ([]func(r float64) float64, error) {
	out := make([]func(float64) float64, len(names))
	for i, n := range names {
		m, _, err := ScaleModel(n)
		if err != nil {
			return nil, err
		}
		e0 := m.Predict(ScaleRefNodes)
		out[i] = func(r float64) float64 { return m.Predict(r*ScaleRefNodes) / (r * e0) }
	}
	return out, nil
}

// Compare policy names of the power-cap modes: "powercap-" + mode, and
// powercap-dr-scale (dr with malleable jobs: Base.Malleable, or 0.3 when
// that is 0). Rows of cap policies take their savings and increases
// relative to powercap-performance and powercap-powersave (same cap
// tables), which Compare runs as baselines when any cap policy is asked.
const capPrefix = "powercap-"

// DefaultMalleable is the malleable fraction of powercap-dr-scale when the
// base spec gives none.
const DefaultMalleable = 0.3

func isCapPolicy(p string) bool { return strings.HasPrefix(p, capPrefix) }

// checkPolicy validates a compare policy name.
func checkPolicy(p string) error {
	if p == gpuPolicy { // gpu.go
		return nil
	}
	if !isCapPolicy(p) {
		_, err := governor.DVFS.New(p, scheduler.GovernorConfig{})
		return err
	}
	if m := strings.TrimPrefix(p, capPrefix); m != "dr-scale" && m != "joint" { // joint: gpu.go
		return oneOf("policy", m, PowerCapModes...)
	}
	return nil
}

// applyPolicy sets the spec's governor fields for compare policy p.
func applyPolicy(s *Spec, p string) {
	if applyGPUPolicy(s, p) { // gpu.go
		return
	}
	if !isCapPolicy(p) {
		s.DVFS, s.PowerCap, s.Malleable = p, "", 0
		return
	}
	s.DVFS, s.PowerCap = "performance", strings.TrimPrefix(p, capPrefix)
	if s.PowerCap == "dr-scale" {
		s.PowerCap = "dr"
		if s.Malleable == 0 {
			s.Malleable = DefaultMalleable
		}
		return
	}
	s.Malleable = 0
}

// baselineOf returns the baseline policy (performance or powersave) of
// the same family as p.
func baselineOf(p, base string) string {
	if isCapPolicy(p) {
		return capPrefix + base
	}
	return base
}

// capBaselines returns the cap baselines to run when pols has a cap
// policy.
func capBaselines(pols []string) []string {
	for _, p := range pols {
		if isCapPolicy(p) {
			return []string{capPrefix + "performance", capPrefix + "powersave"}
		}
	}
	return nil
}

// clampedLevels returns the number of clamped cap levels (fitted power
// above the cap) over the tables the run used, and the number of levels.
func clampedLevels(r *Result) (clamped, levels int) {
	for _, t := range r.Tables {
		if t.Knob == powercap.Cap {
			clamped += t.Clamped
			levels += len(t.Levels)
		}
	}
	return clamped, levels
}
