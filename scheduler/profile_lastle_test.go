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
	for pos := range p.blk {
		b, n := p.base(pos), int(p.blk[pos].n)
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

// lastLEHalving is the former lastLE: a binary search written out level
// by level (16, 8, 4, 2, 1), each level's load waiting on the one before.
func lastLEHalving(ts *[blkCap]float64, n int, t float64) int {
	k := 0
	for _, s := range [...]int{16, 8, 4, 2, 1} {
		i := (k + s) & (blkCap - 1)
		k += s & -(le(ts[i], t) & lt(i, n))
	}
	return k
}

// BenchmarkLastLE times lastLE, the former halving search and the scan on
// random blocks of 12 to 32 steps (stale slots beyond), the answer
// anywhere in the block: "indep" sums the answers, "dep" makes the next
// query wait on each answer, as locate's and splitAfter's callers do.
// On this repository's EPYC (2 vCPUs), ns/op indep and dep: lastLE 13.6
// and 25, halving 22 and 39, scan 24 and 21.
func BenchmarkLastLE(b *testing.B) {
	rng := rand.New(rand.NewSource(7))
	blks := make([][blkCap]float64, 512)
	ns := make([]int, len(blks))
	for i := range blks {
		n := 12 + rng.Intn(blkCap-11)
		ns[i] = n
		x := rng.Float64() * 100
		for j := range blks[i] {
			if j < n {
				x += float64(1 + rng.Intn(5))
				blks[i][j] = x
			} else {
				blks[i][j] = rng.Float64() * 300
			}
		}
	}
	type query struct {
		blk, n int
		t      float64
	}
	qs := make([]query, 1<<14)
	for i := range qs {
		k := rng.Intn(len(blks))
		qs[i] = query{k, ns[k], blks[k][rng.Intn(ns[k])] + 0.5}
	}
	for _, tc := range []struct {
		name string
		f    func(*[blkCap]float64, int, float64) int
	}{
		{"lastLE", lastLE},
		{"halving", lastLEHalving},
		{"scan", func(ts *[blkCap]float64, n int, t float64) int { return countLEScan(ts[1:n], t) }},
	} {
		for i, q := range qs {
			if got, want := tc.f(&blks[q.blk], q.n, q.t), countLEScan(blks[q.blk][1:q.n], q.t); got != want {
				b.Fatalf("%s, query %d: %d, want %d", tc.name, i, got, want)
			}
		}
		b.Run(tc.name+"/indep", func(b *testing.B) {
			s := 0
			for i := 0; i < b.N; i++ {
				q := &qs[i&(len(qs)-1)]
				s += tc.f(&blks[q.blk], q.n, q.t)
			}
			sinkLastLE = s
		})
		b.Run(tc.name+"/dep", func(b *testing.B) {
			r := 0
			for i := 0; i < b.N; i++ {
				q := &qs[(i+r&1)&(len(qs)-1)]
				r = tc.f(&blks[q.blk], q.n, q.t)
			}
			sinkLastLE = r
		})
	}
}

var sinkLastLE int
