package main

import (
	"strings"

	"github.com/urfave/cli/v2"

	"drsim/scheduler/sweep"
)

var mergeCommand = &cli.Command{
	Name:      "merge",
	Usage:     "combine sweep output directories (shards) into the saving-vs-slowdown table and plot",
	ArgsUsage: "SWEEP_DIR [SWEEP_DIR...]",
	Description: "Writes table.csv, table.md and saving_vs_slowdown.{png,svg} into --out. The result depends only on\n" +
		"the cells, so it is byte-identical whatever the sharding. --out may come before or after the directories.",
	Flags: []cli.Flag{
		&cli.StringFlag{Name: "out", Usage: "output directory for the table and plots"},
		&cli.BoolFlag{Name: "force", Usage: "overwrite files in a non-empty --out directory"},
	},
	Action: func(c *cli.Context) error {
		dirs, out, force, err := mergeArgs(c)
		if err != nil {
			return err
		}
		if len(dirs) == 0 || out == "" {
			return usagef("merge: usage: drsim merge SWEEP_DIR [SWEEP_DIR...] --out DIR")
		}
		if err := sweep.Merge(dirs, out, sweep.MergeOptions{Force: force}); err != nil {
			return usageErr(err)
		}
		return nil
	},
}

// mergeArgs takes the directories from the positional arguments. urfave/cli
// stops parsing flags at the first of them, so --out and --force written
// after the directories (as in "drsim merge a/ b/ --out t/") are picked up
// here.
func mergeArgs(c *cli.Context) (dirs []string, out string, force bool, err error) {
	out, force = c.String("out"), c.Bool("force")
	args := c.Args().Slice()
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--out" || a == "-out":
			if i+1 == len(args) {
				return nil, "", false, usagef("merge: --out needs a directory")
			}
			out = args[i+1]
			i++
		case strings.HasPrefix(a, "--out=") || strings.HasPrefix(a, "-out="):
			out = a[strings.Index(a, "=")+1:]
		case a == "--force" || a == "-force":
			force = true
		case strings.HasPrefix(a, "-"):
			return nil, "", false, usagef("merge: unknown flag %q", a)
		default:
			dirs = append(dirs, a)
		}
	}
	return dirs, out, force, nil
}
