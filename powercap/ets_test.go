package powercap

import (
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
)

var etsNodes = []float64{1, 2, 3, 4, 6, 8, 12, 16, 20, 24, 32, 40, 48, 64}

func etsData(f func(n float64) float64) []float64 {
	e := make([]float64, len(etsNodes))
	for i, n := range etsNodes {
		e[i] = f(n)
	}
	return e
}

// Exactly linear data: the line fits and predicts every left-out point
// exactly, so linear wins (it is first among the exact ties) with CV RMSE ~0.
func TestFitETSLinear(t *testing.T) {
	e := etsData(func(n float64) float64 { return 5e5 + 2e4*n })
	best, scores, err := FitETS(etsNodes, e)
	if err != nil {
		t.Fatal(err)
	}
	if best.Name() != "linear" || scores[0].CVRMSE > 1e-6 || scores[0].TrainRMSE > 1e-6 {
		t.Fatalf("best %s, scores %+v; want linear with RMSE ~0", best.Name(), scores)
	}
	// hand-computed: 5e5 + 2e4·100
	if got := best.Predict(100); math.Abs(got-2.5e6) > 1e-6 {
		t.Errorf("Predict(100) = %v, want 2.5e6", got)
	}
}

// A kinked curve: perfect strong scaling (constant energy plus a small
// linear overhead) up to 16 nodes, then a steep superlinear rise. A
// piecewise predictor with a linear part must beat both the line and the
// single spline in cross-validation.
func TestFitETSKinked(t *testing.T) {
	e := etsData(func(n float64) float64 {
		v := 1e6 + 1e3*n
		if n > 16 {
			v += 4e3 * math.Pow(n-16, 1.8)
		}
		return v
	})
	best, scores, err := FitETS(etsNodes, e)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(best.Name(), "+") {
		t.Fatalf("best %s, scores %+v; want a piecewise predictor", best.Name(), scores)
	}
	var bestCV float64
	for _, s := range scores {
		if s.Name == best.Name() {
			bestCV = s.CVRMSE
		}
	}
	if !(bestCV < scores[0].CVRMSE && bestCV < scores[1].CVRMSE) {
		t.Errorf("best %s CV %v, linear %v, spline %v", best.Name(), bestCV, scores[0].CVRMSE, scores[1].CVRMSE)
	}
	// The linear part recovers 1e6 + 1e3·n below the kink.
	if got := best.Predict(10); math.Abs(got-1.01e6) > 1e-3 {
		t.Errorf("Predict(10) = %v, want 1.01e6", got)
	}
}

func TestFitETSScoresOrderAndDeterminism(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 0))
	e := etsData(func(n float64) float64 { return 1e6*(1+0.02*n) + 1e4*r.NormFloat64() })
	best1, s1, err1 := FitETS(etsNodes, e)
	best2, s2, err2 := FitETS(etsNodes, e)
	if err1 != nil || err2 != nil || !reflect.DeepEqual(s1, s2) || best1.Name() != best2.Name() {
		t.Fatalf("two fits differ: %v %+v / %v %+v", err1, s1, err2, s2)
	}
	want := []string{"linear", "spline", "linear+spline", "spline+linear", "linear+spline+linear"}
	for i, s := range s1 {
		if s.Name != want[i] || math.IsNaN(s.CVRMSE) || s.CVRMSE < 0 {
			t.Errorf("score %d = %+v, want name %s and a CV RMSE", i, s, want[i])
		}
	}
	if s1[1].TrainRMSE != 0 {
		t.Errorf("spline interpolates: train RMSE %v, want 0", s1[1].TrainRMSE)
	}
	for _, n := range []float64{0.5, 5, 33, 100} {
		if a, b := best1.Predict(n), best2.Predict(n); a != b || !isFiniteF(a) {
			t.Errorf("Predict(%v) = %v / %v", n, a, b)
		}
	}
}

// Repeated node counts are averaged: two measurements at each of three
// node counts behave like their means; with three distinct points only
// linear and spline can be cross-validated.
func TestFitETSRepeatsAndFewPoints(t *testing.T) {
	best, scores, err := FitETS([]float64{4, 1, 2, 1, 2, 4}, []float64{9, 1, 4, 3, 6, 11})
	if err != nil {
		t.Fatal(err)
	}
	// means: (1,2) (2,5) (4,10); hand-computed least squares: x̄=7/3,
	// ȳ=17/3, b = Σ(x−x̄)(y−ȳ)/Σ(x−x̄)² = (37/3)/(14/3) = 37/14,
	// a = ȳ − b·x̄ = −1/2.
	if best.Name() != "linear" && best.Name() != "spline" {
		t.Errorf("best %s with three points", best.Name())
	}
	lin, _, _ := fitETSKind(0, []float64{1, 2, 4}, []float64{2, 5, 10}, 0)
	if a, b := lin.Predict(0), lin.Predict(1)-lin.Predict(0); math.Abs(a+0.5) > 1e-12 || math.Abs(b-37.0/14) > 1e-12 {
		t.Errorf("line %v + %v·x, want -0.5 + 37/14·x", a, b)
	}
	if math.IsNaN(best.Predict(3)) || scores[0].TrainRMSE == 0 {
		t.Errorf("linear train RMSE %v on non-collinear means", scores[0].TrainRMSE)
	}
	for _, s := range scores[2:] {
		if !math.IsInf(s.CVRMSE, 1) {
			t.Errorf("%s CV RMSE %v with 3 points, want +Inf", s.Name, s.CVRMSE)
		}
	}
}

func TestFitETSErrors(t *testing.T) {
	tests := []struct {
		name          string
		nodes, energy []float64
	}{
		{"lengths", []float64{1, 2, 3}, []float64{1, 2}},
		{"too few", []float64{1, 2}, []float64{1, 2}},
		{"constant x", []float64{4, 4, 4, 4}, []float64{1, 2, 3, 4}},
		{"two distinct", []float64{4, 4, 8, 8}, []float64{1, 2, 3, 4}},
		{"NaN", []float64{1, 2, 3}, []float64{1, math.NaN(), 3}},
		{"Inf nodes", []float64{1, math.Inf(1), 3}, []float64{1, 2, 3}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, _, err := FitETS(tt.nodes, tt.energy); err == nil || !strings.HasPrefix(err.Error(), "powercap: ets: ") {
				t.Errorf("FitETS(%v, %v) error %v, want a powercap: ets error", tt.nodes, tt.energy, err)
			}
		})
	}
}

func ExampleFitETS() {
	nodes := []float64{1, 2, 4, 8, 16}
	energy := []float64{100, 110, 130, 170, 250} // 90 + 10·n, exactly
	best, _, _ := FitETS(nodes, energy)
	fmt.Printf("%s %.6g\n", best.Name(), best.Predict(32))
	// Output: linear 410
}
