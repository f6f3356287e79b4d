package netmodel_test

import (
	"fmt"
	"math/rand/v2"

	"drsim/netmodel"
)

// A 512-node allreduce job on hopper: compact versus scattered placement,
// then the same job sharing links with a neighbour.
func Example() {
	topo, _ := netmodel.Preset("hopper")
	m, _ := netmodel.NewModel(topo, netmodel.Config{})
	compact, _ := netmodel.Place(topo, 512, "contiguous", nil)
	scattered, _ := netmodel.Place(topo, 512, "scattered", rand.New(rand.NewPCG(1, 0)))
	fmt.Printf("compact   ratio %.3f\n", m.CommRatio(compact, netmodel.Allreduce, 1<<20, 1))
	fmt.Printf("scattered ratio %.3f\n", m.CommRatio(scattered, netmodel.Allreduce, 1<<20, 1))

	net := netmodel.NewNetwork(topo)
	net.AddJob(1, compact, netmodel.Allreduce)
	next, _ := netmodel.Place(topo, 1024, "contiguous", nil)
	changed, _ := net.AddJob(2, next[512:], netmodel.AllToAll) // the next 512 nodes
	fmt.Printf("changed %v, share of job 1 %.3f\n", changed, net.Share(1))
	fmt.Printf("contended ratio %.3f\n", m.CommRatio(compact, netmodel.Allreduce, 1<<20, net.Share(1)))
	fmt.Printf("runtime factor %.3f\n", netmodel.RuntimeFactor(0.3, 1.0, m.CommRatio(compact, netmodel.Allreduce, 1<<20, net.Share(1))))
	// Output:
	// compact   ratio 1.000
	// scattered ratio 1.926
	// changed [1 2], share of job 1 0.722
	// contended ratio 1.188
	// runtime factor 1.056
}

// Max-min fair sharing of 3 flows on 2 links (see TestMaxMinHandSolved).
func ExampleMaxMin() {
	fmt.Println(netmodel.MaxMin([]float64{10, 4}, [][]int32{{0, 1}, {0}, {1}}))
	// Output: [2 8 2]
}
