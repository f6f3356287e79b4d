package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/urfave/cli/v2"

	"drsim/cluster/machine"
)

// machineCommand describes machine files (docs/machine.md).
var machineCommand = &cli.Command{
	Name:  "machine",
	Usage: "machine files: node types, partitions and power",
	Subcommands: []*cli.Command{
		{
			Name:      "show",
			Usage:     "check a machine file and print its nodes, partitions and peak power",
			ArgsUsage: "[FILE|builtin:NAME]",
			Flags: []cli.Flag{
				&cli.StringFlag{Name: "machine", Usage: "machine file `FILE` or builtin:default|perlmutter (or give it as the argument)", Value: "builtin:default"},
				&cli.BoolFlag{Name: "toml", Usage: "print the file itself (for builtin machines: a starting point for your own; for a slurm.conf: a machine TOML that reads it, with its power figures to edit)"},
			},
			Action: machineShow,
		},
	},
}

func machineShow(c *cli.Context) error {
	path := c.String("machine")
	switch c.Args().Len() {
	case 0:
	case 1:
		path = c.Args().First()
	default:
		return usagef("machine show: one machine file at most, got %d arguments", c.Args().Len())
	}
	m, err := machine.Load(path)
	if err != nil {
		return usageErr(err)
	}
	for _, n := range m.Notes {
		fmt.Fprintf(c.App.ErrWriter, "drsim: note: %s\n", n)
	}
	if c.Bool("toml") {
		var text []byte
		if name, ok := strings.CutPrefix(path, "builtin:"); ok {
			text, err = machine.BuiltinText(name)
		} else {
			text, err = os.ReadFile(path)
		}
		if err != nil {
			return usageErr(err)
		}
		if machine.IsSlurmConf(text) { // a TOML that reads it, to edit
			abs, err := filepath.Abs(path)
			if err != nil {
				return err
			}
			return m.WriteOverlay(c.App.Writer, abs)
		}
		_, err = c.App.Writer.Write(text)
		return err
	}
	return m.WriteText(c.App.Writer)
}
