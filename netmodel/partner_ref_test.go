package netmodel

import "testing"

// refPartner is partner as it was before it saved its divisions, kept as
// the oracle of TestPartnerMatchesReference.
func refPartner(i, P, kind, arg, s int, g grid) int {
	switch kind {
	case pRing:
		return (i + 1) % P
	case pXor:
		if j := i ^ arg; j < P {
			return j
		}
		return (i + arg) % P
	case pRand:
		return (i + 1 + (s*7919+arg)%(P-1)) % P
	}
	x, y, z := i%g.x, (i/g.x)%g.y, i/(g.x*g.y)
	d := 1 - 2*(arg&1) // +1 or −1
	switch arg / 2 {
	case 0:
		x = (x + d + g.x) % g.x
	case 1:
		y = (y + d + g.y) % g.y
	default:
		z = (z + d + g.z) % g.z
	}
	return x + g.x*(y+g.y*z)
}

// partner gives the reference's partner for every rank of every job size
// up to 700 (grids with axes of 1, 2 and more) under every round kind
// the model uses, with the sample indices and arguments round passes.
func TestPartnerMatchesReference(t *testing.T) {
	for P := 1; P <= 700; P++ {
		g := factor3(P)
		type round struct{ kind, arg int }
		rounds := []round{{pRing, 0}}
		for dir := range 6 {
			rounds = append(rounds, round{pHalo, dir})
		}
		for k := 0; k < log2ceil(P); k++ {
			rounds = append(rounds, round{pXor, 1 << k})
		}
		if P > 1 {
			rounds = append(rounds, round{pRand, 0})
		}
		for _, r := range rounds {
			for i := range P {
				s := i % 64
				if got, want := partner(i, P, r.kind, r.arg, s, g), refPartner(i, P, r.kind, r.arg, s, g); got != want {
					t.Fatalf("P=%d grid %v kind %d arg %d rank %d sample %d: partner %d, reference %d", P, g, r.kind, r.arg, i, s, got, want)
				}
			}
		}
	}
}
