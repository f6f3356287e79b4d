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
)

var calibrateCommand = &cli.Command{
	Name:  "calibrate",
	Usage: "fit power and runtime models to measurements and write model files",
	Description: "Formats: generic (CSV app,x,power_w,runtime_s[,nodes][,energy_j]), pcm-capsweep (directory of\n" +
		"<app>/pcm_<app>_<cap>.csv), ecp-cap (<app>_cap_cpu.csv / _cap_dual.csv) and iconoclast (miniMD data.csv).\n" +
		"--x freq fits cubic p(f) and quadratic t(f); --x cap fits cubic p(P) and t(P) = a·exp(b·P) + c.\n" +
		"Model files <out>/<app>.json are merged with an existing file's other knob.",
	Flags: []cli.Flag{
		&cli.StringFlag{Name: "input", Usage: "measurement file or directory", Required: true},
		&cli.StringFlag{Name: "format", Usage: "generic, pcm-capsweep, ecp-cap or iconoclast", Value: "generic"},
		&cli.StringFlag{Name: "x", Usage: "knob the models are functions of: freq (GHz) or cap (W)", Required: true},
		&cli.StringFlag{Name: "out", Usage: "directory for model files (default: print the report only)"},
		&cli.BoolFlag{Name: "plot", Usage: "also write <out>/<app>-<x>-{power,runtime}.<plot-format>"},
		&cli.StringFlag{Name: "plot-format", Usage: "svg or png", Value: "svg"},
	},
	Action: func(c *cli.Context) error {
		if err := noArgs(c); err != nil {
			return err
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
	base := strings.NewReplacer("/", "_", "\\", "_", " ", "_").Replace(cal.Profile.Name)
	path := filepath.Join(out, base+".json")
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
	if err := writeFileAtomic(path, buf.Bytes()); err != nil {
		return err
	}
	if !c.Bool("plot") {
		return nil
	}
	for _, q := range []string{"power", "runtime"} {
		if q == "power" && cal.Profile.Model(cal.Knob).Power == nil {
			continue
		}
		var img bytes.Buffer
		if err := powercap.PlotCalibration(&img, cal, q, c.String("plot-format")); err != nil {
			return usageErr(err)
		}
		name := fmt.Sprintf("%s-%s-%s.%s", base, cal.Knob, q, c.String("plot-format"))
		if err := writeFileAtomic(filepath.Join(out, name), img.Bytes()); err != nil {
			return err
		}
	}
	return nil
}

// writeFileAtomic writes data to a temporary file next to path and renames
// it into place, so a reader never sees half a model file.
func writeFileAtomic(path string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".tmp-"+filepath.Base(path))
	if err != nil {
		return err
	}
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return err
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return os.Rename(tmp.Name(), path)
}
