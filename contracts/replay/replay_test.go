package replay

import (
	"context"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"

	"drsim/contracts"
	"drsim/scheduler/sim"
	"drsim/workloads"
)

func TestTypeRule(t *testing.T) {
	r, err := NewTypeRule("dist", []float64{0.5, 0, 0.5}, 3, 7)
	if err != nil {
		t.Fatal(err)
	}
	n := [3]int{}
	for id := range int64(10000) {
		j := workloads.Job{ID: id, User: id % 3}
		n[r.Type(&j)]++
		if again := r.Type(&j); again != r.Type(&j) {
			t.Fatal("not deterministic")
		}
	}
	// a zero-probability type is never drawn; the others near 1/2 (binomial sd 50)
	if n[1] != 0 || math.Abs(float64(n[0])-5000) > 250 {
		t.Errorf("dist counts %v, want about 5000/0/5000", n)
	}
	u, _ := NewTypeRule("user", nil, 6, 7)
	seen := map[int64]int{}
	for id := range int64(3000) {
		j := workloads.Job{ID: id, User: id % 17}
		if tp, ok := seen[j.User]; ok && tp != u.Type(&j) {
			t.Fatalf("user %d got types %d and %d", j.User, tp, u.Type(&j))
		}
		seen[j.User] = u.Type(&j)
	}
	// different seeds give a different assignment
	other, _ := NewTypeRule("dist", nil, 6, 8)
	same := 0
	for id := range int64(600) {
		j := workloads.Job{ID: id}
		if other.Type(&j) == u.Type(&workloads.Job{ID: id, User: -1}) {
			same++
		}
	}
	if same > 200 {
		t.Errorf("seeds 7 and 8 agree on %d of 600 jobs (chance: 100)", same)
	}
	for _, bad := range []struct {
		rule  string
		probs []float64
	}{{"zipf", nil}, {"dist", []float64{0, 0, 0}}, {"dist", []float64{1, -1, 1}}} {
		if _, err := NewTypeRule(bad.rule, bad.probs, 3, 1); err == nil {
			t.Errorf("NewTypeRule(%q, %v) accepted", bad.rule, bad.probs)
		}
	}
}

// HPC2N's header: 2002-07-28 07:04:05 UTC, 09:04:05 in Stockholm (CEST).
func hpc2nTrace() *workloads.Trace {
	return &workloads.Trace{Header: workloads.Header{UnixStartTime: 1027839845, TimeZone: "Europe/Stockholm"},
		Jobs: []workloads.Job{{Submit: 0}}}
}

func TestClock(t *testing.T) {
	utc := &contracts.Series{Start: time.Date(2002, 7, 28, 0, 0, 0, 0, time.UTC), Step: time.Hour, Clock: "UTC", Price: make([]float64, 48)}
	local := &contracts.Series{Start: utc.Start, Step: time.Hour, Clock: "local wall clock", Price: make([]float64, 48)}
	index := &contracts.Series{Start: time.Unix(0, 0).UTC(), Step: time.Hour, Clock: "hour index (Start is the Unix epoch; use AtOffset)", Price: make([]float64, 48)}
	ny, err := time.LoadLocation("America/New_York")
	if err != nil {
		t.Skip("no tzdata:", err)
	}
	tests := []struct {
		name     string
		cfg      Config
		t0, at0  string // first slot start (price time), and price time of trace time 0
		wantMode clockMode
		t0Trace  float64 // first slot start in trace time
	}{
		// hand-computed: UTC instant 07:04:05, slot back to 07:00
		{"instant", Config{Prices: utc}, "2002-07-28T07:00:00Z", "2002-07-28T07:04:05Z", modeInstant, -245},
		// Stockholm wall clock 09:04:05 as a label
		{"label", Config{Prices: local}, "2002-07-28T09:00:00Z", "2002-07-28T09:04:05Z", modeLabel, -245},
		// Stockholm 09:04:05 read as New York 09:04:05 EDT = 13:04:05 UTC
		{"zoned", Config{Prices: utc, PriceZone: ny}, "2002-07-28T13:00:00Z", "2002-07-28T13:04:05Z", modeZoned, -245},
		// hour 0 is the first submit itself
		{"index", Config{Prices: index}, "1970-01-01T00:00:00Z", "1970-01-01T00:00:00Z", modeIndex, 0},
		// Sunday 07:00 UTC moved to the first Sunday 07:00 at or after 2024-01-01 (a Monday)
		{"start", Config{Prices: utc, PriceStart: time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)}, "2024-01-07T07:00:00Z", "2024-01-07T07:04:05Z", modeInstant, -245},
		{"start+offset", Config{Prices: utc, PriceStart: time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC), Offset: -2 * time.Hour}, "2024-01-07T05:00:00Z", "2024-01-07T05:04:05Z", modeInstant, -245},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg := tc.cfg.withDefaults()
			c, err := newClock(&cfg, hpc2nTrace(), 0)
			if err != nil {
				t.Fatal(err)
			}
			if c.mode != tc.wantMode || c.t0 != tc.t0Trace {
				t.Errorf("mode %d t0 %v, want %d %v", c.mode, c.t0, tc.wantMode, tc.t0Trace)
			}
			if got := c.at(c.t0).UTC().Format(time.RFC3339); got != tc.t0 {
				t.Errorf("first slot at %s, want %s", got, tc.t0)
			}
			if got := c.at(0).UTC().Format(time.RFC3339); got != tc.at0 {
				t.Errorf("at(0) = %s, want %s", got, tc.at0)
			}
		})
	}
}

