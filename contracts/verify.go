package contracts

import (
	"fmt"
	"math"
	"strings"
)

// Tol is the slack, in currency units, below which a constraint counts as
// satisfied (and two utilities as tied). It absorbs float rounding in the
// optimiser; money is only rounded to cents at settlement.
const Tol = 1e-6

// Kind names the constraint a Violation breaks.
type Kind uint8

const (
	IR       Kind = iota // individual rationality: u_i(own bundle) ≥ 0
	IC                   // incentive compatibility: u_i(own) ≥ u_i(other)
	Monotone             // Δt_1 ≥ Δt_2 ≥ … ≥ Δt_n
)

func (k Kind) String() string {
	switch k {
	case IR:
		return "IR"
	case IC:
		return "IC"
	default:
		return "monotonicity"
	}
}

// A Violation is one broken constraint. Type and Bundle are 0-based; Amount
// is how much it is violated by: for IR −u_i(i) (currency), for IC
// u_i(j) − u_i(i) (currency), for monotonicity Δt_{i+1} − Δt_i (percent
// points, Type = i, Bundle = i+1).
type Violation struct {
	Kind   Kind
	Type   int
	Bundle int
	Amount float64
}

func (v Violation) String() string {
	switch v.Kind {
	case IR:
		return fmt.Sprintf("IR: type %d has utility %s on its own bundle (violated by %s)", v.Type+1, money(-v.Amount), money(v.Amount))
	case IC:
		return fmt.Sprintf("IC: type %d prefers bundle %d to bundle %d by %s", v.Type+1, v.Bundle+1, v.Type+1, money(v.Amount))
	default:
		return fmt.Sprintf("monotonicity: Δt of bundle %d exceeds Δt of bundle %d by %g points", v.Bundle+1, v.Type+1, v.Amount)
	}
}

// Report is the verifier's verdict on a menu for ordered types.
type Report struct {
	Theta      []float64
	Cost       string
	Bundles    []Bundle
	Utility    [][]float64 // Utility[i][j] = r_j − θ_i·c(Δt_j)
	Choice     []int       // each type's best bundle (ties: own bundle, else lowest index); −1 = opts out
	Violations []Violation // IR and IC in (type, bundle) order, then monotonicity
	// MinReward are the cheapest rewards implementing the same Δt: the top
	// type's IR and the adjacent downward ICs bind. Nil when Δt is not
	// monotone (no rewards implement it then).
	MinReward []float64
	Slack     []float64 // Reward − MinReward per bundle; nil with MinReward
}

// OK reports whether the menu is IR, IC and monotone.
func (r *Report) OK() bool { return len(r.Violations) == 0 }

// Err returns nil for a valid menu, else one error line listing every
// violation.
func (r *Report) Err() error {
	if r.OK() {
		return nil
	}
	s := make([]string, len(r.Violations))
	for i, v := range r.Violations {
		s[i] = v.String()
	}
	return fmt.Errorf("contracts: menu violates %d constraint(s): %s", len(s), strings.Join(s, "; "))
}

// CheckTheta checks that the types are finite, non-negative and strictly
// increasing (θ_1 < θ_2 < … < θ_n, low θ = flexible).
func CheckTheta(theta []float64) error {
	if len(theta) == 0 {
		return fmt.Errorf("contracts: no types")
	}
	for i, t := range theta {
		if !(t >= 0) || math.IsInf(t, 0) {
			return fmt.Errorf("contracts: θ_%d = %v must be finite and ≥ 0", i+1, t)
		}
		if i > 0 && !(t > theta[i-1]) {
			return fmt.Errorf("contracts: types must be strictly increasing: θ_%d = %v ≤ θ_%d = %v", i+1, t, i, theta[i-1])
		}
	}
	return nil
}

