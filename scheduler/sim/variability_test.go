package sim

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"drsim/internal/sharedtest"
)

// Acceptance (issue 17) on every real trace: with per-node speed and power
// factors from a CSV (speeds 0.90–1.00, power factors 0.90–1.10; a
// bulk-synchronous pace), EASY and the dr governor with DR events on 25 %
// of the span keep every --check invariant (energy balance: Σ job energy
// = the meter's job energy and ∫P dt = jobs + idle; no over-allocation;
// the power limit), the dr governor never exceeds the limit, every job
// finishes, and the variability changes the energy.
func TestAcceptanceVariability(t *testing.T) {
	for _, path := range sharedtest.Traces(t) {
		name := filepath.Base(path)
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			base := Spec{Trace: path, DRRatio: 0.25, Check: true}
			tr, err := Load(base)
			if err != nil {
				t.Fatal(err)
			}
			var b strings.Builder
			b.WriteString("node,speed,power\n")
			for i := range int(tr.MachineProcs) {
				fmt.Fprintf(&b, "%d,%.2f,%.2f\n", i, 1-0.025*float64(i*7%5), 0.9+0.05*float64(i%5))
			}
			csv := filepath.Join(t.TempDir(), "nodes.csv")
			if err := os.WriteFile(csv, []byte(b.String()), 0o644); err != nil {
				t.Fatal(err)
			}
			for _, gov := range []string{"performance", "dr"} {
				s := base
				s.DVFS = gov
				plain, err := Run(context.Background(), s, tr, Outputs{})
				if err != nil {
					t.Fatal(err)
				}
				s.NodeVar = csv
				r, err := Run(context.Background(), s, tr, Outputs{})
				if err != nil {
					t.Fatal(err)
				}
				sm := r.Summary
				if r.Stats.NViolations > 0 {
					t.Errorf("%s: %d violations: %v", gov, r.Stats.NViolations, r.Stats.Violations)
				}
				if gov == "dr" && sm.ExcessJ > 0 {
					t.Errorf("dr: %.3g J above the limit", sm.ExcessJ)
				}
				if sm.Jobs != plain.Summary.Jobs {
					t.Errorf("%s: %d jobs finished with variability, %d without", gov, sm.Jobs, plain.Summary.Jobs)
				}
				if sm.EnergyKWh == plain.Summary.EnergyKWh {
					t.Errorf("%s: variability left the energy at %v kWh", gov, sm.EnergyKWh)
				}
				t.Logf("%s: energy %.0f → %.0f kWh", gov, plain.Summary.EnergyKWh, sm.EnergyKWh)
			}
		})
	}
}

func TestVariabilityErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.csv")
	if err := os.WriteFile(bad, []byte("node,speed,power\n0,1,1\n1,fast,1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tr := toyTrace("")
	for _, c := range []struct {
		s    Spec
		want string
	}{
		{Spec{NodeVar: bad, Procs: 2}, "bad.csv:3: speed:"},
		{Spec{SlowNodes: "0.1"}, "slow-nodes:"},
		{Spec{SlowNodes: "2:1.1"}, "slow-nodes:"},
		{Spec{SlowNodes: "0.1:0.9"}, "slow-nodes:"},
		{Spec{Pace: "mean"}, "pace:"},
		{Spec{Pace: "fastest", NodeSpeedSD: 0.03}, "pace:"},
		{Spec{NodeVar: bad, NodeSpeedSD: 0.03}, "node_var:"},
		{Spec{NodeDrift: "0@100"}, "node-drift: step 1"},
		{Spec{NodeDrift: "0@100:1.1,5@1:1.1"}, "node-drift: step 2 \"5@1:1.1\": no node \"5\""},
		{Spec{NodeDrift: "0@x:1.1"}, "time is not"},
		{Spec{NodeDrift: "0@1:0"}, "factor not in"},
	} {
		_, err := Run(context.Background(), c.s, tr, Outputs{})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: error %v; want one containing %q", c.s, err, c.want)
		}
	}
}
