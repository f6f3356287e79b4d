package powercap

import (
	"fmt"
	"math"
)

// Constants of the fallback model. They are round numbers representative
// of one package of a 2.7 GHz-class Xeon (TDP ≈ 120 W), not a measurement:
// core voltage 0.80 V at fmin rising linearly to 1.10 V at fmax, 40 W of
// static (leakage, uncore) power, and 80 W of dynamic power at fmax.
const (
	FallbackVmin     = 0.80 // V at DefaultFmin
	FallbackVmax     = 1.10 // V at DefaultFmax
	FallbackStaticW  = 40.0 // W per processor
	FallbackDynamicW = 80.0 // W per processor at DefaultFmax, FallbackVmax
	FallbackBeta     = 0.5  // CPU-boundness when nothing is known
)

// Boundness is the physically motivated model for jobs with no measured
// profile. Runtime follows the CPU-boundness model
//
//	t(f) = Tmax · (β·fmax/f + 1 − β)
//
// (β = 1: runtime ∝ 1/f; β = 0: memory bound, runtime independent of f), and
// power is a static part plus a dynamic part growing with f·V(f)²:
//
//	p(f) = Static + Dynamic · f·V(f)² / (fmax·Vmax²)
//
// with V linear in f from Vmin at fmin to Vmax at fmax (held at Vmin below
// fmin and at Vmax above fmax). Under a cap P the model runs at the highest
// frequency in [fmin, fmax] whose power is at most P (RAPL lowers the clock
// until the package fits), and at fmin when even that exceeds P.
type Boundness struct {
	Beta     float64 `json:"beta"`      // CPU-boundness in [0, 1]
	TmaxS    float64 `json:"t_max_s"`   // runtime at fmax (s)
	StaticW  float64 `json:"static_w"`  // W per processor
	DynamicW float64 `json:"dynamic_w"` // W per processor at fmax
	FminGHz  float64 `json:"f_min_ghz"`
	FmaxGHz  float64 `json:"f_max_ghz"`
	VminV    float64 `json:"v_min"`
	VmaxV    float64 `json:"v_max"`
}

// Fallback returns a profile with the Boundness model, the default constants
// above, the given CPU-boundness beta and a 1 s runtime at fmax (Tables only
// use ratios, so the reference runtime cancels).
func Fallback(name string, beta float64) Profile {
	return Profile{Name: name, Source: "fallback: CPU-boundness model, default constants", Bound: &Boundness{
		Beta: beta, TmaxS: 1, StaticW: FallbackStaticW, DynamicW: FallbackDynamicW,
		FminGHz: DefaultFmin, FmaxGHz: DefaultFmax, VminV: FallbackVmin, VmaxV: FallbackVmax,
	}}
}

func (b *Boundness) validate() error {
	switch {
	case !(b.Beta >= 0 && b.Beta <= 1):
		return fmt.Errorf("boundness beta %v outside [0, 1]", b.Beta)
	case !(b.TmaxS > 0), !(b.StaticW >= 0), !(b.DynamicW > 0):
		return fmt.Errorf("boundness t_max_s, dynamic_w must be > 0 and static_w >= 0")
	case !(b.FminGHz > 0 && b.FmaxGHz > b.FminGHz):
		return fmt.Errorf("boundness frequencies [%v, %v] not 0 < f_min < f_max", b.FminGHz, b.FmaxGHz)
	case !(b.VminV > 0 && b.VmaxV >= b.VminV):
		return fmt.Errorf("boundness voltages [%v, %v] not 0 < v_min <= v_max", b.VminV, b.VmaxV)
	}
	return nil
}

func (b *Boundness) volt(f float64) float64 {
	u := (f - b.FminGHz) / (b.FmaxGHz - b.FminGHz)
	return b.VminV + (b.VmaxV-b.VminV)*math.Min(1, math.Max(0, u))
}

func (b *Boundness) freqPower(f float64) float64 {
	v := b.volt(f)
	return b.StaticW + b.DynamicW*f*v*v/(b.FmaxGHz*b.VmaxV*b.VmaxV)
}

func (b *Boundness) freqRuntime(f float64) float64 {
	return b.TmaxS * (b.Beta*b.FmaxGHz/f + 1 - b.Beta)
}

// capFreq is the frequency the fallback runs at under cap P.
func (b *Boundness) capFreq(capW float64) float64 {
	lo, hi := b.FminGHz, b.FmaxGHz
	if b.freqPower(hi) <= capW {
		return hi
	}
	if b.freqPower(lo) >= capW {
		return lo
	}
	for range 60 { // p is increasing in f: bisection to ~1e-18 GHz
		mid := (lo + hi) / 2
		if b.freqPower(mid) <= capW {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo
}

func (b *Boundness) power(k Knob, x float64) float64 {
	if k == Cap {
		x = b.capFreq(x)
	}
	return b.freqPower(x)
}

func (b *Boundness) runtime(k Knob, x float64) float64 {
	if k == Cap {
		x = b.capFreq(x)
	}
	return b.freqRuntime(x)
}
