package sim

import (
	"fmt"
	"math"
	"slices"
	"strconv"

	"drsim/powercap"
	"drsim/workloads"
)

// An Extrapolation is one application's model asked for settings outside
// the range it was fitted on. Models are not extrapolated (they hold their
// value at the nearest end of the range), so those levels repeat the end's
// power and runtime: the run says so once per (app, knob).
type Extrapolation struct {
	App        string
	Knob       powercap.Knob
	XMin, XMax float64 // the fitted range
	Lo, Hi     float64 // the lowest setting below XMin, the highest above XMax; NaN if none
}

func (e Extrapolation) String() string {
	unit := "GHz"
	if e.Knob == powercap.Cap {
		unit = "W"
	}
	s := fmt.Sprintf("%s %s model fitted on %s..%s %s, asked for", e.App, e.Knob, short(e.XMin), short(e.XMax), unit)
	if !math.IsNaN(e.Lo) {
		s += fmt.Sprintf(" %s %s (%s %s below)", short(e.Lo), unit, short(e.XMin-e.Lo), unit)
	}
	if !math.IsNaN(e.Lo) && !math.IsNaN(e.Hi) {
		s += " and"
	}
	if !math.IsNaN(e.Hi) {
		s += fmt.Sprintf(" %s %s (%s %s above)", short(e.Hi), unit, short(e.Hi-e.XMax), unit)
	}
	return s + "; it holds the value at the end of its range there"
}

// short formats v with 4 significant digits: 1.937, 250, 0.1428.
func short(v float64) string { return strconv.FormatFloat(v, 'g', 4, 64) }

// extrapolations lists, for each application the app map can choose, the
// settings of its table outside its model's fitted range.
func extrapolations(knob powercap.Knob, profiles []powercap.Profile, tables []powercap.Table, used []bool) []Extrapolation {
	var out []Extrapolation
	for i, pr := range profiles {
		m := pr.Model(knob)
		if !used[i] || m == nil {
			continue
		}
		e := Extrapolation{App: pr.Name, Knob: knob, XMin: m.XMin, XMax: m.XMax, Lo: math.NaN(), Hi: math.NaN()}
		for _, l := range tables[i].Levels {
			switch {
			case l.X < m.XMin && !(l.X >= e.Lo):
				e.Lo = l.X
			case l.X > m.XMax && !(l.X <= e.Hi):
				e.Hi = l.X
			}
		}
		if !math.IsNaN(e.Lo) || !math.IsNaN(e.Hi) {
			out = append(out, e)
		}
	}
	return out
}

// Extrapolations returns the model extrapolations a run of s would make,
// so that a caller can say so before the run (Run records them in the
// summary too).
func Extrapolations(s Spec) ([]Extrapolation, error) {
	pw, err := buildPower(s.withDefaults(), 0)
	if err != nil {
		return nil, err
	}
	return pw.extrap, nil
}

func extrapolationStrings(es []Extrapolation) []string {
	var out []string
	for _, e := range es {
		out = append(out, e.String())
	}
	return out
}

// Machine-size sources, as summary.json's machine_size_source states them.
const (
	MachineFromFlag       = "--procs"
	MachineFromMaxProcs   = "MaxProcs header"
	MachineFromMaxNodes   = "MaxNodes header"
	MachineFromLargestJob = "largest job (no MaxProcs/MaxNodes header)"
	MachineFromGenerator  = "generated workload"
)

// MachineSource says where the machine size of a run of s on tr comes
// from.
func MachineSource(s Spec, tr *workloads.Trace) string {
	switch {
	case s.Procs > 0 || tr.MachineSource == "option":
		return MachineFromFlag
	case s.Trace == "":
		return MachineFromGenerator
	case tr.MachineSource == "largest job":
		return MachineFromLargestJob
	case tr.MachineSource == "MaxNodes":
		return MachineFromMaxNodes
	case tr.MachineSource == "MaxProcs":
		return MachineFromMaxProcs
	}
	return tr.MachineSource
}

// CompareExtrapolations returns the model extrapolations of a comparison's
// runs: each policy's, once each, in policy order. Like Compare, it counts
// the baselines every comparison runs (performance and powersave, and
// their cap versions with a cap policy).
func CompareExtrapolations(cfg CompareConfig) []Extrapolation {
	pols := cfg.Policies
	if len(pols) == 0 {
		pols = []string{"performance", "powersave", "dr"}
	}
	pols = append(append(slices.Clone(pols), "performance", "powersave"), capBaselines(pols)...)
	var out []Extrapolation
	seen := map[string]bool{} // membership only; out keeps policy order
	for _, p := range pols {
		s := cfg.Base
		applyPolicy(&s, p)
		es, err := Extrapolations(s)
		if err != nil {
			continue // the run reports it
		}
		for _, e := range es {
			if k := e.String(); !seen[k] {
				seen[k] = true
				out = append(out, e)
			}
		}
	}
	return out
}

// ExtrapolationAt reports whether p's model for k is asked outside its
// fitted range at x (drsim predict), as an Extrapolation.
func ExtrapolationAt(p *powercap.Profile, k powercap.Knob, x float64) (Extrapolation, bool) {
	m := p.Model(k)
	if m == nil || !p.Outside(k, x) {
		return Extrapolation{}, false
	}
	e := Extrapolation{App: p.Name, Knob: k, XMin: m.XMin, XMax: m.XMax, Lo: math.NaN(), Hi: math.NaN()}
	if x < m.XMin {
		e.Lo = x
	} else {
		e.Hi = x
	}
	return e, true
}