func TestSlotPriceMean(t *testing.T) {
	s := &contracts.Series{Start: time.Unix(0, 0).UTC(), Step: time.Hour, Clock: "UTC", Price: []float64{10, 20, 30, 40, 50}}
	cfg := (&Config{Prices: s, Slot: 2 * time.Hour}).withDefaults()
	c, err := newClock(&cfg, &workloads.Trace{}, 3600) // first submit at hour 1: slots [0,2h), [2h,4h)
	if err != nil {
		t.Fatal(err)
	}
	for k, want := range []float64{15, 35} {
		if p, _, err := c.price(k, 7200); err != nil || p != want {
			t.Errorf("slot %d price %v, %v; want %v (mean of its two hours)", k, p, err, want)
		}
	}
	if _, _, err := c.price(2, 7200); err == nil || !strings.Contains(err.Error(), "outside") {
		t.Errorf("slot past the series: %v", err)
	}
}

func TestSlotEnergy(t *testing.T) {
	p := powerSeries{}
	for _, s := range [][2]float64{{0, 100}, {1800, 150}, {1800, 200}, {5400, 50}} {
		p.Power(s[0], s[1], 0, 0, 0) // two changes at 1800: the last one holds
	}
	got := p.slotEnergy(0, 3600, 3, 9000)
	// hand-computed: 100·1800 + 200·1800; 200·1800 + 50·1800; 50·1800
	want := []float64{540000, 450000, 90000}
	for k := range want {
		if got[k] != want[k] {
			t.Errorf("slot %d energy %v J, want %v", k, got[k], want[k])
		}
	}
}

// tiny runs a small generated workload on one application.
func tiny(t *testing.T, c0 float64, sens []float64) (*Result, *workloads.Trace) {
	t.Helper()
	spec := sim.Spec{Jobs: 400, AppMap: "one:lulesh", Check: true}
	tr, err := sim.Load(spec)
	if err != nil {
		t.Fatal(err)
	}
	cost, _ := contracts.NewQuadratic(contracts.CostConfig{C0: c0})
	res, err := Run(context.Background(), Config{Spec: spec, Theta: []float64{0.3, 0.5, 0.8}, Cost: cost, PUE: 1.3, Sensitivity: sens}, tr)
	if err != nil {
		t.Fatal(err)
	}
	return res, tr
}

