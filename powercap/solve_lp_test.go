package powercap

import (
	"math"
	"math/rand/v2"
	"testing"
)

// lpValueRef is lpBound.value without the descent cache: the reference
// the cached value is compared with.
func lpValueRef(b *lpBound, free float64) float64 {
	n := len(b.tree) - 1
	pos, sumW, sumG := 0, 0.0, 0.0
	for bit := 1 << (b.log2N - 1); bit > 0; bit >>= 1 {
		if next := pos + bit; next <= n && sumW+b.tree[next].w <= free {
			pos = next
			sumW += b.tree[next].w
			sumG += b.tree[next].g
		}
	}
	v := b.baseC - sumG
	if pos < n {
		v -= b.incs[pos].eff * (free - sumW)
	}
	return v
}

// TestLPValueCacheMatchesDescent asks lpBound.value for free capacities
// near each other, at the ends of the cached range and just past them, and
// after classes are removed, and compares every answer bit for bit with a
// plain descent.
func TestLPValueCacheMatchesDescent(t *testing.T) {
	rng := rand.New(rand.NewPCG(18, 3))
	for trial := range 300 {
		m := 1 + rng.IntN(30)
		classes := make([][]Option, m)
		for j := range classes {
			w, c := rng.Float64()*10, 100+rng.Float64()*100
			for range 1 + rng.IntN(6) {
				classes[j] = append(classes[j], Option{Weight: w, Cost: c})
				w += rng.Float64() * 20
				c -= rng.Float64() * 30
				if rng.IntN(4) == 0 { // integer data: exact sums and ties
					w, c = math.Round(w), math.Round(c)
				}
			}
		}
		s, total := builtLP(t, classes)
		b := &s.lpb
		free := rng.Float64() * total
		for step := range 400 {
			switch r := rng.IntN(10); {
			case r == 0 && step%7 == 0:
				j := rng.IntN(m)
				b.remove(int32(j), classes[j][s.undom[s.undomStart[j]]].Cost)
			case r < 3:
				free = rng.Float64()*total*1.2 - 1
			case r < 5:
				free = b.last.lo // the ends of the cached range, and past them
				if r == 4 {
					free = math.Nextafter(b.last.lo, math.Inf(-1))
				}
			case r < 7:
				free = b.last.hi
				if r == 6 {
					free = math.Nextafter(b.last.hi, math.Inf(-1))
				}
			default:
				free -= rng.Float64() * total / 20
			}
			got, want := b.value(free), lpValueRef(b, free)
			if math.Float64bits(got) != math.Float64bits(want) && !(math.IsNaN(got) && math.IsNaN(want)) {
				t.Fatalf("trial %d step %d: value(%v) = %v, plain descent %v", trial, step, free, got, want)
			}
		}
	}
}
