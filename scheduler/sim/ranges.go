package sim

import (
	"fmt"
	"math"
	"reflect"
	"strconv"
	"strings"
)

// Valid ranges of numeric settings. Every numeric and list setting of a
// Spec (SpecRanges) and every numeric flag of the CLI's verbs (cmd/drsim)
// has one Range: a value outside it is refused before anything runs, with
// one line naming the setting (--idle-w on the command line, idle_w in an
// experiment file), the value, the valid interval and unit, and the likely
// fix when the value looks like a unit mistake (2700 GHz: MHz typed).

// RangeKind says how a setting's text holds its numbers.
type RangeKind uint8

const (
	Scalar RangeKind = iota // one number
	List                    // comma-separated numbers, each in range
	Grid                    // MIN:MAX:STEP: MIN and MAX in range, 0 < STEP ≤ MAX−MIN (or MIN = MAX)
	Parsed                  // checked by its own parser (Range.Parser), which names the flag
)

// A Range is the valid interval of one setting.
type Range struct {
	Flag string // command-line flag without dashes, e.g. "idle-w"
	Key  string // experiment-file (TOML) key of the Spec field, e.g. "idle_w"; "" for verb-only flags
	What string // what the value is, e.g. "idle power per processor"
	Unit string // "W", "GHz", "s", "" (counts and fractions)
	Kind RangeKind

	Min, Max         float64 // ±Inf for none
	MinOpen, MaxOpen bool    // the bound itself is excluded

	// Zero is what a zero value means when the setting is not given (the
	// Spec's zero value), e.g. "the trace header's size"; "" when 0 is
	// checked like any other value. A 0 typed on the command line is then
	// refused (it cannot mean the default), unless ZeroTyped: its help
	// documents what a typed 0 does (--jobs 0: all jobs).
	Zero      string
	ZeroTyped bool

	Hint   func(v float64) string // the likely fix for an out-of-range v, or ""
	Parser string                 // Kind Parsed: who checks the values
}

// Name is the setting's name in errors: --flag on the command line, the
// TOML key in experiment files.
func (r *Range) Name(cli bool) string {
	if cli || r.Key == "" {
		return "--" + r.Flag
	}
	return r.Key
}

// MustBe says what the value must be: "must be in (0, 10] GHz", "must be ≥ 1".
func (r *Range) MustBe() string {
	if s := r.Interval(); s[0] == '[' || s[0] == '(' {
		return "must be in " + s
	}
	return "must be " + r.Interval()
}

// Interval is the valid interval with its unit, e.g. "(0, 10] GHz", "≥ 1".
func (r *Range) Interval() string {
	var s string
	lo, hi := "[", "]"
	if r.MinOpen {
		lo = "("
	}
	if r.MaxOpen {
		hi = ")"
	}
	switch {
	case math.IsInf(r.Min, -1) && math.IsInf(r.Max, 1):
		s = "any finite value"
	case math.IsInf(r.Max, 1) && r.MinOpen:
		s = "> " + num(r.Min)
	case math.IsInf(r.Max, 1):
		s = "≥ " + num(r.Min)
	default:
		s = lo + num(r.Min) + ", " + num(r.Max) + hi
	}
	if r.Unit != "" {
		s += " " + r.Unit
	}
	return s
}

func num(v float64) string {
	if v == math.Trunc(v) && math.Abs(v) < 1e15 {
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}

// in reports whether v lies in the interval.
func (r *Range) in(v float64) bool {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return false
	}
	lo := v > r.Min || (!r.MinOpen && v == r.Min)
	hi := v < r.Max || (!r.MaxOpen && v == r.Max)
	return lo && hi
}

// Check checks one value of a Scalar setting. typed says the value was
// given on the command line (a typed 0 is then refused when 0 means a
// default the user cannot be asking for); cli names it as a flag.
func (r *Range) Check(v float64, typed, cli bool) error {
	return r.check(num(v), v, typed, cli)
}

func (r *Range) check(text string, v float64, typed, cli bool) error {
	if v == 0 && r.Zero != "" {
		if !typed || r.ZeroTyped {
			return nil
		}
		return &RangeError{Name: r.Name(cli), Value: text,
			Msg: fmt.Sprintf("%s %s (0 means %s: leave %s out for that)", r.What, r.MustBe(), r.Zero, r.Name(cli))}
	}
	if r.in(v) {
		return nil
	}
	msg := r.What + " " + r.MustBe()
	if r.Hint != nil {
		if h := r.Hint(v); h != "" {
			msg += "; " + h
		}
	}
	return &RangeError{Name: r.Name(cli), Value: text, Msg: msg}
}

// CheckText checks a setting given as text: a List, a Grid or a Scalar
// written out. Text that does not parse as numbers is left to the
// setting's own parser, whose error names the format; "" and "continuous"
// (--pstates) are not numbers either.
func (r *Range) CheckText(s string, typed, cli bool) error {
	switch r.Kind {
	case Parsed:
		return nil
	case Scalar:
		v, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
		if err != nil {
			return nil
		}
		return r.check(s, v, typed, cli)
	}
	items := strings.Split(s, ",")
	if r.Kind == Grid {
		items = []string{s}
	}
	for _, it := range items {
		if err := r.checkItem(s, it, len(items) == 1, typed, cli); err != nil {
			return err
		}
	}
	return nil
}

