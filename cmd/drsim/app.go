package main

import (
	"io"

	"github.com/urfave/cli/v2"
)

// newApp builds the command-line application. main and the golden tests use
// the same constructor, so tests see exactly what users see.
func newApp(stdout, stderr io.Writer) *cli.App {
	var stopProfile func() error // ends --cpuprofile and --memprofile (profile.go)
	app := &cli.App{
		Name:           "drsim",
		Usage:          "batch-scheduler and energy demand-response simulator for HPC centres",
		Writer:         stdout,
		ErrWriter:      stderr,
		ExitErrHandler: func(*cli.Context, error) {}, // main prints and picks the exit code
		Flags:          []cli.Flag{cpuProfileFlag, memProfileFlag, versionFlag},
		Before: func(c *cli.Context) error {
			stop, err := startProfile(c)
			if err != nil {
				return err
			}
			stopProfile = stop
			return nil
		},
		After: func(*cli.Context) error {
			if stopProfile == nil { // no profile, or Before failed
				return nil
			}
			stop := stopProfile
			stopProfile = nil
			return stop()
		},
		OnUsageError: func(_ *cli.Context, err error, _ bool) error {
			return usageErr(err)
		},
		// A word that is not a verb is a usage error, not a help lookup.
		Action: func(c *cli.Context) error {
			if c.Args().Present() {
				return usagef("unknown command %q (drsim help lists them)", c.Args().First())
			}
			if c.Bool("version") {
				return printVersion(c.App.Writer)
			}
			return cli.ShowAppHelp(c)
		},
		// One line per verb; each verb lives in its own file.
		Commands: []*cli.Command{
			runCommand,
			traceCommand,
			generateCommand,
			compareCommand,
			calibrateCommand,
			appsCommand,
			predictCommand,
			measureCommand,
			contractCommand,
			netCommand,
			machineCommand,
			sweepCommand,
			mergeCommand,
		},
	}
	// Unknown or malformed flags of any verb are usage errors (exit 2), and
	// so are typed values outside their range (ranges.go).
	var walk func(string, []*cli.Command)
	walk = func(prefix string, cs []*cli.Command) {
		for _, c := range cs {
			if c.OnUsageError == nil {
				c.OnUsageError = app.OnUsageError
			}
			if c.Before == nil {
				c.Before = checkFlags(prefix + c.Name)
			}
			walk(prefix+c.Name+" ", c.Subcommands)
		}
	}
	walk("", app.Commands)
	return app
}
