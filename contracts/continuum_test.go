package contracts

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

// Uniform on [a, b]: the continuum virtual type is 2θ − a. Equal bins give
// ψ_i = θ_i + h·(i−1), half a bin below 2θ_i − a (hand-derived), so the
// discrete virtual types converge at rate h.
func TestDiscretizeUniform(t *testing.T) {
	d := Uniform{0.2, 1.0}
	for _, n := range []int{10, 100, 1000} {
		theta, prob, err := Discretize(d, n)
		if err != nil || len(theta) != n {
			t.Fatal(n, err)
		}
		psi := Iron(Weights(theta, prob), prob)
		h := 0.8 / float64(n)
		for i := range theta {
			if got, want := psi[i], VirtualContinuous(d, theta[i])-h/2; math.Abs(got-want) > 1e-9 {
				t.Fatalf("n=%d: ψ_%d = %v, want %v", n, i+1, got, want)
			}
		}
	}
}

// A log-concave truncated normal needs no ironing: the discrete virtual
// types are already increasing and approach θ + F/f.
func TestDiscretizeTruncNormal(t *testing.T) {
	d := TruncNormal{Mu: 0.5, Sigma: 0.2, Lo: 0.1, Hi: 1.2}
	theta, prob, err := Discretize(d, 400)
	if err != nil {
		t.Fatal(err)
	}
	w := Weights(theta, prob)
	psi := Iron(w, prob)
	for i := range theta {
		if raw := w[i] / prob[i]; raw != psi[i] {
			t.Fatalf("type %d ironed (%v → %v) under a log-concave density", i+1, raw, psi[i])
		}
		if v := VirtualContinuous(d, theta[i]); i > 10 && math.Abs(psi[i]-v) > 1.1/400+1e-3*v { // a bin width plus 0.1 %
			t.Fatalf("θ=%v: ψ %v vs continuum %v", theta[i], psi[i], VirtualContinuous(d, theta[i]))
		}
	}
}

// A bimodal density violates the hazard-rate condition: θ + F/f jumps up in
// the sparse middle and falls after it. Ironing flattens that stretch.
func TestDiscretizeBimodalIrons(t *testing.T) {
	d := Histogram{Edges: []float64{0, 1, 2, 3}, Weight: []float64{10, 0.1, 10}}
	theta, prob, err := Discretize(d, 30)
	if err != nil {
		t.Fatal(err)
	}
	w := Weights(theta, prob)
	psi := Iron(w, prob)
	pooled, rawDecreases := 0, false
	for i := range theta {
		if i > 0 {
			if psi[i] < psi[i-1] {
				t.Fatalf("ironed virtual types decrease at %d: %v", i, psi)
			}
			rawDecreases = rawDecreases || w[i]/prob[i] < w[i-1]/prob[i-1]
		}
		if w[i]/prob[i] != psi[i] {
			pooled++
		}
	}
	if !rawDecreases || pooled < 10 {
		t.Errorf("want a non-monotone raw ψ and a long pooled stretch; raw decreases %v, %d pooled", rawDecreases, pooled)
	}
	// ironing preserves the total virtual cost
	sw, sp := 0.0, 0.0
	for i := range w {
		sw, sp = sw+w[i], sp+psi[i]*prob[i]
	}
	if math.Abs(sw-sp) > 1e-9 {
		t.Errorf("Σw = %v, Σ m·ψ̄ = %v", sw, sp)
	}
}

func TestDiscretizeErrors(t *testing.T) {
	for _, d := range []Density{Uniform{1, 1}, Uniform{-1, 2}, TruncNormal{0, 0, 0, 1}, Histogram{Edges: []float64{0, 1}, Weight: []float64{1, 2}}} {
		if _, _, err := Discretize(d, 10); err == nil || !strings.HasPrefix(err.Error(), "contracts: ") {
			t.Errorf("Discretize(%s) error %v", d.Name(), err)
		}
	}
	if _, _, err := Discretize(Uniform{0, 1}, 0); err == nil {
		t.Error("0 bins accepted")
	}
}

func TestSettleSumsExactly(t *testing.T) {
	// hand-computed: 3.6e9 J = 1 MWh; 45.675 $/MWh × 1.5 × 1 MWh = 68.5125 → 68.51
	s := Settle([]Payment{{Label: "a", Reward: 10.005, Saved: 3.6e9, Price: 45.675, PUE: 1.5}, {Label: "b", Reward: 0.004, Saved: 0}})
	if got := s.Lines[0].Revenue.StringFixed(2) + " " + s.Lines[0].Reward.StringFixed(2) + " " + s.Lines[1].Reward.StringFixed(2); got != "68.51 10.01 0.00" {
		t.Errorf("lines %s", got)
	}
	if s.Net.StringFixed(2) != "58.50" || s.Reward.StringFixed(2) != "10.01" {
		t.Errorf("net %s reward %s", s.Net, s.Reward)
	}
	r := rand.New(rand.NewPCG(6, 0))
	ps := make([]Payment, 1000)
	for i := range ps {
		ps[i] = Payment{Reward: 1000 * r.Float64(), Saved: 1e9 * r.Float64(), Price: -50 + 500*r.Float64(), PUE: 1 + r.Float64()}
	}
	s = Settle(ps)
	var reward, revenue, net = s.Lines[0].Reward.Sub(s.Lines[0].Reward), s.Reward.Sub(s.Reward), s.Net.Sub(s.Net)
	for _, l := range s.Lines {
		if !l.Reward.Equal(l.Reward.Round(2)) || !l.Revenue.Equal(l.Revenue.Round(2)) {
			t.Fatalf("line not in cents: %v", l)
		}
		reward, revenue, net = reward.Add(l.Reward), revenue.Add(l.Revenue), net.Add(l.Net)
	}
	if !reward.Equal(s.Reward) || !revenue.Equal(s.Revenue) || !net.Equal(s.Net) || !s.Net.Equal(s.Revenue.Sub(s.Reward)) {
		t.Errorf("totals %v %v %v differ from the sums of the lines %v %v %v", s.Reward, s.Revenue, s.Net, reward, revenue, net)
	}
}
