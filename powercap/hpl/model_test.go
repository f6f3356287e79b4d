package hpl

import (
	"math"
	"testing"
)

// The Dahu example reproduces its own Table 1 row (Cornebize et al. 2019,
// seed 004, line 93): 24.55 TFlop/s (Comm was chosen to match it) in
// 3394 s, "1 hour" in the table; 32 nodes. The flop count is the paper's
// (line 72): 2/3·N³ + 2·N² = 8.33338e16 for N = 500,000.
func TestDahu(t *testing.T) {
	m := Example()
	if math.Abs(m.Comm-1.285e-10) > 0.001e-10 {
		t.Errorf("comm %v; want 1.285e-10 s", m.Comm)
	}
	r, err := m.Predict(Run{N: DahuN, P: DahuP, Q: DahuQ})
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(r.Flop-8.33338333e16) > 1e9 {
		t.Errorf("flop %v", r.Flop)
	}
	if math.Abs(r.Rate-DahuRmax) > 1e3 || math.Abs(r.T-3394.45) > 0.1 || r.Nodes != 32 {
		t.Errorf("rate %v flop/s in %v s on %d nodes; want 24.55e12 in 3394.45 s on 32", r.Rate, r.T, r.Nodes)
	}
	// The compute term alone is the peak time, Flop/Rpeak = 1338.5 s.
	if math.Abs(r.Compute-1338.48) > 0.1 {
		t.Errorf("compute %v s; want 1338.48", r.Compute)
	}
}

// Slow nodes and caps stretch the compute term only: with the slowest node
// 10 % slower the compute takes 1.1 × 1338.48 s and the network term stays
// 2055.97 s; energy is nodes × W × T.
func TestSlowAndEnergy(t *testing.T) {
	m := Example()
	m.NodeW = 500
	base, _ := m.Predict(Run{N: DahuN, P: 32, Q: 32})
	slow, _ := m.Predict(Run{N: DahuN, P: 32, Q: 32, Slow: 1.1, Scale: 1})
	if math.Abs(slow.Compute-1.1*base.Compute) > 1e-9 || slow.Network != base.Network {
		t.Errorf("slow compute %v network %v; base %v %v", slow.Compute, slow.Network, base.Compute, base.Network)
	}
	capped, _ := m.Predict(Run{N: DahuN, P: 32, Q: 32, Scale: 1.25, PowerF: 0.7})
	if want := 32 * 500 * 0.7 * (1.25*base.Compute + base.Network); math.Abs(capped.Energy-want) > 1e-6 {
		t.Errorf("capped energy %v J; want %v", capped.Energy, want)
	}
	// Hand case: N=1000 on 2×2 at 1e9 flop/s per rank, c = 1e-9, 1 rank per node:
	// flop = 2/3e9 + 2e6; compute = flop/4e9 = 0.1671667 s; network = 1e-9·4·1e6 = 0.004 s.
	r, _ := Model{Rate: 1e9, Comm: 1e-9, NodeW: 100}.Predict(Run{N: 1000, P: 2, Q: 2})
	if math.Abs(r.Compute-0.16716666666666666) > 1e-12 || math.Abs(r.Network-0.004) > 1e-15 || r.Nodes != 4 ||
		math.Abs(r.Energy-4*100*r.T) > 1e-9 {
		t.Errorf("hand case: %+v", r)
	}
	for _, bad := range []struct {
		m Model
		r Run
	}{
		{Model{Rate: 1}, Run{N: 0, P: 1, Q: 1}},
		{Model{Rate: 0}, Run{N: 1, P: 1, Q: 1}},
		{Model{Rate: 1, Comm: -1}, Run{N: 1, P: 1, Q: 1}},
		{Model{Rate: 1}, Run{N: 1, P: 1, Q: 1, Slow: -1}},
	} {
		if _, err := bad.m.Predict(bad.r); err == nil {
			t.Errorf("%+v %+v accepted", bad.m, bad.r)
		}
	}
}
