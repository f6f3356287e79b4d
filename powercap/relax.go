package powercap

import (
	"context"
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/optimize"
)

// RelaxJob is one running job for the continuous relaxation: Power(x) is
// the power per processor (W) and Time(x) the job's whole runtime (s) at
// setting x; N is its number of processors and Remaining the fraction of
// its work still to do. (The brief called it Curve; that name is the
// regression type of model.go.)
type RelaxJob struct {
	Power, Time  func(x float64) float64
	N, Remaining float64
}

// Relax solves the continuous relaxation of the power-capping problem:
// choose x_j in [lo, hi] minimising the remaining energy Σ r_j·n_j·p_j(x_j)·
// t_j(x_j) subject to the power Σ n_j·p_j(x_j) ≤ limit. It is the
// cross-check of the discrete solver: with the discrete levels inside
// [lo, hi], its optimum is a lower bound of theirs.
//
// Method: the box is removed by x = lo + (hi−lo)(1 + sin y)/2 (unlike
// tanh, it does not saturate: a job whose optimum is just inside a bound
// is not stuck there by a vanishing gradient) and the
// power constraint by an augmented Lagrangian outer loop (multiplier
// update ν ← max(0, ν + μg), μ raised when the violation does not fall
// fourfold) around gonum's LBFGS on the smooth penalised objective, with
// derivatives of p and t by central differences. It starts from a common x
// where the limit binds (or hi). Because the optimiser is local and uses
// tolerances, the result is a point, not a certificate: it is made
// feasible at the end by shrinking every x_j toward lo by a common factor
// (by bisection; feasible whenever each p_j is non-decreasing). Errors:
// bad bounds, non-finite inputs, a limit below the power at lo, a
// cancelled ctx.
func Relax(ctx context.Context, jobs []RelaxJob, lo, hi, limit float64) (x []float64, energy float64, err error) {
	if err := checkRelax(jobs, lo, hi, limit); err != nil {
		return nil, 0, err
	}
	r := relaxation{jobs: jobs, lo: lo, hi: hi, limit: limit}
	if pmin := r.power(r.fill(lo)); pmin > limit {
		return nil, 0, fmt.Errorf("powercap: relax: limit %g W is below the power at x=%g (%g W)", limit, lo, pmin)
	}
	r.scale = math.Max(r.energy(r.fill((lo+hi)/2)), math.SmallestNonzeroFloat64)
	y := r.start()
	if err := r.solve(ctx, y); err != nil {
		return nil, 0, err
	}
	x = r.feasible(r.toX(y))
	return x, r.energy(x), nil
}

func checkRelax(jobs []RelaxJob, lo, hi, limit float64) error {
	if !isFiniteF(lo) || !isFiniteF(hi) || !(lo < hi) {
		return fmt.Errorf("powercap: relax: bounds [%g, %g] are not a finite interval", lo, hi)
	}
	if !isFiniteF(limit) {
		return fmt.Errorf("powercap: relax: limit %g is not finite", limit)
	}
	for i, j := range jobs {
		if j.Power == nil || j.Time == nil {
			return fmt.Errorf("powercap: relax: job %d has no power or time curve", i)
		}
		if !isFiniteF(j.N) || j.N <= 0 || !isFiniteF(j.Remaining) || j.Remaining < 0 {
			return fmt.Errorf("powercap: relax: job %d: N=%g Remaining=%g", i, j.N, j.Remaining)
		}
		for _, x := range []float64{lo, hi} {
			if p, t := j.Power(x), j.Time(x); !isFiniteF(p) || !isFiniteF(t) {
				return fmt.Errorf("powercap: relax: job %d: p(%g)=%g t(%g)=%g", i, x, p, x, t)
			}
		}
	}
	return nil
}

type relaxation struct {
	jobs                 []RelaxJob
	lo, hi, limit, scale float64
	nu, mu               float64
	xs                   []float64 // scratch: x at the current y
}

func (r *relaxation) fill(v float64) []float64 {
	x := make([]float64, len(r.jobs))
	for i := range x {
		x[i] = v
	}
	return x
}

func (r *relaxation) power(x []float64) float64 {
	var s float64
	for i, j := range r.jobs {
		s += j.N * j.Power(x[i])
	}
	return s
}

func (r *relaxation) energy(x []float64) float64 {
	var s float64
	for i, j := range r.jobs {
		s += j.Remaining * j.N * j.Power(x[i]) * j.Time(x[i])
	}
	return s
}

// start returns y for the common x where the limit binds, kept strictly
// inside the box.
func (r *relaxation) start() []float64 {
	x := r.hi
	if r.power(r.fill(r.hi)) > r.limit {
		a, b := r.lo, r.hi
		for range 60 {
			if m := (a + b) / 2; r.power(r.fill(m)) <= r.limit {
				a = m
			} else {
				b = m
			}
		}
		x = a
	}
	u := (x - r.lo) / (r.hi - r.lo)
	u = math.Min(math.Max(u, 0.02), 0.98)
	y := make([]float64, len(r.jobs))
	for i := range y {
		y[i] = math.Asin(2*u - 1)
	}
	return y
}

