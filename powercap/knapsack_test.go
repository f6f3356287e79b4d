package powercap

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// bruteKnapsack enumerates every subset, keep-first for each item in index
// order, and keeps the first of maximum value, then minimum weight (sums
// accumulated from the last item to the first): the reference for
// Knapsack.Solve.
func bruteKnapsack(weights, values []float64, capacity float64) (keep []bool, value float64) {
	n := len(weights)
	cur := make([]bool, n)
	value, weight, found := 0.0, 0.0, false
	keep = make([]bool, n)
	var rec func(i int)
	rec = func(i int) {
		if i == n {
			var w, v float64
			for j := n - 1; j >= 0; j-- {
				if cur[j] {
					w += weights[j]
					v += values[j]
				}
			}
			if w <= capacity && (!found || v > value || (v == value && w < weight)) {
				copy(keep, cur)
				value, weight, found = v, w, true
			}
			return
		}
		if isFiniteF(weights[i]) && isFiniteF(values[i]) {
			cur[i] = true
			rec(i + 1)
		}
		cur[i] = false
		rec(i + 1)
	}
	rec(0)
	return keep, value
}

func TestKnapsackMatchesBruteForce(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 0))
	var k Knapsack
	for it := range 20000 {
		mode := it % 3
		n := r.IntN(9)
		weights, values := make([]float64, n), make([]float64, n)
		var sum, pick float64
		for i := range n {
			weights[i], values[i] = randValue(r, mode), randValue(r, mode)
			if r.IntN(50) == 0 {
				values[i] = math.NaN()
			}
			sum += weights[i]
		}
		for i := n - 1; i >= 0; i-- {
			if r.IntN(2) == 0 {
				pick += weights[i]
			}
		}
		capacity := []float64{pick, pick, r.Float64() * sum, sum + 1, -1, 0}[r.IntN(6)]
		wantKeep, want := bruteKnapsack(weights, values, capacity)
		keep, value := k.Solve(weights, values, capacity)
		var w, v float64
		for i := n - 1; i >= 0; i-- {
			if keep[i] {
				w += weights[i]
				v += values[i]
			}
		}
		if w > capacity && n > 0 && v != 0 || v != value {
			t.Fatalf("#%d Solve(%v, %v, %v) = %v: weight %v value %v, reported %v", it, weights, values, capacity, keep, w, v, value)
		}
		if !relEqual(value, want) {
			t.Fatalf("#%d Solve(%v, %v, %v) value %v, want %v (%v)", it, weights, values, capacity, value, want, wantKeep)
		}
		if mode < 2 && fmt.Sprint(keep) != fmt.Sprint(wantKeep) {
			t.Fatalf("#%d Solve(%v, %v, %v) = %v, want %v", it, weights, values, capacity, keep, wantKeep)
		}
	}
}

func TestKnapsackCases(t *testing.T) {
	tests := []struct {
		name            string
		weights, values []float64
		capacity        float64
		keep            string
		value           float64
	}{
		// hand-computed, exact
		{"empty", nil, nil, 5, "[]", 0},
		{"all fit", []float64{1, 2}, []float64{3, 4}, 3, "[true true]", 7},
		{"ratio greedy is not optimal", []float64{1, 5, 5}, []float64{2, 5, 5}, 10, "[false true true]", 10},
		{"zero weight kept", []float64{0, 4}, []float64{1, 5}, 3, "[true false]", 1},
		{"zero value dropped", []float64{1, 1}, []float64{0, 2}, 5, "[false true]", 2},
		{"tie: lighter wins", []float64{3, 2}, []float64{5, 5}, 3, "[false true]", 5},
		{"tie: lower index kept", []float64{2, 2}, []float64{5, 5}, 3, "[true false]", 5},
		{"negative capacity", []float64{1}, []float64{1}, -1, "[false]", 0},
	}
	var k Knapsack
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			keep, value := k.Solve(tt.weights, tt.values, tt.capacity)
			if fmt.Sprint(keep) != tt.keep || value != tt.value {
				t.Errorf("Solve(%v, %v, %v) = %v, %v; want %s, %v", tt.weights, tt.values, tt.capacity, keep, value, tt.keep, tt.value)
			}
		})
	}
}

// benchItems models jobs kept at fmin: weight = processors × power at fmin,
// value = energy already spent (elapsed time × power), with the capacity
// at 60% of the total weight.
func benchItems(n int, seed uint64) (weights, values []float64, capacity float64) {
	r := rand.New(rand.NewPCG(seed, 0))
	weights, values = make([]float64, n), make([]float64, n)
	var sum float64
	for i := range n {
		procs := float64(1 + r.IntN(64))
		p := procs * (60 + 40*r.Float64())
		weights[i] = p
		values[i] = p * 1.4 * 3600 * r.Float64()
		sum += p
	}
	return weights, values, 0.6 * sum
}

func TestKnapsackBenchInstances(t *testing.T) {
	var k Knapsack
	for seed := range uint64(40) {
		w, v, c := benchItems(14, seed)
		_, want := bruteKnapsack(w, v, c)
		if _, got := k.Solve(w, v, c); !relEqual(got, want) {
			t.Errorf("seed %d: value %v, want %v", seed, got, want)
		}
	}
}

func TestKnapsackNoAllocs(t *testing.T) {
	w, v, c := benchItems(200, 7)
	var k Knapsack
	k.Solve(w, v, c)
	if n := testing.AllocsPerRun(20, func() { k.Solve(w, v, c) }); n != 0 {
		t.Errorf("Solve allocates %v times per repeated call, want 0", n)
	}
}

var sinkValue float64

func BenchmarkKnapsack(b *testing.B) {
	for _, n := range []int{50, 200, 500} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			var inst [8]struct {
				w, v []float64
				c    float64
			}
			var k Knapsack
			for i := range inst {
				inst[i].w, inst[i].v, inst[i].c = benchItems(n, uint64(i+1))
				k.Solve(inst[i].w, inst[i].v, inst[i].c)
			}
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				in := &inst[i%len(inst)]
				_, v := k.Solve(in.w, in.v, in.c)
				sinkValue += v
				i++
			}
		})
	}
}

// Keep the jobs that have spent the most energy within 10 kW at fmin.
func ExampleKnapsack() {
	var k Knapsack
	keep, value := k.Solve([]float64{6000, 5000, 5000}, []float64{9e6, 6e6, 5e6}, 10000)
	fmt.Println(keep, value)
	// Output: [false true true] 1.1e+07
}
