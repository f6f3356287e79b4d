package contracts

import (
	"fmt"
	"math"
	"slices"
	"strings"
)

// A Cost is the inconvenience shape c(Δt) of a runtime increase Δt (percent):
// a user of type θ suffers θ·c(Δt). C must be non-negative, zero at 0,
// increasing and convex on [0, ∞); the optimiser and the verifier only ever
// evaluate it.
type Cost interface {
	Name() string
	C(dt float64) float64
}

// CostConfig parameterises a Cost. C0 must be > 0 (there is no default: the
// scale of c turns rewards into money, so it must be chosen).
type CostConfig struct {
	C0 float64 // scale: c(Δt) = C0·Δt^k
}

// CostRegistry maps a cost name to its constructor.
type CostRegistry map[string]func(CostConfig) (Cost, error)

// Costs is the table of contents of the convex inconvenience shapes.
var Costs = CostRegistry{"quadratic": NewQuadratic, "cubic": NewCubic}

// New builds the named cost, or fails naming the known ones.
func (r CostRegistry) New(name string, cfg CostConfig) (Cost, error) {
	f, ok := r[name]
	if !ok {
		known := make([]string, 0, len(r))
		for k := range r {
			known = append(known, k)
		}
		slices.Sort(known)
		return nil, fmt.Errorf("contracts: unknown cost %q (known: %s)", name, strings.Join(known, ", "))
	}
	return f(cfg)
}

func checkC0(c0 float64) error {
	if !(c0 > 0) || math.IsInf(c0, 0) {
		return fmt.Errorf("contracts: cost scale c0 = %v must be a positive finite number", c0)
	}
	return nil
}

// Quadratic is c(Δt) = C0·Δt², the inconvenience (Δt in percent).
type Quadratic struct{ C0 float64 }

var _ Cost = Quadratic{}

// NewQuadratic returns Quadratic{C0}, or an error when C0 ≤ 0.
func NewQuadratic(cfg CostConfig) (Cost, error) {
	if err := checkC0(cfg.C0); err != nil {
		return nil, err
	}
	return Quadratic{cfg.C0}, nil
}

func (q Quadratic) Name() string         { return fmt.Sprintf("quadratic c0=%g", q.C0) }
func (q Quadratic) C(dt float64) float64 { return q.C0 * dt * dt }

// Cubic is c(Δt) = C0·Δt³ (Δt ≥ 0), a steeper convex alternative.
type Cubic struct{ C0 float64 }

var _ Cost = Cubic{}

// NewCubic returns Cubic{C0}, or an error when C0 ≤ 0.
func NewCubic(cfg CostConfig) (Cost, error) {
	if err := checkC0(cfg.C0); err != nil {
		return nil, err
	}
	return Cubic{cfg.C0}, nil
}

func (q Cubic) Name() string         { return fmt.Sprintf("cubic c0=%g", q.C0) }
func (q Cubic) C(dt float64) float64 { return q.C0 * dt * dt * dt }