// checkItem checks one item of a list: a number or a grid MIN:MAX:STEP.
// Items that are not numbers are left to the setting's parser.
func (r *Range) checkItem(s, it string, only, typed, cli bool) error {
	parts := strings.Split(it, ":")
	vals := make([]float64, len(parts))
	for i, p := range parts {
		v, err := strconv.ParseFloat(strings.TrimSpace(p), 64)
		if err != nil {
			return nil
		}
		vals[i] = v
	}
	switch {
	case len(vals) == 1 && only:
		return r.check(s, vals[0], typed, cli)
	case len(vals) == 1:
		if !r.in(vals[0]) {
			return r.itemErr(s, vals[0], cli, "each value")
		}
		return nil
	case len(vals) != 3:
		return nil // the parser says MIN:MAX:STEP
	}
	for _, v := range vals[:2] {
		if !r.in(v) {
			return r.itemErr(s, v, cli, "MIN and MAX")
		}
	}
	if lo, hi, st := vals[0], vals[1], vals[2]; hi < lo || !(st > 0) || (hi > lo && st > hi-lo) || math.IsInf(st, 0) {
		return &RangeError{Name: r.Name(cli), Value: s, Msg: fmt.Sprintf("%s: MIN:MAX:STEP needs MIN ≤ MAX and 0 < STEP ≤ MAX−MIN", r.What)}
	}
	return nil
}

func (r *Range) itemErr(s string, v float64, cli bool, which string) error {
	msg := fmt.Sprintf("%s: %s %s, and %s is not", r.What, which, r.MustBe(), num(v))
	if r.Hint != nil {
		if h := r.Hint(v); h != "" {
			msg += "; " + h
		}
	}
	return &RangeError{Name: r.Name(cli), Value: s, Msg: msg}
}

// RangeError is a setting outside its valid range: "--idle-w -4: idle
// power per processor must be in (0, 5000] W" on the command line,
// "idle_w = -4: …" in an experiment file.
type RangeError struct {
	Name, Value, Msg string
}

func (e *RangeError) Error() string {
	if strings.HasPrefix(e.Name, "--") {
		return fmt.Sprintf("%s %s: %s", e.Name, e.Value, e.Msg)
	}
	return fmt.Sprintf("%s = %s: %s", e.Name, e.Value, e.Msg) // an experiment-file key
}
func (e *RangeError) ConfigError() bool { return true }

// Hints for values that look like a unit mistake.

// HintMHz: a frequency typed in MHz (2700 for 2.7 GHz).
func HintMHz(v float64) string {
	if v >= 100 && v/1000 <= MaxGHz {
		return fmt.Sprintf("did you mean %s GHz?", num(v/1000))
	}
	return ""
}

// HintWatts: a package power typed in mW (80000 for 80 W) or kW (0.25 for 250 W).
func HintWatts(v float64) string {
	switch {
	case v >= 10000 && v/1000 <= MaxPackageW:
		return fmt.Sprintf("did you mean %s W (mW typed)?", num(v/1000))
	case v > 0 && v < 1:
		return fmt.Sprintf("did you mean %s W (kW typed)?", num(v*1000))
	}
	return ""
}

// HintPercent: a fraction typed as a percentage (80 for 0.8).
func HintPercent(v float64) string {
	if v >= 2 && v <= 100 {
		return fmt.Sprintf("did you mean %s (a fraction, not a percentage)?", num(v/100))
	}
	return ""
}

// HintAll: a negative count where 0 means all.
func HintAll(v float64) string {
	if v < 0 {
		return "0 (or no flag) means all"
	}
	return ""
}

// Interval bounds.
var (
	inf    = math.Inf(1)
	maxInt = float64(math.MaxInt32) // counts and sizes fit an int32 (job IDs, processors)
)

// MaxPackageW bounds powers per processor (a CPU package): a few kW is far
// above any package; larger values are a unit mistake. MaxGHz bounds CPU
// frequencies likewise.
const (
	MaxPackageW = 5000
	MaxGHz      = 10
)

