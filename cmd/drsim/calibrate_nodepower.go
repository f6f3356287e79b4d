package main

import (
	"fmt"
	"io"
	"os"
	"text/tabwriter"

	"github.com/urfave/cli/v2"

	"drsim/powercap"
	"drsim/powercap/nodepower"
)

// calibrateNodePower is drsim calibrate --format nodepower: it reads the
// long CSV node,pstate_ghz,active_cores,total_cores,app,watts, fits the
// Idle:1Core:AllCores node power model (powercap/nodepower, issue 17) with
// --form across P-states and prints each (node, application)'s per-P-state
// table with the fit and its quality.
func calibrateNodePower(c *cli.Context) error {
	if c.String("x") != "freq" {
		return usagef("calibrate: --format nodepower fits node power per P-state: use --x freq (got %q)", c.String("x"))
	}
	if c.String("out") != "" || c.Bool("plot") {
		return usagef("calibrate: --format nodepower prints its table; it writes no model files or plots yet")
	}
	form := powercap.Form(c.String("form"))
	if form.Params() == 0 {
		return usagef("calibrate: --form %q is not linear, quadratic or cubic", form)
	}
	in := c.String("input")
	f, err := os.Open(in)
	if err != nil {
		return usageErr(err)
	}
	defer f.Close()
	samples, err := nodepower.Read(f, in)
	if err != nil {
		return usageErr(err)
	}
	ms, err := nodepower.Fit(samples, form)
	if err != nil {
		return usageErr(fmt.Errorf("%s: %w", in, err))
	}
	w := c.App.Writer
	for i := range ms {
		m := &ms[i]
		fmt.Fprintf(w, "node %s, app %s: %d cores, idle %.2f W; %s fit of P_all(f): R² %.5f, RMSE %.3f W, LOO RMSE %.3f W, worst error %.3f W\n",
			m.Node, m.App, m.Cores, m.Idle, form, m.AllCores.R2, m.AllCores.RMSE, m.AllCores.LOORMSE, m.MaxError())
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "GHz\tP_static W\tP_all W\tfit P_all W\terror W\tpoints\t")
		for _, st := range m.States {
			note := ""
			if st.StaticFromIdle {
				note = " (idle)"
			}
			fit := m.AllCores.At(st.GHz)
			fmt.Fprintf(tw, "%.2f\t%.2f%s\t%.2f\t%.2f\t%+.3f\t%d\t\n", st.GHz, st.Static, note, st.AllCores, fit, fit-st.AllCores, st.Points)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
		writeFigures(w, m.MachineFigures())
	}
	return nil
}

// writeFigures prints the lines a machine file's [[node_type]] takes
// (docs/machine.md, docs/variability.md), ready to paste.
func writeFigures(w io.Writer, f nodepower.Figures) {
	fmt.Fprintf(w, "# machine file [[node_type]] figures at %.2f GHz (the top P-state):\n", f.GHz)
	note := ""
	if f.Raised {
		note = "  # the fitted static power is below idle; raised to idle_w"
	}
	fmt.Fprintf(w, "cores = %d\nidle_w = %.2f\nstatic_w = %.2f%s\ncore_busy_w = %.4f\n", f.Cores, f.IdleW, f.StaticW, note, f.CoreBusyW)
}