// Verify checks a menu, bundle i meant for type i: every IR, every pairwise
// IC, and monotonicity of Δt, each violation with its amount; and the slack
// of each reward over the minimal IR/IC rewards for the same Δt. The error
// is for malformed input only; an invalid menu is a Report with Violations.
func Verify(bundles []Bundle, theta []float64, cost Cost) (*Report, error) {
	if err := CheckTheta(theta); err != nil {
		return nil, err
	}
	if cost == nil {
		return nil, fmt.Errorf("contracts: no cost function")
	}
	n := len(theta)
	if len(bundles) != n {
		return nil, fmt.Errorf("contracts: menu has %d bundles for %d types (one bundle per type)", len(bundles), n)
	}
	for j, b := range bundles {
		if !(b.Dt >= 0) || math.IsInf(b.Dt, 0) || math.IsNaN(b.Reward) || math.IsInf(b.Reward, 0) {
			return nil, fmt.Errorf("contracts: bundle %d: reward %v, Δt %v%%: need finite reward and finite Δt ≥ 0", j+1, b.Reward, b.Dt)
		}
	}
	r := &Report{Theta: theta, Cost: cost.Name(), Bundles: bundles,
		Utility: make([][]float64, n), Choice: make([]int, n)}
	c := make([]float64, n)
	for j, b := range bundles {
		c[j] = cost.C(b.Dt)
	}
	for i, th := range theta {
		r.Utility[i] = make([]float64, n)
		for j, b := range bundles {
			r.Utility[i][j] = b.Reward - th*c[j]
			if u := r.Utility[i][j]; math.IsInf(u, 0) || math.IsNaN(u) {
				return nil, fmt.Errorf("contracts: bundle %d: utility of type %d is %v (reward %v, Δt %v%%: values too large)", j+1, i+1, u, b.Reward, b.Dt)
			}
		}
		r.Choice[i] = choose(r.Utility[i], i)
		own := r.Utility[i][i]
		if own < -Tol {
			r.Violations = append(r.Violations, Violation{IR, i, i, -own})
		}
		for j, u := range r.Utility[i] {
			if j != i && u-own > Tol {
				r.Violations = append(r.Violations, Violation{IC, i, j, u - own})
			}
		}
	}
	monotone := true
	for i := 0; i+1 < n; i++ {
		if d := bundles[i+1].Dt - bundles[i].Dt; d > DtTol {
			r.Violations = append(r.Violations, Violation{Monotone, i, i + 1, d})
			monotone = false
		}
	}
	if monotone {
		r.MinReward = MinRewards(theta, c)
		r.Slack = make([]float64, n)
		for j, b := range bundles {
			r.Slack[j] = b.Reward - r.MinReward[j]
		}
	}
	return r, nil
}

// DtTol is the tolerance, in percent points, of the monotonicity check.
const DtTol = 1e-9

// MinRewards returns the cheapest IR and IC rewards for costs c_i = c(Δt_i)
// with Δt monotone: r_n = θ_n·c_n and r_{i−1} = r_i + θ_{i−1}·(c_{i−1} − c_i).
func MinRewards(theta, c []float64) []float64 {
	n := len(theta)
	r := make([]float64, n)
	r[n-1] = theta[n-1] * c[n-1]
	for i := n - 1; i > 0; i-- {
		r[i-1] = r[i] + theta[i-1]*(c[i-1]-c[i])
	}
	return r
}

// choose returns the best column of u for a user whose own bundle is own
// (−1 for none): the own bundle when it is within Tol of the best, else the
// lowest-index best; −1 when even the best has utility below −Tol (the user
// declines every bundle; a utility of 0 is accepted).
func choose(u []float64, own int) int {
	best := 0
	for j := range u {
		if u[j] > u[best]+Tol {
			best = j
		}
	}
	if own >= 0 && own < len(u) && u[own] >= u[best]-Tol {
		best = own
	}
	if u[best] < -Tol {
		return -1
	}
	return best
}

// Choose returns the bundle a user of flexibility theta picks from bundles:
// the one maximising r_j − θ·c(Δt_j), ties to own (pass −1 when the user has
// no designated bundle, then ties go to the lowest index); −1 when every
// bundle would leave the user worse off than declining.
func Choose(bundles []Bundle, theta float64, own int, cost Cost) int {
	u := make([]float64, len(bundles))
	for j, b := range bundles {
		u[j] = b.Reward - theta*cost.C(b.Dt)
	}
	return choose(u, own)
}