// SpecRanges are the ranges of Spec's numeric and list fields, in Spec
// field order; the run, compare and contract verbs take them as flags,
// sweeps as keys. TestSpecRangesCoverSpec checks every such field has one.
var SpecRanges = []Range{
	{Flag: "jobs", Key: "jobs", What: "number of jobs to keep", Min: 0, Max: maxInt, Zero: "all jobs", ZeroTyped: true, Hint: HintAll},
	{Flag: "procs", Key: "procs", What: "machine size in processors", Min: 1, Max: maxInt, Zero: "the trace header's size"},
	{Flag: "procs-per-node", Key: "procs_per_node", What: "processors per node", Min: 1, Max: maxInt, Zero: "1"},
	{Flag: "seed", Key: "seed", What: "seed", Min: 1, Max: inf, Zero: "the default seed 1"},
	{Flag: "pstates", Key: "pstates", What: "CPU frequencies", Unit: "GHz", Kind: List, Min: 0, MinOpen: true, Max: MaxGHz, Hint: HintMHz},
	{Flag: "idle-w", Key: "idle_w", What: "idle power per processor", Unit: "W", Min: 0, MinOpen: true, Max: MaxPackageW, Zero: "40% of the lowest busy power", Hint: HintWatts},
	{Flag: "dr-ratio", Key: "dr_ratio", What: "fraction of the span under DR events", Min: 0, Max: 1, Zero: "no generated events", ZeroTyped: true, Hint: HintPercent},
	{Flag: "dr-limit", Key: "dr_limit", What: "limit of generated DR events as a fraction of peak power", Min: 0, MinOpen: true, Max: 1, Zero: "the default 0.8", Hint: HintPercent},
	{Flag: "dr-seed", Key: "dr_seed", What: "seed of generated DR events", Min: 1, Max: inf, Zero: "--seed"},
	{Flag: "base-limit", Key: "base_limit", What: "power limit outside DR events (whole machine)", Unit: "W", Min: 0, MinOpen: true, Max: inf, Zero: "no limit"},
	{Flag: "cap-grid", Key: "cap_grid", What: "package power caps", Unit: "W", Kind: Grid, Min: 1, Max: MaxPackageW, Hint: HintWatts},
	{Flag: "rapl-window", Key: "rapl_window", What: "RAPL averaging window", Unit: "s", Min: 0, MinOpen: true, Max: 86400, Zero: "the default 1 s"},
	{Flag: "malleable", Key: "malleable", What: "fraction of malleable jobs", Min: 0, Max: 1, Hint: HintPercent},
	{Flag: "resize-cost", Key: "resize_cost", What: "pause per resize", Unit: "s", Min: 0, Max: inf},
	{Flag: "suspend-after", Key: "suspend_after", What: "idle time before a node powers off", Unit: "s", Min: 0, Max: inf, Zero: "never", ZeroTyped: true},
	{Flag: "resume-time", Key: "resume_time", What: "node boot time", Unit: "s", Min: 0, Max: inf},
	{Flag: "boot-w", Key: "boot_w", What: "power of a booting node", Unit: "W", Min: 0, MinOpen: true, Max: inf, Zero: "the node's idle power"},
	{Flag: "off-w", Key: "off_w", What: "power of a powered-off node", Unit: "W", Min: 0, Max: inf},
	{Flag: "node-speed-sd", Key: "node_speed_sd", What: "per-node speed spread (sd of relative speed)", Min: 0, Max: 0.3, Zero: "none", ZeroTyped: true, Hint: HintPercent},
	{Flag: "slow-nodes", Key: "slow_nodes", Kind: Parsed, Parser: "sim.parseSlowNodes"},
	{Flag: "job-noise", Key: "job_noise", What: "per-run noise on a job's pace (sd)", Min: 0, Max: 0.3, Zero: "none", ZeroTyped: true, Hint: HintPercent},
	{Flag: "node-drift", Key: "node_drift", Kind: Parsed, Parser: "sim.parseDrift"},
}

// SpecRange returns the range of the Spec field with TOML key key.
func SpecRange(key string) (*Range, bool) {
	for i := range SpecRanges {
		if SpecRanges[i].Key == key {
			return &SpecRanges[i], true
		}
	}
	return nil, false
}

// specFieldIndex maps TOML keys to Spec field indices.
var specFieldIndex = func() map[string]int {
	t := reflect.TypeFor[Spec]()
	m := make(map[string]int, t.NumField())
	for i := range t.NumField() {
		m[strings.Split(t.Field(i).Tag.Get("toml"), ",")[0]] = i
	}
	return m
}()

// Validate checks every numeric and list field of s against SpecRanges,
// naming fields by their TOML key (idle_w). A zero field means its default
// and is not checked. The command line checks the same ranges, naming
// flags, before it builds a Spec.
func (s Spec) Validate() error {
	v := reflect.ValueOf(s)
	for i := range SpecRanges {
		r := &SpecRanges[i]
		if err := CheckValue(r, v.Field(specFieldIndex[r.Key]).Interface(), false, false); err != nil {
			return err
		}
	}
	return nil
}

// Typed is a number with the text it was given as (a duration "1h0m0s"
// as 3600 s).
type Typed struct {
	Text string
	V    float64
}

// CheckValue checks v (an int, int64, uint64, float64, Typed, or the text
// of a list) against r; typed and cli as for Check.
func CheckValue(r *Range, v any, typed, cli bool) error {
	switch x := v.(type) {
	case int:
		return r.check(strconv.Itoa(x), float64(x), typed, cli)
	case int64:
		return r.check(strconv.FormatInt(x, 10), float64(x), typed, cli)
	case uint64:
		return r.check(strconv.FormatUint(x, 10), float64(x), typed, cli)
	case float64:
		return r.check(num(x), x, typed, cli)
	case string:
		return r.CheckText(x, typed, cli)
	case Typed:
		return r.check(x.Text, x.V, typed, cli)
	}
	return fmt.Errorf("sim: range %s: unsupported value type %T", r.Name(cli), v)
}
