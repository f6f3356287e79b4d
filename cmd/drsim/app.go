package main

import (
	"io"

	"github.com/urfave/cli/v2"
)

// newApp builds the command-line application. main and the golden tests use
// the same constructor, so tests see exactly what users see.
func newApp(stdout, stderr io.Writer) *cli.App {
	return &cli.App{
		Name:            "drsim",
		Usage:           "batch-scheduler and energy demand-response simulator for HPC centres",
		Writer:          stdout,
		ErrWriter:       stderr,
		HideHelpCommand: true,
		ExitErrHandler:  func(*cli.Context, error) {}, // main prints and picks the exit code
		OnUsageError: func(_ *cli.Context, err error, _ bool) error {
			return usageErr(err)
		},
		// One line per verb; each verb lives in its own file.
		Commands: []*cli.Command{
			runCommand,
			netCommand,
			measureCommand,
			calibrateCommand,
			appsCommand,
			predictCommand,
			contractCommand,
			traceCommand,
			generateCommand,
			compareCommand,
			sweepCommand,
			mergeCommand,
		},
	}
}
