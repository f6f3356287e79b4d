package powercap_test

import (
	"fmt"

	"drsim/powercap"
)

// Example_pairTable evaluates the built-in miniGAN profile measured on an
// RTX 6000 node at four (CPU cap, GPU cap) pairs of its grid and turns them
// into one MCKP class for a 2-node job with 4 GPUs per node and 1,000 s of
// work left at the top pair.
func Example_pairTable() {
	p, err := powercap.Lookup(powercap.BuiltinGPU(), "minigan@rtx6000")
	if err != nil {
		panic(err)
	}
	tab, err := p.PairTable([]float64{110, 250}, []float64{140, 260}, 4)
	if err != nil {
		panic(err)
	}
	opts := tab.Options(nil, 2, 1000)
	for i, l := range tab.Levels {
		fmt.Printf("CPU %3.0f W  GPU %3.0f W: node %4.0f W  ×%.3f  energy %.1f MJ\n", l.CPUCap, l.GPUCap, l.Power, l.Scale, opts[i].Cost/1e6)
	}
	// The pairs are grid nodes, so the values are the means of the four runs
	// in miniGAN_cap_dual.csv, e.g. at (110 W, 140 W): CPU 92.60 W + 4 × GPU
	// 114.76 W = 551.6 W, 30.408 s / 24.415 s at (250 W, 260 W) = ×1.245,
	// 2 × 551.6 W × 1.245 × 1000 s = 1.37 MJ (checked with awk on the file).

	// Output:
	// CPU 110 W  GPU 140 W: node  552 W  ×1.245  energy 1.4 MJ
	// CPU 110 W  GPU 260 W: node  832 W  ×1.024  energy 1.7 MJ
	// CPU 250 W  GPU 140 W: node  556 W  ×1.226  energy 1.4 MJ
	// CPU 250 W  GPU 260 W: node  838 W  ×1.000  energy 1.7 MJ
}
