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

// reduceClasses draws classes for the reduce tests: in ascending weight
// (DR's level tables), from a negative weight on in one class in three,
// with equal weights, signed zeros, non-finite values, and in random order
// one time in four.
func reduceClasses(r *rand.Rand, it int) [][]Option {
	m := r.IntN(6)
	classes := make([][]Option, m)
	for j := range classes {
		w := 0.0
		if r.IntN(3) == 0 {
			w = -float64(r.IntN(9))
		}
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
	return classes
}

// refAbsW is the sum over classes of the largest |weight| among their
// undominated options (reduce's term of the weight slack).
func refAbsW(classes [][]Option, undom, start []int32) float64 {
	var absW float64
	for j, opts := range classes {
		maxW := 0.0
		for _, k := range undom[start[j]:start[j+1]] {
			maxW = max(maxW, math.Abs(opts[k].Weight))
		}
		absW += maxW
	}
	return absW
}

// reduce (with its pass for classes already in ascending weight) keeps the
// options refReduce keeps, with the minima, the cheapest options' weights,
// wide (a class spanning more than half the capacity) and the weight slack
// of their definitions, on reduceClasses' classes.
func TestReduceMatchesDefinition(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 0))
	var s MCKP
	for it := range 20000 {
		classes := reduceClasses(r, it)
		m := len(classes)
		s.capacity = float64(r.IntN(50) - 10)
		undom, start, ok := refReduce(classes)
		got := s.reduce(classes)
		if got != ok || ok && (!slices.Equal(s.undom, undom) || !slices.Equal(s.undomStart, start)) {
			t.Fatalf("#%d: reduce(%v) = %v %v %v, want %v %v %v", it, classes, got, s.undom, s.undomStart, ok, undom, start)
		}
		if ok {
			wide := false
			for j, opts := range classes {
				a, b := start[j], start[j+1]
				if s.minW[j] != opts[undom[a]].Weight || s.minC[j] != opts[undom[b-1]].Cost || s.cheapW[j] != opts[undom[b-1]].Weight {
					t.Fatalf("#%d: class %d: minW %v minC %v cheapW %v", it, j, s.minW[j], s.minC[j], s.cheapW[j])
				}
				wide = wide || opts[undom[b-1]].Weight-opts[undom[a]].Weight > s.capacity/2
			}
			if s.wide != wide {
				t.Fatalf("#%d: %v capacity %v: wide %v, want %v", it, classes, s.capacity, s.wide, wide)
			}
			want := 4 * float64(m+2) * 0x1p-52 * (math.Abs(s.capacity) + refAbsW(classes, undom, start))
			if math.Float64bits(s.slackW) != math.Float64bits(want) {
				t.Fatalf("#%d: %v: slackW %v, want %v", it, classes, s.slackW, want)
			}
		}
	}
}

// prepare's Lagrangian minima, L0 and cost slack are those of their
// definitions (minima and largest |cost| over every undominated option),
// bit for bit, on reduceClasses' classes.
func TestPrepareMatchesDefinition(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 1))
	var s MCKP
	for it := range 20000 {
		classes := reduceClasses(r, it)
		for j := range classes {
			for k := range classes[j] {
				if r.IntN(3) == 0 {
					classes[j][k].Cost -= 6 // negative costs too
				}
			}
		}
		m := len(classes)
		s.capacity = float64(r.IntN(50) - 10)
		if !s.reduce(classes) {
			continue
		}
		s.lambda, s.best = r.Float64()*3, float64(r.IntN(40)-20)
		s.prepare(classes)
		var absC, sumL float64
		for j, opts := range classes {
			mn, mx := math.Inf(1), 0.0
			for _, k := range s.undom[s.undomStart[j]:s.undomStart[j+1]] {
				mn = min(mn, opts[k].Cost+s.lambda*opts[k].Weight)
				mx = max(mx, math.Abs(opts[k].Cost))
			}
			if math.Float64bits(s.minL[j]) != math.Float64bits(mn) {
				t.Fatalf("#%d: class %d: minL %v, want %v", it, j, s.minL[j], mn)
			}
			absC += mx
			sumL += mn
		}
		l0 := sumL - s.lambda*s.capacity
		slackC := 4*float64(m+2)*0x1p-52*(absC+math.Abs(s.best)+math.Abs(l0)) + s.lambda*s.slackW
		if math.Float64bits(s.l0) != math.Float64bits(l0) || math.Float64bits(s.slackC) != math.Float64bits(slackC) {
			t.Fatalf("#%d: %v: L0 %v slackC %v, want %v %v", it, classes, s.l0, s.slackC, l0, slackC)
		}
	}
}
