package replay

import (
	"context"
	"os"
	"testing"
	"time"

	"drsim/contracts"
	"drsim/internal/sharedtest"
	"drsim/scheduler/sim"
)

// hpc2nJobs caps the HPC2N acceptance runs for CI time: the first 5,000
// jobs span about 3 months (2,213 hourly slots); one run takes about 0.3 s.
const hpc2nJobs = 5000

func readPrices(t *testing.T, rel string) *contracts.Series {
	t.Helper()
	f, err := os.Open(sharedtest.Path(t, rel))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	s, err := contracts.ReadPrices(f, rel, contracts.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func hpc2n(t *testing.T, cfg Config) *Result {
	t.Helper()
	cfg.Spec = sim.Spec{Trace: sharedtest.Path(t, "traces/HPC2N-2002-2.2-cln.swf.gz"), Jobs: hpc2nJobs}
	tr, err := sim.Load(cfg.Spec)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Run(context.Background(), cfg, tr)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// HPC2N 2002 replayed against PJM-RTO real-time 2024, Stockholm wall clock
// read as Eastern time, shifted by whole weeks to start in 2024.
func TestAcceptanceHPC2NPJM(t *testing.T) {
	ny, err := time.LoadLocation("America/New_York")
	if err != nil {
		t.Skip("no tzdata:", err)
	}
	cost, _ := contracts.NewQuadratic(contracts.CostConfig{C0: 1e-3})
	theta := []float64{0.3, 0.4, 0.5, 0.6, 0.7, 0.8}
	res := hpc2n(t, Config{Theta: theta, Cost: cost, PUE: 1.3,
		Prices:     readPrices(t, "prices/andiehal__AREC-444-ECP__rt_hrl_lmps.csv"),
		PriceStart: time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC), PriceZone: ny, Sensitivity: SensitivityScales})

	// The first job is submitted on Thursday 2002-08-01 08:00 Stockholm time,
	// so the first slot is Thursday 2024-01-04 08:00 EST = 13:00 UTC, whose
	// PJM-RTO total_lmp_rt is 34.851571 (the file's row "1/4/2024 1:00:00 PM").
	if s := res.Slots[0]; !s.PriceTime.Equal(time.Date(2024, 1, 4, 13, 0, 0, 0, time.UTC)) || s.Price != 34.851571 {
		t.Errorf("first slot at %v price %v, want 2024-01-04 13:00 UTC at 34.851571", s.PriceTime, s.Price)
	}
	// Every menu of every slot passes the verifier, checked again here.
	for _, m := range res.Menus {
		rep, err := contracts.Verify(m.Menu.Bundles, theta, cost)
		if err != nil || !rep.OK() {
			t.Fatalf("slot %d app %d: menu fails verification: %v %v", m.Slot, m.App, err, rep.Err())
		}
	}
	s := res.Summary
	if s.Menus < 1000 || s.Accepted < 100 || !s.Saving.Decimal().IsPositive() || !s.Profit.Decimal().IsPositive() {
		t.Errorf("%d menus, %d contracts, saving %s, profit %s: want many contracts and a positive profit",
			s.Menus, s.Accepted, s.Saving, s.Profit)
	}
	checkMoney(t, res)
	t.Logf("%d slots, %d menus, %d contracts, saving %s, rewards %s, profit %s, turnaround %.0f → %.0f s",
		s.Slots, s.Menus, s.Accepted, s.Saving, s.Reward, s.Profit, s.MeanTurnBase, s.MeanTurnDR)

	// The cost saving grows with the price level.
	for i, r := range res.Sensitivity {
		t.Logf("scale %g: %d contracts, saving %s", r.Scale, r.Accepted, r.Saving)
		if i > 0 && !r.Saving.Decimal().GreaterThan(res.Sensitivity[i-1].Saving.Decimal()) {
			t.Errorf("saving at scale %g (%s) not above scale %g (%s)", r.Scale, r.Saving, res.Sensitivity[i-1].Scale, res.Sensitivity[i-1].Saving)
		}
	}
	if last := res.Sensitivity[len(res.Sensitivity)-1]; !last.Saving.Decimal().Equal(s.Saving.Decimal()) {
		t.Errorf("scale 1 saving %s differs from the main run's %s", last.Saving, s.Saving)
	}
}

// HPC2N against the epftoolbox COMED series, whose labels are local wall
// clock: the Stockholm wall clock maps onto them directly.
func TestAcceptanceHPC2NEPF(t *testing.T) {
	cost, _ := contracts.NewQuadratic(contracts.CostConfig{C0: 1e-3})
	res := hpc2n(t, Config{Theta: []float64{0.2, 0.5, 0.9}, Cost: cost, Rule: "user", Count: "active",
		Prices: readPrices(t, "prices/souhirbenamor__EPF__PJM.csv"), PriceStart: time.Date(2013, 1, 1, 0, 0, 0, 0, time.UTC)})
	// Thursday 08:00 → the first Thursday 08:00 of 2013: "2013-01-03 08:00:00,34.056527"
	if s := res.Slots[0]; !s.PriceTime.Equal(time.Date(2013, 1, 3, 8, 0, 0, 0, time.UTC)) || s.Price != 34.056527 {
		t.Errorf("first slot at %v price %v, want the label 2013-01-03 08:00 at 34.056527", s.PriceTime, s.Price)
	}
	for _, m := range res.Menus {
		if !m.Menu.Report.OK() {
			t.Fatalf("slot %d: menu fails verification", m.Slot)
		}
	}
	if res.Summary.Accepted == 0 {
		t.Error("no contracts")
	}
	checkMoney(t, res)
}
