package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/klauspost/compress/gzip"
	"github.com/urfave/cli/v2"

	"drsim/workloads"
)

var traceConvertCommand = &cli.Command{
	Name:      "convert",
	Usage:     "convert a Slurm accounting log (sacct -P) to SWF, saying what was dropped; --to sacct writes SWF as a sacct -P log",
	ArgsUsage: "IN OUT",
	Flags: append(traceReadFlags()[1:], // no --trace: IN is the argument
		&cli.StringFlag{Name: "to", Usage: "output format: swf or sacct", Value: "swf"},
		&cli.BoolFlag{Name: "keep-names", Usage: "SWF output: list user and account names in the header (default: numbers only)"},
		&cli.BoolFlag{Name: "force", Usage: "overwrite OUT if it exists"}),
	Action: func(c *cli.Context) error {
		args := c.Args().Slice()
		for _, a := range args {
			if strings.HasPrefix(a, "-") {
				return usagef("trace convert: flags must come before IN and OUT (got %q)", a)
			}
		}
		if len(args) != 2 {
			return usagef("trace convert: want IN and OUT, got %d arguments (usage: drsim trace convert [flags] IN OUT)", len(args))
		}
		in, out := args[0], args[1]
		to := c.String("to")
		if to != "swf" && to != "sacct" {
			return usagef("trace convert: --to %q: want swf or sacct", to)
		}
		opt := workloads.Options{File: in, MachineProcs: c.Int64("procs")}
		var err error
		if opt.ProcsField, err = workloads.ParseProcsField(c.String("procs-field")); err != nil {
			return usageErr(err)
		}
		if err := sacctFlags(c, &opt); err != nil {
			return err
		}
		tr, err := workloads.LoadFile(in, opt)
		if err != nil {
			return usageErr(err)
		}
		return writeConverted(c, tr, out, to, opt.TZ)
	},
}

// writeConverted writes tr to out (gzip when out ends in .gz), refusing to
// overwrite it without --force, and reports on stderr what was dropped.
func writeConverted(c *cli.Context, tr *workloads.Trace, out, to string, loc *time.Location) error {
	flags := os.O_WRONLY | os.O_CREATE | os.O_EXCL
	if c.Bool("force") {
		flags = os.O_WRONLY | os.O_CREATE | os.O_TRUNC
	}
	f, err := os.OpenFile(out, flags, 0o644)
	if os.IsExist(err) {
		return usagef("trace convert: %s exists (give --force to overwrite it)", out)
	} else if err != nil {
		return usageErr(err)
	}
	var w io.Writer = f
	var zw *gzip.Writer
	if strings.HasSuffix(out, ".gz") {
		zw = gzip.NewWriter(f)
		w = zw
	}
	if to == "sacct" {
		err = workloads.WriteSacct(w, tr, loc)
	} else {
		h := &tr.Header
		if tr.Report.Format == "sacct" {
			h = workloads.SWFHeader(tr, c.Bool("keep-names"))
		}
		err = workloads.WriteSWF(w, h, tr.Jobs)
	}
	if zw != nil && err == nil {
		err = zw.Close()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("trace convert: %s: %v", out, err)
	}
	rep := &tr.Report
	fmt.Fprintf(c.App.ErrWriter, "%s: %d jobs read, %d written to %s, %d dropped\n", tr.File, rep.Records, len(tr.Jobs), out, rep.Dropped)
	for _, a := range rep.Anomalies {
		if a.Count > 0 {
			what := "kept"
			if a.Reason.Dropped() {
				what = "dropped"
			}
			fmt.Fprintf(c.App.ErrWriter, "  %-24s %8d %s, first at %s\n", a.Reason, a.Count, what, a.First)
		}
	}
	return nil
}

// sacctFlags reads --trace-format, --trace-tz and --keep-unstarted.
func sacctFlags(c *cli.Context, opt *workloads.Options) error {
	var err error
	if opt.Format, err = workloads.ParseFormat(c.String("trace-format")); err != nil {
		return usageErr(err)
	}
	opt.KeepUnstarted = c.Bool("keep-unstarted")
	if tz := c.String("trace-tz"); tz != "" && tz != "UTC" {
		if opt.TZ, err = time.LoadLocation(tz); err != nil {
			return usagef("--trace-tz %q: not a time zone (want a zone database name such as Europe/Paris)", tz)
		}
	}
	return nil
}