func (r *relaxation) toX(y []float64) []float64 {
	x := make([]float64, len(y))
	for i, v := range y {
		x[i] = r.lo + (r.hi-r.lo)*(1+math.Sin(v))/2
	}
	return x
}

// phi is the augmented Lagrangian in y; if grad is non-nil it is filled.
func (r *relaxation) phi(y, grad []float64) float64 {
	n := len(y)
	r.xs = mckpResize(r.xs, n)
	var e, p float64
	for i, v := range y {
		x := r.lo + (r.hi-r.lo)*(1+math.Sin(v))/2
		r.xs[i] = x
		j := r.jobs[i]
		pw := j.Power(x)
		e += j.Remaining * j.N * pw * j.Time(x)
		p += j.N * pw
	}
	f := e / r.scale
	g := (p - r.limit) / r.limit
	h := math.Max(0, g+r.nu/r.mu)
	if grad != nil {
		for i, v := range y {
			j := r.jobs[i]
			de, dp := r.derivs(j, r.xs[i])
			dx := (r.hi - r.lo) * math.Cos(v) / 2
			grad[i] = (de/r.scale + r.mu*h*dp/r.limit) * dx
		}
	}
	return f + r.mu/2*h*h - r.nu*r.nu/(2*r.mu)
}

// derivs returns d(r·n·p·t)/dx and d(n·p)/dx by central differences,
// one-sided at the box edges.
func (r *relaxation) derivs(j RelaxJob, x float64) (de, dp float64) {
	h := 1e-6 * (r.hi - r.lo)
	a, b := math.Max(r.lo, x-h), math.Min(r.hi, x+h)
	pa, pb := j.Power(a), j.Power(b)
	ea, eb := j.Remaining*j.N*pa*j.Time(a), j.Remaining*j.N*pb*j.Time(b)
	return (eb - ea) / (b - a), j.N * (pb - pa) / (b - a)
}

// solve runs the augmented-Lagrangian outer loop, updating y in place.
func (r *relaxation) solve(ctx context.Context, y []float64) error {
	if len(y) == 0 {
		return nil
	}
	r.nu, r.mu = 0, 10
	prevG, prevF := math.Inf(1), math.Inf(1)
	settings := &optimize.Settings{
		GradientThreshold: 1e-12,
		MajorIterations:   2000,
		Converger:         &optimize.FunctionConverge{Absolute: 1e-15, Relative: 1e-15, Iterations: 30},
	}
	prob := optimize.Problem{Func: func(y []float64) float64 { return r.phi(y, nil) }, Grad: func(g, y []float64) { r.phi(y, g) }}
	for range 60 {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("powercap: relax: %w", context.Cause(ctx))
		}
		// Line-search failures near the optimum are normal for a local
		// method on a finite-difference gradient: keep the point reached.
		res, err := optimize.Minimize(prob, y, settings, &optimize.LBFGS{})
		if res == nil {
			return fmt.Errorf("powercap: relax: %w", err)
		}
		if !slices.ContainsFunc(res.X, func(v float64) bool { return !isFiniteF(v) }) {
			copy(y, res.X)
		}
		x := r.toX(y)
		g := (r.power(x) - r.limit) / r.limit
		f := r.energy(x) / r.scale
		r.nu = math.Max(0, r.nu+r.mu*g)
		if g <= 1e-12 && math.Abs(f-prevF) <= 1e-13 {
			break
		}
		if g > 0.25*prevG {
			r.mu = math.Min(4*r.mu, 1e12)
		}
		prevG, prevF = math.Max(g, 0), f
	}
	return nil
}

// feasible shrinks x toward lo by the largest common factor in [0, 1] that
// meets the limit (x itself if it already does).
func (r *relaxation) feasible(x []float64) []float64 {
	if r.power(x) <= r.limit {
		return x
	}
	at := func(t float64) []float64 {
		z := make([]float64, len(x))
		for i, v := range x {
			z[i] = r.lo + t*(v-r.lo)
		}
		return z
	}
	a, b := 0.0, 1.0
	for range 80 {
		if m := (a + b) / 2; r.power(at(m)) <= r.limit {
			a = m
		} else {
			b = m
		}
	}
	return at(a)
}

// SnapDown returns, for each x, the index of the largest level ≤ x
// (levels ascending), clamped to 0 when x is below every level. When power
// increases with the setting, snapping every job down keeps a power limit
// that the continuous x met. It returns nil if levels is empty.
func SnapDown(x []float64, levels []float64) []int {
	if len(levels) == 0 {
		return nil
	}
	idx := make([]int, len(x))
	for i, v := range x {
		k, found := slices.BinarySearch(levels, v)
		if !found {
			k--
		}
		idx[i] = max(k, 0)
	}
	return idx
}
