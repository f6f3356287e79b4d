package governor

import (
	"math"
	"math/rand/v2"
	"testing"

	"drsim/powercap"
)

// The dr governor over (CPU cap, GPU cap) pair levels equals brute force:
// random instances of 1–8 GPU jobs, each of a built-in GPU profile with a
// random grid of 1–6 CPU caps × 1–6 GPU caps within its fitted ranges
// (tabulated as the simulation does, one Level per pair), random
// processor counts, remaining work and fixed levels, and a capacity
// between the least and the greatest total power. The optimum found by
// DR.solve (powercap.MCKP) must cost what exhaustive enumeration finds,
// fit the capacity, and be infeasible exactly when enumeration is.
func TestDRPairsBruteForce(t *testing.T) {
	var profs []powercap.Profile
	for _, p := range powercap.BuiltinGPU() {
		if p.Joint != nil || p.Cap != nil && p.GPUCap != nil {
			profs = append(profs, p)
		}
	}
	rng := rand.New(rand.NewPCG(16, 1))
	grid := func(lo, hi float64, n int) []float64 {
		out := make([]float64, n)
		for i := range out {
			out[i] = lo + (hi-lo)*float64(i+1)/float64(n)
		}
		return out
	}
	solved, infeasible := 0, 0
	for it := 0; solved < 300; it++ {
		n := 1 + rng.IntN(8)
		var tables [][]powercap.Level
		combos := 1.0
		g := &DR{}
		for k := range n {
			p := profs[rng.IntN(len(profs))]
			var clo, chi, glo, ghi float64
			if j := p.Joint; j != nil {
				clo, chi, glo, ghi = j.CPUCaps[0], j.CPUCaps[len(j.CPUCaps)-1], j.GPUCaps[0], j.GPUCaps[len(j.GPUCaps)-1]
			} else {
				clo, chi, glo, ghi = p.Cap.XMin, p.Cap.XMax, p.GPUCap.XMin, p.GPUCap.XMax
			}
			nc, ng, gpus, cores := 1+rng.IntN(6), 1+rng.IntN(6), 1+rng.IntN(4), 1+rng.IntN(4)
			pt, err := p.PairTable(grid(clo, chi, nc), grid(glo, ghi, ng), gpus)
			if err != nil {
				continue // a profile without power data: not a GPU app of the simulation
			}
			lv := make([]powercap.Level, len(pt.Levels))
			for i, l := range pt.Levels {
				lv[i] = powercap.Level{X: float64(i), Power: l.Power / float64(cores), Scale: l.Scale}
			}
			tables = append(tables, lv)
			dj := drJob{slot: int32(k), procs: cores * (1 + rng.IntN(4)), app: len(tables) - 1, rem: 3600 * rng.Float64()}
			if rng.IntN(6) == 0 {
				dj.fixed, dj.level = true, rng.IntN(len(lv))
			} else {
				combos *= float64(len(lv))
			}
			g.jobs = append(g.jobs, dj)
		}
		if len(g.jobs) == 0 || combos > 3e5 {
			continue
		}
		levels := func(app int) []powercap.Level { return tables[app] }
		lo, hi := 0.0, 0.0
		for _, j := range g.jobs {
			lmin, lmax := math.Inf(1), 0.0
			for k, l := range levels(j.app) {
				if j.fixed && k != j.level {
					continue
				}
				lmin, lmax = math.Min(lmin, l.Power), math.Max(lmax, l.Power)
			}
			lo += float64(j.procs) * lmin
			hi += float64(j.procs) * lmax
		}
		capacity := lo + (hi-lo)*(1.2*rng.Float64()-0.1)
		// Exhaustive enumeration.
		best, bestOK := math.Inf(1), false
		choice := make([]int, len(g.jobs))
		var rec func(i int, w, c float64)
		rec = func(i int, w, c float64) {
			if w > capacity {
				return
			}
			if i == len(g.jobs) {
				if c < best {
					best, bestOK = c, true
				}
				return
			}
			j := g.jobs[i]
			for k, l := range levels(j.app) {
				if j.fixed && k != j.level {
					continue
				}
				n := float64(j.procs)
				choice[i] = k
				rec(i+1, w+n*l.Power, c+j.rem*n*l.Power*l.Scale)
			}
		}
		rec(0, 0, 0)
		got, ok := g.solve(levels, capacity)
		if ok != bestOK {
			t.Fatalf("instance %d: solve feasible %v, brute force %v (capacity %v in [%v, %v])", it, ok, bestOK, capacity, lo, hi)
		}
		if !ok {
			infeasible++
			solved++
			continue
		}
		w, c := 0.0, 0.0
		for i, j := range g.jobs {
			l := levels(j.app)[got[i]]
			if j.fixed && got[i] != j.level {
				t.Fatalf("instance %d: fixed job %d moved to level %d", it, i, got[i])
			}
			n := float64(j.procs)
			w += n * l.Power
			c += j.rem * n * l.Power * l.Scale
		}
		if w > capacity*(1+1e-12) {
			t.Fatalf("instance %d: solve's power %v above capacity %v", it, w, capacity)
		}
		if math.Abs(c-best) > 1e-9*math.Max(best, 1) {
			t.Fatalf("instance %d (%d jobs): solve's energy %v J, brute force %v J", it, len(g.jobs), c, best)
		}
		solved++
	}
	if infeasible == 0 || infeasible == solved {
		t.Errorf("%d of %d instances infeasible: the capacities do not exercise both outcomes", infeasible, solved)
	}
}
