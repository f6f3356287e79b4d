package netmodel

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// The former forms of the fill's minimum walks (before round 12 wrote the
// minimum as a skip, v >= lv, and read bw and load once): the references
// of TestLevelFiniteMatchesReference, TestOpenFiniteMatchesReference and
// TestOpenMatchesReference.

func levelFiniteRef(lv float64, links []int32, lvl []float64) float64 {
	for _, l := range links {
		if v := lvl[l]; v < lv {
			lv = v
		}
	}
	return lv
}

func openFiniteRef(shared []int32, lk []netLink, lvl []float64, lv float64, st uint32) float64 {
	lvl = lvl[:len(lk)]
	for _, l := range shared {
		p := &lk[l]
		var v float64
		if p.stamp != st {
			p.stamp = st
			p.rem, p.lsum = p.bw, p.load
			v = p.bw / float64(p.load)
			lvl[l] = v
		} else {
			v = lvl[l]
		}
		if v < lv {
			lv = v
		}
	}
	return lv
}

func (n *Network) openRef(shared []int32, lv float64, st uint32, f int32, track bool) float64 {
	lk := n.links
	lvl := n.lvl[:len(lk)]
	nan := !n.finite
	rf := f
	last := int32(-1)
	for _, l := range shared {
		p := &lk[l]
		var v float64
		if p.stamp != st {
			p.stamp, p.owner = st, f
			p.rem, p.lsum = p.bw, p.load
			v = p.bw / float64(p.load)
			lvl[l] = v
		} else {
			v = lvl[l]
			if track {
				if o := p.owner; o != last {
					last = o
					rf = n.unite(rf, o)
				}
			}
		}
		if v < lv || (nan && v != v) {
			lv = v
		}
	}
	return lv
}

// minCase draws a link table of L links as a solve sees it: bandwidths
// from a few values (ties), loads 1–6, about half the links reached by
// solve st already (their lvl and owner set), and levels with repeats,
// zeros and +Inf; with nan, some bandwidths +Inf and some reached levels
// NaN. It returns the table, the levels and a list of distinct links.
func minCase(rng *rand.Rand, L int, st uint32, nan bool) ([]netLink, []float64, []int32) {
	bws := []float64{1, 2, 2.5, 4, 0.5}
	lk := make([]netLink, L)
	lvl := make([]float64, L)
	for l := range lk {
		p := &lk[l]
		p.bw = bws[rng.IntN(len(bws))]
		if nan && rng.IntN(4) == 0 {
			p.bw = math.Inf(1)
		}
		p.load = 1 + int32(rng.IntN(6))
		p.stamp = st - 1 - uint32(rng.IntN(2)) // not reached
		p.rem, p.lsum = rng.Float64(), int32(rng.IntN(3))
		lvl[l] = rng.Float64() * 3 // stale
		if rng.IntN(2) == 0 {
			p.stamp = st // reached: its level is read
			p.owner = int32(rng.IntN(8))
			switch r := rng.IntN(10); {
			case r == 0:
				lvl[l] = 0
			case r == 1:
				lvl[l] = math.Inf(1)
			case r == 2 && nan:
				lvl[l] = math.NaN()
			case r < 5:
				lvl[l] = bws[rng.IntN(len(bws))] / float64(1+rng.IntN(6)) // ties with fresh levels
			default:
				lvl[l] = rng.Float64() * 3
			}
		}
	}
	links := rng.Perm(L)[:rng.IntN(L+1)]
	ls := make([]int32, len(links))
	for i, l := range links {
		ls[i] = int32(l)
	}
	return lk, lvl, ls
}

// firstBound draws a job's private bound: +Inf (no private link), a value
// tied with the levels, or any.
func firstBound(rng *rand.Rand) float64 {
	switch rng.IntN(3) {
	case 0:
		return math.Inf(1)
	case 1:
		return []float64{1, 2, 2.5, 4, 0.5}[rng.IntN(5)] / float64(1+rng.IntN(6))
	}
	return rng.Float64() * 3
}

func sameBits(a, b float64) bool { return math.Float64bits(a) == math.Float64bits(b) }

func TestLevelFiniteMatchesReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(12, 1))
	for c := 0; c < 200000; c++ {
		L := 1 + rng.IntN(60)
		if c%1000 == 0 {
			L = 2000 // long lists
		}
		_, lvl, links := minCase(rng, L, 5, false)
		// levelFinite reads levels of links with unfrozen jobs: never NaN
		lv := firstBound(rng)
		if got, want := levelFinite(lv, links, lvl), levelFiniteRef(lv, links, lvl); !sameBits(got, want) {
			t.Fatalf("case %d: levelFinite(%v, %v) = %v, reference %v", c, lv, links, got, want)
		}
	}
}

func TestOpenFiniteMatchesReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(12, 2))
	for c := 0; c < 100000; c++ {
		L := 1 + rng.IntN(60)
		if c%1000 == 0 {
			L = 2000
		}
		st := uint32(7 + rng.IntN(3))
		lk, lvl, shared := minCase(rng, L, st, false)
		lk2, lvl2 := slices.Clone(lk), slices.Clone(lvl)
		lv := firstBound(rng)
		got, want := openFinite(shared, lk, lvl, lv, st), openFiniteRef(shared, lk2, lvl2, lv, st)
		if !sameBits(got, want) {
			t.Fatalf("case %d: openFinite = %v, reference %v", c, got, want)
		}
		if !slices.Equal(lk, lk2) || !slices.EqualFunc(lvl, lvl2, sameBits) {
			t.Fatalf("case %d: openFinite left another link state than the reference", c)
		}
	}
}

func TestOpenMatchesReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(12, 3))
	for c := 0; c < 100000; c++ {
		L := 1 + rng.IntN(60)
		if c%1000 == 0 {
			L = 2000
		}
		st := uint32(7 + rng.IntN(3))
		nan := rng.IntN(2) == 0
		lk, lvl, shared := minCase(rng, L, st, nan)
		track := rng.IntN(2) == 0
		f := int32(8 + rng.IntN(4)) // owners 0–7 are earlier jobs
		uf := make([]int32, 12)
		for i := range uf {
			uf[i] = int32(i)
			if i > 0 && i < 8 && rng.IntN(3) == 0 {
				uf[i] = int32(rng.IntN(i)) // some earlier unions
			}
		}
		a := &Network{links: lk, lvl: lvl, uf: uf, classes: 12, finite: !nan}
		b := &Network{links: slices.Clone(lk), lvl: slices.Clone(lvl), uf: slices.Clone(uf), classes: 12, finite: !nan}
		lv := firstBound(rng)
		if rng.IntN(20) == 0 && nan {
			lv = math.NaN()
		}
		got, want := a.open(shared, lv, st, f, track), b.openRef(shared, lv, st, f, track)
		if !sameBits(got, want) {
			t.Fatalf("case %d (finite %v): open = %v, reference %v", c, !nan, got, want)
		}
		if !slices.Equal(a.links, b.links) || !slices.EqualFunc(a.lvl, b.lvl, sameBits) || !slices.Equal(a.uf, b.uf) || a.classes != b.classes {
			t.Fatalf("case %d: open left another state than the reference", c)
		}
	}
}
