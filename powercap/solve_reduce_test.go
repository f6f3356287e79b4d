package powercap

import (
	"cmp"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// refReduce is reduce's definition: the finite options sorted by (weight,
// cost, index), each kept when it is cheaper than every lighter one kept.
func refReduce(classes [][]Option) (undom, start []int32, ok bool) {
	for _, opts := range classes {
		start = append(start, int32(len(undom)))
		var idx []int32
		for k, o := range opts {
			if isFiniteF(o.Weight) && isFiniteF(o.Cost) {
				idx = append(idx, int32(k))
			}
		}
		if len(idx) == 0 {
			return nil, nil, false
		}
		slices.SortFunc(idx, func(a, b int32) int {
			oa, ob := opts[a], opts[b]
			if c := cmp.Compare(oa.Weight, ob.Weight); c != 0 && oa.Weight != ob.Weight {
				return c
			}
			if c := cmp.Compare(oa.Cost, ob.Cost); c != 0 {
				return c
			}
			return cmp.Compare(a, b)
		})
		lastC := math.Inf(1)
		for _, k := range idx {
			if opts[k].Cost < lastC {
				undom, lastC = append(undom, k), opts[k].Cost
			}
		}
	}
	return undom, append(start, int32(len(undom))), true
}

// reduce (with its pass for classes already in ascending weight) keeps the
// options refReduce keeps, on classes drawn in ascending weight (DR's
// level tables), with equal weights, signed zeros, non-finite values, and
// in random order.
func TestReduceMatchesDefinition(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 0))
	var s MCKP
	for it := range 20000 {
		m := r.IntN(6)
		classes := make([][]Option, m)
		for j := range classes {
			w := 0.0
			for range r.IntN(7) {
				o := Option{Weight: w, Cost: float64(r.IntN(5))}
				switch r.IntN(12) {
				case 0:
					o.Weight = math.Copysign(0, -1)
				case 1:
					o.Cost = math.NaN()
				case 2:
					o.Weight = math.Inf(1)
				case 3: // equal weight
				default:
					w += float64(1 + r.IntN(3))
					o.Weight = w
				}
				classes[j] = append(classes[j], o)
			}
			if it%4 == 0 {
				r.Shuffle(len(classes[j]), func(a, b int) { classes[j][a], classes[j][b] = classes[j][b], classes[j][a] })
			}
		}
		undom, start, ok := refReduce(classes)
		got := s.reduce(classes)
		if got != ok || ok && (!slices.Equal(s.undom, undom) || !slices.Equal(s.undomStart, start)) {
			t.Fatalf("#%d: reduce(%v) = %v %v %v, want %v %v %v", it, classes, got, s.undom, s.undomStart, ok, undom, start)
		}
		if ok {
			for j, opts := range classes {
				a, b := start[j], start[j+1]
				if s.minW[j] != opts[undom[a]].Weight || s.minC[j] != opts[undom[b-1]].Cost {
					t.Fatalf("#%d: class %d: minW %v minC %v", it, j, s.minW[j], s.minC[j])
				}
			}
		}
	}
}
