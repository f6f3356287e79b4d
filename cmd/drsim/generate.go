package main

import (
	"io"

	"github.com/urfave/cli/v2"

	"drsim/results"
	"drsim/workloads"
)

var generateCommand = &cli.Command{
	Name:  "generate",
	Usage: "write a synthetic SWF workload (Lublin–Feitelson 2003 batch model)",
	Flags: []cli.Flag{
		&cli.StringFlag{Name: "model", Usage: "workload model (only lublin)", Value: "lublin"},
		&cli.IntFlag{Name: "jobs", Usage: "number of jobs", Value: 10000},
		&cli.Int64Flag{Name: "procs", Usage: "machine size in processors", Value: 256},
		&cli.Uint64Flag{Name: "seed", Usage: "random seed", Value: 1},
		&cli.Float64Flag{Name: "rate", Usage: "arrival-rate factor (1: the published batch model; 2: twice as many jobs per day)", Value: workloads.DefaultRate},
		&cli.StringFlag{Name: "out", Usage: "write to FILE (atomically) instead of standard output"},
		&cli.BoolFlag{Name: "force", Usage: "overwrite an existing --out FILE"},
	},
	Action: func(c *cli.Context) error {
		if err := noArgs(c); err != nil {
			return err
		}
		if m := c.String("model"); m != "lublin" {
			return usagef("generate: unknown model %q (known: lublin)", m)
		}
		tr, err := workloads.Lublin(workloads.LublinConfig{Jobs: c.Int("jobs"), Procs: c.Int64("procs"),
			Seed: c.Uint64("seed"), RateFactor: c.Float64("rate")})
		if err != nil {
			return usageErr(err)
		}
		return writeOut(c, func(w io.Writer) error { return workloads.WriteSWF(w, &tr.Header, tr.Jobs) })
	},
}

// writeOut sends write's output to --out FILE (atomically, refusing to
// overwrite without --force) or to the app's writer.
func writeOut(c *cli.Context, write func(io.Writer) error) error {
	path := c.String("out")
	if path == "" {
		return write(c.App.Writer)
	}
	f, err := results.CreateAtomic(path, c.Bool("force"))
	if err != nil {
		return usageErr(err)
	}
	defer f.Abort()
	if err := write(f); err != nil {
		return err
	}
	return f.Commit()
}
