package contracts

import (
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/optimize/convex/lp"

	"drsim/powercap"
)

// threeLevels: Δt 20 % at 40 W, 10 % at 60 W, 0 at 100 W per processor.
var threeLevels = []powercap.Level{{X: 1.0, Power: 40, Scale: 1.2}, {X: 1.5, Power: 60, Scale: 1.1}, {X: 2.0, Power: 100, Scale: 1}}

// Hand-computed: θ = {1, 2}, m = {1, 1}, 10 processors, ts = 3600 s,
// c = 0.01·Δt² (c(10) = 1, c(20) = 4). Δe(10 %) = 10·40·3600 J = 4e-4 MWh,
// Δe(20 %) = 6e-4 MWh. Weights w_1 = 1, w_2 = 2 + 1·(2 − 1) = 3.
func TestOptimalHandComputed(t *testing.T) {
	tests := []struct {
		price      float64
		dt, reward []float64
		utility    float64
	}{
		// φ = 5000: gains 2 and 3. Type 1: max(0, 2−1, 3−4) → 10 %. Type 2:
		// max(0, 2−3, 3−12) → 0. r_2 = 0, r_1 = 0 + 1·(1 − 0) = 1; U = 2 − 1.
		{5000, []float64{10, 0}, []float64{1, 0}, 1},
		// φ = 20000: gains 8 and 12. Type 1: max(0, 7, 8) → 20 %. Type 2:
		// max(0, 8−3, 12−12) → 10 %. r_2 = 2·1 = 2, r_1 = 2 + 1·(4−1) = 5;
		// U = (12 − 5) + (8 − 2) = 13.
		{20000, []float64{20, 10}, []float64{5, 2}, 13},
		// A negative price: nobody is asked to slow down, nobody is paid.
		{-30, []float64{0, 0}, []float64{0, 0}, 0},
	}
	for _, tc := range tests {
		types := []Type{{Theta: 1, M: 1, Procs: 10, Levels: threeLevels}, {Theta: 2, M: 1, Procs: 10, Levels: threeLevels}}
		m, err := Optimal(types, SlotOptions{Price: tc.price, Cost: quad(t, 0.01)})
		if err != nil {
			t.Fatal(err)
		}
		for i, b := range m.Bundles {
			if math.Abs(b.Dt-tc.dt[i]) > 1e-9 || math.Abs(b.Reward-tc.reward[i]) > 1e-9 {
				t.Errorf("φ=%v: bundle %d = (r %v, Δt %v), want (%v, %v)", tc.price, i+1, b.Reward, b.Dt, tc.reward[i], tc.dt[i])
			}
		}
		if math.Abs(m.Utility-tc.utility) > 1e-9 {
			t.Errorf("φ=%v: utility %v, want %v", tc.price, m.Utility, tc.utility)
		}
	}
}

