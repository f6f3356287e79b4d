package main

import (
	"fmt"
	"path/filepath"

	"github.com/urfave/cli/v2"

	"drsim/results"
	"drsim/scheduler/sim"
)

var compareCommand = &cli.Command{
	Name:  "compare",
	Usage: "compare frequency policies over DR ratios and machine sizes, with the same DR events per ratio and size",
	Description: "One row per (policy, DR ratio, size) on stdout (Markdown); --out DIR also writes compare.csv and, with --plot,\n" +
		"power-over-time and saving-vs-turnaround SVGs. --dr-ratio and --procs take comma lists here.",
	Flags: append(compareFlags(),
		&cli.StringFlag{Name: "policies", Usage: "governors to compare, comma separated (on a machine with GPU nodes also gpucap-dr and powercap-joint: docs/gpu-dr.md)", Value: "performance,powersave,dr"},
		&cli.IntFlag{Name: "workers", Usage: "concurrent runs (0: GOMAXPROCS); output does not depend on it"},
		&cli.StringFlag{Name: "out", Usage: "directory for compare.csv (and plots)"},
		&cli.BoolFlag{Name: "force", Usage: "overwrite an existing --out directory"},
		&cli.BoolFlag{Name: "plot", Usage: "with --out, draw power over time per run and saving vs turnaround increase"},
	),
	Action: func(c *cli.Context) error {
		if err := noArgs(c); err != nil {
			return err
		}
		cfg := sim.CompareConfig{Base: specFromFlags(c), Policies: sim.ParseNames(c.String("policies")), Workers: c.Int("workers"), Series: c.Bool("plot")}
		var err error
		if cfg.Ratios, err = sim.ParseRatios(c.String("dr-ratio")); err != nil {
			return usageErr(err)
		}
		if cfg.Sizes, err = sim.ParseSizes(c.String("procs")); err != nil {
			return usageErr(err)
		}
		if dir := c.String("out"); dir != "" {
			if err := results.PrepareOutDir(dir, c.Bool("force")); err != nil {
				return usageErr(err)
			}
		}
		noteModels(c.App.ErrWriter, sim.CompareExtrapolations(cfg)) // notes.go
		cmp, err := sim.Compare(c.Context, cfg)
		if err != nil {
			return inputOr(err)
		}
		if err := writeCompareFiles(c.String("out"), cmp, c.Bool("plot")); err != nil {
			return err
		}
		if err := cmp.WriteMarkdown(c.App.Writer); err != nil {
			return err
		}
		for _, r := range cmp.Rows {
			if r.Violations > 0 {
				return fmt.Errorf("compare: %s, DR ratio %g, %d processors: %d invariant violations", r.Policy, r.Ratio, r.Procs, r.Violations)
			}
		}
		return nil
	},
}

// compareFlags are the simulation flags with --dr-ratio and --procs as lists.
func compareFlags() []cli.Flag {
	var out []cli.Flag
	for _, f := range simFlags() {
		switch f.Names()[0] {
		case "dr-ratio":
			out = append(out, &cli.StringFlag{Name: "dr-ratio", Usage: "DR ratios, comma separated (fraction of the span under DR events)"})
		case "procs":
			out = append(out, &cli.StringFlag{Name: "procs", Usage: "machine sizes, comma separated (default: trace header)"})
		default:
			out = append(out, f)
		}
	}
	return out
}

// writeCompareFiles writes compare.csv (and the plots) atomically into dir.
func writeCompareFiles(dir string, cmp *sim.Comparison, plots bool) error {
	if dir == "" {
		return nil
	}
	files := []sim.PlotFile{{Name: "compare.csv", Write: cmp.WriteCSV}}
	if plots {
		files = append(files, cmp.Plots()...)
	}
	for _, pf := range files {
		a, err := results.CreateAtomic(filepath.Join(dir, pf.Name), true)
		if err != nil {
			return err
		}
		if err := pf.Write(a); err != nil {
			a.Abort()
			return fmt.Errorf("%s: %w", pf.Name, err)
		}
		if err := a.Commit(); err != nil {
			return err
		}
	}
	return nil
}
