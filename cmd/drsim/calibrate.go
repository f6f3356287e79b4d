package main

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/urfave/cli/v2"

	"drsim/powercap"
	"drsim/results"
)

var calibrateCommand = &cli.Command{
	Name:  "calibrate",
	Usage: "fit power and runtime models to measurements and write model files",
	Description: "Formats: generic (CSV app,x,power_w,runtime_s[,nodes][,energy_j]), pcm-capsweep (directory of\n" +
		"<app>/pcm_<app>_<cap>.csv), ecp-cap (<app>_cap_cpu.csv / _cap_dual.csv) and iconoclast (miniMD data.csv);\n" +
		"GPU: ecp-gpucap (<app>_cap_gpu.csv, --x gpucap), ecp-dual (<app>_cap_dual.csv grid, --x joint) and\n" +
		"nv-dvfs (<device>-dvfs-real.csv, --x gpufreq; clocks in MHz become GHz).\n" +
		"nodepower (CSV node,pstate_ghz,active_cores,total_cores,app,watts; --x freq) prints node power per P-state\n" +
		"(SimGrid's Idle:1Core:AllCores form) and the --form fit's quality.\n" +
		"--x freq fits cubic p(f) and quadratic t(f); --x cap fits cubic p(P) and t(P) = a·exp(b·P) + c;\n" +
		"--x gpufreq and --x gpucap fit the same forms to GPU power and runtime; --x joint tabulates the\n" +
		"(CPU cap, GPU cap) grid (docs/gpu.md).\n" +
		"Model files <out>/<app>.json are merged with an existing file's other knob; replacing a knob's model\n" +
		"or a plot that exists needs --force.",
	Flags: []cli.Flag{
		&cli.StringFlag{Name: "input", Usage: "measurement file or directory", Required: true},
		&cli.StringFlag{Name: "format", Usage: "generic, pcm-capsweep, ecp-cap, iconoclast, ecp-gpucap, ecp-dual or nv-dvfs", Value: "generic"},
		&cli.StringFlag{Name: "x", Usage: "knob the models are functions of: freq (GHz), cap (W), gpufreq (GHz), gpucap (W) or joint", Required: true},
		&cli.StringFlag{Name: "out", Usage: "directory for model files (default: print the report only)"},
		&cli.BoolFlag{Name: "plot", Usage: "also write <out>/<app>-<x>-{power,runtime}.<plot-format>"},
		&cli.StringFlag{Name: "plot-format", Usage: "svg or png", Value: "svg"},
		&cli.BoolFlag{Name: "force", Usage: "replace this knob's models and plots in existing --out files"},
		&cli.StringFlag{Name: "form", Usage: "--format nodepower: fit of node power across P-states: linear, quadratic or cubic", Value: "cubic"},
	},
	Action: func(c *cli.Context) error {
		if err := noArgs(c); err != nil {
			return err
		}
		if c.String("format") == "nodepower" {
			return calibrateNodePower(c) // calibrate_nodepower.go
		}
		knob, err := powercap.ParseKnob(c.String("x"))
		if err != nil {
			return usageErr(err)
		}
		imp, ok := powercap.Importers[c.String("format")]
		if !ok {
			return usagef("calibrate: unknown format %q (known: %s)", c.String("format"), strings.Join(powercap.ImporterNames(), ", "))
		}
		in := filepath.Clean(c.String("input"))
		ds, err := imp(os.DirFS(filepath.Dir(in)), filepath.Base(in))
		if err != nil {
			return usageErr(inputPath(err, filepath.Dir(in)))
		}
		for _, w := range ds.Warnings {
			fmt.Fprintf(c.App.ErrWriter, "drsim: warning: %s%c%s\n", filepath.Dir(in), filepath.Separator, w)
		}
		cals, err := powercap.Calibrate(c.Context, ds, knob)
		if err != nil {
			return usageErr(inputPath(err, filepath.Dir(in)))
		}
		if c.Bool("plot") && c.String("out") == "" {
			return usagef("calibrate: --plot needs --out DIR")
		}
		if c.Bool("plot") && knob == powercap.Joint {
			return usagef("calibrate: --plot draws single-knob fits: --x joint has none")
		}
		if err := checkCalibrationOut(c, cals); err != nil {
			return err
		}
		for i := range cals {
			if err := writeCalibration(c, &cals[i]); err != nil {
				return err
			}
		}
		return nil
	},
}

