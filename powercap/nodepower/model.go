package nodepower

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"drsim/powercap"
)

// State is one measured P-state of a node running one application.
type State struct {
	GHz      float64
	Static   float64 // intercept of the load line at u = 0 (W)
	AllCores float64 // power with every core busy (W)
	// StaticFromIdle: only the all-cores point was measured, so Static is
	// the node's idle power (the thesis's conservative substitution).
	StaticFromIdle bool
	Points         int // measurements with at least one busy core
}

// Model is one node's power for one application.
type Model struct {
	Node, App string
	Cores     int
	Idle      float64 // mean of the idle (0 busy cores) measurements (W)
	States    []State // by frequency, ascending
	// AllCores and Static are P_all(f) and P_static(f) fitted across the
	// measured P-states.
	AllCores, Static powercap.Curve
	// FMin and FMax bound the measured P-states; Power clamps to them.
	FMin, FMax float64
}

// Power returns the node's power at f GHz with busy of its Cores busy:
// Idle when busy is 0, otherwise the fitted load line. f is clamped to the
// measured P-states.
func (m *Model) Power(f float64, busy int) float64 {
	if busy <= 0 {
		return m.Idle
	}
	f = math.Min(math.Max(f, m.FMin), m.FMax)
	u := math.Min(float64(busy)/float64(m.Cores), 1)
	s := m.Static.At(f)
	return s + u*(m.AllCores.At(f)-s)
}

// MaxError returns the largest |fitted − measured| over the all-cores
// points of the measured P-states (W).
func (m *Model) MaxError() float64 {
	var e float64
	for _, st := range m.States {
		e = math.Max(e, math.Abs(m.AllCores.At(st.GHz)-st.AllCores))
	}
	return e
}

// Fit builds one Model per (node, application), sorted by node then
// application, fitting P_all(f) and P_static(f) with form across P-states.
// Every (node, application) needs an idle measurement (of that node, with
// any application), the same core count on every row, a run on all cores at
// every P-state, and at least form's number of distinct P-states.
func Fit(samples []Sample, form powercap.Form) ([]Model, error) {
	if form.Params() == 0 {
		return nil, fmt.Errorf("nodepower: unknown form %q", form)
	}
	type key struct{ node, app string }
	idle := map[string][]float64{}
	cores := map[string]Sample{}
	groups := map[key][]Sample{}
	for _, s := range samples {
		if c, ok := cores[s.Node]; ok && c.Total != s.Total {
			return nil, fmt.Errorf("line %d: node %q has %d cores here but %d at line %d", s.Line, s.Node, s.Total, c.Total, c.Line)
		}
		cores[s.Node] = s
		if s.Active == 0 {
			idle[s.Node] = append(idle[s.Node], s.Watts)
			continue
		}
		k := key{s.Node, s.App}
		groups[k] = append(groups[k], s)
	}
	keys := make([]key, 0, len(groups))
	for k := range groups {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b key) int { return cmp.Or(cmp.Compare(a.node, b.node), cmp.Compare(a.app, b.app)) })
	out := make([]Model, 0, len(keys))
	for _, k := range keys {
		g := groups[k]
		iw := idle[k.node]
		if len(iw) == 0 {
			return nil, fmt.Errorf("line %d: node %q: no idle measurement (a row with active_cores 0)", g[0].Line, k.node)
		}
		m := Model{Node: k.node, App: k.app, Cores: g[0].Total, Idle: meanOf(iw)}
		slices.SortStableFunc(g, func(a, b Sample) int { return cmp.Compare(a.GHz, b.GHz) })
		for i := 0; i < len(g); {
			j := i
			for j < len(g) && g[j].GHz == g[i].GHz {
				j++
			}
			st, err := fitState(g[i:j], m.Idle)
			if err != nil {
				return nil, fmt.Errorf("line %d: node %q app %q at %g GHz: %v", g[i].Line, k.node, k.app, g[i].GHz, err)
			}
			m.States = append(m.States, st)
			i = j
		}
		f := make([]float64, len(m.States))
		all := make([]float64, len(m.States))
		static := make([]float64, len(m.States))
		for i, st := range m.States {
			f[i], all[i], static[i] = st.GHz, st.AllCores, st.Static
		}
		var err error
		if m.AllCores, err = powercap.FitCurve(form, f, all); err != nil {
			return nil, fmt.Errorf("line %d: node %q app %q: all-cores power: %v", g[0].Line, k.node, k.app, err)
		}
		if m.Static, err = powercap.FitCurve(form, f, static); err != nil {
			return nil, fmt.Errorf("line %d: node %q app %q: static power: %v", g[0].Line, k.node, k.app, err)
		}
		m.FMin, m.FMax = f[0], f[len(f)-1]
		out = append(out, m)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("nodepower: no measurement with a busy core")
	}
	return out, nil
}

// fitState fits the load line of one P-state by least squares over the
// fractions of busy cores u = active/total (at least two distinct u), or
// takes P_static = idle when only u = 1 was measured.
func fitState(g []Sample, idle float64) (State, error) {
	st := State{GHz: g[0].GHz, Points: len(g)}
	var n, su, sw, suu, suw float64
	full := false
	for _, s := range g {
		u := float64(s.Active) / float64(s.Total)
		full = full || s.Active == s.Total
		n++
		su += u
		sw += s.Watts
		suu += u * u
		suw += u * s.Watts
	}
	if !full {
		return st, fmt.Errorf("no run on all cores")
	}
	den := n*suu - su*su
	if den <= 1e-12*n*n { // one distinct load: the all-cores point alone
		st.AllCores, st.Static, st.StaticFromIdle = sw/n, idle, true
		return st, nil
	}
	slope := (n*suw - su*sw) / den
	st.Static = (sw - slope*su) / n
	st.AllCores = st.Static + slope
	return st, nil
}

func meanOf(v []float64) float64 {
	var s float64
	for _, x := range v {
		s += x
	}
	return s / float64(len(v))
}

// Figures is what a machine file's [[node_type]] takes from a Model
// (cluster/machine: idle_w, static_w, core_busy_w), at the model's top
// P-state FMax, the level jobs run at outside DR events: the engine keeps
// one static power per node type.
type Figures struct {
	GHz       float64
	Cores     int
	IdleW     float64 // the idle measurement (W, whole node)
	StaticW   float64 // P_static(FMax), raised to IdleW if the fit is below it (W)
	CoreBusyW float64 // (P_all(FMax) − IdleW) / Cores: a busy core's draw above idle (W)
	// Raised: the fitted P_static(FMax) was below idle and StaticW is IdleW
	// (the machine file refuses static_w < idle_w).
	Raised bool
}

// MachineFigures returns m's machine-file figures at FMax.
func (m *Model) MachineFigures() Figures {
	f := Figures{GHz: m.FMax, Cores: m.Cores, IdleW: m.Idle, StaticW: m.Static.At(m.FMax)}
	if f.StaticW < f.IdleW {
		f.StaticW, f.Raised = f.IdleW, true
	}
	f.CoreBusyW = (m.AllCores.At(m.FMax) - m.Idle) / float64(m.Cores)
	return f
}
