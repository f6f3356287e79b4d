package main

import (
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/urfave/cli/v2"

	"drsim/workloads"
)

var traceCommand = &cli.Command{
	Name:  "trace",
	Usage: "inspect, validate and convert traces (SWF or Slurm sacct -P logs)",
	Subcommands: []*cli.Command{
		{
			Name:      "info",
			Usage:     "print a trace's header, counts, machine size, ranges and anomalies",
			ArgsUsage: "FILE",
			Flags: append(traceReadFlags(),
				&cli.BoolFlag{Name: "json", Usage: "print JSON instead of text"}),
			Action: func(c *cli.Context) error {
				h, rep, err := scanTrace(c, false)
				if err != nil {
					return err
				}
				in := workloads.NewInfo(h, rep)
				if c.Bool("json") {
					enc := json.NewEncoder(c.App.Writer)
					enc.SetIndent("", "  ")
					return enc.Encode(in)
				}
				return in.WriteText(c.App.Writer)
			},
		},
		{
			Name:      "validate",
			Usage:     "check a trace: lenient prints the anomaly report; --strict fails (exit 2) on the first anomaly",
			ArgsUsage: "FILE",
			Flags: append(traceReadFlags(),
				&cli.BoolFlag{Name: "strict", Usage: "fail on the first anomaly, naming file:line:field"}),
			Action: func(c *cli.Context) error {
				_, rep, err := scanTrace(c, c.Bool("strict"))
				if err != nil {
					return err
				}
				w := c.App.Writer
				fmt.Fprintf(w, "%s: ok: %d jobs read, %d kept, %d dropped\n", rep.File, rep.Records, rep.Kept, rep.Dropped)
				for _, a := range rep.Anomalies {
					if a.Count > 0 {
						fmt.Fprintf(w, "  %-24s %8d  first at %s\n", a.Reason, a.Count, a.First)
					}
				}
				return nil
			},
		},
		traceConvertCommand,
	},
}

// traceReadFlags are the reader options shared by the trace verbs.
func traceReadFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "trace", Usage: "SWF trace, plain or gzip (or give FILE as the argument)"},
		&cli.StringFlag{Name: "procs-field", Usage: "processor count from SWF field 8 (req) or 5 (alloc), falling back to the other", Value: "req"},
		&cli.StringFlag{Name: "estimate", Usage: "runtime estimate: requested time (req) or the true runtime (run)", Value: "req"},
		&cli.Int64Flag{Name: "procs", Usage: "machine size in processors (default: header MaxProcs, then MaxNodes, then the largest job)"},
		&cli.StringFlag{Name: "trace-format", Usage: "trace format: auto (a JobID|... header is sacct -P output), swf or sacct (default: auto)"},
		&cli.StringFlag{Name: "trace-tz", Usage: "time zone of a sacct log's times, e.g. Europe/Paris (default: UTC)"},
		&cli.BoolFlag{Name: "keep-unstarted", Usage: "keep sacct jobs that never started as submits with zero runtime"},
	}
}

// scanTrace reads the trace named by --trace or the single FILE argument.
// Unreadable or invalid input is a usage error (exit 2).
func scanTrace(c *cli.Context, strict bool) (*workloads.Header, *workloads.Report, error) {
	path, err := traceArg(c)
	if err != nil {
		return nil, nil, err
	}
	opt := workloads.Options{File: path, Strict: strict, MachineProcs: c.Int64("procs")}
	if opt.ProcsField, err = workloads.ParseProcsField(c.String("procs-field")); err != nil {
		return nil, nil, usageErr(err)
	}
	if opt.EstimateField, err = workloads.ParseEstimateField(c.String("estimate")); err != nil {
		return nil, nil, usageErr(err)
	}
	if err := sacctFlags(c, &opt); err != nil {
		return nil, nil, err
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, usageErr(err)
	}
	defer f.Close()
	h, rep, err := workloads.Scan(f, opt)
	return h, rep, usageErr(err)
}

// traceArg returns the trace path: --trace FILE or exactly one FILE
// argument. urfave/cli v2 ignores flags written after FILE, so those are
// refused rather than silently dropped.
func traceArg(c *cli.Context) (string, error) {
	args, name, flag := c.Args().Slice(), "trace "+c.Command.Name, c.String("trace")
	for _, a := range args[min(1, len(args)):] {
		if strings.HasPrefix(a, "-") {
			return "", usagef("%s: flags must come before FILE (got %q after %q)", name, a, args[0])
		}
	}
	switch {
	case len(args) > 1:
		return "", usagef("%s: want one FILE, got %d arguments", name, len(args))
	case len(args) == 1 && flag != "":
		return "", usagef("%s: give the trace as --trace or as FILE, not both", name)
	case len(args) == 1:
		return args[0], nil
	case flag == "":
		return "", usagef("%s: missing FILE (usage: drsim %s [flags] FILE)", name, name)
	}
	return flag, nil
}
