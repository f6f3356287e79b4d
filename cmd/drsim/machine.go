package main

import (
	"os"
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
				&cli.BoolFlag{Name: "toml", Usage: "print the file itself (for builtin machines: a starting point for your own)"},
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
		_, err = c.App.Writer.Write(text)
		return err
	}
	return m.WriteText(c.App.Writer)
}
