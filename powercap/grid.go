package powercap

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Default settings. The P-state list is that of a 2.7 GHz-class Xeon with
// 0.2 GHz steps from 1.2 GHz and a 2.7 GHz top state; the cap range is the
// one the zzheng33/power sweeps cover (80–250 W) at a 10 W granularity
// (RAPL itself accepts 0.125 W steps; 10 W keeps tables and optimisers small).
const (
	DefaultFmin    = 1.2   // GHz
	DefaultFmax    = 2.7   // GHz
	DefaultCapMin  = 80.0  // W
	DefaultCapMax  = 250.0 // W
	DefaultCapStep = 10.0  // W
	ContinuousStep = 0.01  // GHz, the grid of ContinuousPStates
)

// PStates is a discrete list of CPU frequencies (GHz), ascending. The zero
// value means DefaultPStates.
type PStates struct {
	GHz []float64
}

// DefaultPStates returns 1.2, 1.4, …, 2.4 and 2.7 GHz.
func DefaultPStates() PStates {
	return PStates{GHz: []float64{1.2, 1.4, 1.6, 1.8, 2.0, 2.2, 2.4, 2.7}}
}

// ContinuousPStates approximates continuous frequency scaling by a grid from
// lo to hi GHz every ContinuousStep (0.01 GHz); hi is always included.
// lo = hi = 0 means DefaultFmin..DefaultFmax.
func ContinuousPStates(lo, hi float64) PStates {
	if lo == 0 && hi == 0 {
		lo, hi = DefaultFmin, DefaultFmax
	}
	var f []float64
	n := int(math.Floor((hi-lo)/ContinuousStep + 1e-9))
	for i := 0; i <= n; i++ {
		f = append(f, math.Round((lo+float64(i)*ContinuousStep)*1e9)/1e9)
	}
	if f[len(f)-1] < hi-1e-9 {
		f = append(f, hi)
	}
	return PStates{GHz: f}
}

// List returns the frequencies, applying the default to a zero value, and
// checks they are positive, finite and strictly ascending.
func (ps PStates) List() ([]float64, error) {
	if len(ps.GHz) == 0 {
		return DefaultPStates().GHz, nil
	}
	return ascending(ps.GHz, "P-state")
}

// CapGrid is the set of admissible package power caps: Min, Min+Step, …, up
// to Max (always included). Zero fields take DefaultCapMin, DefaultCapMax and
// DefaultCapStep.
type CapGrid struct {
	Min, Max, Step float64 // W
}

// List returns the caps of the grid, ascending.
func (g CapGrid) List() ([]float64, error) {
	if g.Min == 0 {
		g.Min = DefaultCapMin
	}
	if g.Max == 0 {
		g.Max = DefaultCapMax
	}
	if g.Step == 0 {
		g.Step = DefaultCapStep
	}
	if !(g.Min > 0 && g.Step > 0 && g.Max >= g.Min) || math.IsInf(g.Max, 0) {
		return nil, fmt.Errorf("powercap: cap grid [%v, %v] step %v: want 0 < min <= max and step > 0", g.Min, g.Max, g.Step)
	}
	var caps []float64
	for i := 0; ; i++ {
		c := g.Min + float64(i)*g.Step
		if c > g.Max-1e-9 {
			break
		}
		caps = append(caps, c)
	}
	return append(caps, g.Max), nil
}

func ascending(xs []float64, what string) ([]float64, error) {
	for i, x := range xs {
		if !(x > 0) || math.IsInf(x, 0) {
			return nil, fmt.Errorf("powercap: %s %v is not positive and finite", what, x)
		}
		if i > 0 && x <= xs[i-1] {
			return nil, fmt.Errorf("powercap: %s list not strictly ascending at %v", what, x)
		}
	}
	return xs, nil
}

