package powercap

import (
	"fmt"
	"math"
)

// Form names the shape of one fitted curve y(x).
type Form string

const (
	Cubic     Form = "cubic"     // y = c0 + c1·x + c2·x² + c3·x³ (power in f or P)
	Quadratic Form = "quadratic" // y = c0 + c1·x + c2·x² (runtime in f)
	Exp       Form = "exp"       // y = c0·exp(c1·x) + c2 (runtime in P)
	Linear    Form = "linear"    // y = c0 + c1·x (node power per P-state, a baseline to compare with)
)

// Params returns the number of coefficients of the form (0 for an unknown form).
func (f Form) Params() int {
	switch f {
	case Cubic:
		return 4
	case Quadratic, Exp:
		return 3
	case Linear:
		return 2
	}
	return 0
}

// Curve is one fitted regression with its quality: the coefficients in the
// order of the form's formula, the number of points fitted, R², the RMSE and
// the leave-one-out RMSE (0 when it cannot be computed: no more points, or
// no more distinct x values, than coefficients).
type Curve struct {
	Form    Form      `json:"form"`
	Coef    []float64 `json:"coef"`
	N       int       `json:"n"`
	R2      float64   `json:"r2"`
	RMSE    float64   `json:"rmse"`
	LOORMSE float64   `json:"loo_rmse"`
}

// At evaluates the curve at x.
func (c *Curve) At(x float64) float64 { return c.Form.eval(c.Coef, x) }

func (f Form) eval(c []float64, x float64) float64 {
	switch f {
	case Cubic:
		return c[0] + x*(c[1]+x*(c[2]+x*c[3]))
	case Quadratic:
		return c[0] + x*(c[1]+x*c[2])
	case Linear:
		return c[0] + x*c[1]
	case Exp:
		return c[0]*math.Exp(c[1]*x) + c[2]
	}
	return math.NaN()
}

func (c *Curve) check(want Form) error {
	if c.Form != want {
		return fmt.Errorf("form %q, want %q", c.Form, want)
	}
	if len(c.Coef) != want.Params() {
		return fmt.Errorf("%s form has %d coefficients, want %d", c.Form, len(c.Coef), want.Params())
	}
	for i, v := range c.Coef {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return fmt.Errorf("coefficient %d is %v", i, v)
		}
	}
	return nil
}

// Model is an application's regressions for one knob: the range of X the
// data covered, the power per processor p(X) (nil when the data had no power
// or energy) and the runtime t(X).
type Model struct {
	XMin    float64 `json:"x_min"`
	XMax    float64 `json:"x_max"`
	Power   *Curve  `json:"power"`
	Runtime Curve   `json:"runtime"`
}

// clamp maps x into the measured range: models are not extrapolated (a
// cubic fitted on 1.9–2.6 GHz says nothing sensible at 1.2 GHz), so outside
// [XMin, XMax] they return their value at the nearest end.
func (m *Model) clamp(x float64) float64 { return math.Min(math.Max(x, m.XMin), m.XMax) }

// Outside reports whether x lies outside the measured range of the knob's
// model (and is therefore evaluated at the nearest end of the range).
func (p *Profile) Outside(k Knob, x float64) bool {
	m := p.Model(k)
	return m != nil && (x < m.XMin || x > m.XMax)
}

// forms returns the power and runtime forms the issue prescribes per knob.
func forms(k Knob) (power, runtime Form) {
	if k.IsCap() {
		return Cubic, Exp
	}
	return Cubic, Quadratic
}

// Profile is one application's power/runtime behaviour. A measured profile
// has a frequency model, a cap model or both; a fallback profile (see
// Fallback) has only Bound. Profiles are values: the simulator turns them into
// Tables once, with FreqTable and CapTable.
type Profile struct {
	Name   string     `json:"app"`
	Source string     `json:"source,omitempty"` // provenance: data set, path, commit
	IdleW  float64    `json:"idle_w,omitempty"` // measured idle power per processor, 0 if unknown
	Freq   *Model     `json:"freq,omitempty"`   // X in GHz
	Cap    *Model     `json:"cap,omitempty"`    // X in W
	Bound  *Boundness `json:"boundness,omitempty"`

	// GPU models (model file schema 2, gpu.go): Device names the GPU the
	// data were measured on; GPUFreq (X = core clock, GHz) and GPUCap (X =
	// board power cap, W) give the power of one GPU and the runtime; Joint
	// gives runtime and node power over (CPU cap, GPU cap) pairs.
	Device  string      `json:"device,omitempty"`
	GPUFreq *Model      `json:"gpu_freq,omitempty"`
	GPUCap  *Model      `json:"gpu_cap,omitempty"`
	Joint   *JointModel `json:"joint,omitempty"`
}