func TestOptimalErrors(t *testing.T) {
	ok := Type{Theta: 1, M: 1, Procs: 1, Levels: threeLevels}
	with := func(f func(*Type)) []Type {
		t2 := ok
		f(&t2)
		return []Type{{Theta: 0.5, M: 1, Procs: 1, Levels: threeLevels}, t2}
	}
	tests := []struct {
		name  string
		types []Type
		opts  SlotOptions
		want  string
	}{
		{"non-increasing θ", with(func(t *Type) { t.Theta = 0.5 }), SlotOptions{Cost: Quadratic{1}}, "strictly increasing"},
		{"nil cost", with(func(*Type) {}), SlotOptions{}, "Cost is nil"},
		{"bad PUE", with(func(*Type) {}), SlotOptions{Cost: Quadratic{1}, PUE: 0.5}, "PUE"},
		{"negative m", with(func(t *Type) { t.M = -1 }), SlotOptions{Cost: Quadratic{1}}, "m = -1"},
		{"no procs", with(func(t *Type) { t.Procs = 0 }), SlotOptions{Cost: Quadratic{1}}, "0 processors"},
		{"no levels", with(func(t *Type) { t.Levels = nil }), SlotOptions{Cost: Quadratic{1}}, "no frequency levels"},
		{"unsorted levels", with(func(t *Type) { t.Levels = []powercap.Level{threeLevels[2], threeLevels[0]} }), SlotOptions{Cost: Quadratic{1}}, "not ascending"},
		{"zero weights", []Type{{Theta: 1, Procs: 1, Levels: threeLevels}}, SlotOptions{Cost: Quadratic{1}}, "all type weights"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Optimal(tc.types, tc.opts)
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "contracts: ") {
				t.Errorf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
}

// randomInstance draws n types over L-level grids. shared makes every type
// use one table and one processor count (the setting where ironing applies).
func randomInstance(r *rand.Rand, n, L int, shared bool) ([]Type, SlotOptions) {
	grid := func() []powercap.Level {
		ls := make([]powercap.Level, L)
		for k := range ls {
			x := 1 + float64(k)*0.25
			// power grows and runtime scale falls with X, with noise so that
			// some levels are dominated
			ls[k] = powercap.Level{X: x, Power: 50 + 60*x*x*(0.8+0.4*r.Float64()), Scale: 1 + 0.6*float64(L-1-k)/float64(L)*(0.5+r.Float64())}
		}
		ls[L-1].Scale = 1
		return ls
	}
	g, procs := grid(), 1+r.IntN(64)
	types := make([]Type, n)
	theta := 0.05 + r.Float64()
	for i := range types {
		types[i] = Type{Theta: theta, M: float64(r.IntN(5)), Procs: procs, Levels: g}
		if !shared {
			types[i].Procs, types[i].Levels = 1+r.IntN(64), grid()
		}
		theta += 0.01 + r.Float64()
	}
	types[r.IntN(n)].M++ // at least one positive weight
	opts := SlotOptions{Price: -20 + 2000*r.Float64(), PUE: 1 + r.Float64(), Slot: 900, Cost: Quadratic{C0: 1e-4 * (0.1 + r.Float64())}}
	return types, opts
}

// bruteForce enumerates every assignment of levels to types. For monotone
// ones it uses the binding rewards; every assignment is also checked with
// Verify (non-monotone assignments must fail with those rewards).
func bruteForce(t *testing.T, types []Type, o SlotOptions) float64 {
	theta, _, err := checkTypes(types)
	if err != nil {
		t.Fatal(err)
	}
	cands := make([][]candidate, len(types))
	for i, ty := range types {
		cands[i] = candidates(ty, o)
	}
	best := math.Inf(-1)
	idx := make([]int, len(types))
	for {
		bs := make([]Bundle, len(types))
		c := make([]float64, len(types))
		monotone := true
		for i, k := range idx {
			bs[i].Dt, c[i] = cands[i][k].dt, cands[i][k].c
			if i > 0 && bs[i].Dt > bs[i-1].Dt+DtTol {
				monotone = false
			}
		}
		r := MinRewards(theta, c)
		for i := range bs {
			bs[i].Reward = r[i]
		}
		rep, err := Verify(bs, theta, o.Cost)
		if err != nil {
			t.Fatal(err)
		}
		if rep.OK() != monotone {
			t.Fatalf("assignment %v: monotone %v but Verify OK %v (%v)", idx, monotone, rep.OK(), rep.Violations)
		}
		if monotone {
			u := 0.0
			for i, k := range idx {
				u += cands[i][k].gain - types[i].M*r[i]
			}
			best = math.Max(best, u)
		}
		i := 0
		for ; i < len(idx); i++ {
			if idx[i]++; idx[i] < len(cands[i]) {
				break
			}
			idx[i] = 0
		}
		if i == len(idx) {
			return best
		}
	}
}

func TestOptimalMatchesBruteForce(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 0))
	for trial := range 300 {
		n, L := 1+r.IntN(5), 1+r.IntN(6)
		types, o := randomInstance(r, n, L, trial%2 == 0)
		m, err := Optimal(types, o)
		if err != nil {
			t.Fatalf("trial %d: %v", trial, err)
		}
		want := bruteForce(t, types, o)
		if math.Abs(m.Utility-want) > 1e-9*math.Max(1, math.Abs(want)) {
			t.Fatalf("trial %d (n=%d, L=%d): Optimal utility %v, brute force %v", trial, n, L, m.Utility, want)
		}
	}
}

