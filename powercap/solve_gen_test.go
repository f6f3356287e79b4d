package powercap

import (
	"math"
	"math/rand/v2"
	"testing"
)

// randFillClasses returns 1 to most random classes of 1 to 9 options,
// weights ascending from about 0, some dominated; integer data when it
// is a multiple of 3 (exact fits and ties), each class shuffled when it
// is a multiple of 5.
func randFillClasses(r *rand.Rand, most, it int) [][]Option {
	classes := make([][]Option, 1+r.IntN(most))
	for j := range classes {
		w, c := r.Float64()*4-1, 50+r.Float64()*50
		for range 1 + r.IntN(9) {
			classes[j] = append(classes[j], Option{Weight: w, Cost: c})
			w += r.Float64() * 5
			c -= r.Float64()*12 - 2 // some dominated
			if it%3 == 0 {
				w, c = math.Round(w), math.Round(c)
			}
		}
		if it%5 == 0 {
			r.Shuffle(len(classes[j]), func(a, b int) { classes[j][a], classes[j][b] = classes[j][b], classes[j][a] })
		}
	}
	return classes
}

// builtLP reduces classes under an unbounded capacity, builds and resets
// the LP bound over their undominated options, and returns the solver
// and the total weight of the bound's increments.
func builtLP(t *testing.T, classes [][]Option) (*MCKP, float64) {
	t.Helper()
	s := new(MCKP)
	s.capacity = 1e9
	if !s.reduce(classes) {
		t.Fatal("reduce")
	}
	b := &s.lpb
	b.build(s, classes, s.undom, s.undomStart, false)
	b.reset()
	total := 0.0
	for _, in := range b.incs {
		total += in.dw
	}
	return s, total
}
