package main

import (
	"fmt"
	"io"
	"os"
	"time"

	"github.com/schollz/progressbar/v3"
	"github.com/urfave/cli/v2"
	"golang.org/x/term"

	"drsim/scheduler/sweep"
)

var sweepCommand = &cli.Command{
	Name:  "sweep",
	Usage: "run every cell of an experiment file (resumable, shardable over a Slurm job array)",
	Description: "The experiment file (TOML) gives any run flag (as its TOML key, e.g. dr_ratio) as a value or a list;\n" +
		"the cross product makes the cells. Each cell is written to OUT/cells/<id>/ atomically; rerunning the\n" +
		"same command skips finished cells. See docs/sweeps.md; combine the outputs with drsim merge.",
	Flags: []cli.Flag{
		&cli.StringFlag{Name: "config", Usage: "experiment file (TOML)", Required: true},
		&cli.StringFlag{Name: "out", Usage: "output directory (created, or resumed)", Required: true},
		&cli.IntFlag{Name: "workers", Usage: "cells run at once (0: one per CPU)"},
		&cli.StringFlag{Name: "shard", Usage: "run part i/n of the cells (0-based, e.g. 3/8), or auto from SLURM_ARRAY_TASK_*"},
		&cli.BoolFlag{Name: "quiet", Usage: "no progress output"},
	},
	Action: func(c *cli.Context) error {
		if err := noArgs(c); err != nil {
			return err
		}
		cfg, err := sweep.LoadConfig(c.String("config"))
		if err != nil {
			return usageErr(err)
		}
		shard, err := sweep.ParseShard(c.String("shard"), os.Getenv)
		if err != nil {
			return usageErr(err)
		}
		opt := sweep.Options{Out: c.String("out"), Workers: c.Int("workers"), Shard: shard}
		if !c.Bool("quiet") {
			opt.Progress = progressReporter(c.App.ErrWriter)
		}
		rep, err := sweep.Run(c.Context, cfg, opt)
		if err != nil {
			return inputOr(err)
		}
		if !c.Bool("quiet") {
			fmt.Fprintf(c.App.ErrWriter, "sweep: shard %s: %d of %d cells; %d ran, %d already done, %d failed\n",
				shard, rep.Shard, rep.Cells, rep.Ran, rep.Skipped, rep.Failed)
		}
		return nil
	},
}

// progressReporter draws a progress bar with ETA on a terminal, and writes
// one line per finished cell otherwise.
func progressReporter(w io.Writer) func(sweep.Progress) {
	if f, ok := w.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		var bar *progressbar.ProgressBar
		return func(p sweep.Progress) {
			if bar == nil {
				bar = progressbar.NewOptions(p.Total, progressbar.OptionSetWriter(w), progressbar.OptionSetDescription("sweep"),
					progressbar.OptionShowCount(), progressbar.OptionThrottle(100*time.Millisecond), progressbar.OptionClearOnFinish())
				_ = bar.Set(p.Done)
				return
			}
			_ = bar.Set(p.Done + p.Failed)
			if p.Err != nil {
				_ = bar.Clear()
				fmt.Fprintf(w, "sweep: cell %s failed: %v\n", p.Cell.ID, p.Err)
			}
		}
	}
	return func(p sweep.Progress) {
		switch {
		case p.Cell.ID == "":
			fmt.Fprintf(w, "sweep: %d cells, %d already done\n", p.Total, p.Skipped)
		case p.Err != nil:
			fmt.Fprintf(w, "sweep: [%d/%d] cell %s failed: %v\n", p.Done+p.Failed, p.Total, p.Cell.ID, p.Err)
		default:
			fmt.Fprintf(w, "sweep: [%d/%d] cell %s done\n", p.Done+p.Failed, p.Total, p.Cell.ID)
		}
	}
}