// FreqTable returns the app's Levels at the P-states ps: Power = p(f) per
// processor, Scale = t(f)/t(fmax) with fmax the highest P-state.
func (p *Profile) FreqTable(ps PStates) (Table, error) {
	fs, err := ps.List()
	if err != nil {
		return Table{}, err
	}
	return p.table(Freq, fs)
}

// CapTable returns the app's Levels at the caps of g: Power = p(P) per
// processor but never above P (clamped levels are counted in
// Table.Clamped), Scale = t(P)/t(Pmax).
func (p *Profile) CapTable(g CapGrid) (Table, error) {
	caps, err := g.List()
	if err != nil {
		return Table{}, err
	}
	return p.table(Cap, caps)
}

func (p *Profile) table(k Knob, xs []float64) (Table, error) {
	tab := Table{App: p.Name, Knob: k, Levels: make([]Level, len(xs))}
	tmax, err := p.Runtime(k, xs[len(xs)-1])
	if err != nil {
		return Table{}, err
	}
	for i, x := range xs {
		pw, err := p.rawPower(k, x)
		if err != nil {
			return Table{}, err
		}
		t, _ := p.Runtime(k, x)
		if err := p.plausible(k, x, pw, t); err != nil {
			return Table{}, err
		}
		if p.Outside(k, x) {
			tab.Outside++
		}
		if k.IsCap() && pw > x {
			pw = x
			tab.Clamped++
		}
		tab.Levels[i] = Level{X: x, Power: pw, Scale: t / tmax}
	}
	return tab, nil
}

func (p *Profile) plausible(k Knob, x, pw, t float64) error {
	unit := unitOf(k)
	rng := ""
	if m := p.Model(k); m != nil {
		rng = fmt.Sprintf(" (fitted on %.4g–%.4g %s)", m.XMin, m.XMax, unit)
	}
	if !(pw > 0) || math.IsInf(pw, 0) {
		return fmt.Errorf("powercap: app %q: model power %.4g W at %v %s is not positive%s", p.Name, pw, x, unit, rng)
	}
	if !(t > 0) || math.IsInf(t, 0) {
		return fmt.Errorf("powercap: app %q: model runtime %.4g s at %v %s is not positive%s", p.Name, t, x, unit, rng)
	}
	return nil
}

// ParsePStates parses a --pstates value: "" (DefaultPStates), "continuous"
// (ContinuousPStates between DefaultFmin and DefaultFmax) or a comma
// separated ascending list of GHz, e.g. "1.2,1.8,2.4".
func ParsePStates(s string) (PStates, error) {
	switch strings.TrimSpace(s) {
	case "":
		return DefaultPStates(), nil
	case "continuous":
		return ContinuousPStates(0, 0), nil
	}
	var fs []float64
	for _, f := range strings.Split(s, ",") {
		v, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
		if err != nil {
			return PStates{}, fmt.Errorf("powercap: P-state %q is not a number of GHz", f)
		}
		fs = append(fs, v)
	}
	if _, err := ascending(fs, "P-state"); err != nil {
		return PStates{}, err
	}
	return PStates{GHz: fs}, nil
}

// ParseCapGrid parses "MIN:MAX:STEP" in W, e.g. "80:250:10"; "" is the
// default grid.
func ParseCapGrid(s string) (CapGrid, error) {
	if strings.TrimSpace(s) == "" {
		return CapGrid{}, nil
	}
	parts := strings.Split(s, ":")
	var v [3]float64
	if len(parts) != 3 {
		return CapGrid{}, fmt.Errorf("powercap: cap grid %q is not MIN:MAX:STEP (W)", s)
	}
	for i, p := range parts {
		var err error
		if v[i], err = strconv.ParseFloat(strings.TrimSpace(p), 64); err != nil {
			return CapGrid{}, fmt.Errorf("powercap: cap grid %q is not MIN:MAX:STEP (W)", s)
		}
	}
	g := CapGrid{Min: v[0], Max: v[1], Step: v[2]}
	_, err := g.List()
	return g, err
}
