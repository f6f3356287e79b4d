package netmodel

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// Rounds walked through a PathCache give CommTime bit for bit (CommTime
// walks every path, the reference), on every preset, for every pattern and
// both algorithm branches of the collectives, with one cache shared by all
// placements as in a simulation: placements within the first nodes (the
// pair table, grown as larger nodes come), anywhere on the machine (nodes
// beyond the table, walked), with repeated nodes, and with job sizes above
// and below the sample count (the sampled rank pairs).
func TestPathCacheMatchesModel(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 3))
	for _, name := range PresetNames() {
		for _, samples := range []int{0, 5} {
			m, err := NewModel(mustPreset(t, name), Config{Samples: samples})
			if err != nil {
				t.Fatal(err)
			}
			c := m.NewPathCache()
			for it := 0; it < 150; it++ {
				P := 2 + rng.IntN(90)
				if it%10 == 0 {
					P = 100 + rng.IntN(400)
				}
				span := []int{16, 130, 700, 1100, m.t.Nodes()}[it%5]
				nodes := make([]int32, P)
				for i := range nodes {
					nodes[i] = int32(rng.IntN(min(span, m.t.Nodes())))
				}
				var r Rounds
				r.UsePaths(c)
				for _, pat := range []Pattern{PointToPoint, Allreduce, Broadcast, AllToAll, Halo3D} {
					for _, size := range []float64{8, 1 << 20} {
						where := fmt.Sprintf("%s samples %d it %d P=%d span %d %v size %v", name, samples, it, P, span, pat, size)
						r.Reset()
						got := m.CommTimeRounds(&r, nodes, pat, size, 0.6)
						if want := m.CommTime(nodes, pat, size, 0.6); math.Float64bits(got) != math.Float64bits(want) {
							t.Fatalf("%s: through the cache %v, CommTime %v", where, got, want)
						}
					}
				}
			}
			if c.shift != maxPairShift {
				t.Errorf("%s: pair table covers %d nodes, want %d after nodes up to 1,100", name, 1<<c.shift, 1<<maxPairShift)
			}
		}
	}
}

// A cache of another model is not used: its pairs would belong to another
// topology.
func TestPathCacheOtherModel(t *testing.T) {
	hopper, mira := mustModel(t, "hopper"), mustModel(t, "mira")
	nodes := []int32{0, 7, 60, 301, 5}
	c := mira.NewPathCache()
	var r Rounds
	r.UsePaths(c)
	got := hopper.CommTimeRounds(&r, nodes, Halo3D, 32<<10, 1)
	if want := hopper.CommTime(nodes, Halo3D, 32<<10, 1); got != want {
		t.Errorf("hopper with mira's cache: %v, want %v", got, want)
	}
	if c.pair != nil || len(c.sizes) != 0 {
		t.Error("mira's cache was filled by a hopper walk")
	}
}
