package plot_test

import (
	"bytes"
	"fmt"
	"math"

	"drsim/results/plot"
)

// The Pareto front of four runs: "cap 0.8" is dominated by "cap 0.9" (more saving
// for less slowdown) and is left off.
func ExampleParetoFront() {
	pts := []plot.TradeOff{
		{Label: "cap 0.7", Policy: "powercap", Saving: 14, Increase: 9},
		{Label: "cap 0.8", Policy: "powercap", Saving: 5, Increase: 4},
		{Label: "cap 0.9", Policy: "powercap", Saving: 6, Increase: 1},
		{Label: "10%", Policy: "shutdown", Saving: 8, Increase: 2},
	}
	for _, i := range plot.ParetoFront(pts) {
		fmt.Printf("%s: saving %g%%, slowdown +%g%%\n", pts[i].Label, pts[i].Saving, pts[i].Increase)
	}
	// Output:
	// cap 0.9: saving 6%, slowdown +1%
	// 10%: saving 8%, slowdown +2%
	// cap 0.7: saving 14%, slowdown +9%
}

// Power over a day: the format follows the output file's extension.
func ExamplePowerOverTime() {
	in := plot.Power{
		Steps:  []plot.Step{{T: 0, W: 400e3}, {T: 8 * 3600, W: 650e3}, {T: 18 * 3600, W: 420e3}},
		Limit:  []plot.Step{{T: 0, W: math.Inf(1)}, {T: 12 * 3600, W: 500e3}, {T: 14 * 3600, W: math.Inf(1)}},
		Events: []plot.Interval{{Start: 12 * 3600, End: 14 * 3600}},
		End:    24 * 3600,
	}
	format, err := plot.FormatFor("power.svg")
	if err != nil {
		fmt.Println(err)
		return
	}
	var buf bytes.Buffer // an *os.File in cmd/drsim
	if err := plot.PowerOverTime(&buf, in, plot.Options{Format: format}); err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(format, bytes.Contains(buf.Bytes(), []byte("Time (h)")), bytes.Contains(buf.Bytes(), []byte("Power (kW)")))
	// Output: svg true true
}
