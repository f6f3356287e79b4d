package powercap

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/optimize"
)

// Fit errors, wrapped by FitCurve and by calibration (which adds file:line).
var (
	ErrTooFewPoints = errors.New("fewer distinct points than parameters")
	ErrConstantX    = errors.New("x is constant")
	ErrNotFinite    = errors.New("value is NaN or infinite")
)

// FitCurve fits form to the points (x[i], y[i]) by least squares and returns
// the curve with its quality: R², RMSE and leave-one-out RMSE (each point
// predicted by a refit without it; 0 when len(x) <= form.Params() or when
// leaving out some point leaves too few distinct x).
//
// Polynomials are solved with a QR factorisation of the Vandermonde matrix in
// the centred, scaled variable z = (x − mean)/halfwidth, then expanded back to
// powers of x (normal equations would square the condition number). The
// exponential c0·exp(c1·x) + c2 starts from a linearised fit (log(y − c2) is
// linear in x for fixed c2, scanned over a grid of c2), is refined by
// Nelder–Mead on the sum of squares and polished by Levenberg–Marquardt steps.
func FitCurve(form Form, x, y []float64) (Curve, error) {
	coef, err := fitCoef(form, x, y)
	if err != nil {
		return Curve{}, err
	}
	c := Curve{Form: form, Coef: coef, N: len(x)}
	var ssr, sst float64
	my := mean(y)
	for i := range x {
		r := y[i] - form.eval(coef, x[i])
		ssr += r * r
		sst += (y[i] - my) * (y[i] - my)
	}
	c.RMSE = math.Sqrt(ssr / float64(len(x)))
	c.R2 = 1
	if sst > 0 {
		c.R2 = 1 - ssr/sst
	}
	if len(x) > form.Params() {
		c.LOORMSE = looRMSE(form, x, y)
	}
	return c, nil
}

func looRMSE(form Form, x, y []float64) float64 {
	xs, ys := make([]float64, 0, len(x)-1), make([]float64, 0, len(x)-1)
	var ss float64
	for i := range x {
		xs, ys = append(append(xs[:0], x[:i]...), x[i+1:]...), append(append(ys[:0], y[:i]...), y[i+1:]...)
		coef, err := fitCoef(form, xs, ys)
		if err != nil { // too few distinct x without point i: no estimate (an
			return 0 // infinite one could not be written to a model file)
		}
		r := y[i] - form.eval(coef, x[i])
		ss += r * r
	}
	if v := math.Sqrt(ss / float64(len(x))); !math.IsInf(v, 0) && !math.IsNaN(v) {
		return v
	}
	return 0 // a fold's fit diverged (e.g. an exponential overflowing): no estimate
}

func fitCoef(form Form, x, y []float64) ([]float64, error) {
	np := form.Params()
	if np == 0 {
		return nil, fmt.Errorf("powercap: unknown model form %q", form)
	}
	if len(x) != len(y) {
		return nil, fmt.Errorf("powercap: %d x values but %d y values", len(x), len(y))
	}
	for i := range x {
		if bad(x[i]) || bad(y[i]) {
			return nil, fmt.Errorf("powercap: point %d (%v, %v): %w", i+1, x[i], y[i], ErrNotFinite)
		}
	}
	d := distinct(x)
	if d == 1 && len(x) > 1 {
		return nil, fmt.Errorf("powercap: %s fit: %w (all %d points at x = %v)", form, ErrConstantX, len(x), x[0])
	}
	if d < np {
		return nil, fmt.Errorf("powercap: %s fit needs %d distinct x values, got %d: %w", form, np, d, ErrTooFewPoints)
	}
	if form == Exp {
		return fitExp(x, y)
	}
	return fitPoly(x, y, np-1)
}

func bad(v float64) bool { return math.IsNaN(v) || math.IsInf(v, 0) }

func distinct(x []float64) int {
	s := slices.Clone(x)
	slices.Sort(s)
	return len(slices.Compact(s))
}

func mean(v []float64) float64 {
	var s float64
	for _, x := range v {
		s += x
	}
	return s / float64(len(v))
}

// centre returns the mean and half-width of x, used to condition the fits.
func centre(x []float64) (c, s float64) {
	lo, hi := slices.Min(x), slices.Max(x)
	return (lo + hi) / 2, (hi - lo) / 2
}

// lsq solves min ||A·b − y|| by QR.
func lsq(a *mat.Dense, y []float64) ([]float64, error) {
	var qr mat.QR
	qr.Factorize(a)
	if c := qr.Cond(); c > 1e14 || math.IsNaN(c) {
		return nil, fmt.Errorf("powercap: least-squares system is singular (condition %.3g): %w", c, ErrTooFewPoints)
	}
	_, n := a.Dims()
	var b mat.VecDense
	if err := qr.SolveVecTo(&b, false, mat.NewVecDense(len(y), slices.Clone(y))); err != nil {
		return nil, fmt.Errorf("powercap: least squares: %v", err)
	}
	out := make([]float64, n)
	for i := range out {
		out[i] = b.AtVec(i)
	}
	return out, nil
}