// inputPath prefixes the file named in a *powercap.FileError with dir, so
// that errors name the file as the user typed it.
func inputPath(err error, dir string) error {
	var fe *powercap.FileError
	if errors.As(err, &fe) && fe.File != "" && !filepath.IsAbs(fe.File) {
		fe.File = filepath.Join(dir, fe.File)
	}
	return err
}

// calibrationFiles returns the model file of cal under out and the plot
// files --plot would write.
func calibrationFiles(c *cli.Context, out string, cal *powercap.Calibration) (model string, plots map[string]string) {
	base := strings.NewReplacer("/", "_", "\\", "_", " ", "_").Replace(cal.Profile.Name)
	plots = map[string]string{}
	if c.Bool("plot") {
		for _, q := range []string{"power", "runtime"} {
			if q == "power" && cal.Profile.Model(cal.Knob).Power == nil {
				continue
			}
			plots[q] = filepath.Join(out, fmt.Sprintf("%s-%s-%s.%s", base, cal.Knob, q, c.String("plot-format")))
		}
	}
	return filepath.Join(out, base+".json"), plots
}

// checkCalibrationOut refuses, before anything is written, to replace a
// model of the same knob or a plot that already exists under --out,
// unless --force: what an earlier calibration wrote is the user's. Adding
// the other knob's model to an existing file is a merge, not a loss.
func checkCalibrationOut(c *cli.Context, cals []powercap.Calibration) error {
	out := c.String("out")
	if out == "" || c.Bool("force") {
		return nil
	}
	for i := range cals {
		model, plots := calibrationFiles(c, out, &cals[i])
		if f, err := os.Open(model); err == nil {
			old, err := powercap.DecodeModel(f, model)
			f.Close()
			if err != nil {
				return usageErr(fmt.Errorf("calibrate: cannot merge into existing model file: %w", err))
			}
			if old.Has(cals[i].Knob) {
				return usagef("calibrate: %s already has a %s model (use --force to replace it)", model, cals[i].Knob)
			}
		}
		for _, q := range []string{"power", "runtime"} {
			if p, ok := plots[q]; ok {
				if _, err := os.Stat(p); err == nil {
					return usagef("calibrate: %s already exists (use --force to overwrite)", p)
				}
			}
		}
	}
	return nil
}

// writeCalibration prints the report of one app and, with --out, writes
// (merging) its model file and plots.
func writeCalibration(c *cli.Context, cal *powercap.Calibration) error {
	w := c.App.Writer
	if err := cal.WriteReport(w); err != nil {
		return err
	}
	fmt.Fprintln(w)
	out := c.String("out")
	if out == "" {
		return nil
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	path, plots := calibrationFiles(c, out, cal)
	prof := cal.Profile
	if f, err := os.Open(path); err == nil {
		old, err := powercap.DecodeModel(f, path)
		f.Close()
		if err != nil {
			return usageErr(fmt.Errorf("calibrate: cannot merge into existing model file: %w", err))
		}
		prof = powercap.Merge(old, prof)
	}
	var buf bytes.Buffer
	if err := powercap.SaveModel(&buf, prof); err != nil {
		return err
	}
	// checkCalibrationOut has refused what --force did not allow.
	if err := results.WriteFileAtomic(path, buf.Bytes(), true); err != nil {
		return err
	}
	for _, q := range []string{"power", "runtime"} {
		name, ok := plots[q]
		if !ok {
			continue
		}
		var img bytes.Buffer
		if err := powercap.PlotCalibration(&img, cal, q, c.String("plot-format")); err != nil {
			return usageErr(err)
		}
		if err := results.WriteFileAtomic(name, img.Bytes(), true); err != nil {
			return err
		}
	}
	return nil
}
