package main

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/urfave/cli/v2"

	"drsim/contracts"
)

// contractCommand groups the economic demand-response verbs. The simulation
// over a trace is one more entry in Subcommands (or an Action here).
var contractCommand = &cli.Command{
	Name:        "contract",
	Usage:       "economic demand response: contract menus (reward, runtime increase) for private job flexibility",
	Subcommands: []*cli.Command{contractVerifyCommand},
	Flags:       contractRunFlags(), Action: contractRunAction, // the simulation: contract_run.go
}

var contractVerifyCommand = &cli.Command{
	Name:  "verify",
	Usage: "check a menu's IR, IC and monotonicity, and its slack over the minimal rewards (exit 1 when it breaks any)",
	Flags: []cli.Flag{
		&cli.StringFlag{Name: "types", Usage: "type flexibilities θ_1 < θ_2 < …, comma-separated", Required: true},
		&cli.StringFlag{Name: "menu", Usage: "bundles reward:Δt% per type in the same order, comma-separated (e.g. 2550:30,1200:15)", Required: true},
		&cli.Float64Flag{Name: "c0", Usage: "inconvenience scale: c(Δt) = c0·Δt² (must be > 0)", Required: true},
		&cli.StringFlag{Name: "cost", Usage: "inconvenience shape (quadratic, cubic)", Value: "quadratic"},
		&cli.BoolFlag{Name: "json", Usage: "machine-readable output (money as decimal strings)"},
	},
	Action: func(c *cli.Context) error {
		if err := noArgs(c); err != nil {
			return err
		}
		theta, err := parseFloatList("--types", c.String("types"))
		if err != nil {
			return usageErr(err)
		}
		menu, err := parseMenu(c.String("menu"))
		if err != nil {
			return usageErr(err)
		}
		cost, err := contracts.Costs.New(c.String("cost"), contracts.CostConfig{C0: c.Float64("c0")})
		if err != nil {
			return usageErr(err)
		}
		rep, err := contracts.Verify(menu, theta, cost)
		if err != nil {
			return usageErr(err)
		}
		write := rep.WriteText
		if c.Bool("json") {
			write = rep.WriteJSON
		}
		if err := write(c.App.Writer); err != nil {
			return err
		}
		if !rep.OK() {
			return fmt.Errorf("contract verify: the menu breaks %d constraint(s)", len(rep.Violations))
		}
		return nil
	},
}

func parseFloatList(flag, s string) ([]float64, error) {
	var out []float64
	for i, f := range strings.Split(s, ",") {
		v, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
		if err != nil {
			return nil, fmt.Errorf("%s: item %d %q is not a number", flag, i+1, f)
		}
		out = append(out, v)
	}
	return out, nil
}

// parseMenu reads "reward:dt,reward:dt,…".
func parseMenu(s string) ([]contracts.Bundle, error) {
	var out []contracts.Bundle
	for i, item := range strings.Split(s, ",") {
		r, dt, ok := strings.Cut(item, ":")
		rv, err1 := strconv.ParseFloat(strings.TrimSpace(r), 64)
		dv, err2 := strconv.ParseFloat(strings.TrimSpace(strings.TrimSuffix(dt, "%")), 64)
		if !ok || err1 != nil || err2 != nil {
			return nil, fmt.Errorf("--menu: bundle %d %q is not reward:Δt (e.g. 2550:30)", i+1, item)
		}
		out = append(out, contracts.Bundle{Reward: rv, Dt: dv, Level: -1})
	}
	return out, nil
}
