package contracts

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/stat/distuv"
)

// A Density is a continuum of types θ on [Lo, Hi].
type Density interface {
	Name() string
	Support() (lo, hi float64)
	CDF(x float64) float64
	PDF(x float64) float64
}

// Uniform is θ uniform on [Lo, Hi]; its virtual type is 2θ − Lo.
type Uniform struct{ Lo, Hi float64 }

func (u Uniform) Name() string                { return fmt.Sprintf("uniform[%g, %g]", u.Lo, u.Hi) }
func (u Uniform) Support() (float64, float64) { return u.Lo, u.Hi }
func (u Uniform) CDF(x float64) float64 {
	return math.Min(1, math.Max(0, (x-u.Lo)/(u.Hi-u.Lo)))
}
func (u Uniform) PDF(x float64) float64 {
	if x < u.Lo || x > u.Hi {
		return 0
	}
	return 1 / (u.Hi - u.Lo)
}

// TruncNormal is a normal N(Mu, Sigma²) truncated to [Lo, Hi]. It is
// log-concave, so F/f is increasing and no ironing is needed.
type TruncNormal struct{ Mu, Sigma, Lo, Hi float64 }

func (n TruncNormal) Name() string {
	return fmt.Sprintf("truncnormal(%g, %g)[%g, %g]", n.Mu, n.Sigma, n.Lo, n.Hi)
}
func (n TruncNormal) Support() (float64, float64) { return n.Lo, n.Hi }
func (n TruncNormal) norm() distuv.Normal         { return distuv.Normal{Mu: n.Mu, Sigma: n.Sigma} }
func (n TruncNormal) mass() float64               { d := n.norm(); return d.CDF(n.Hi) - d.CDF(n.Lo) }
func (n TruncNormal) CDF(x float64) float64 {
	x = math.Min(n.Hi, math.Max(n.Lo, x))
	d := n.norm()
	return (d.CDF(x) - d.CDF(n.Lo)) / n.mass()
}
func (n TruncNormal) PDF(x float64) float64 {
	if x < n.Lo || x > n.Hi {
		return 0
	}
	return n.norm().Prob(x) / n.mass()
}

// Histogram is a piecewise-uniform density: Weight[k] on [Edges[k],
// Edges[k+1]). A bimodal histogram breaks the hazard-rate condition and
// needs ironing.
type Histogram struct {
	Edges, Weight []float64
}

func (h Histogram) Name() string                { return fmt.Sprintf("histogram(%d bins)", len(h.Weight)) }
func (h Histogram) Support() (float64, float64) { return h.Edges[0], h.Edges[len(h.Edges)-1] }
func (h Histogram) total() float64 {
	s := 0.0
	for _, w := range h.Weight {
		s += w
	}
	return s
}
func (h Histogram) CDF(x float64) float64 {
	c := 0.0
	for k, w := range h.Weight {
		a, b := h.Edges[k], h.Edges[k+1]
		if x >= b {
			c += w
		} else if x > a {
			c += w * (x - a) / (b - a)
		}
	}
	return c / h.total()
}
func (h Histogram) PDF(x float64) float64 {
	for k, w := range h.Weight {
		if x >= h.Edges[k] && x < h.Edges[k+1] {
			return w / (h.Edges[k+1] - h.Edges[k]) / h.total()
		}
	}
	return 0
}

func checkDensity(d Density) error {
	lo, hi := d.Support()
	if !(lo >= 0 && hi > lo) || math.IsInf(hi, 0) {
		return fmt.Errorf("contracts: %s: support [%v, %v] must be finite with 0 ≤ lo < hi", d.Name(), lo, hi)
	}
	switch d := d.(type) {
	case TruncNormal:
		if !(d.Sigma > 0) || !(d.mass() > 0) {
			return fmt.Errorf("contracts: %s: need σ > 0 and positive mass on the support", d.Name())
		}
	case Histogram:
		if len(d.Edges) != len(d.Weight)+1 || len(d.Weight) == 0 || !(d.total() > 0) {
			return fmt.Errorf("contracts: %s: need len(Edges) = len(Weight)+1 ≥ 2 and positive total weight", d.Name())
		}
		for k := range d.Weight {
			if !(d.Edges[k+1] > d.Edges[k]) || d.Weight[k] < 0 {
				return fmt.Errorf("contracts: %s: edges must increase and weights be ≥ 0 (bin %d)", d.Name(), k+1)
			}
		}
	}
	return nil
}

// Discretize cuts the support into n equal bins and returns one type per bin
// with positive mass: θ at the bin's midpoint, probability the bin's mass.
// As n grows the discrete virtual types θ_i + (θ_i − θ_{i−1})·M_{i−1}/m_i
// tend to the continuum's θ + F(θ)/f(θ), and Iron to Myerson's ironing.
func Discretize(d Density, n int) (theta, prob []float64, err error) {
	if err := checkDensity(d); err != nil {
		return nil, nil, err
	}
	if n < 1 {
		return nil, nil, fmt.Errorf("contracts: discretise %s into %d bins (need ≥ 1)", d.Name(), n)
	}
	lo, hi := d.Support()
	h := (hi - lo) / float64(n)
	for k := range n {
		a, b := lo+float64(k)*h, lo+float64(k+1)*h
		if k == n-1 {
			b = hi
		}
		if p := d.CDF(b) - d.CDF(a); p > 0 {
			theta, prob = append(theta, (a+b)/2), append(prob, p)
		}
	}
	return theta, prob, nil
}

// VirtualContinuous is the continuum virtual type θ + F(θ)/f(θ) for this
// ordering (low θ flexible, the top type's IR binds); +Inf where f = 0.
func VirtualContinuous(d Density, theta float64) float64 {
	f := d.PDF(theta)
	if f <= 0 {
		return math.Inf(1)
	}
	return theta + d.CDF(theta)/f
}

// Weights returns the virtual cost weights w_i = m_i·θ_i + M_{i−1}·(θ_i −
// θ_{i−1}) of ordered types (see doc.go), the input of Iron.
func Weights(theta, m []float64) []float64 {
	w := make([]float64, len(theta))
	cum := 0.0
	for i := range theta {
		w[i] = m[i] * theta[i]
		if i > 0 {
			w[i] += cum * (theta[i] - theta[i-1])
		}
		cum += m[i]
	}
	return w
}
