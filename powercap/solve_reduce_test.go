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

// refMinGap is reduce's minGap: the least difference between consecutive
// options' weights when all are finite and in strictly ascending weight
// (+Inf for one option), else -Inf (fill never passes such a class over).
func refMinGap(opts []Option) float64 {
	g := math.Inf(1)
	for k, o := range opts {
		if !isFiniteF(o.Weight) || !isFiniteF(o.Cost) || k > 0 && !(o.Weight > opts[k-1].Weight) {
			return math.Inf(-1)
		}
		if k > 0 {
			g = min(g, o.Weight-opts[k-1].Weight)
		}
	}
	return g
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
// the least weight steps, wide (the first class of widest span, if more
// than half the capacity: probe's giant), the hulls and their increments
// (for relax) and the weight slack of their definitions, on
// reduceClasses' classes.
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
			wide, span := -1, s.capacity/2
			for j, opts := range classes {
				a, b := start[j], start[j+1]
				if s.minW[j] != opts[undom[a]].Weight || s.minC[j] != opts[undom[b-1]].Cost || s.cheapW[j] != opts[undom[b-1]].Weight {
					t.Fatalf("#%d: class %d: minW %v minC %v cheapW %v", it, j, s.minW[j], s.minC[j], s.cheapW[j])
				}
				if sp := opts[undom[b-1]].Weight - opts[undom[a]].Weight; sp > span {
					wide, span = j, sp
				}
				if g := refMinGap(opts); math.Float64bits(s.minGap[j]) != math.Float64bits(g) {
					t.Fatalf("#%d: class %d %v: minGap %v, want %v", it, j, opts, s.minGap[j], g)
				}
			}
			if s.wide != wide {
				t.Fatalf("#%d: %v capacity %v: wide %v, want %v", it, classes, s.capacity, s.wide, wide)
			}
			// The hulls and their increments, class by class, as relax
			// built them from the undominated options.
			var hull, hullStart []int32
			var incs []mckpInc
			for j, opts := range classes {
				h := mckpHull(undom[start[j]:start[j+1]], opts, nil)
				for i := 1; i < len(h); i++ {
					a, b := opts[h[i-1]], opts[h[i]]
					incs = append(incs, mckpInc{eff: (a.Cost - b.Cost) / (b.Weight - a.Weight), dw: b.Weight - a.Weight})
				}
				hullStart = append(hullStart, int32(len(hull)))
				hull = append(hull, h...)
			}
			hullStart = append(hullStart, int32(len(hull)))
			if !slices.Equal(s.hull, hull) || !slices.Equal(s.hullStart, hullStart) || !slices.EqualFunc(s.incs, incs, func(a, b mckpInc) bool {
				return math.Float64bits(a.eff) == math.Float64bits(b.eff) && math.Float64bits(a.dw) == math.Float64bits(b.dw)
			}) {
				t.Fatalf("#%d: %v: hulls %v %v increments %v, want %v %v %v", it, classes, s.hull, s.hullStart, s.incs, hull, hullStart, incs)
			}
			want := 4 * float64(m+2) * 0x1p-52 * (math.Abs(s.capacity) + refAbsW(classes, undom, start))
			if math.Float64bits(s.slackW) != math.Float64bits(want) {
				t.Fatalf("#%d: %v: slackW %v, want %v", it, classes, s.slackW, want)
			}
		}
	}
}

// The Lagrangian minima (incumbent's first pass), L0 and cost slack
// (prepare) are those of their definitions (minima and largest |cost| over
// every undominated option), bit for bit, on reduceClasses' classes, for
// any λ and incumbent cost.
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
		s.relax(classes)
		s.lambda = r.Float64() * 3
		s.incumbent(classes)
		s.best = float64(r.IntN(40) - 20)
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

