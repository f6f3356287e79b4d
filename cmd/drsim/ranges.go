package main

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"

	"drsim/scheduler/sim"
)

// Flag ranges. The simulation flags (flags.go) take sim.SpecRanges; the
// other numeric and list flags of each verb are listed here, by the verb's
// full name. Every command checks the flags the user typed against them
// before its Action runs (checkFlags, wired in newApp), so a value outside
// its range is a usage error (exit 2) naming the flag, the value, the valid
// range and the likely fix. TestFlagRanges fails for a numeric or list flag
// without an entry.
var verbRanges = map[string][]sim.Range{
	"run": {
		{Flag: "power-step", What: "power.csv step", Unit: "s", Min: 0, Max: inf, Zero: "every change", ZeroTyped: true},
	},
	"compare": {
		{Flag: "dr-ratio", What: "DR ratios (fractions of the span under DR events)", Kind: sim.List, Min: 0, Max: 1, Hint: sim.HintPercent},
		{Flag: "procs", What: "machine sizes in processors", Kind: sim.List, Min: 1, Max: math.MaxInt32},
		{Flag: "policies", Kind: sim.Parsed, Parser: "the governor registry"},
		{Flag: "workers", What: "concurrent runs", Min: 0, Max: 1 << 16, Zero: "GOMAXPROCS", ZeroTyped: true},
	},
	"contract": {
		{Flag: "types", Kind: sim.Parsed, Parser: "contracts.CheckTheta"},
		{Flag: "type-probs", Kind: sim.Parsed, Parser: "replay.Config (probabilities summing to 1)"},
		{Flag: "c0", What: "inconvenience scale c0", Min: 0, MinOpen: true, Max: inf},
		{Flag: "pue", What: "power usage effectiveness", Min: 1, Max: 100, MaxOpen: true},
		{Flag: "slot", What: "contract slot length", Unit: "s", Min: 1, Max: inf},
		{Flag: "price-offset", What: "price time shift", Unit: "s", Min: math.Inf(-1), Max: inf},
	},
	"contract verify": {
		{Flag: "types", Kind: sim.Parsed, Parser: "contracts.CheckTheta"},
		{Flag: "menu", Kind: sim.Parsed, Parser: "parseMenu and contracts.Verify"},
		{Flag: "c0", What: "inconvenience scale c0", Min: 0, MinOpen: true, Max: inf},
	},
	"generate": {
		{Flag: "jobs", What: "number of jobs", Min: 1, Max: math.MaxInt32},
		{Flag: "procs", What: "machine size in processors", Min: 1, Max: math.MaxInt32},
		{Flag: "seed", What: "seed", Min: 1, Max: inf},
		{Flag: "rate", What: "arrival-rate factor", Min: 0, MinOpen: true, Max: 1000},
	},
	"predict": {
		{Flag: "freq", What: "CPU frequency", Unit: "GHz", Min: 0, MinOpen: true, Max: sim.MaxGHz, Hint: sim.HintMHz},
		{Flag: "cap", What: "package power cap", Unit: "W", Min: 1, Max: sim.MaxPackageW, Hint: sim.HintWatts},
		{Flag: "nodes", What: "processors the job uses", Min: 1, Max: math.MaxInt32},
		{Flag: "gpufreq", What: "GPU core clock", Unit: "GHz", Min: 0.1, Max: sim.MaxGHz, Hint: sim.HintMHz},
		{Flag: "gpucap", What: "GPU power cap", Unit: "W", Min: 1, Max: sim.MaxPackageW, Hint: sim.HintWatts},
		{Flag: "gpus", What: "GPUs per node", Min: 1, Max: 64},
		{Flag: "hpl", What: "HPL matrix order N", Min: 1, Max: 1e9},
		{Flag: "grid", Kind: sim.Parsed, Parser: "predictHPL (PxQ)"},
		{Flag: "rate", What: "HPL flop rate of one process", Unit: "flop/s", Min: 0, MinOpen: true, Max: 1e18},
		{Flag: "comm", What: "HPL communication constant", Unit: "s", Min: 0, Max: 1},
		{Flag: "ranks-per-node", What: "HPL processes per node", Min: 1, Max: 1 << 20},
		{Flag: "node-w", What: "HPL node power", Unit: "W", Min: 0, Max: 1e5},
		{Flag: "slowest", What: "time factor of the slowest node", Min: 1, Max: 10},
	},
	"apps": {
		{Flag: "pstates", What: "CPU frequencies", Unit: "GHz", Kind: sim.List, Min: 0, MinOpen: true, Max: sim.MaxGHz, Hint: sim.HintMHz},
		{Flag: "caps", What: "package power caps", Unit: "W", Kind: sim.Grid, Min: 1, Max: sim.MaxPackageW, Hint: sim.HintWatts},
	},
	"measure": {
		{Flag: "caps", What: "package power caps", Unit: "W", Kind: sim.List, Min: 1, Max: sim.MaxPackageW, Hint: sim.HintWatts},
		{Flag: "repeat", What: "runs per cap", Min: 1, Max: 1e6},
		{Flag: "window", What: "RAPL time window", Unit: "s", Min: 0, Max: 86400, Zero: "leave it as found", ZeroTyped: true},
		{Flag: "interval", What: "energy-counter poll period", Unit: "s", Min: 0, MinOpen: true, Max: 3600},
	},
	"net predict": {
		{Flag: "nodes", What: "job size in nodes", Min: 1, Max: math.MaxInt32},
		{Flag: "seed", What: "seed", Min: 0, Max: inf},
	},
	"trace info":     {traceProcsRange},
	"trace validate": {traceProcsRange},
	"trace convert":  {traceProcsRange},
	"sweep": {
		{Flag: "workers", What: "cells run at once", Min: 0, Max: 1 << 16, Zero: "one per CPU", ZeroTyped: true},
	},
}

