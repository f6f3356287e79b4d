package scheduler

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestCertStoreMatchesCopies compares the shared certificate storage
// (segments of shared parts, lowered once per pass where first read, a
// kept certificate written again when parts are dropped, compactions)
// with each certificate held as its own copy of its parts, as before
// (refStands, the former stands, on the copies), over random passes:
// certificates made in a pass start from ones made earlier in it (deficits
// raised, parts over by a cut left out, as earliest does from a
// remembered answer), each pass brings a random D and walks the groups
// in order, and a group that does not stand is searched again (a new
// certificate) or ends the walk. Every check must agree, and every
// group's certificate must hold the same parts with the same deficits.
func TestCertStoreMatchesCopies(t *testing.T) {
	rng := rand.New(rand.NewPCG(18, 3))
	checked, open, shared := 0, 0, 0
	for trial := range 2000 {
		c := &Conservative{}
		p := &c.bp
		var refs [][]certIv // each group's certificate, its own copy
		now := 0.0
		var born []int // the pass each group's certificate was made in
		pass := 0
		// newCert gives group k a certificate made now.
		newCert := func(k int) {
			sf, pf := len(p.segs), len(p.cert)
			var ref []certIv
			x := now + float64(rng.IntN(4))
			if n := len(c.rs.groups); n > 0 && rng.IntN(4) > 0 {
				j := rng.IntN(n)
				if j != k && born[j] == pass { // as the memo, which a pass clears
					add := rng.IntN(3)
					cut := math.Inf(-1)
					if rng.IntN(2) == 0 {
						cut = now + float64(rng.IntN(30))
					}
					from := &c.rs.groups[j]
					p.inheritCert(int(from.certFrom), int(from.certTo), add, cut)
					for _, iv := range refs[j] {
						if iv.y > cut {
							iv.def += int32(add)
							ref = append(ref, iv)
						}
					}
					if len(ref) > 0 {
						x = ref[len(ref)-1].y + float64(rng.IntN(3))
						shared++
					}
				}
			}
			for range rng.IntN(5) {
				y := x + 1 + float64(rng.IntN(6))
				iv := certIv{x: x, y: y, def: int32(1 + rng.IntN(6))}
				ref = append(ref, iv)
				iv.pass = p.certPass
				p.cert = append(p.cert, iv)
				x = y + float64(rng.IntN(3))
			}
			p.ownCert(pf)
			c.rs.groups[k].setCert(p, sf, len(p.segs))
			refs[k], born[k] = ref, pass
		}
		addGroup := func() {
			c.rs.groups = append(c.rs.groups, resGroup{procs: 6, n: 1, est: float64(1 + rng.IntN(12)), at: 1000})
			refs, born = append(refs, nil), append(born, 0)
			newCert(len(c.rs.groups) - 1)
		}
		for range 1 + rng.IntN(6) {
			addGroup()
		}
		for passes := 1 + rng.IntN(10); pass < passes; {
			pass++
			now += float64(rng.IntN(6))
			c.rs.d, c.rs.dEnd = c.rs.d[:0], now
			for range rng.IntN(4) {
				end := now + 1 + float64(rng.IntN(25))
				c.rs.d = append(c.rs.d, runEntry{estEnd: end, procs: int32(1 + rng.IntN(5))})
				c.rs.dEnd = max(c.rs.dEnd, end)
			}
			c.sortLifts()
			p.certPass++
			for k := 0; k < len(c.rs.groups); k++ {
				gr := &c.rs.groups[k]
				refLift := len(c.rs.d) > 0 && len(refs[k]) > 0 && refs[k][0].x < c.rs.dEnd
				if c.mayLift(gr) != refLift {
					t.Fatalf("trial %d pass %d group %d: mayLift %v, want %v", trial, pass, k, !refLift, refLift)
				}
				if !refLift {
					continue
				}
				checked++
				before := slices.Clone(refs[k])
				got, want := c.stands(gr, now), refStands(c, &refs[k], gr.est, gr.at, now)
				if got != want {
					t.Fatalf("trial %d pass %d group %d: stands %v, want %v (certificate %v, D %v, now %v)", trial, pass, k, got, want, before, c.rs.d, now)
				}
				if got {
					if len(refs[k]) != len(before) {
						open++
					}
					continue
				}
				if rng.IntN(3) == 0 { // a different start: the walk ends
					c.rs.groups, refs, born = c.rs.groups[:k], refs[:k], born[:k]
					break
				}
				newCert(k) // the same start: the new search's certificate
			}
			for range rng.IntN(6) {
				addGroup()
			}
			if rng.IntN(3) == 0 {
				c.compactCertNow()
			}
			for k := range c.rs.groups {
				if got := testCert(c, &c.rs.groups[k]); !slices.Equal(got, refs[k]) && !(len(got) == 0 && len(refs[k]) == 0) {
					t.Fatalf("trial %d pass %d group %d: certificate %v, want %v", trial, pass, k, got, refs[k])
				}
			}
		}
	}
	t.Logf("%d checks, %d with parts dropped, %d shared certificates", checked, open, shared)
	if checked < 10000 || open < 500 || shared < 5000 {
		t.Fatalf("too few cases: %d checks, %d with parts dropped, %d shared certificates", checked, open, shared)
	}
}

// refStands is stands on a certificate held as its own copy (the
// storage before certstore.go): the deficits are lowered only when the
// placement stands, and the parts that no longer block are dropped from
// the copy.
func refStands(c *Conservative, cert *[]certIv, est, at, now float64) bool {
	cs, dEnd := *cert, c.rs.dEnd
	n, open := 0, false
	for ; n < len(cs) && cs[n].x < dEnd; n++ {
		if iv := &cs[n]; iv.y > now && c.lift(iv.x, now) >= int(iv.def) {
			open = true
		}
	}
	if open && !refCovered(c, cs, now, est, at) {
		return false
	}
	if !open {
		for k := range cs[:n] {
			if iv := &cs[k]; iv.y > now {
				iv.def -= int32(c.lift(iv.x, now))
			}
		}
		return true
	}
	w := 0
	for k := range cs {
		iv := cs[k]
		if k < n && iv.y > now {
			iv.def -= int32(c.lift(iv.x, now))
		}
		if iv.y > now && iv.def > 0 {
			cs[w] = iv
			w++
		}
	}
	*cert = cs[:w]
	return true
}

// refCovered is covered on deficits not yet lowered: a part blocks while
// D's lift over it stays below its deficit.
func refCovered(c *Conservative, cert []certIv, now, est, at float64) bool {
	for n := range cert {
		iv := &cert[n]
		if !(iv.y > now) || c.lift(iv.x, now) < int(iv.def) {
			continue
		}
		hi := math.Min(iv.y, at)
		cov := math.Max(iv.x-est-subMargin(iv.x, est), now)
		if !(cov < hi) {
			continue
		}
		for m := range cert {
			jv := &cert[m]
			if !(jv.y > cov) || c.lift(jv.x, now) >= int(jv.def) {
				continue
			}
			if !(jv.x-est+subMargin(jv.x, est) < cov) {
				break
			}
			cov = jv.y
			if !(cov < hi) {
				break
			}
		}
		if cov < hi {
			return false
		}
	}
	return true
}
