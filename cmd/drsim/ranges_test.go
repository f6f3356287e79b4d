package main

import (
	"bytes"
	"errors"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/urfave/cli/v2"

	"drsim/scheduler/sim"
)

// verb is a command with its full name ("contract verify").
type verb struct {
	name string
	cmd  *cli.Command
}

// commands returns every command of the app: verbs and their subcommands.
func commands(t *testing.T) []verb {
	t.Helper()
	app := newApp(&bytes.Buffer{}, &bytes.Buffer{})
	var out []verb
	var walk func(string, []*cli.Command)
	walk = func(prefix string, cs []*cli.Command) {
		for _, c := range cs {
			out = append(out, verb{prefix + c.Name, c})
			walk(prefix+c.Name+" ", c.Subcommands)
		}
	}
	walk("", app.Commands)
	return out
}

// badValue returns a value just outside r, written as a flag of f's kind
// would be typed, or false when every value of that kind is valid (a seed
// of any uint64, a time shift of any sign).
func badValue(r *sim.Range, f cli.Flag) (string, bool) {
	_, unsigned := f.(*cli.Uint64Flag)
	var v float64
	switch {
	case r.MinOpen:
		v = r.Min
	case !math.IsInf(r.Min, -1) && !(unsigned && r.Min == 0):
		v = r.Min - 1
	case r.MaxOpen:
		v = r.Max
	case !math.IsInf(r.Max, 1):
		v = r.Max + 1
	default:
		return "", false
	}
	switch f.(type) {
	case *cli.DurationFlag:
		return time.Duration(v * float64(time.Second)).String(), true
	case *cli.IntFlag, *cli.Int64Flag, *cli.Uint64Flag:
		return strconv.FormatFloat(v, 'f', 0, 64), true
	}
	s := strconv.FormatFloat(v, 'g', -1, 64)
	if r.Kind == sim.Grid {
		s = s + ":" + s + ":1"
	}
	return s, true
}

// requiredArgs gives the command's other required flags a value, so that
// the range check (which runs before the Action) is what fails.
func requiredArgs(c *cli.Command, except string) []string {
	var args []string
	for _, f := range c.Flags {
		rf, ok := f.(cli.RequiredFlag)
		if !ok || !rf.IsRequired() || f.Names()[0] == except {
			continue
		}
		v := "x"
		switch f.(type) {
		case *cli.IntFlag, *cli.Int64Flag, *cli.Uint64Flag, *cli.Float64Flag:
			v = "1"
		}
		args = append(args, "--"+f.Names()[0], v)
	}
	return args
}

// TestFlagRanges is the table test of every flag's range: it walks every
// command's flags, requires a range (sim.Range) for each numeric flag and
// each string flag holding a list or grid of numbers (so a new flag without
// one fails here), checks that its default is inside the range, and runs
// the command with a value just outside it: that must be refused before
// anything runs, exit 2, with one line naming the flag, the value and the
// valid interval.
func TestFlagRanges(t *testing.T) {
	checked := 0
	for _, v := range commands(t) {
		cmd := v.cmd
		for _, f := range cmd.Flags {
			if !isRangedFlag(f) {
				continue
			}
			name := f.Names()[0]
			t.Run(strings.ReplaceAll(v.name, " ", "-")+"--"+name, func(t *testing.T) {
				r, ok := flagRange(v.name, cmd, name)
				if !ok {
					t.Fatalf("drsim %s --%s has no range: add one to verbRanges (cmd/drsim/ranges.go) or sim.SpecRanges", v.name, name)
				}
				if r.Flag != name {
					t.Fatalf("range for --%s is named %q", name, r.Flag)
				}
				if r.Kind == sim.Parsed {
					if r.Parser == "" {
						t.Errorf("--%s: a Parsed range must say which parser checks it", name)
					}
					return
				}
				if def := defaultOf(f); def != nil {
					if err := sim.CheckValue(r, def, true, true); err != nil {
						t.Errorf("the default of --%s is out of its own range: %v", name, err)
					}
				}
				bad, ok := badValue(r, f)
				if !ok {
					t.Logf("--%s: every value is valid (%s)", name, r.Interval())
					return
				}
				args := append([]string{"drsim"}, strings.Fields(v.name)...)
				args = append(args, requiredArgs(cmd, name)...)
				args = append(args, "--"+name, bad)
				var stdout, stderr bytes.Buffer
				err := newApp(&stdout, &stderr).Run(args)
				var re *sim.RangeError
				switch {
				case !errors.As(err, &re):
					t.Fatalf("%s: error %v, want a range error", strings.Join(args, " "), err)
				case exitCode(err) != exitInput:
					t.Errorf("%s: exit %d, want %d", strings.Join(args, " "), exitCode(err), exitInput)
				case !strings.HasPrefix(err.Error(), "--"+name+" "+bad+": ") || !strings.Contains(err.Error(), r.Interval()):
					t.Errorf("%s: error %q, want it to start with %q and give the interval %s", strings.Join(args, " "), err, "--"+name+" "+bad+": ", r.Interval())
				case strings.Contains(err.Error(), "\n") || stdout.Len() > 0:
					t.Errorf("%s: error %q is not one line, or something ran (stdout %q)", strings.Join(args, " "), err, stdout.String())
				}
				checked++
			})
		}
	}
	if checked < 40 {
		t.Errorf("%d flags checked out of range, want at least 40", checked)
	}
}

