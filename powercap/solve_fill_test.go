package powercap

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// fillRef is fill's definition: a walk over every undominated option of
// each class, moving to each heavier one whose extra weight fits.
func fillRef(s *MCKP, classes [][]Option, free float64) {
	for j, opts := range classes {
		cur := opts[s.inc[j]]
		for _, k := range s.undom[s.undomStart[j]:s.undomStart[j+1]] {
			if o := opts[k]; o.Weight > cur.Weight && o.Weight-cur.Weight <= free {
				free -= o.Weight - cur.Weight
				s.inc[j], cur = k, o
			}
		}
	}
	var w, c float64
	for j := len(classes) - 1; j >= 0; j-- {
		w += classes[j][s.inc[j]].Weight
		c += classes[j][s.inc[j]].Cost
	}
	s.best = math.Inf(1)
	if w <= s.capacity {
		s.best = c
	}
}

// fill makes the moves of fillRef, from any starting choice (dominated
// options included, as a hint may name) and any residual capacity, on
// classes with fractional and integer weights (equal extra weights, exact
// fits), in ascending weight or shuffled; classes whose least weight step
// exceeds the capacity left are passed over.
func TestFillMatchesDefinition(t *testing.T) {
	r := rand.New(rand.NewPCG(18, 5))
	var s, ref MCKP
	passed := 0 // classes fill passes over (free below their least weight step)
	for it := range 20000 {
		classes := randFillClasses(r, 8, it)
		s.capacity = r.Float64() * 40
		if !s.reduce(classes) {
			t.Fatal("reduce")
		}
		ref.undom, ref.undomStart, ref.capacity = s.undom, s.undomStart, s.capacity
		s.inc = mckpResize(s.inc, len(classes))
		for j := range classes {
			s.inc[j] = int32(r.IntN(len(classes[j])))
		}
		ref.inc = slices.Clone(s.inc)
		free := r.Float64()*20 - 2
		if it%7 == 0 {
			free = math.Round(free)
		}
		for _, g := range s.minGap {
			if free < g {
				passed++
			}
		}
		s.fill(classes, free)
		fillRef(&ref, classes, free)
		if !slices.Equal(s.inc, ref.inc) || math.Float64bits(s.best) != math.Float64bits(ref.best) {
			t.Fatalf("#%d: %v free %v: fill %v best %v, definition %v best %v", it, classes, free, s.inc, s.best, ref.inc, ref.best)
		}
	}
	if passed == 0 {
		t.Error("no class was passed over by its least weight step: the instances do not exercise it")
	}
}