var inf = math.Inf(1)

var traceProcsRange = sim.Range{Flag: "procs", What: "machine size in processors", Min: 1, Max: math.MaxInt32, Zero: "the trace header's size"}

// flagRange returns the range of flag name of command cmd (full name verb,
// e.g. "contract verify"): the verb's own entry, else, for the commands
// built on simFlags, the Spec's.
func flagRange(verb string, cmd *cli.Command, name string) (*sim.Range, bool) {
	rs := verbRanges[verb]
	if i := slices.IndexFunc(rs, func(r sim.Range) bool { return r.Flag == name }); i >= 0 {
		return &rs[i], true
	}
	if !hasSimFlags(cmd) {
		return nil, false
	}
	for i := range sim.SpecRanges {
		if sim.SpecRanges[i].Flag == name {
			return &sim.SpecRanges[i], true
		}
	}
	return nil, false
}

// hasSimFlags reports whether cmd takes the simulation flags (flags.go).
func hasSimFlags(cmd *cli.Command) bool {
	return slices.ContainsFunc(cmd.Flags, func(f cli.Flag) bool { return f.Names()[0] == "dr-events" })
}

// checkFlags returns the Before of command verb (its full name, e.g.
// "contract verify"): it checks every flag the user typed against its
// range.
func checkFlags(verb string) cli.BeforeFunc {
	return func(c *cli.Context) error { return checkTyped(c, verb) }
}

func checkTyped(c *cli.Context, verb string) error {
	for _, f := range c.Command.Flags {
		name := f.Names()[0]
		if !c.IsSet(name) {
			continue
		}
		r, ok := flagRange(verb, c.Command, name)
		if !ok {
			continue
		}
		v := flagValue(c, f)
		if d, ok := f.(*cli.DurationFlag); ok { // in seconds, shown as typed
			v = sim.Typed{Text: c.Duration(d.Name).String(), V: c.Duration(d.Name).Seconds()}
		}
		if err := sim.CheckValue(r, v, true, true); err != nil {
			return usageErr(err)
		}
	}
	return nil
}