func fitPoly(x, y []float64, deg int) ([]float64, error) {
	c, s := centre(x)
	a := mat.NewDense(len(x), deg+1, nil)
	for i, xi := range x {
		z, zk := (xi-c)/s, 1.0
		for k := 0; k <= deg; k++ {
			a.Set(i, k, zk)
			zk *= z
		}
	}
	bz, err := lsq(a, y)
	if err != nil {
		return nil, err
	}
	// Σ_k b_k ((x−c)/s)^k = Σ_j x^j Σ_{k>=j} b_k s^-k C(k,j) (−c)^(k−j)
	out := make([]float64, deg+1)
	for k := 0; k <= deg; k++ {
		sk := math.Pow(s, -float64(k))
		for j := 0; j <= k; j++ {
			out[j] += bz[k] * sk * binom(k, j) * math.Pow(-c, float64(k-j))
		}
	}
	return out, nil
}

func binom(n, k int) float64 {
	r := 1.0
	for i := 1; i <= k; i++ {
		r = r * float64(n-k+i) / float64(i)
	}
	return r
}

// fitExp fits y = A·exp(B·z) + G in z = (x − c)/s and converts back to
// c0 = A·exp(−B·c/s), c1 = B/s, c2 = G.
func fitExp(x, y []float64) ([]float64, error) {
	c, s := centre(x)
	z := make([]float64, len(x))
	for i := range x {
		z[i] = (x[i] - c) / s
	}
	sse := func(p []float64) float64 {
		var ss float64
		for i := range z {
			r := y[i] - (p[0]*math.Exp(p[1]*z[i]) + p[2])
			ss += r * r
		}
		return ss
	}
	p := expStart(z, y, sse)
	res, err := optimize.Minimize(optimize.Problem{Func: sse}, p, &optimize.Settings{MajorIterations: 5000}, &optimize.NelderMead{})
	if err == nil && res != nil && sse(res.X) < sse(p) {
		p = res.X
	}
	p = levenbergMarquardt(z, y, p, sse)
	if bad(p[0]) || bad(p[1]) || bad(p[2]) {
		return nil, fmt.Errorf("powercap: exponential fit diverged")
	}
	coef := []float64{p[0] * math.Exp(-p[1]*c/s), p[1] / s, p[2]}
	// A curve that is a near-step in x (a steep b over large x) fits in z
	// but overflows or underflows as a·exp(b·x): refuse it rather than
	// write a model that predicts ±Inf at its own data.
	scale := slices.Max(y) - slices.Min(y) + math.Abs(mean(y))
	for i := range x {
		want, got := p[0]*math.Exp(p[1]*z[i])+p[2], Exp.eval(coef, x[i])
		if bad(got) || math.Abs(got-want) > 1e-6*scale {
			return nil, fmt.Errorf("powercap: exponential fit too steep to write as a·exp(b·x)+c (b·x = %.4g at x = %v)", coef[1]*x[i], x[i])
		}
	}
	return coef, nil
}

// expStart is the linearised fit: for G on a grid below min(y) (decaying or
// growing curves, A > 0) and above max(y) (A < 0), log|y − G| is fitted as a
// straight line in z; the G with the smallest true sum of squares wins.
func expStart(z, y []float64, sse func([]float64) float64) []float64 {
	lo, hi := slices.Min(y), slices.Max(y)
	span := hi - lo
	if span == 0 {
		span = math.Max(math.Abs(lo), 1)
	}
	best, bestSS := []float64{0, 0, mean(y)}, math.Inf(1)
	a := mat.NewDense(len(z), 2, nil)
	ly := make([]float64, len(z))
	for _, sign := range []float64{1, -1} {
		for k := 0; k <= 40; k++ {
			gap := span * math.Pow(10, 2-float64(k)/8) // 100·span down to 1e-3·span
			g := lo - gap
			if sign < 0 {
				g = hi + gap
			}
			for i := range z {
				a.Set(i, 0, 1)
				a.Set(i, 1, z[i])
				ly[i] = math.Log(sign * (y[i] - g))
			}
			b, err := lsq(a, ly)
			if err != nil {
				continue
			}
			p := []float64{sign * math.Exp(b[0]), b[1], g}
			if ss := sse(p); ss < bestSS {
				best, bestSS = p, ss
			}
		}
	}
	return best
}

// levenbergMarquardt polishes p for y = p0·exp(p1·z) + p2, accepting only
// steps that lower the sum of squares.
func levenbergMarquardt(z, y, p []float64, sse func([]float64) float64) []float64 {
	p = slices.Clone(p)
	cur, lambda := sse(p), 1e-3
	n := len(z)
	j := mat.NewDense(n+3, 3, nil)
	r := make([]float64, n+3)
	for it := 0; it < 500 && lambda < 1e16; it++ {
		for i := range z {
			e := math.Exp(p[1] * z[i])
			j.Set(i, 0, e)
			j.Set(i, 1, p[0]*z[i]*e)
			j.Set(i, 2, 1)
			r[i] = y[i] - (p[0]*e + p[2])
		}
		// Damping rows sqrt(λ)·diag(JᵀJ)^½ turn the LM step into one QR solve.
		for k := 0; k < 3; k++ {
			var d float64
			for i := range n {
				d += j.At(i, k) * j.At(i, k)
			}
			for c := 0; c < 3; c++ {
				j.Set(n+k, c, 0)
			}
			j.Set(n+k, k, math.Sqrt(lambda*math.Max(d, 1e-300)))
			r[n+k] = 0
		}
		step, err := lsq(j, r)
		if err != nil {
			lambda *= 10
			continue
		}
		q := []float64{p[0] + step[0], p[1] + step[1], p[2] + step[2]}
		ss := sse(q)
		if ss < cur {
			done := cur-ss <= 1e-15*cur
			p, cur, lambda = q, ss, math.Max(lambda/10, 1e-12)
			if done {
				break
			}
		} else {
			lambda *= 10
		}
	}
	return p
}