// Every menu Optimal returns passes an independent Verify, on larger random
// instances too, and its utility is never negative (Δt = 0 for all is free).
func TestOptimalAlwaysVerifies(t *testing.T) {
	r := rand.New(rand.NewPCG(2, 0))
	for trial := range 500 {
		types, o := randomInstance(r, 1+r.IntN(16), 1+r.IntN(12), trial%3 == 0)
		m, err := Optimal(types, o)
		if err != nil {
			t.Fatalf("trial %d: %v", trial, err)
		}
		rep, err := Verify(m.Bundles, m.Theta, o.Cost)
		if err != nil || !rep.OK() {
			t.Fatalf("trial %d: Verify = %v, %v", trial, err, rep.Violations)
		}
		if m.Utility < -1e-9 {
			t.Fatalf("trial %d: negative operator utility %v", trial, m.Utility)
		}
		for j, s := range rep.Slack {
			if math.Abs(s) > 1e-9 {
				t.Fatalf("trial %d: bundle %d slack %v, want 0 (rewards are minimal)", trial, j+1, s)
			}
		}
	}
}

// minRewardsLP solves min Σ m_i r_i subject to every IR and IC with gonum's
// simplex: the independent check of MinRewards. Costs are scaled to at most
// 1 first (rewards scale with them) to keep the simplex well conditioned.
func minRewardsLP(theta, c0, m []float64) ([]float64, error) {
	n := len(theta)
	scale := 1.0
	for _, v := range c0 {
		scale = math.Max(scale, v)
	}
	c := make([]float64, n)
	for i := range c {
		c[i] = c0[i] / scale
	}
	var g []float64
	var h []float64
	for i := range n {
		row := make([]float64, n)
		row[i] = -1 // IR: −r_i ≤ −θ_i c_i
		g, h = append(g, row...), append(h, -theta[i]*c[i])
		for j := range n {
			if j != i { // IC: r_j − r_i ≤ θ_i (c_j − c_i)
				row := make([]float64, n)
				row[i], row[j] = -1, 1
				g, h = append(g, row...), append(h, theta[i]*(c[j]-c[i]))
			}
		}
	}
	cNew, aNew, bNew := lp.Convert(m, mat.NewDense(len(h), n, g), h, nil, nil)
	_, x, err := lp.Simplex(cNew, aNew, bNew, 1e-10, nil)
	if err != nil {
		return nil, err
	}
	r := make([]float64, n)
	for i := range r {
		r[i] = (x[i] - x[n+i]) * scale
	}
	return r, nil
}

func TestMinRewardsMatchesLP(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 0))
	for trial := range 200 {
		n := 1 + r.IntN(6)
		theta, c, m := make([]float64, n), make([]float64, n), make([]float64, n)
		th, dt := 0.1+r.Float64(), 40*r.Float64()
		for i := range n {
			theta[i], m[i] = th, 0.1+r.Float64()
			c[i] = Quadratic{10}.C(dt)
			th += 0.05 + r.Float64()
			if r.IntN(3) > 0 { // sometimes pool
				dt *= r.Float64()
			}
		}
		want := MinRewards(theta, c)
		got, err := minRewardsLP(theta, c, m)
		if err != nil {
			t.Fatalf("trial %d: LP: %v (θ %v, c %v, m %v)", trial, err, theta, c, m)
		}
		for i := range n {
			if math.Abs(got[i]-want[i]) > 1e-6*math.Max(1, want[i]) {
				t.Fatalf("trial %d: r_%d binding %v, LP %v (θ %v, c %v)", trial, i+1, want[i], got[i], theta, c)
			}
		}
	}
	// A non-monotone Δt cannot be implemented: the LP is infeasible.
	if _, err := minRewardsLP([]float64{1, 2}, []float64{1, 4}, []float64{1, 1}); err == nil {
		t.Error("LP with Δt increasing in θ is feasible, want infeasible")
	}
}

