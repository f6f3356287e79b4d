package scheduler

import (
	"math/rand"
	"testing"
)

// countLEScan is the scan countLE replaced in locate and splitAfter.
func countLEScan(ts []float64, t float64) int {
	j := 0
	for j < len(ts) && ts[j] <= t {
		j++
	}
	return j
}

// TestLastLEMatchesScan checks lastLE against the former scan on random
// blocks of every length, their slots beyond n holding stale times (any
// order), with t on, between and after the steps (never before the
// first, lastLE's precondition); and on the blocks of a long random
// profile.
func TestLastLEMatchesScan(t *testing.T) {
	rng := rand.New(rand.NewSource(1814))
	var ts [blkCap]float64
	for it := 0; it < 100000; it++ {
		n := 1 + rng.Intn(blkCap)
		x := rng.Float64() * 100
		for i := range ts {
			if i < n {
				x += float64(1 + rng.Intn(5))
				ts[i] = x
			} else {
				ts[i] = rng.Float64() * 300 // stale
			}
		}
		var q float64
		switch r := rng.Intn(3); r {
		case 0:
			q = ts[rng.Intn(n)]
		case 1:
			q = x + float64(rng.Intn(3))
		default:
			q = ts[0] + rng.Float64()*(x-ts[0]+2)
		}
		if got, want := lastLE(&ts, n, q), countLEScan(ts[1:n], q); got != want {
			t.Fatalf("lastLE(%v, %d, %v) = %d, want %d", ts, n, q, got, want)
		}
	}
	// A long random profile: every block, at every step time and between.
	var p blockProfile
	p.reset(0, 1000)
	for i := 1; i < 3000; i++ {
		p.release(float64(i)*3+float64(rng.Intn(2)), 1)
	}
	for i := 0; i < 3000; i++ {
		a := rng.Float64() * 9000
		p.reserve(a, a+rng.Float64()*500, 1+rng.Intn(3))
	}
	for pos := range p.ord {
		b, n := p.base(pos), int(p.n[pos])
		blk := (*[blkCap]float64)(p.t[b : b+blkCap])
		for k := 0; k < n; k++ {
			for _, q := range []float64{blk[k], blk[k] + 0.5} {
				if got, want := lastLE(blk, n, q), countLEScan(p.t[b+1:b+n], q); got != want {
					t.Fatalf("block %d: lastLE(%v) = %d, want %d", pos, q, got, want)
				}
			}
		}
	}
}
