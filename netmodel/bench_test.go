package netmodel

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

var sinkF float64
var sinkI []int32

func BenchmarkCommRatio(b *testing.B) {
	for _, preset := range []string{"hopper", "mira"} {
		m := mustModel(b, preset)
		for _, P := range []int{64, 1024} {
			nodes, _ := Place(m.t, P, "scattered", rand.New(rand.NewPCG(1, 0)))
			for _, pat := range []Pattern{Allreduce, AllToAll, Halo3D} {
				b.Run(fmt.Sprintf("%s/P=%d/%v", preset, P, pat), func(b *testing.B) {
					b.ReportAllocs()
					for b.Loop() {
						sinkF = m.CommRatio(nodes, pat, 1<<20, 0.8)
					}
				})
			}
		}
	}
}

// BenchmarkNetworkAddRemove measures one job start plus end in a network
// already carrying background jobs: the component recompute of max-min.
func BenchmarkNetworkAddRemove(b *testing.B) {
	tp := mustPreset(b, "hopper")
	// Background jobs fill the machine (6,528 nodes) with disjoint node sets;
	// "scattered" is the worst case (every job touches thousands of links and
	// all jobs form one component), "contiguous" the usual one.
	for _, c := range []struct {
		place         string
		background, P int
		pat           Pattern
	}{{"contiguous", 90, 64, Halo3D}, {"contiguous", 5, 1024, Halo3D}, {"contiguous", 45, 128, AllToAll},
		{"scattered", 90, 64, Halo3D}, {"scattered", 5, 1024, Halo3D}, {"scattered", 45, 128, AllToAll}} {
		b.Run(fmt.Sprintf("%s/bg=%d/P=%d/%v", c.place, c.background, c.P, c.pat), func(b *testing.B) {
			rng := rand.New(rand.NewPCG(2, 0))
			n := NewNetwork(tp)
			order := rng.Perm(tp.Nodes())
			if c.place == "contiguous" {
				for i := range order {
					order[i] = i
				}
			}
			job := func(k int) []int32 {
				nodes := make([]int32, c.P)
				for i := range nodes {
					nodes[i] = int32(order[k*c.P+i])
				}
				return nodes
			}
			for id := 0; id < c.background; id++ {
				n.AddJob(int32(id), job(id), c.pat)
			}
			nodes := job(c.background)
			b.ReportAllocs()
			for b.Loop() {
				sinkI, _ = n.AddJob(1000, nodes, c.pat)
				sinkI = n.Remove(1000)
			}
		})
	}
}

func BenchmarkInfo(b *testing.B) {
	for _, name := range PresetNames() {
		tp := mustPreset(b, name)
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				sinkF = tp.Info().MeanHops
			}
		})
	}
}

// BenchmarkRoute routes random node pairs among a machine's first 120 nodes
// (HPC2N's size, where the simulator's routes fall) into a reused buffer,
// as Network.Add does.
func BenchmarkRoute(b *testing.B) {
	for _, name := range PresetNames() {
		tp := mustPreset(b, name)
		rng := rand.New(rand.NewPCG(3, 0))
		pairs := make([]int32, 2048)
		for i := range pairs {
			pairs[i] = int32(rng.IntN(120))
		}
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			var buf []int32
			for b.Loop() {
				for i := 0; i < len(pairs); i += 2 {
					buf = tp.Route(pairs[i], pairs[i+1], buf[:0])
				}
			}
			sinkI = buf
		})
	}
}