func TestIron(t *testing.T) {
	tests := []struct {
		name    string
		w, m    []float64
		want    []float64
		comment string
	}{
		{"already monotone", []float64{1, 3}, []float64{1, 1}, []float64{1, 3}, ""},
		// θ = {1, 2, 3}, m = {1, 0.1, 1}: w = {1, 0.2 + 1·1, 3 + 1.1·1}, ψ = {1, 12, 4.1}:
		// types 2 and 3 pool at (1.2 + 4.1)/1.1.
		{"rare middle type", []float64{1, 1.2, 4.1}, []float64{1, 0.1, 1}, []float64{1, 5.3 / 1.1, 5.3 / 1.1}, ""},
		// a type with no mass but positive weight pools with the next one
		{"zero mass", []float64{1, 1, 5}, []float64{1, 0, 1}, []float64{1, 6, 6}, ""},
		{"zero mass last", []float64{1, 2}, []float64{1, 0}, []float64{1, math.Inf(1)}, ""},
		{"leading zero", []float64{0, 2}, []float64{0, 1}, []float64{2, 2}, ""},
		{"all pooled", []float64{9, 2, 1}, []float64{1, 1, 1}, []float64{4, 4, 4}, ""},
	}
	for _, tc := range tests {
		got := Iron(tc.w, tc.m)
		for i := range got {
			if !(got[i] == tc.want[i] || math.Abs(got[i]-tc.want[i]) < 1e-12 || math.IsNaN(got[i]) && math.IsNaN(tc.want[i])) {
				t.Errorf("%s: Iron(%v, %v) = %v, want %v", tc.name, tc.w, tc.m, got, tc.want)
				break
			}
		}
	}
}

// With one table and one processor count the textbook solution applies:
// iron the virtual types, then pick each pool's level pointwise. It must reach
// the dynamic programme's utility, and pooled types must share Δt there.
func TestIroningMatchesChain(t *testing.T) {
	r := rand.New(rand.NewPCG(4, 0))
	for trial := range 300 {
		types, o := randomInstance(r, 1+r.IntN(8), 1+r.IntN(8), true)
		m, err := Optimal(types, o)
		if err != nil {
			t.Fatal(err)
		}
		cands := candidates(Type{M: 1, Procs: types[0].Procs, Levels: types[0].Levels}, o)
		u := 0.0
		for i := 0; i < len(types); {
			j, mass, w := i, 0.0, 0.0
			for ; j < len(types) && m.Virtual[j] == m.Virtual[i]; j++ {
				mass, w = mass+types[j].M, w+m.Weight[j]
			}
			best := math.Inf(-1)
			for _, c := range cands {
				best = math.Max(best, mass*c.gain-w*c.c) // c.gain is per unit m
			}
			u += best
			i = j
		}
		if math.Abs(u-m.Utility) > 1e-9*math.Max(1, math.Abs(u)) {
			t.Fatalf("trial %d: ironing utility %v, chain %v (ψ̄ %v)", trial, u, m.Utility, m.Virtual)
		}
	}
}

var sinkMenu *Menu

func BenchmarkOptimal(b *testing.B) {
	r := rand.New(rand.NewPCG(5, 0))
	for _, n := range []int{3, 10, 30} {
		types, o := randomInstance(r, n, 12, false)
		b.Run("types="+strconv.Itoa(n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				m, err := Optimal(types, o)
				if err != nil {
					b.Fatal(err)
				}
				sinkMenu = m
			}
		})
	}
}
