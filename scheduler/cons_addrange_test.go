package scheduler

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// addRangeRef is addRange as it was before shiftUp and shiftDown (round
// 11): one shift taking both signs. It is the reference of
// TestAddRangeMatchesShift.
func (p *blockProfile) addRangeRef(pos, i, j, d int) {
	if i >= j {
		return
	}
	n := int(p.n[pos])
	if i == 0 && j == n {
		p.add[pos] += d
		return
	}
	if 2*(j-i) > n {
		p.add[pos] += d
		if i > 0 {
			p.shiftRef(pos, 0, i, -d)
		}
		if j < n {
			p.shiftRef(pos, j, n, -d)
		}
		return
	}
	p.shiftRef(pos, i, j, d)
}

// shiftRef is the former shift (addRangeRef's).
func (p *blockProfile) shiftRef(pos, i, j, d int) {
	b := p.base(pos)
	fs := p.f[b+i : b+j]
	if d > 0 {
		hi := p.hi[pos]
		for x, v := range fs {
			fs[x] = v + d
			hi = max(hi, v+d)
		}
		p.hi[pos] = hi
		return
	}
	lo := p.lo[pos]
	for x, v := range fs {
		fs[x] = v + d
		lo = min(lo, v+d)
	}
	p.lo[pos] = lo
}

// cloneProfile copies the arrays addRange reads and writes.
func cloneProfile(p *blockProfile) *blockProfile {
	return &blockProfile{
		t: slices.Clone(p.t), f: slices.Clone(p.f), ord: slices.Clone(p.ord),
		first: slices.Clone(p.first), n: slices.Clone(p.n), add: slices.Clone(p.add),
		lo: slices.Clone(p.lo), hi: slices.Clone(p.hi),
	}
}

// sameBlocks reports whether a and b hold the same steps, addends and
// bounds (bit for bit, the values beyond each block's steps included).
func sameBlocks(a, b *blockProfile) bool {
	return slices.Equal(a.t, b.t) && slices.Equal(a.f, b.f) && slices.Equal(a.ord, b.ord) &&
		slices.Equal(a.n, b.n) && slices.Equal(a.add, b.add) && slices.Equal(a.lo, b.lo) && slices.Equal(a.hi, b.hi)
}

// randProfile builds a block profile of random releases and reservations
// of up to ops operations (long ones fill and split blocks).
func randProfile(rng *rand.Rand, ops int) *blockProfile {
	p := &blockProfile{}
	p.reset(0, rng.IntN(64))
	at := 0.0
	for range 1 + rng.IntN(80) {
		at += float64(1 + rng.IntN(5))
		p.release(at, 1+rng.IntN(16))
	}
	for range rng.IntN(ops + 1) {
		from := float64(rng.IntN(int(at) + 20))
		to := from + float64(1+rng.IntN(40)) + 0.5*float64(rng.IntN(2))
		p.reserve(from, to, rng.IntN(33)-8)
	}
	return p
}

// TestAddRangeMatchesShift compares addRange (shiftUp and shiftDown, by
// d's sign at each site) with the former single shift on random blocks:
// every range of every block of random profiles, both signs and zero,
// and on a long profile made by many reservations through reserve.
func TestAddRangeMatchesShift(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 17))
	check := func(trial int, p *blockProfile, pos, i, j, d int) {
		t.Helper()
		a, b := cloneProfile(p), cloneProfile(p)
		a.addRange(pos, i, j, d)
		b.addRangeRef(pos, i, j, d)
		if !sameBlocks(a, b) {
			t.Fatalf("trial %d: addRange(%d, %d, %d, %d) on n=%d: f %v add %d lo %d hi %d, want f %v add %d lo %d hi %d", trial, pos, i, j, d, p.n[pos],
				a.f[a.base(pos):a.base(pos)+int(a.n[pos])], a.add[pos], a.lo[pos], a.hi[pos],
				b.f[b.base(pos):b.base(pos)+int(b.n[pos])], b.add[pos], b.lo[pos], b.hi[pos])
		}
	}
	for trial := range 150 {
		p := randProfile(rng, 60)
		for pos := range p.ord {
			n := int(p.n[pos])
			for i := 0; i <= n; i++ {
				for j := i; j <= n; j++ {
					check(trial, p, pos, i, j, rng.IntN(41)-20)
				}
			}
			check(trial, p, pos, 0, n, 0)
		}
	}
	// A long profile: full blocks, addends and loose bounds from many
	// reservations, each range checked on it as it grows.
	p := randProfile(rng, 0)
	for op := range 20000 {
		from := float64(rng.IntN(400))
		p.reserve(from, from+float64(1+rng.IntN(60)), rng.IntN(25)-6)
		if op%20 == 0 {
			pos := rng.IntN(len(p.ord))
			n := int(p.n[pos])
			i := rng.IntN(n + 1)
			check(op, p, pos, i, i+rng.IntN(n-i+1), rng.IntN(41)-20)
		}
	}
}
