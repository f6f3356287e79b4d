package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/urfave/cli/v2"

	"drsim/results"
	"drsim/results/plot"
	"drsim/scheduler"
	"drsim/scheduler/sim"
	"drsim/workloads"
)

var runCommand = &cli.Command{
	Name:  "run",
	Usage: "replay a workload through a scheduler and print a summary",
	Description: "With no flags, runs the embedded Lublin–Feitelson workload (10,000 jobs, 256 processors) under EASY.\n" +
		"--out DIR writes jobs.csv (Batsim columns), power.csv and summary.json; an existing DIR needs --force.",
	Flags: append(simFlags(),
		&cli.StringFlag{Name: "out", Usage: "directory for jobs.csv, power.csv and summary.json"},
		&cli.BoolFlag{Name: "force", Usage: "overwrite an existing --out directory"},
		&cli.Float64Flag{Name: "power-step", Usage: "write at most one power.csv row per this many seconds (0: every change)"},
		&cli.BoolFlag{Name: "stream", Usage: "kept for compatibility: trace files are always streamed, except with DR events, which need the whole trace"},
		&cli.BoolFlag{Name: "plot", Usage: "also draw power.png, queue.png and gantt.png (at most 5,000 jobs) into --out"},
		&cli.StringFlag{Name: "plot-format", Usage: "figure format: png or svg", Value: "png"},
	),
	Action: func(c *cli.Context) error {
		if err := noArgs(c); err != nil {
			return err
		}
		if c.Bool("plot") && c.String("out") == "" {
			return usagef("run: --plot needs --out DIR")
		}
		spec := specFromFlags(c)
		tr, src, closeTrace, err := sim.Open(spec)
		if err != nil {
			return usageErr(err)
		}
		defer closeTrace()
		noteMachine(c.App.ErrWriter, spec, tr) // notes.go
		noteModels(c.App.ErrWriter, specExtrapolations(spec))
		noteNodePower(c.App.ErrWriter, spec, c.IsSet("procs-per-node"))
		out, err := newRunOutputs(c.String("out"), c.Bool("force"))
		if err != nil {
			return err
		}
		defer out.abort()
		res, tl, err := runOnce(c, spec, tr, src, out)
		if errors.Is(err, workloads.ErrUnsorted) {
			// The piped trace has submits out of order: load it whole,
			// which re-sorts it, and start again on clean outputs.
			closeTrace()
			if err := out.rewind(); err != nil {
				return err
			}
			if tr, err = sim.Load(spec); err != nil {
				return usageErr(err)
			}
			res, tl, err = runOnce(c, spec, tr, nil, out)
		}
		if err != nil {
			return inputOr(err)
		}
		if tl != nil {
			if err := out.plots(tl, res, c.String("plot-format")); err != nil {
				return err
			}
		}
		if spec.Check && res.Stats.NViolations > 0 {
			return fmt.Errorf("run: %d invariant violations, first: %s", res.Stats.NViolations, res.Stats.Violations[0])
		}
		if err := out.commit(res.Summary); err != nil {
			return err
		}
		if err := res.Summary.WriteTable(c.App.Writer); err != nil {
			return err
		}
		if err := sim.WritePartitions(c.App.Writer, res); err != nil { // machine files only
			return err
		}
		if spec.Check {
			// Reached only with none: violations fail the run above.
			_, err := fmt.Fprintf(c.App.Writer, "%-25s %s\n", "invariant checks", "0 violations")
			return err
		}
		return nil
	},
}

// runOnce runs spec on tr (jobs from src when it is not nil) into out, with
// a timeline for the figures when --plot asks for them.
func runOnce(c *cli.Context, spec sim.Spec, tr *workloads.Trace, src scheduler.Source, out *runOutputs) (*sim.Result, *sim.Timeline, error) {
	o := out.outputs(c.Float64("power-step"))
	o.Source = src
	var tl *sim.Timeline
	if c.Bool("plot") {
		procs := spec.Procs
		if procs == 0 {
			procs = int(tr.MachineProcs)
		}
		tl = sim.NewTimeline(procs)
		o.Observer, o.Record = tl, tl
	}
	res, err := sim.Run(c.Context, spec, tr, o)
	return res, tl, err
}

// runOutputs are the files of one run, written atomically.
type runOutputs struct {
	dir         string
	jobs, power *results.AtomicFile
	force       bool
	created     bool // the directory did not exist before this run
}

func newRunOutputs(dir string, force bool) (*runOutputs, error) {
	o := &runOutputs{dir: dir, force: force}
	if dir == "" {
		return o, nil
	}
	if _, err := os.Stat(dir); errors.Is(err, os.ErrNotExist) {
		o.created = true
	}
	if err := results.PrepareOutDir(dir, force); err != nil {
		return nil, usageErr(err)
	}
	var err error
	if o.jobs, err = results.CreateAtomic(filepath.Join(dir, "jobs.csv"), true); err != nil {
		return nil, err
	}
	if o.power, err = results.CreateAtomic(filepath.Join(dir, "power.csv"), true); err != nil {
		o.jobs.Abort()
		return nil, err
	}
	return o, nil
}

func (o *runOutputs) outputs(step float64) sim.Outputs {
	if o.dir == "" {
		return sim.Outputs{}
	}
	return sim.Outputs{Jobs: o.jobs, Power: o.power, PowerStep: step}
}

// plots renders the run's figures into the output directory.
func (o *runOutputs) plots(tl *sim.Timeline, res *sim.Result, format string) error {
	f, err := plot.FormatFor("x." + format)
	if err != nil {
		return usageErr(err)
	}
	figs, err := tl.Figures(res.Limits, f)
	if err != nil {
		return err
	}
	for _, fig := range figs {
		if err := results.WriteFileAtomic(filepath.Join(o.dir, fig.Name), fig.Data, true); err != nil {
			return err
		}
	}
	return nil
}

func (o *runOutputs) commit(s *results.Summary) error {
	if o.dir == "" {
		return nil
	}
	var b bytes.Buffer
	if err := s.WriteJSON(&b); err != nil {
		return err
	}
	if err := o.jobs.Commit(); err != nil {
		return err
	}
	if err := o.power.Commit(); err != nil {
		return err
	}
	return results.WriteFileAtomic(filepath.Join(o.dir, "summary.json"), b.Bytes(), true)
}

// rewind empties the outputs written so far, for a fresh run.
func (o *runOutputs) rewind() error {
	if o.jobs == nil {
		return nil
	}
	if err := o.jobs.Rewind(); err != nil {
		return err
	}
	return o.power.Rewind()
}

// abort removes the unfinished files and, if this run created the output
// directory and it is still empty, the directory.
func (o *runOutputs) abort() {
	if o.jobs != nil {
		o.jobs.Abort()
		o.power.Abort()
	}
	if o.created {
		os.Remove(o.dir) // fails, harmlessly, unless empty
	}
}

// inputOr classifies a simulation error: configuration mistakes (unknown
// names, bad values) are input errors; everything else is a runtime error.
func inputOr(err error) error {
	var ce interface{ ConfigError() bool }
	if errors.As(err, &ce) && ce.ConfigError() {
		return usageErr(err)
	}
	return err
}
