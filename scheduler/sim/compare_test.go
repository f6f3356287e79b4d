package sim

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

func runCompare(t *testing.T, workers int) (*Comparison, string) {
	t.Helper()
	cfg := CompareConfig{
		Base:   Spec{Jobs: 400, DRDuration: "1h-3h", Check: true},
		Ratios: []float64{0.25, 0.5}, Sizes: []int{64, 128},
		Policies: []string{"dr", "performance"}, Workers: workers, Series: true,
	}
	c, err := Compare(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := c.WriteMarkdown(&b); err != nil {
		t.Fatal(err)
	}
	if err := c.WriteCSV(&b); err != nil {
		t.Fatal(err)
	}
	for _, p := range c.Plots() {
		b.WriteString(p.Name + "\n")
		if err := p.Write(&b); err != nil {
			t.Fatal(err)
		}
	}
	return c, b.String()
}

// The output is byte-identical for any worker count; rows come in (size,
// ratio, policy) order as requested; dr never exceeds the limit while
// performance, facing the same events, does; the baselines are run even
// when powersave is not requested.
func TestCompare(t *testing.T) {
	c1, out1 := runCompare(t, 1)
	_, out4 := runCompare(t, 4)
	if out1 != out4 {
		t.Fatal("output depends on the worker count")
	}
	if len(c1.Rows) != 8 {
		t.Fatalf("%d rows, want 2 policies × 2 ratios × 2 sizes", len(c1.Rows))
	}
	if r := c1.Rows[0]; r.Policy != "dr" || r.Ratio != 0.25 || r.Procs != 64 {
		t.Errorf("first row %s %v %d", r.Policy, r.Ratio, r.Procs)
	}
	excess := 0.0
	for _, r := range c1.Rows {
		if r.Violations != 0 {
			t.Errorf("%s r%v p%d: %d check violations", r.Policy, r.Ratio, r.Procs, r.Violations)
		}
		switch r.Policy {
		case "dr":
			if r.MaxExcessW != 0 || r.ExcessJ != 0 {
				t.Errorf("dr r%v p%d exceeds the limit: %v W, %v J", r.Ratio, r.Procs, r.MaxExcessW, r.ExcessJ)
			}
		case "performance":
			excess += r.ExcessJ
			if r.SavingPerfPct != 0 || r.TurnIncPct != 0 {
				t.Errorf("performance is not its own baseline: %v %v", r.SavingPerfPct, r.TurnIncPct)
			}
		}
	}
	if excess == 0 {
		t.Error("performance never exceeds the limit: the events do not bite")
	}
	// Same events for every policy of a (ratio, size).
	for _, k := range c1.cells {
		p := c1.find(k, "performance")
		if len(k.res.Limits) == 0 || len(k.res.Limits) != len(p.res.Limits) || k.res.Limits[0] != p.res.Limits[0] {
			t.Fatalf("%s r%v p%d: limits differ from performance's", k.policy, k.ratio, k.procs)
		}
	}
	if !strings.Contains(out1, "saving-vs-turnaround.svg") || !strings.Contains(out1, "power-dr-r0.5-p128.svg") {
		t.Error("missing plots")
	}
}

func TestCompareErrors(t *testing.T) {
	if _, err := Compare(context.Background(), CompareConfig{Base: Spec{Jobs: 10}, Policies: []string{"turbo"}}); err == nil || !strings.Contains(err.Error(), "turbo") {
		t.Errorf("unknown policy: %v", err)
	}
	if _, err := ParseRatios("0.2,1.5"); err == nil {
		t.Error("ratio 1.5 accepted")
	}
	if _, err := ParseSizes("128,x"); err == nil {
		t.Error("size x accepted")
	}
}

// Every governor works with every scheduling policy under DR events: all
// jobs finish, the online checks pass, and only dr is bound to the limit.
func TestEveryPolicyAndGovernor(t *testing.T) {
	base := Spec{Jobs: 600, Procs: 64, DRRatio: 0.4, DRDuration: "1h-3h", Check: true}
	tr, err := Load(base)
	if err != nil {
		t.Fatal(err)
	}
	for _, pol := range []string{"fcfs", "easy", "conservative"} {
		for _, gov := range []string{"performance", "powersave", "dr"} {
			s := base
			s.Policy, s.DVFS = pol, gov
			r, err := Run(context.Background(), s, tr, Outputs{})
			if err != nil {
				t.Fatalf("%s/%s: %v", pol, gov, err)
			}
			if r.Stats.NViolations > 0 || r.Summary.Jobs != len(tr.Jobs) {
				t.Errorf("%s/%s: %d violations %v, %d of %d jobs", pol, gov, r.Stats.NViolations, r.Stats.Violations, r.Summary.Jobs, len(tr.Jobs))
			}
			if gov == "dr" && r.Summary.ExcessJ > 0 {
				t.Errorf("%s/dr: %v J above the limit", pol, r.Summary.ExcessJ)
			}
		}
	}
}
