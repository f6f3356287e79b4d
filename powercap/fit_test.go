package powercap

import (
	"errors"
	"math"
	"testing"
)

// TestFitRecoversCoefficients fits noise-free synthetic data generated from
// known coefficients; each must come back to 1e-9 relative.
func TestFitRecoversCoefficients(t *testing.T) {
	freqs := []float64{1.2, 1.4, 1.6, 1.8, 2.0, 2.2, 2.4, 2.7}
	caps := []float64{80, 100, 120, 140, 160, 180, 200, 220, 240, 250}
	tests := []struct {
		name string
		form Form
		x    []float64
		coef []float64
	}{
		{"p(f) cubic", Cubic, freqs, []float64{40, 12.5, -3.25, 4.75}},
		{"t(f) quadratic", Quadratic, freqs, []float64{310, -180, 31}},
		{"p(P) cubic", Cubic, caps, []float64{-21.5, 1.31, -0.0011, 1.7e-6}},
		{"t(P) exp decay", Exp, caps, []float64{140, -0.0175, 18.5}},
		{"t(P) exp growth", Exp, caps, []float64{-3, 0.012, 90}},
		{"t(f) exp", Exp, freqs, []float64{500, -1.3, 60}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			y := make([]float64, len(tc.x))
			for i, x := range tc.x {
				y[i] = tc.form.eval(tc.coef, x)
			}
			c, err := FitCurve(tc.form, tc.x, y)
			if err != nil {
				t.Fatal(err)
			}
			for i, want := range tc.coef {
				if got := c.Coef[i]; math.Abs(got-want) > 1e-9*math.Abs(want) {
					t.Errorf("FitCurve(%s) coef[%d] = %.15g, want %.15g (rel %.2g)", tc.form, i, got, want, math.Abs(got-want)/math.Abs(want))
				}
			}
			if c.R2 < 1-1e-12 || c.N != len(tc.x) {
				t.Errorf("R2 = %v, N = %d; want 1, %d", c.R2, c.N, len(tc.x))
			}
		})
	}
}

// TestFitHandComputed checks R², RMSE and LOO RMSE on a line-through-data case
// small enough to compute by hand.
func TestFitHandComputed(t *testing.T) {
	// y = 1 + 2x + x² fitted to 4 points with one perturbed by +1 at x=3:
	// the quadratic has residuals r = e − H·e for e = (0,0,0,1).
	x := []float64{0, 1, 2, 3}
	y := []float64{1, 4, 9, 17}
	c, err := FitCurve(Quadratic, x, y)
	if err != nil {
		t.Fatal(err)
	}
	// Residuals of a quadratic fit to e are the projection on the cubic
	// contrast (−1, 3, −3, 1)/√20, so r = (−1, 3, −3, 1)/20 and SSR = 1/20.
	if want := math.Sqrt(1.0 / 20 / 4); math.Abs(c.RMSE-want) > 1e-12 {
		t.Errorf("RMSE = %v, want %v", c.RMSE, want)
	}
	// LOO residual = r_i/(1−h_ii) with 1−h_ii = contrast_i²/20: (−20,20/3,−20/3,20)/20.
	loo := math.Sqrt((1 + 1.0/9 + 1.0/9 + 1) / 4)
	if math.Abs(c.LOORMSE-loo) > 1e-9 {
		t.Errorf("LOORMSE = %v, want %v", c.LOORMSE, loo)
	}
}

func TestFitErrors(t *testing.T) {
	tests := []struct {
		name string
		form Form
		x, y []float64
		want error
	}{
		{"3 points for a cubic", Cubic, []float64{1, 2, 3}, []float64{1, 2, 3}, ErrTooFewPoints},
		{"repeats do not count", Cubic, []float64{1, 1, 2, 2, 3}, []float64{1, 1, 2, 2, 3}, ErrTooFewPoints},
		{"constant x", Quadratic, []float64{2, 2, 2, 2}, []float64{1, 2, 3, 4}, ErrConstantX},
		{"NaN y", Exp, []float64{1, 2, 3, 4}, []float64{1, math.NaN(), 3, 4}, ErrNotFinite},
		{"Inf x", Quadratic, []float64{1, 2, math.Inf(1), 4}, []float64{1, 2, 3, 4}, ErrNotFinite},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := FitCurve(tc.form, tc.x, tc.y)
			if !errors.Is(err, tc.want) {
				t.Errorf("FitCurve(%s, %v, %v) error = %v, want %v", tc.form, tc.x, tc.y, err, tc.want)
			}
		})
	}
}
