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
	n := int(p.blk[pos].n)
	if i == 0 && j == n {
		p.blk[pos].add += d
		return
	}
	if 2*(j-i) > n {
		p.blk[pos].add += d
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
		hi := p.blk[pos].hi
		for x, v := range fs {
			fs[x] = v + d
			hi = max(hi, v+d)
		}
		p.blk[pos].hi = hi
		return
	}
	lo := p.blk[pos].lo
	for x, v := range fs {
		fs[x] = v + d
		lo = min(lo, v+d)
	}
	p.blk[pos].lo = lo
}

// cloneProfile copies the arrays addRange reads and writes.
func cloneProfile(p *blockProfile) *blockProfile {
	return &blockProfile{
		t: slices.Clone(p.t), f: slices.Clone(p.f), blk: slices.Clone(p.blk),
	}
}

// sameBlocks reports whether a and b hold the same steps, addends and
// bounds (bit for bit, the values beyond each block's steps included).
func sameBlocks(a, b *blockProfile) bool {
	return slices.Equal(a.t, b.t) && slices.Equal(a.f, b.f) && slices.Equal(a.blk, b.blk)
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
			t.Fatalf("trial %d: addRange(%d, %d, %d, %d) on n=%d: f %v add %d lo %d hi %d, want f %v add %d lo %d hi %d", trial, pos, i, j, d, p.blk[pos].n,
				a.f[a.base(pos):a.base(pos)+int(a.blk[pos].n)], a.blk[pos].add, a.blk[pos].lo, a.blk[pos].hi,
				b.f[b.base(pos):b.base(pos)+int(b.blk[pos].n)], b.blk[pos].add, b.blk[pos].lo, b.blk[pos].hi)
		}
	}
	for trial := range 150 {
		p := randProfile(rng, 60)
		for pos := range p.blk {
			n := int(p.blk[pos].n)
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
			pos := rng.IntN(len(p.blk))
			n := int(p.blk[pos].n)
			i := rng.IntN(n + 1)
			check(op, p, pos, i, i+rng.IntN(n-i+1), rng.IntN(41)-20)
		}
	}
}
