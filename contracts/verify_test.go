package contracts

import (
	"math"
	"strings"
	"testing"
)

func quad(t testing.TB, c0 float64) Cost {
	t.Helper()
	c, err := NewQuadratic(CostConfig{C0: c0})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// The contracts issue's worked example, all values hand-computed and exact in
// binary floating point (sums of products of small dyadic-friendly values
// checked to 1e-9).
func TestVerifyWorkedExample(t *testing.T) {
	theta := []float64{0.2, 0.4, 0.8}
	menu := []Bundle{{Reward: 2550, Dt: 30}, {Reward: 1200, Dt: 15}, {Reward: 200, Dt: 5}}
	rep, err := Verify(menu, theta, quad(t, 10))
	if err != nil {
		t.Fatal(err)
	}
	wantU := [][]float64{{750, 750, 150}, {-1050, 300, 100}, {-4650, -600, 0}}
	for i := range wantU {
		for j := range wantU[i] {
			if got := rep.Utility[i][j]; math.Abs(got-wantU[i][j]) > 1e-9 {
				t.Errorf("u_%d(bundle %d) = %v, want %v", i+1, j+1, got, wantU[i][j])
			}
		}
	}
	if want := []int{0, 1, 2}; !equalInts(rep.Choice, want) {
		t.Errorf("choices %v, want %v (type 1's tie goes to its own bundle)", rep.Choice, want)
	}
	if !rep.OK() {
		t.Errorf("violations %v, want none", rep.Violations)
	}
	for j, want := range []float64{2350, 1000, 200} {
		if math.Abs(rep.MinReward[j]-want) > 1e-9 || math.Abs(rep.Slack[j]-(menu[j].Reward-want)) > 1e-9 {
			t.Errorf("bundle %d: minimal reward %v slack %v, want %v and %v", j+1, rep.MinReward[j], rep.Slack[j], want, menu[j].Reward-want)
		}
	}
	if got := money(rep.Slack[0]) + "," + money(rep.Slack[1]) + "," + money(rep.Slack[2]); got != "200.00,200.00,0.00" {
		t.Errorf("slack strings %s", got)
	}
}

func TestVerifyViolations(t *testing.T) {
	theta := []float64{0.2, 0.4, 0.8}
	tests := []struct {
		name string
		menu []Bundle
		want []Violation
	}{
		{"minimal menu is tight but valid", []Bundle{{Reward: 2350, Dt: 30}, {Reward: 1000, Dt: 15}, {Reward: 200, Dt: 5}}, nil},
		// type 3 gets 150 − 0.8·250 = −50: IR by 50; type 2 now prefers bundle 3:
		// 150 − 100 = 50 vs 1000 − 900 = 100, no; so only IR.
		{"top IR broken", []Bundle{{Reward: 2350, Dt: 30}, {Reward: 1000, Dt: 15}, {Reward: 150, Dt: 5}},
			[]Violation{{IR, 2, 2, 50}}},
		// bundle 2 reward 900: type 2 gets 0 on own, 100 on bundle 3 (IC by 100);
		// type 1 gets 450 on bundle 2 vs 550 on own: fine.
		{"middle IC broken", []Bundle{{Reward: 2350, Dt: 30}, {Reward: 900, Dt: 15}, {Reward: 200, Dt: 5}},
			[]Violation{{IC, 1, 2, 100}}},
		// Δt 5 then 15, c = 9000, 250, 2250. Type 1: own 550, bundle 2 950 (IC by
		// 400). Type 2: own 900, others negative. Type 3: own −1600 (IR by
		// 1600), bundle 2 800 (IC by 2400), bundle 1 −4850.
		{"not monotone", []Bundle{{Reward: 2350, Dt: 30}, {Reward: 1000, Dt: 5}, {Reward: 200, Dt: 15}},
			[]Violation{{IC, 0, 1, 400}, {IR, 2, 2, 1600}, {IC, 2, 1, 2400}, {Monotone, 1, 2, 10}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rep, err := Verify(tc.menu, theta, quad(t, 10))
			if err != nil {
				t.Fatal(err)
			}
			if len(rep.Violations) != len(tc.want) {
				t.Fatalf("Verify(%v) violations %v, want %v", tc.menu, rep.Violations, tc.want)
			}
			for k, v := range rep.Violations {
				w := tc.want[k]
				if v.Kind != w.Kind || v.Type != w.Type || v.Bundle != w.Bundle || math.Abs(v.Amount-w.Amount) > 1e-9 {
					t.Errorf("violation %d = %+v, want %+v", k, v, w)
				}
			}
			if (rep.Err() == nil) != (len(tc.want) == 0) {
				t.Errorf("Err() = %v with %d violations", rep.Err(), len(tc.want))
			}
		})
	}
}

func TestVerifyInputErrors(t *testing.T) {
	c := quad(t, 10)
	menu := []Bundle{{Reward: 1, Dt: 2}, {Reward: 0, Dt: 0}}
	tests := []struct {
		name  string
		theta []float64
		menu  []Bundle
		cost  Cost
		want  string
	}{
		{"decreasing θ", []float64{0.4, 0.2}, menu, c, "strictly increasing"},
		{"equal θ", []float64{0.4, 0.4}, menu, c, "strictly increasing"},
		{"negative θ", []float64{-1, 0.2}, menu, c, "≥ 0"},
		{"no types", nil, nil, c, "no types"},
		{"length mismatch", []float64{0.2, 0.4, 0.8}, menu, c, "2 bundles for 3 types"},
		{"negative Δt", []float64{0.2, 0.4}, []Bundle{{Dt: -1}, {}}, c, "Δt ≥ 0"},
		{"nil cost", []float64{0.2, 0.4}, menu, nil, "no cost"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Verify(tc.menu, tc.theta, tc.cost)
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "contracts: ") {
				t.Errorf("Verify(%v, %v) error %v, want one containing %q", tc.menu, tc.theta, err, tc.want)
			}
		})
	}
}

