package replay_test

import (
	"context"
	"fmt"

	"drsim/contracts"
	"drsim/contracts/replay"
	"drsim/scheduler/sim"
)

// Example replays 300 jobs of the embedded workload, all running lulesh,
// against the illustrative price day: three types of users, quadratic
// inconvenience, PUE 1.3.
func Example() {
	spec := sim.Spec{Jobs: 300, AppMap: "one:lulesh"}
	tr, err := sim.Load(spec)
	if err != nil {
		fmt.Println(err)
		return
	}
	cost, _ := contracts.NewQuadratic(contracts.CostConfig{C0: 1e-3})
	res, err := replay.Run(context.Background(), replay.Config{Spec: spec, Theta: []float64{0.2, 0.5, 0.9}, Cost: cost, PUE: 1.3}, tr)
	if err != nil {
		fmt.Println(err)
		return
	}
	s := res.Summary
	fmt.Println("illustrative prices:", s.Illustrative)
	fmt.Println("jobs by type:", s.JobsByType, "contracts:", s.AcceptedByType)
	fmt.Println("menus:", s.Menus, "all verified:", allOK(res))
	fmt.Printf("energy: %.1f → %.1f kWh\n", s.EnergyBaseKWh, s.EnergyDRKWh)
	fmt.Println("cost saving:", s.Saving, "rewards:", s.Reward, "profit:", s.Profit)
	fmt.Printf("mean turnaround: %.0f → %.0f s\n", s.MeanTurnBase, s.MeanTurnDR)
	// Output:
	// illustrative prices: true
	// jobs by type: [111 83 106] contracts: [79 23 9]
	// menus: 47 all verified: true
	// energy: 7252.8 → 7055.2 kWh
	// cost saving: 3.38 rewards: 1.78 profit: 1.60
	// mean turnaround: 58670 → 55064 s
}

func allOK(res *replay.Result) bool {
	for _, m := range res.Menus {
		if !m.Menu.Report.OK() {
			return false
		}
	}
	return true
}
