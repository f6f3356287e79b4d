package cluster

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
)

// benchScattered allocates jobs of sizes drawn log-uniformly in [lo, hi]
// processors on a machine of CEA-Curie's 93,312, releasing random held
// jobs whenever the next one does not fit (the machine stays nearly full
// and fragmented, as under a scheduler). It reports the time per
// allocated processor besides the time per allocation.
func benchScattered(b *testing.B, lo, hi int) {
	const procs = 93312
	a, _ := NewScattered(PlacementConfig{Procs: procs, Seed: 1})
	rng := rand.New(rand.NewPCG(7, 7))
	var held [][]Range
	var spare [][]Range
	size := func() int {
		l := math.Log(float64(lo))
		h := math.Log(float64(hi + 1))
		for {
			n := int(math.Exp(l + rng.Float64()*(h-l)))
			if n >= lo && n <= hi {
				return n
			}
		}
	}
	total := 0
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		n := size()
		for a.Free() < n {
			k := rng.IntN(len(held))
			a.Release(held[k])
			spare = append(spare, held[k][:0])
			held[k] = held[len(held)-1]
			held = held[:len(held)-1]
		}
		var dst []Range
		if len(spare) > 0 {
			dst = spare[len(spare)-1]
			spare = spare[:len(spare)-1]
		}
		got, ok := a.Alloc(n, dst)
		if !ok {
			b.Fatalf("Alloc(%d) refused with %d free", n, a.Free())
		}
		held = append(held, got)
		total += n
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(total), "ns/proc")
}

func BenchmarkScatteredSmall(b *testing.B) { benchScattered(b, 1, 64) }
func BenchmarkScatteredMid(b *testing.B)   { benchScattered(b, 64, 5831) }
func BenchmarkScatteredLarge(b *testing.B) { benchScattered(b, 5832, 46656) }

// BenchmarkScatteredAllocRelease draws n processors of a machine of
// 93,312 with free of them free (scattered) and releases them again.
func BenchmarkScatteredAllocRelease(b *testing.B) {
	for _, c := range []struct{ free, n int }{
		{25000, 16}, {25000, 64}, {25000, 128}, {25000, 256}, {25000, 512}, {25000, 1024},
		{25000, 1600}, {25000, 3000}, {12000, 700}, {12000, 1500}, {12000, 4000}, {12000, 10000}, {93312, 20000},
	} {
		b.Run(fmt.Sprintf("free=%d/n=%d", c.free, c.n), func(b *testing.B) {
			a, _ := NewScattered(PlacementConfig{Procs: 93312, Seed: 1})
			if c.free < 93312 {
				a.Alloc(93312-c.free, nil)
			}
			var got []Range
			for b.Loop() {
				got, _ = a.Alloc(c.n, got[:0])
				a.Release(got)
			}
		})
	}
}
