package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"drsim/powercap/rapl"

	"github.com/urfave/cli/v2"
)

var measureCommand = &cli.Command{
	Name:      "measure",
	Usage:     "measure a command's runtime, energy and power under a sweep of RAPL caps (needs root and Intel RAPL)",
	ArgsUsage: "-- COMMAND [ARG...]",
	Description: "Sets each --caps value as the package's long-term power limit, runs COMMAND, and records\n" +
		"runtime, energy and mean power as the generic calibration CSV (app,x,power_w,runtime_s,nodes,energy_j)\n" +
		"that \"drsim calibrate\" reads. The original cap and window are restored afterwards, also on error\n" +
		"or Ctrl-C. Example: drsim measure --caps 80:250:10 --out meas.csv -- ./my_app -n 4",
	Flags: []cli.Flag{
		&cli.StringFlag{Name: "caps", Required: true, Usage: "caps in W: a list 80,100,150 or a range lo:hi:step such as 80:250:10"},
		&cli.StringFlag{Name: "zone", Value: "package-0", Usage: "RAPL zone name (package-0) or directory (intel-rapl:0)"},
		&cli.IntFlag{Name: "repeat", Value: 1, Usage: "runs per cap (one CSV row each)"},
		&cli.StringFlag{Name: "out", Usage: "write the CSV to `FILE` (atomically) instead of standard output"},
		&cli.BoolFlag{Name: "force", Usage: "overwrite an existing --out file"},
		&cli.StringFlag{Name: "app", Usage: "application name in the CSV (default: the command's base name)"},
		&cli.DurationFlag{Name: "window", Usage: "also set the cap's averaging time window, e.g. 1s; 0 leaves it as found"},
		&cli.DurationFlag{Name: "interval", Value: time.Second, Usage: "energy-counter poll period during a run (must be shorter than a counter wrap)"},
		&cli.StringFlag{Name: "root", Value: rapl.DefaultRoot, Hidden: true, Usage: "powercap class directory (tests)"},
	},
	Action: func(c *cli.Context) error {
		cfg, app, err := measureConfig(c)
		if err != nil {
			return err
		}
		ctx, stop := signal.NotifyContext(c.Context, os.Interrupt, syscall.SIGTERM)
		defer stop()
		if out := c.String("out"); out != "" {
			_, err = rapl.MeasureFile(ctx, cfg, app, out, c.Bool("force"))
			return err
		}
		ms, err := rapl.Measure(ctx, cfg)
		if err != nil {
			return err
		}
		return rapl.WriteCSV(c.App.Writer, rapl.Rows(app, ms))
	},
}

// measureConfig turns the flags and the command after "--" into a sweep.
func measureConfig(c *cli.Context) (rapl.Config, string, error) {
	argv := c.Args().Slice() // flag parsing stopped at "--" or the first argument
	if len(argv) == 0 {
		return rapl.Config{}, "", usagef("measure: no command to measure (usage: drsim measure --caps 80,100 [flags] -- COMMAND [ARG...])")
	}
	caps, err := rapl.ParseCaps(c.String("caps"))
	if err != nil {
		return rapl.Config{}, "", usagef("measure: --caps: %v", err)
	}
	switch {
	case c.Int("repeat") < 1:
		return rapl.Config{}, "", usagef("measure: --repeat %d: want at least 1", c.Int("repeat"))
	case c.Duration("window") < 0 || c.Duration("interval") <= 0:
		return rapl.Config{}, "", usagef("measure: --window and --interval must be positive")
	}
	if out := c.String("out"); out != "" && !c.Bool("force") {
		if _, err := os.Lstat(out); err == nil {
			return rapl.Config{}, "", usagef("measure: %s exists (use --force to overwrite)", out)
		}
	}
	zone, err := rapl.FindZone(c.String("root"), c.String("zone"))
	if nz, ok := errors.AsType[*rapl.NoZonesError](err); ok {
		return rapl.Config{}, "", fmt.Errorf("measure: no RAPL zones under %s (this machine has no Intel RAPL powercap interface)", nz.Root)
	} else if err != nil {
		return rapl.Config{}, "", err
	}
	app := c.String("app")
	if app == "" {
		app = filepath.Base(argv[0])
	}
	stdout := c.App.Writer // the command's output; the CSV goes there only without --out
	if c.String("out") == "" {
		stdout = c.App.ErrWriter
	}
	return rapl.Config{
		Zone: zone, Caps: caps, Command: argv, Repeat: c.Int("repeat"),
		Window: uint64(c.Duration("window").Microseconds()), Interval: c.Duration("interval"),
		Runner:   rapl.ExecRunner{Stdout: stdout, Stderr: c.App.ErrWriter},
		Progress: func(m rapl.Measurement) { progressLine(c.App.ErrWriter, zone, m) },
	}, app, nil
}

func progressLine(w io.Writer, z rapl.Zone, m rapl.Measurement) {
	fmt.Fprintf(w, "measure: %s cap %g W (asked %g W, window %d µs) run %d: %.3f s, %.3f J, %.3f W\n",
		z.Name, m.Cap, m.Requested, m.Window, m.Run, m.Runtime, m.Energy, m.Power)
}
