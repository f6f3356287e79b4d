package replay

import (
	"fmt"
	"math"
	"sort"
	"time"

	"drsim/contracts"
	"drsim/scheduler/sim"
	"drsim/workloads"
)

// Config is one contract simulation. The zero value needs Theta and Cost.
type Config struct {
	Spec  sim.Spec       // the simulation (trace is passed to Run already loaded)
	Theta []float64      // type flexibilities θ_1 < … < θ_n (required)
	Cost  contracts.Cost // inconvenience c(Δt) (required)
	Rule  string         // "dist" (default) or "user": see doc.go
	Probs []float64      // type probabilities for the rule; nil = uniform
	Count string         // "arrivals" (default) or "active": which jobs weigh a slot's menu
	Slot  time.Duration  // slot length; 0 = 1 h
	PUE   float64        // γ; 0 = 1

	Prices     *contracts.Series // nil = contracts.IllustrativeDay()
	Offset     time.Duration     // added to the price time of every slot (after PriceStart)
	PriceStart time.Time         // non-zero: shift whole weeks so the first slot is at or after it
	PriceZone  *time.Location    // non-nil: read the trace's wall clock as this zone's (UTC series)

	// Sensitivity lists price scales (e.g. 0.2, 0.4, …, 1) to rerun the
	// contract simulation at; nil = none. The main run is at scale 1.
	Sensitivity []float64
}

// SensitivityScales are the --sensitivity scales: 20% to 100% of the price.
var SensitivityScales = []float64{0.2, 0.4, 0.6, 0.8, 1}

func (c *Config) withDefaults() Config {
	d := *c
	if d.Rule == "" {
		d.Rule = "dist"
	}
	if d.Count == "" {
		d.Count = "arrivals"
	}
	if d.Slot == 0 {
		d.Slot = time.Hour
	}
	if d.PUE == 0 {
		d.PUE = 1
	}
	if d.Prices == nil {
		d.Prices = contracts.IllustrativeDay()
	}
	return d
}

func (c *Config) check() error {
	if err := contracts.CheckTheta(c.Theta); err != nil {
		return err
	}
	switch {
	case c.Cost == nil:
		return fmt.Errorf("replay: no inconvenience cost c(Δt)")
	case c.Rule != "dist" && c.Rule != "user":
		return fmt.Errorf("replay: type rule %q is not one of dist, user", c.Rule)
	case c.Count != "arrivals" && c.Count != "active":
		return fmt.Errorf("replay: count %q is not one of arrivals, active", c.Count)
	case c.Slot < time.Second:
		return fmt.Errorf("replay: slot %v must be at least 1s", c.Slot)
	case !(c.PUE >= 1 && c.PUE < 100):
		return fmt.Errorf("replay: PUE %v must be in [1, 100)", c.PUE)
	case c.Probs != nil && len(c.Probs) != len(c.Theta):
		return fmt.Errorf("replay: %d type probabilities for %d types", len(c.Probs), len(c.Theta))
	}
	for i, s := range c.Sensitivity {
		if !(s > 0) || math.IsInf(s, 0) {
			return fmt.Errorf("replay: sensitivity scale %d = %v must be positive", i+1, s)
		}
	}
	_, err := cumulative(c.Probs, len(c.Theta))
	return err
}

// InputError is a mistake in the Config or a price series that does not
// cover the trace (not a failure of the simulation); the CLI exits with
// code 2 for it.
type InputError struct{ Err error }

func (e *InputError) Error() string     { return e.Err.Error() }
func (e *InputError) Unwrap() error     { return e.Err }
func (e *InputError) ConfigError() bool { return true }

func inputErr(err error) error {
	if err == nil {
		return nil
	}
	return &InputError{err}
}

// cumulative returns the normalised cumulative type probabilities.
func cumulative(p []float64, n int) ([]float64, error) {
	cum := make([]float64, n)
	s := 0.0
	for i := range cum {
		w := 1.0
		if p != nil {
			w = p[i]
		}
		if !(w >= 0) || math.IsInf(w, 0) {
			return nil, fmt.Errorf("replay: type probability %d = %v must be finite and ≥ 0", i+1, w)
		}
		s += w
		cum[i] = s
	}
	if !(s > 0) {
		return nil, fmt.Errorf("replay: type probabilities sum to 0")
	}
	for i := range cum {
		cum[i] /= s
	}
	return cum, nil
}

// TypeRule assigns a type index to a job, independent of job order.
type TypeRule struct {
	seed uint64
	user bool
	cum  []float64
}

// NewTypeRule builds the rule ("dist" or "user") for n types with the given
// probabilities (nil = uniform).
func NewTypeRule(rule string, probs []float64, n int, seed uint64) (*TypeRule, error) {
	if rule != "dist" && rule != "user" {
		return nil, fmt.Errorf("replay: type rule %q is not one of dist, user", rule)
	}
	cum, err := cumulative(probs, n)
	if err != nil {
		return nil, err
	}
	return &TypeRule{seed: seed, user: rule == "user", cum: cum}, nil
}

// Type returns the job's type index in [0, n).
func (r *TypeRule) Type(j *workloads.Job) int {
	key, salt := uint64(j.ID), uint64(0x6a6f62) // "job"
	if r.user && j.User >= 0 {
		key, salt = uint64(j.User), 0x75736572 // "user"
	}
	h := splitmix(splitmix(splitmix(r.seed)^salt) ^ key)
	u := float64(h>>11) / (1 << 53)
	i := sort.SearchFloat64s(r.cum, u)
	for i < len(r.cum)-1 && r.cum[i] <= u {
		i++ // cum[i-1] ≤ u < cum[i]: type i has positive probability
	}
	return i
}

// splitmix is the SplitMix64 finaliser (Steele, Lea, Flood 2014).
func splitmix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}