// flagValue returns the typed value of f: a number or the text of a string flag. Other kinds (bool) return nil.
func flagValue(c *cli.Context, f cli.Flag) any {
	name := f.Names()[0]
	switch f.(type) {
	case *cli.IntFlag:
		return c.Int(name)
	case *cli.Int64Flag:
		return c.Int64(name)
	case *cli.Uint64Flag:
		return c.Uint64(name)
	case *cli.Float64Flag:
		return c.Float64(name)
	case *cli.StringFlag:
		return c.String(name)
	}
	return nil
}

// isRangedFlag reports whether f needs a range: a numeric flag, or a
// string flag whose usage describes a list or a grid of numbers.
func isRangedFlag(f cli.Flag) bool {
	switch f := f.(type) {
	case *cli.IntFlag, *cli.Int64Flag, *cli.Uint64Flag, *cli.Float64Flag, *cli.DurationFlag:
		return true
	case *cli.StringFlag:
		u := strings.ToLower(f.Usage)
		return strings.Contains(u, "comma separated") || strings.Contains(u, "comma-separated") || strings.Contains(u, "comma list") ||
			strings.Contains(u, "min:max") || strings.Contains(u, "lo:hi")
	}
	return false
}

// writeRangesDoc writes the ranges as the Markdown tables of
// docs/flag-ranges.md (TestFlagRangesDoc keeps that file current).
func writeRangesDoc(w io.Writer) error {
	var b strings.Builder
	b.WriteString("# Flag ranges\n\n")
	b.WriteString("Generated from `scheduler/sim/ranges.go` and `cmd/drsim/ranges.go` by\n")
	b.WriteString("`go test ./cmd/drsim -run TestFlagRangesDoc -update`; do not edit by hand.\n\n")
	b.WriteString("A value outside its range is refused before anything runs (exit 2), with one line naming the\n")
	b.WriteString("flag, the value, the range and, for a likely unit slip, the fix. Where \"0 means\" is given, 0 is the\n")
	b.WriteString("default when the flag (or key) is left out; a 0 typed on the command line or written in an\n")
	b.WriteString("experiment file is refused unless marked *(typed 0 accepted)*.\n\n")
	b.WriteString("## Simulation flags (run, compare, contract) and experiment-file keys (sweep)\n\n")
	rangeTable(&b, sim.SpecRanges, true)
	verbs := make([]string, 0, len(verbRanges))
	for v := range verbRanges {
		verbs = append(verbs, v)
	}
	slices.Sort(verbs)
	for _, v := range verbs {
		fmt.Fprintf(&b, "\n## drsim %s\n\n", v)
		rangeTable(&b, verbRanges[v], false)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func rangeTable(b *strings.Builder, rs []sim.Range, keys bool) {
	if keys {
		b.WriteString("| flag | key | value | valid | 0 means |\n|---|---|---|---|---|\n")
	} else {
		b.WriteString("| flag | value | valid | 0 means |\n|---|---|---|---|\n")
	}
	for _, r := range rs {
		valid, what := r.Interval(), r.What
		switch r.Kind {
		case sim.List:
			valid = "each of a comma list: " + valid
		case sim.Grid:
			valid = "MIN:MAX:STEP, MIN and MAX " + valid
		case sim.Parsed:
			valid, what = "checked by "+r.Parser, ""
		}
		zero := r.Zero
		if zero != "" && r.ZeroTyped {
			zero += " *(typed 0 accepted)*"
		}
		fmt.Fprintf(b, "| `--%s` |", r.Flag)
		if keys {
			fmt.Fprintf(b, " `%s` |", r.Key)
		}
		fmt.Fprintf(b, " %s | %s | %s |\n", what, strings.ReplaceAll(valid, "|", "\\|"), zero)
	}
}
