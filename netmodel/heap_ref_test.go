package netmodel

import (
	"math"
	"math/rand/v2"
	"testing"
)

// The fill heap's former child choice (before round 13 took the lesser
// child with flags and no branch): popRef and raiseTopRef are pop and
// raiseTop as they were, the references of TestHeapMatchesReference.

func (s *mmScratch) popRef() mmItem {
	h := s.heap
	top := h[0]
	n := len(h) - 1
	last := h[n]
	h = h[:n]
	s.heap = h
	if n == 0 {
		return top
	}
	i := 0
	for {
		c := 2*i + 1
		if c >= n {
			break
		}
		if c+1 < n && h[c+1].less(h[c]) {
			c++
		}
		h[i] = h[c]
		i = c
	}
	for i > 0 {
		p := (i - 1) / 2
		if !last.less(h[p]) {
			break
		}
		h[i] = h[p]
		i = p
	}
	h[i] = last
	return top
}

func (s *mmScratch) raiseTopRef(it mmItem) {
	h := s.heap
	n := len(h)
	i := 0
	for {
		c := 2*i + 1
		if c >= n {
			break
		}
		if c+1 < n && h[c+1].less(h[c]) {
			c++
		}
		if !h[c].less(it) {
			break
		}
		h[i] = h[c]
		i = c
	}
	h[i] = it
}

func sameItem(a, b mmItem) bool {
	return math.Float64bits(a.key) == math.Float64bits(b.key) && a.link == b.link && a.at == b.at
}

// Random pushes, pops and raises on two heaps, one with pop and raiseTop,
// one with the references: every pop the same item and the heaps the same
// array after every step. Keys from a few values (ties broken by link,
// links repeated too), zeros, +Inf, some NaN; long runs (heaps of
// thousands) every so often.
func TestHeapMatchesReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(13, 1))
	keys := []float64{0, 0.5, 1, 1, 2, 2.5, math.Inf(1)}
	key := func(nan bool) float64 {
		switch r := rng.IntN(10); {
		case nan && r == 0:
			return math.NaN()
		case r < 6:
			return keys[rng.IntN(len(keys))]
		}
		return rng.Float64() * 3
	}
	for c := 0; c < 3000; c++ {
		nan := c%4 == 0
		steps, links := 1+rng.IntN(200), int32(1+rng.IntN(50))
		if c%300 == 0 {
			steps, links = 20000, 5000
		}
		var a, b mmScratch
		for step := 0; step < steps; step++ {
			switch r := rng.IntN(10); {
			case r < 5 || len(a.heap) < 2:
				it := mmItem{key(nan), rng.Int32N(links), int32(rng.IntN(4))}
				a.push(it)
				b.push(it)
			case r < 8:
				if x, y := a.pop(), b.popRef(); !sameItem(x, y) {
					t.Fatalf("case %d step %d: pop %v, reference %v", c, step, x, y)
				}
			default:
				// a greater item (raiseTop's contract), or with NaN any
				it := a.heap[0]
				it.key += rng.Float64() * 2
				it.at++
				if rng.IntN(3) == 0 {
					it.link += 1 + rng.Int32N(3)
				}
				a.raiseTop(it)
				b.raiseTopRef(it)
			}
			if len(a.heap) != len(b.heap) {
				t.Fatalf("case %d step %d: heap lengths %d, %d", c, step, len(a.heap), len(b.heap))
			}
			for i := range a.heap {
				if !sameItem(a.heap[i], b.heap[i]) {
					t.Fatalf("case %d step %d: heap[%d] %v, reference %v", c, step, i, a.heap[i], b.heap[i])
				}
			}
		}
	}
}