// Model returns the profile's model for knob k, or nil.
func (p *Profile) Model(k Knob) *Model {
	switch k {
	case Cap:
		return p.Cap
	case Freq:
		return p.Freq
	case GPUCap:
		return p.GPUCap
	case GPUFreq:
		return p.GPUFreq
	}
	return nil
}

// Has reports whether p has a model for knob k (Joint: a measured grid).
func (p *Profile) Has(k Knob) bool {
	if k == Joint {
		return p.Joint != nil
	}
	return p.Model(k) != nil
}

// knobs lists the single-setting knobs a Profile can model, in file order.
var knobs = [...]Knob{Freq, Cap, GPUFreq, GPUCap}

// Validate checks the forms, coefficient counts and ranges of p.
func (p *Profile) Validate() error {
	if p.Name == "" {
		return fmt.Errorf("powercap: profile has no app name")
	}
	if p.Freq == nil && p.Cap == nil && p.Bound == nil && !p.HasGPU() {
		return fmt.Errorf("powercap: app %q has neither a freq, a cap nor a boundness model", p.Name)
	}
	for _, k := range knobs {
		m := p.Model(k)
		if m == nil {
			continue
		}
		pf, rf := forms(k)
		if err := m.Runtime.check(rf); err != nil {
			return fmt.Errorf("powercap: app %q %s runtime: %v", p.Name, k, err)
		}
		if m.Power != nil {
			if err := m.Power.check(pf); err != nil {
				return fmt.Errorf("powercap: app %q %s power: %v", p.Name, k, err)
			}
		}
		if !(m.XMin > 0 && m.XMin <= m.XMax) || math.IsInf(m.XMax, 0) {
			return fmt.Errorf("powercap: app %q %s range [%v, %v] is not 0 < x_min <= x_max", p.Name, k, m.XMin, m.XMax)
		}
	}
	if p.Bound != nil {
		if err := p.Bound.validate(); err != nil {
			return fmt.Errorf("powercap: app %q: %v", p.Name, err)
		}
	}
	if p.Joint != nil {
		if err := p.Joint.validate(); err != nil {
			return fmt.Errorf("powercap: app %q joint: %v", p.Name, err)
		}
	}
	return nil
}

// Power returns the model's average power per processor (W) at setting x of
// knob k. Under a cap (k == Cap) the result never exceeds x: a fit that says
// otherwise is clamped, as in CapTable. Outside the measured range the model
// is held at its value at the nearest end.
func (p *Profile) Power(k Knob, x float64) (float64, error) {
	v, err := p.rawPower(k, x)
	if k.IsCap() && v > x {
		v = x
	}
	return v, err
}

func (p *Profile) rawPower(k Knob, x float64) (float64, error) {
	if m := p.Model(k); m != nil {
		if m.Power == nil {
			return 0, fmt.Errorf("powercap: app %q has no %s power model (the data had no power or energy)", p.Name, k)
		}
		return m.Power.At(m.clamp(x)), nil
	}
	if p.Bound != nil && !k.IsGPU() {
		return p.Bound.power(k, x), nil
	}
	return 0, fmt.Errorf("powercap: app %q has no %s model", p.Name, k)
}

// Runtime returns the model's runtime (s) at setting x of knob k.
func (p *Profile) Runtime(k Knob, x float64) (float64, error) {
	if m := p.Model(k); m != nil {
		return m.Runtime.At(m.clamp(x)), nil
	}
	if p.Bound != nil && !k.IsGPU() {
		return p.Bound.runtime(k, x), nil
	}
	return 0, fmt.Errorf("powercap: app %q has no %s model", p.Name, k)
}

// Energy returns p(x)·t(x), the energy per processor (J) at setting x.
func (p *Profile) Energy(k Knob, x float64) (float64, error) {
	pw, err := p.Power(k, x)
	if err != nil {
		return 0, err
	}
	t, err := p.Runtime(k, x)
	return pw * t, err
}

// Optimal returns the setting among xs minimising the energy per processor
// p(x)·t(x), and that energy. Ties go to the higher (faster) setting.
func (p *Profile) Optimal(k Knob, xs []float64) (x, energy float64, err error) {
	energy = math.Inf(1)
	for _, v := range xs {
		e, err := p.Energy(k, v)
		if err != nil {
			return 0, 0, err
		}
		if e <= energy {
			x, energy = v, e
		}
	}
	if math.IsInf(energy, 1) {
		return 0, 0, fmt.Errorf("powercap: app %q: no %s setting to choose from", p.Name, k)
	}
	return x, energy, nil
}

// ParseKnob parses "freq", "cap", "gpufreq", "gpucap" or "joint".
func ParseKnob(s string) (Knob, error) {
	for _, k := range []Knob{Freq, Cap, GPUFreq, GPUCap, Joint} {
		if s == k.String() {
			return k, nil
		}
	}
	return 0, fmt.Errorf("powercap: unknown knob %q (known: cap, freq, gpucap, gpufreq, joint)", s)
}
