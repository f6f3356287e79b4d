package contracts_test

import (
	"fmt"
	"os"

	"drsim/contracts"
)

// The contracts issue's worked example: three types, c(Δt) = 10·Δt², and a
// menu that is IR and IC but pays types 1 and 2 $200 more than needed.
func Example() {
	theta := []float64{0.2, 0.4, 0.8}
	menu := []contracts.Bundle{{Reward: 2550, Dt: 30}, {Reward: 1200, Dt: 15}, {Reward: 200, Dt: 5}}
	cost, _ := contracts.NewQuadratic(contracts.CostConfig{C0: 10})
	rep, err := contracts.Verify(menu, theta, cost)
	if err != nil {
		fmt.Println(err)
		return
	}
	if err := rep.WriteText(os.Stdout); err != nil {
		fmt.Println(err)
	}
	// Output:
	// types θ: 0.2, 0.4, 0.8; cost: quadratic c0=10
	// utility r_j − θ_i·c(Δt_j) (row: type, column: bundle):
	//   type    θ  1 (2550.00, 30%)  2 (1200.00, 15%)  3 (200.00, 5%)
	//      1  0.2            750.00            750.00          150.00
	//      2  0.4          -1050.00            300.00          100.00
	//      3  0.8          -4650.00           -600.00            0.00
	// type 1 chooses bundle 1 (tie with 2 at 750.00; ties go to the own bundle)
	// type 2 chooses bundle 2
	// type 3 chooses bundle 3
	// violations: none (the menu is IR, IC and monotone)
	// minimal IR/IC rewards for the same Δt (top type's IR and adjacent downward ICs bind):
	//   bundle  Δt %   reward  minimal   slack
	//        1    30  2550.00  2350.00  200.00
	//        2    15  1200.00  1000.00  200.00
	//        3     5   200.00   200.00    0.00
}