func TestContractsStretchAndPay(t *testing.T) {
	res, tr := tiny(t, 1e-4, nil)
	if len(res.Contracts) == 0 {
		t.Fatal("no contracts: the test needs some")
	}
	if n := res.Contract.Stats.NViolations; n > 0 {
		t.Fatalf("engine invariants: %v", res.Contract.Stats.Violations)
	}
	for _, c := range res.Contracts {
		j := &tr.Jobs[c.Job]
		ls := res.Baseline.Tables[c.App].Levels
		if res.Apps[c.App] != "lulesh" {
			t.Fatalf("job %d on app %s, want lulesh", j.ID, res.Apps[c.App])
		}
		// the engine stretched the run by the level's scale exactly
		if want := c.BaseRun * ls[c.Level].Scale; math.Abs(c.SlowRun-want) > 1e-6*want {
			t.Errorf("job %d: runtime %v at level %d, want %v × %v", j.ID, c.SlowRun, c.Level, c.BaseRun, ls[c.Level].Scale)
		}
		if want := float64(j.Procs) * (ls[len(ls)-1].Power - ls[c.Level].Power) * 3600; math.Abs(c.DeltaE-want) > 1e-9*want {
			t.Errorf("job %d: Δe %v, want %v", j.ID, c.DeltaE, want)
		}
		if c.Bundle != c.Type || c.Utility < -contracts.Tol || !(c.Dt > 0) {
			t.Errorf("job %d type %d took bundle %d with utility %v, Δt %v", j.ID, c.Type, c.Bundle, c.Utility, c.Dt)
		}
	}
	checkMoney(t, res)
	for _, m := range res.Menus {
		if !m.Menu.Report.OK() {
			t.Errorf("slot %d: menu fails verification", m.Slot)
		}
	}
}

// checkMoney checks that every total is the exact sum of its slot rows,
// and the summary's identities.
func checkMoney(t *testing.T, res *Result) {
	t.Helper()
	var cb, cd, rw, rv, uu decimal.Decimal
	accepted := 0
	for _, s := range res.Slots {
		cb, cd = cb.Add(s.CostBase.Decimal()), cd.Add(s.CostDR.Decimal())
		for i := range s.Reward {
			rw, rv, uu = rw.Add(s.Reward[i].Decimal()), rv.Add(s.Revenue[i].Decimal()), uu.Add(s.UserUtility[i].Decimal())
			accepted += s.Accepted[i]
		}
	}
	sm := res.Summary
	for _, x := range []struct {
		name      string
		sum, want decimal.Decimal
	}{{"cost base", cb, sm.CostBase.Decimal()}, {"cost DR", cd, sm.CostDR.Decimal()}, {"rewards", rw, sm.Reward.Decimal()},
		{"revenue", rv, sm.Revenue.Decimal()}, {"user utility", uu, sm.UserUtility.Decimal()},
		{"saving", cb.Sub(cd), sm.Saving.Decimal()}, {"profit", cb.Sub(cd).Sub(rw), sm.Profit.Decimal()}} {
		if !x.sum.Equal(x.want) || x.want.Exponent() < -2 {
			t.Errorf("%s: slots sum to %s, summary says %s", x.name, x.sum, x.want)
		}
	}
	if accepted != sm.Accepted || accepted != len(res.Contracts) {
		t.Errorf("contracts: slots %d, summary %d, list %d", accepted, sm.Accepted, len(res.Contracts))
	}
}

func TestNoContractsAtHighC0(t *testing.T) {
	// c0 = 1e6: any runtime increase costs more than any slot's energy
	res, _ := tiny(t, 1e6, nil)
	s := res.Summary
	if len(res.Contracts) != 0 || !s.Saving.Decimal().IsZero() || !s.Reward.Decimal().IsZero() || s.EnergyBaseKWh != s.EnergyDRKWh || s.MeanTurnBase != s.MeanTurnDR {
		t.Errorf("with no contracts the runs must coincide: %d contracts, saving %s, energy %v vs %v",
			len(res.Contracts), s.Saving, s.EnergyBaseKWh, s.EnergyDRKWh)
	}
}

func TestConfigErrors(t *testing.T) {
	cost, _ := contracts.NewQuadratic(contracts.CostConfig{C0: 1})
	tr, err := sim.Load(sim.Spec{Jobs: 10})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		cfg  Config
		want string
	}{
		{Config{Cost: cost}, "no types"},
		{Config{Theta: []float64{0.5, 0.4}, Cost: cost}, "strictly increasing"},
		{Config{Theta: []float64{0.4}}, "no inconvenience"},
		{Config{Theta: []float64{0.4}, Cost: cost, Count: "all"}, "count"},
		{Config{Theta: []float64{0.4}, Cost: cost, PUE: 0.5}, "PUE"},
		{Config{Theta: []float64{0.4, 0.5}, Cost: cost, Probs: []float64{1}}, "probabilities"},
		{Config{Theta: []float64{0.4}, Cost: cost, Sensitivity: []float64{0}}, "sensitivity"},
	} {
		if _, err := Run(context.Background(), tc.cfg, tr); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Run(%+v) = %v, want an error containing %q", tc.cfg, err, tc.want)
		}
	}
}
