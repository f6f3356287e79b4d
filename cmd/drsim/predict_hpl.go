package main

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/urfave/cli/v2"

	"drsim/powercap"
	"drsim/powercap/hpl"
)

// hplFlags are predict's flags for the HPL model (powercap/hpl); their
// defaults are the Dahu example.
func hplFlags() []cli.Flag {
	ex := hpl.Example()
	return []cli.Flag{
		&cli.IntFlag{Name: "hpl", Usage: "predict an HPL run of matrix order N (powercap/hpl; defaults: the Dahu example of Cornebize et al. 2019)"},
		&cli.StringFlag{Name: "grid", Usage: "HPL process grid PxQ", Value: "32x32"},
		&cli.Float64Flag{Name: "rate", Usage: "HPL: flop/s of one process (w)", Value: ex.Rate},
		&cli.Float64Flag{Name: "comm", Usage: "HPL: communication constant c in s per (P+Q)·N²", Value: ex.Comm},
		&cli.IntFlag{Name: "ranks-per-node", Usage: "HPL: processes per node", Value: ex.RanksPerNode},
		&cli.Float64Flag{Name: "node-w", Usage: "HPL: W one node draws running HPL at the top setting (0: no energy)"},
		&cli.Float64Flag{Name: "slowest", Usage: "HPL: time factor of the slowest node (1.1: 10% slower)", Value: 1},
	}
}

// predictHPL prints the HPL model's time, rate and energy; with --app and
// --freq or --cap, the compute term stretches by the app's runtime scale
// there and the node power by its power ratio, both against its top
// setting.
func predictHPL(c *cli.Context) error {
	ps, qs, ok := strings.Cut(strings.ToLower(c.String("grid")), "x")
	p, err1 := strconv.Atoi(ps)
	q, err2 := strconv.Atoi(qs)
	if !ok || err1 != nil || err2 != nil || p < 1 || q < 1 {
		return usagef("predict: --grid %q is not PxQ with positive P and Q, e.g. 32x32", c.String("grid"))
	}
	m := hpl.Model{Rate: c.Float64("rate"), Comm: c.Float64("comm"), RanksPerNode: c.Int("ranks-per-node"), NodeW: c.Float64("node-w")}
	r := hpl.Run{N: c.Int("hpl"), P: p, Q: q, Slow: c.Float64("slowest")}
	setting := "top setting"
	if c.IsSet("freq") || c.IsSet("cap") {
		if !c.IsSet("app") {
			return usagef("predict: --hpl with --freq or --cap needs --app, whose model gives the runtime scale and power there")
		}
		profiles, err := powercap.LoadProfiles(c.String("models"))
		if err != nil {
			return usageErr(err)
		}
		prof, err := powercap.Lookup(profiles, c.String("app"))
		if err != nil {
			return usageErr(err)
		}
		knob, x := powercap.Freq, c.Float64("freq")
		if c.IsSet("cap") {
			knob, x = powercap.Cap, c.Float64("cap")
		}
		mod := prof.Model(knob)
		if mod == nil {
			return usagef("predict: app %q has no %s model", prof.Name, knob)
		}
		hi := mod.XMax
		t, err1 := prof.Runtime(knob, x)
		t0, err2 := prof.Runtime(knob, hi)
		w, err3 := prof.Power(knob, x)
		w0, err4 := prof.Power(knob, hi)
		for _, err := range []error{err1, err2, err3, err4} {
			if err != nil {
				return usageErr(err)
			}
		}
		r.Scale, r.PowerF = t/t0, w/w0
		setting = fmt.Sprintf("%s %v (%s: runtime ×%.4g, power ×%.4g of %v)", knob, x, prof.Name, r.Scale, r.PowerF, hi)
	}
	res, err := m.Predict(r)
	if err != nil {
		return usageErr(err)
	}
	w := c.App.Writer
	fmt.Fprintf(w, "HPL N=%d on %dx%d (%d nodes), %s\n", r.N, p, q, res.Nodes, setting)
	fmt.Fprintf(w, "flop       %.6g\n", res.Flop)
	fmt.Fprintf(w, "compute    %.6g s\n", res.Compute)
	fmt.Fprintf(w, "network    %.6g s\n", res.Network)
	fmt.Fprintf(w, "time       %.6g s\n", res.T)
	fmt.Fprintf(w, "rate       %.6g TFlop/s\n", res.Rate/1e12)
	if m.NodeW > 0 {
		fmt.Fprintf(w, "energy     %.6g kWh\n", res.Energy/3.6e6)
	}
	return nil
}