func TestCosts(t *testing.T) {
	for name := range Costs {
		c, err := Costs.New(name, CostConfig{C0: 2})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if c.C(0) != 0 || !(c.C(2) > c.C(1)) || !(c.C(1)+c.C(3) >= 2*c.C(2)) {
			t.Errorf("%s is not zero at 0, increasing and convex", name)
		}
		for _, c0 := range []float64{0, -1, math.Inf(1), math.NaN()} {
			if _, err := Costs.New(name, CostConfig{C0: c0}); err == nil || !strings.Contains(err.Error(), "c0") {
				t.Errorf("%s with c0 = %v: error %v, want one naming c0", name, c0, err)
			}
		}
	}
	if q := (Quadratic{10}); q.C(30) != 9000 {
		t.Errorf("quadratic c(30) = %v, want 9000", q.C(30))
	}
	if _, err := Costs.New("linear", CostConfig{C0: 1}); err == nil || !strings.Contains(err.Error(), "(known: cubic, quadratic)") {
		t.Errorf("unknown cost error %v", err)
	}
}

func TestChoose(t *testing.T) {
	menu := []Bundle{{Reward: 2550, Dt: 30}, {Reward: 1200, Dt: 15}, {Reward: 200, Dt: 5}}
	c := quad(t, 10)
	tests := []struct {
		theta float64
		own   int
		want  int
	}{
		{0.2, 0, 0}, {0.2, 1, 1}, {0.2, -1, 0}, // the tie at 750
		{0.4, 1, 1}, {0.8, 2, 2},
		{0.1, -1, 0}, // very flexible: 2550 − 900
		{2, -1, -1},  // 200 − 2·250 < 0 on every bundle
	}
	for _, tc := range tests {
		if got := Choose(menu, tc.theta, tc.own, c); got != tc.want {
			t.Errorf("Choose(θ=%v, own=%d) = %d, want %d", tc.theta, tc.own, got, tc.want)
		}
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
