package hpl

import (
	"fmt"
	"math"
)

// Model holds the constants of a machine.
type Model struct {
	Rate         float64 // w: flop/s of one process at the top setting
	Comm         float64 // c: s per (P+Q)·N²
	RanksPerNode int     // processes per node (0: 1)
	NodeW        float64 // W one node draws while running HPL at the top setting; 0: no energy
}

// Run is one HPL run.
type Run struct {
	N, P, Q int
	Scale   float64 // runtime scale of the compute at the chosen frequency or cap (1: top; 0 read as 1)
	PowerF  float64 // node power relative to the top setting at that frequency or cap (0 read as 1)
	Slow    float64 // time factor of the slowest node (1: uniform; 0 read as 1)
}

// Result is a prediction.
type Result struct {
	Flop             float64 // 2/3·N³ + 2·N²
	Compute, Network float64 // the two terms of T (s)
	T                float64 // s
	Rate             float64 // flop/s achieved, Flop/T (HPL's Rmax for this run)
	Nodes            int
	Energy           float64 // J; 0 without Model.NodeW
}

// Flop returns HPL's operation count for order n, 2/3·n³ + 2·n².
func Flop(n int) float64 {
	x := float64(n)
	return 2.0/3.0*x*x*x + 2*x*x
}

func one(x float64) float64 {
	if x == 0 {
		return 1
	}
	return x
}

// Predict returns the time and energy of r.
func (m Model) Predict(r Run) (Result, error) {
	switch {
	case r.N <= 0 || r.P <= 0 || r.Q <= 0:
		return Result{}, fmt.Errorf("hpl: N=%d on a %d×%d grid; need positive values", r.N, r.P, r.Q)
	case !(m.Rate > 0) || math.IsInf(m.Rate, 0):
		return Result{}, fmt.Errorf("hpl: rate %v flop/s; need a finite value > 0", m.Rate)
	case !(m.Comm >= 0) || math.IsInf(m.Comm, 0) || !(m.NodeW >= 0) || math.IsInf(m.NodeW, 0):
		return Result{}, fmt.Errorf("hpl: comm %v s and node power %v W; need finite values ≥ 0", m.Comm, m.NodeW)
	case !(r.Scale >= 0) || !(r.PowerF >= 0) || !(r.Slow >= 0) || math.IsInf(r.Scale+r.PowerF+r.Slow, 0):
		return Result{}, fmt.Errorf("hpl: scale %v, power factor %v, slow %v; need finite values > 0", r.Scale, r.PowerF, r.Slow)
	}
	ranks := r.P * r.Q
	rpn := max(m.RanksPerNode, 1)
	n := float64(r.N)
	out := Result{Flop: Flop(r.N), Nodes: (ranks + rpn - 1) / rpn}
	out.Compute = out.Flop / (float64(ranks) * m.Rate) * one(r.Scale) * one(r.Slow)
	out.Network = m.Comm * float64(r.P+r.Q) * n * n
	out.T = out.Compute + out.Network
	out.Rate = out.Flop / out.T
	out.Energy = float64(out.Nodes) * m.NodeW * one(r.PowerF) * out.T
	return out, nil
}

// Dahu, the Grid'5000 cluster of Cornebize et al. 2019 (seed 004, Table 1
// at line 93 and §7, line 252): 32 nodes of two 16-core Xeon Gold 6130, one
// rank per core, Rpeak 62.26 TFlop/s; N = 500,000 on 32×32 reached Rmax
// 24.55 TFlop/s in about an hour.
const (
	DahuRpeak = 62.26e12 // flop/s, Table 1 (paper)
	DahuRmax  = 24.55e12 // flop/s, Table 1 (paper)
	DahuN     = 500000   // Table 1 (paper)
	DahuP     = 32       // Table 1 (paper)
	DahuQ     = 32       // Table 1 (paper)
	DahuRPN   = 32       // ranks per node: one per core, 2×16 cores (paper, line 252)
)

// Example is the Dahu model. Rate is the paper's Rpeak per rank
// (62.26 TFlop/s / 1024); Comm is CHOSEN TO MATCH Rmax: the paper gives no
// communication constant, so c = (Flop/Rmax − Flop/Rpeak) / ((P+Q)·N²) =
// 1.285e-10 s, which lumps dgemm running below peak into the network term.
// NodeW is 0: the paper reports no power.
func Example() Model {
	flop := Flop(DahuN)
	n := float64(DahuN)
	c := (flop/DahuRmax - flop/DahuRpeak) / (float64(DahuP+DahuQ) * n * n)
	return Model{Rate: DahuRpeak / (DahuP * DahuQ), Comm: c, RanksPerNode: DahuRPN}
}
