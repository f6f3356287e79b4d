package netmodel

import (
	"math"
	"math/rand/v2"
	"testing"
)

// Price.Time is Σ w·CommTime summed from 0 in traffic order, bit for bit,
// on every preset, for random traffic mixes over every pattern with sizes
// on both sides of each algorithm switch and of the efficiency
// breakpoints, job sizes on both sides of the broadcast, allreduce and
// sample thresholds, shares inside (0, 1] and outside it (taken as 1);
// priced from rounds walked afresh, replayed, and shared through a
// RoundMemo, and after CopyFrom.
func TestPriceMatchesCommTime(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 8))
	sizes := []float64{0, 4, 8, 2047, 2048, 8 << 10, 12287, 12288, 100 << 10, 128 << 10, 1 << 20, 3 << 20}
	shares := []float64{1, 0.5, 0.123456789, 1e-3, 0, -1, 1.5, math.NaN()}
	for _, name := range PresetNames() {
		m := mustModel(t, name)
		c := m.NewPathCache()
		for it := 0; it < 120; it++ {
			P := []int{1, 2, 3, 4, 7, 8, 9, 27, 64, 65, 200}[it%11]
			nodes := make([]int32, P)
			span := []int{P, 40, 2000}[it%3]
			for i := range nodes {
				nodes[i] = int32(rng.IntN(span))
			}
			var traffic []Traffic
			for n := 1 + rng.IntN(4); n > 0; n-- {
				traffic = append(traffic, Traffic{Pattern: Pattern(rng.IntN(int(Halo3D) + 1)), Size: sizes[rng.IntN(len(sizes))], Weight: 0.5 + rng.Float64()*3})
			}
			var memo RoundMemo
			var r, r2 Rounds
			r.UsePaths(c)
			r.UseMemo(&memo)
			r2.UseMemo(&memo) // every round from the memo r filled
			var p, replayed, shared, copied Price
			m.PriceRounds(&p, &r, nodes, traffic)
			r.Rewind()
			m.PriceRounds(&replayed, &r, nodes, traffic)
			m.PriceRounds(&shared, &r2, nodes, traffic)
			copied.CopyFrom(&p)
			for _, share := range shares {
				var want float64
				for _, tr := range traffic {
					want += tr.Weight * m.CommTime(nodes, tr.Pattern, tr.Size, share)
				}
				for k, q := range []*Price{&p, &replayed, &shared, &copied} {
					if got := q.Time(share); math.Float64bits(got) != math.Float64bits(want) {
						t.Fatalf("%s it %d P=%d traffic %v share %v (price %d): Time %v, Σ w·CommTime %v", name, it, P, traffic, share, k, got, want)
					}
				}
			}
			if p.Len() != len(traffic) {
				t.Fatalf("%s: %d parts for %d traffic entries", name, p.Len(), len(traffic))
			}
		}
	}
}

// An empty Price costs nothing; Reset empties one.
func TestPriceEmpty(t *testing.T) {
	var p Price
	if p.Len() != 0 || p.Time(0.5) != 0 {
		t.Fatalf("zero Price: Len %d, Time %v", p.Len(), p.Time(0.5))
	}
	m := mustModel(t, "hopper")
	var r Rounds
	m.PriceRounds(&p, &r, []int32{0, 9, 40}, []Traffic{{Halo3D, 1 << 10, 1}})
	if !(p.Time(1) > 0) {
		t.Fatalf("halo on three nodes priced at %v", p.Time(1))
	}
	p.Reset()
	if p.Len() != 0 || p.Time(1) != 0 {
		t.Fatalf("after Reset: Len %d, Time %v", p.Len(), p.Time(1))
	}
}