// filter's per-class records of the active options (their cost span, the
// first one's weight and cost) are those of their definitions, bit for
// bit, on reduceClasses' classes, for any λ and limit.
func TestFilterRecordsMatchDefinition(t *testing.T) {
	r := rand.New(rand.NewPCG(13, 2))
	var s MCKP
	wide := 0
	for it := range 20000 {
		classes := reduceClasses(r, it)
		if !filterReady(r, &s, classes) {
			continue
		}
		s.filter(classes, s.l0+float64(r.IntN(30)))
		for j, opts := range classes {
			act := s.active[s.actStart[j]:s.actStart[j+1]]
			span, w, c := 0.0, 0.0, 0.0
			if len(act) >= 2 {
				span = opts[act[0]].Cost - opts[act[len(act)-1]].Cost
				wide++
			}
			if len(act) > 0 {
				w, c = opts[act[0]].Weight, opts[act[0]].Cost
			}
			if math.Float64bits(s.span[j]) != math.Float64bits(span) || math.Float64bits(s.actW[j]) != math.Float64bits(w) || math.Float64bits(s.actC[j]) != math.Float64bits(c) {
				t.Fatalf("#%d: class %d %v active %v: span %v first %v %v, want %v %v %v", it, j, opts, act, s.span[j], s.actW[j], s.actC[j], span, w, c)
			}
		}
	}
	if wide == 0 {
		t.Error("no class kept two active options: the instances do not exercise the span")
	}
}

// filterReady sets s up on classes as Solve does before its filter
// rounds, with a random capacity and λ: reduce, relax, incumbent and
// prepare. It reports false when reduce finds no feasible choice.
func filterReady(r *rand.Rand, s *MCKP, classes [][]Option) bool {
	s.capacity = float64(r.IntN(50) - 10)
	if !s.reduce(classes) {
		return false
	}
	s.relax(classes)
	s.lambda = r.Float64() * 3
	s.incumbent(classes)
	s.prepare(classes)
	return true
}

// filter's active options and order keys are those of its definition
// (each undominated option that fits beside the other classes' lightest
// ones, with its reduced cost c + λw − min(c + λw) within the gap), bit
// for bit, in every round of a problem (1-3 limits per problem, as
// rounds asks them): a cache of anything across rounds or problems must
// keep this.
func TestFilterMatchesDefinition(t *testing.T) {
	r := rand.New(rand.NewPCG(17, 5))
	var s MCKP
	rounds, kept := 0, 0
	for it := range 20000 {
		classes := reduceClasses(r, it)
		for j := range classes {
			for k := range classes[j] {
				if r.IntN(4) == 0 {
					classes[j][k].Cost += r.Float64() // costs off the integers too
				}
			}
		}
		if !filterReady(r, &s, classes) {
			continue
		}
		for range 1 + r.IntN(3) {
			limit := s.l0 + float64(r.IntN(30))*r.Float64()
			s.filter(classes, limit)
			rounds++
			gap := limit - s.l0 + s.slackC
			limW := s.capacity + s.slackW
			var want []int32
			for j, opts := range classes {
				if got := s.actStart[j]; got != int32(len(want)) {
					t.Fatalf("#%d: class %d starts at %d, want %d", it, j, got, len(want))
				}
				others, key := s.sumW-s.minW[j], math.Inf(1)
				for _, k := range s.undom[s.undomStart[j]:s.undomStart[j+1]] {
					o := opts[k]
					if o.Weight+others > limW {
						break
					}
					if rc := o.Cost + s.lambda*o.Weight - s.minL[j]; rc <= gap {
						want = append(want, k)
						if rc > 0 {
							key = min(key, rc)
						}
					}
				}
				if math.Float64bits(s.key[j]) != math.Float64bits(key) {
					t.Fatalf("#%d: class %d key %v, want %v", it, j, s.key[j], key)
				}
			}
			if !slices.Equal(s.active, want) || s.actStart[len(classes)] != int32(len(want)) {
				t.Fatalf("#%d: %v: active %v, want %v", it, classes, s.active, want)
			}
			kept += len(want)
		}
	}
	if rounds == 0 || kept == 0 {
		t.Errorf("%d rounds kept %d options: the instances do not exercise filter", rounds, kept)
	}
}
