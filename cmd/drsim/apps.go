package main

import (
	"github.com/urfave/cli/v2"

	"drsim/powercap"
)

var appsCommand = &cli.Command{
	Name:  "apps",
	Usage: "list application power profiles and the energy-optimal frequency and cap of each",
	Flags: []cli.Flag{
		&cli.StringFlag{Name: "models", Usage: "builtin or a directory of model files from drsim calibrate", Value: "builtin"},
		&cli.StringFlag{Name: "pstates", Usage: "CPU frequencies in GHz, comma separated, or continuous (default 1.2..2.4 step 0.2, 2.7)"},
		&cli.StringFlag{Name: "caps", Usage: "cap grid MIN:MAX:STEP in W (default 80:250:10)"},
	},
	Action: func(c *cli.Context) error {
		if err := noArgs(c); err != nil {
			return err
		}
		ps, err := powercap.ParsePStates(c.String("pstates"))
		if err != nil {
			return usageErr(err)
		}
		g, err := powercap.ParseCapGrid(c.String("caps"))
		if err != nil {
			return usageErr(err)
		}
		profiles, err := powercap.LoadProfiles(c.String("models"))
		if err != nil {
			return usageErr(err)
		}
		return powercap.WriteAppList(c.App.Writer, profiles, ps, g)
	},
}