// defaultOf returns f's default value as checkFlags would see it, or nil
// when the flag has none (0 or ""), which means "not given".
func defaultOf(f cli.Flag) any {
	switch f := f.(type) {
	case *cli.IntFlag:
		if f.Value != 0 {
			return f.Value
		}
	case *cli.Int64Flag:
		if f.Value != 0 {
			return f.Value
		}
	case *cli.Uint64Flag:
		if f.Value != 0 {
			return f.Value
		}
	case *cli.Float64Flag:
		if f.Value != 0 {
			return f.Value
		}
	case *cli.DurationFlag:
		if f.Value != 0 {
			return sim.Typed{Text: f.Value.String(), V: f.Value.Seconds()}
		}
	case *cli.StringFlag:
		if f.Value != "" {
			return f.Value
		}
	}
	return nil
}

// Every Spec range is a simulation flag, and the verb tables name only
// flags their verb has.
func TestRangesNameRealFlags(t *testing.T) {
	var sim0 []string
	for _, f := range simFlags() {
		sim0 = append(sim0, f.Names()[0])
	}
	for _, r := range sim.SpecRanges {
		if !slices.Contains(sim0, r.Flag) {
			t.Errorf("sim.SpecRanges has --%s, which is not a simulation flag", r.Flag)
		}
	}
	byName := map[string]*cli.Command{}
	for _, v := range commands(t) {
		byName[v.name] = v.cmd
	}
	for verb, rs := range verbRanges {
		c, ok := byName[verb]
		if !ok {
			t.Errorf("verbRanges has %q, which is not a command", verb)
			continue
		}
		for _, r := range rs {
			if !slices.ContainsFunc(c.Flags, func(f cli.Flag) bool { return f.Names()[0] == r.Flag }) {
				t.Errorf("verbRanges[%q] has --%s, which %s does not take", verb, r.Flag, verb)
			}
		}
	}
}

// Values on the boundary and typed zeros: hand-picked rows with the exact
// messages (testdata/bad has the command lines users type).
func TestFlagRangeMessages(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string // "" = accepted by the range check
	}{
		{[]string{"run", "--dr-limit", "1"}, ""},
		{[]string{"run", "--dr-ratio", "0"}, ""}, // 0: no generated events, as documented
		{[]string{"run", "--malleable", "1"}, ""},
		{[]string{"run", "--pstates", "continuous"}, ""},
		{[]string{"run", "--pstates", "10"}, ""},
		{[]string{"run", "--pstates", "10.5"}, "--pstates 10.5: CPU frequencies must be in (0, 10] GHz"},
		{[]string{"run", "--dr-limit", "1.5"}, "--dr-limit 1.5: limit of generated DR events as a fraction of peak power must be in (0, 1]"},
		{[]string{"run", "--idle-w", "NaN"}, "--idle-w NaN: idle power per processor must be in (0, 5000] W"},
		{[]string{"run", "--idle-w", "0.04"}, "--idle-w 0.04: ok"},
		{[]string{"run", "--cap-grid", "80:250:500"}, "--cap-grid 80:250:500: package power caps: MIN:MAX:STEP needs MIN ≤ MAX and 0 < STEP ≤ MAX−MIN"},
		{[]string{"run", "--cap-grid", "100:100:10"}, ""},
		{[]string{"compare", "--dr-ratio", "0,0.25,25"}, "--dr-ratio 0,0.25,25: DR ratios (fractions of the span under DR events): each value must be in [0, 1], and 25 is not; did you mean 0.25 (a fraction, not a percentage)?"},
		{[]string{"measure", "--caps", "80,100:300:10,90000"}, "--caps 80,100:300:10,90000: package power caps: each value must be in [1, 5000] W, and 90000 is not; did you mean 90 W (mW typed)?"},
		{[]string{"predict", "--app", "lu", "--quantity", "power", "--cap", "0.12"}, "--cap 0.12: package power cap must be in [1, 5000] W; did you mean 120 W (kW typed)?"},
		{[]string{"contract", "--slot", "500ms"}, "--slot 500ms: contract slot length must be ≥ 1 s"},
	} {
		var out bytes.Buffer
		args := append([]string{"drsim"}, tc.args...)
		if tc.args[0] == "run" {
			args = append(args, "--jobs", "100") // accepted rows run: keep them short
		}
		err := newApp(&out, &out).Run(args)
		var re *sim.RangeError
		got := ""
		if errors.As(err, &re) {
			got = re.Error()
		}
		if strings.HasSuffix(tc.want, ": ok") {
			tc.want = "" // in range (the run itself may fail: not a range error)
		}
		if got != tc.want {
			t.Errorf("drsim %s: range error %q, want %q (error %v)", strings.Join(tc.args, " "), got, tc.want, err)
		}
	}
}

// docs/flag-ranges.md is the ranges' documentation, generated from the
// tables: -update rewrites it.
func TestFlagRangesDoc(t *testing.T) {
	var b bytes.Buffer
	if err := writeRangesDoc(&b); err != nil {
		t.Fatal(err)
	}
	const doc = "../../docs/flag-ranges.md"
	if goldenUpdate() {
		if err := os.WriteFile(doc, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(doc)
	if err != nil || !bytes.Equal(want, b.Bytes()) {
		t.Errorf("%s is not the ranges' documentation (%v): go test ./cmd/drsim -run TestFlagRangesDoc -update", doc, err)
	}
}
