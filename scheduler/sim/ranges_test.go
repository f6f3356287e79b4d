package sim

import (
	"context"
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"

	"drsim/powercap"
)

// Every numeric Spec field, and the two that hold lists of numbers, has a
// range: a new numeric field without one fails here.
func TestSpecRangesCoverSpec(t *testing.T) {
	st := reflect.TypeFor[Spec]()
	for i := range st.NumField() {
		f := st.Field(i)
		key := strings.Split(f.Tag.Get("toml"), ",")[0]
		switch f.Type.Kind() {
		case reflect.Int, reflect.Int64, reflect.Uint64, reflect.Float64:
		case reflect.String:
			if key != "pstates" && key != "cap_grid" {
				continue
			}
		default:
			continue
		}
		if _, ok := SpecRange(key); !ok {
			t.Errorf("Spec.%s (%s) has no entry in SpecRanges", f.Name, key)
		}
	}
	for _, r := range SpecRanges {
		if _, ok := specFieldIndex[r.Key]; !ok {
			t.Errorf("SpecRanges has key %q, which is no Spec field", r.Key)
		}
	}
	if err := (Spec{}).Validate(); err != nil {
		t.Errorf("the zero Spec (every default) is refused: %v", err)
	}
	if err := (Spec{}).WithDefaults().Validate(); err != nil {
		t.Errorf("the resolved defaults are refused: %v", err)
	}
}

// Spec.Validate names experiment-file keys; a zero field is its default.
// Exact messages, hand-written.
func TestSpecValidate(t *testing.T) {
	for _, tc := range []struct {
		s    Spec
		want string
	}{
		{Spec{IdleW: -4}, "idle_w = -4: idle power per processor must be in (0, 5000] W"},
		{Spec{IdleW: 0}, ""},
		{Spec{IdleW: 5000}, ""},
		{Spec{IdleW: 5000.5}, "idle_w = 5000.5: idle power per processor must be in (0, 5000] W"},
		{Spec{PStates: "2700"}, "pstates = 2700: CPU frequencies must be in (0, 10] GHz; did you mean 2.7 GHz?"},
		{Spec{PStates: "1.2, 2.4,2400"}, "pstates = 1.2, 2.4,2400: CPU frequencies: each value must be in (0, 10] GHz, and 2400 is not; did you mean 2.4 GHz?"},
		{Spec{PStates: "continuous"}, ""},
		{Spec{PStates: "1.2,fast"}, ""}, // not numbers: parsePStates says so
		{Spec{Jobs: -1}, "jobs = -1: number of jobs to keep must be in [0, 2147483647]; 0 (or no flag) means all"},
		{Spec{Procs: -8}, "procs = -8: machine size in processors must be in [1, 2147483647]"},
		{Spec{DRRatio: 1.5}, "dr_ratio = 1.5: fraction of the span under DR events must be in [0, 1]"},
		{Spec{DRRatio: 25}, "dr_ratio = 25: fraction of the span under DR events must be in [0, 1]; did you mean 0.25 (a fraction, not a percentage)?"},
		{Spec{DRRatio: 1}, ""},
		{Spec{DRLimit: 80}, "dr_limit = 80: limit of generated DR events as a fraction of peak power must be in (0, 1]; did you mean 0.8 (a fraction, not a percentage)?"},
		{Spec{DRLimit: math.NaN()}, "dr_limit = NaN: limit of generated DR events as a fraction of peak power must be in (0, 1]"},
		{Spec{BaseLimit: math.Inf(1)}, "base_limit = +Inf: power limit outside DR events (whole machine) must be > 0 W"},
		{Spec{CapGrid: "80:250:10"}, ""},
		{Spec{CapGrid: "0.08:0.25:0.01"}, "cap_grid = 0.08:0.25:0.01: package power caps: MIN and MAX must be in [1, 5000] W, and 0.08 is not; did you mean 80 W (kW typed)?"},
		{Spec{CapGrid: "250:80:10"}, "cap_grid = 250:80:10: package power caps: MIN:MAX:STEP needs MIN ≤ MAX and 0 < STEP ≤ MAX−MIN"},
		{Spec{RAPLWindow: -1}, "rapl_window = -1: RAPL averaging window must be in (0, 86400] s"},
		{Spec{Malleable: 1.01}, "malleable = 1.01: fraction of malleable jobs must be in [0, 1]"},
		{Spec{ResumeTime: -300}, "resume_time = -300: node boot time must be ≥ 0 s"},
		{Spec{OffW: -1}, "off_w = -1: power of a powered-off node must be ≥ 0 W"},
	} {
		err := tc.s.Validate()
		got := ""
		if err != nil {
			got = err.Error()
			var re *RangeError
			if !errors.As(err, &re) || !re.ConfigError() {
				t.Errorf("%+v: %v is not a RangeError (a configuration error)", tc.s, err)
			}
		}
		if got != tc.want {
			t.Errorf("Validate(%+v) = %q, want %q", tc.s, got, tc.want)
		}
	}
}

// A 0 typed on the command line cannot mean the default it stands for in
// a Spec; where the help documents it (--jobs 0: all) it is accepted.
func TestRangeTypedZero(t *testing.T) {
	jobs, _ := SpecRange("jobs")
	if err := jobs.Check(0, true, true); err != nil {
		t.Errorf("--jobs 0: %v, want accepted (0: all, documented)", err)
	}
	lim, _ := SpecRange("dr_limit")
	want := "--dr-limit 0: limit of generated DR events as a fraction of peak power must be in (0, 1] (0 means the default 0.8: leave --dr-limit out for that)"
	if err := lim.Check(0, true, true); err == nil || err.Error() != want {
		t.Errorf("--dr-limit 0: %v, want %q", err, want)
	}
	if err := lim.Check(0, false, true); err != nil {
		t.Errorf("dr_limit not given: %v, want the default", err)
	}
}

// Which built-in models the default settings ask outside their fitted
// range. The fitted ranges are in powercap/builtin.go: xsbench's frequency
// model covers 1.937..2.557 GHz, so the default P-states (1.2..2.4, 2.7)
// fall outside it at both ends; every other PCM app's range covers
// 1.2..2.7 GHz, and every cap model covers the default cap grid 80..250 W.
func TestExtrapolations(t *testing.T) {
	for _, tc := range []struct {
		s    Spec
		want []string
	}{
		{Spec{}, []string{"xsbench freq model fitted on 1.937..2.557 GHz, asked for 1.2 GHz (0.7371 GHz below) and 2.7 GHz (0.1428 GHz above); it holds the value at the end of its range there"}},
		{Spec{PStates: "2,2.5"}, nil},
		{Spec{PStates: "2,2.6"}, []string{"xsbench freq model fitted on 1.937..2.557 GHz, asked for 2.6 GHz (0.04283 GHz above); it holds the value at the end of its range there"}},
		{Spec{AppMap: "one:lulesh", PStates: "0.5,3.5"}, []string{"lulesh freq model fitted on 0.8392..3.169 GHz, asked for 0.5 GHz (0.3392 GHz below) and 3.5 GHz (0.3312 GHz above); it holds the value at the end of its range there"}},
		{Spec{PowerCap: "dr"}, nil},
		{Spec{PowerCap: "dr", AppMap: "one:bt", CapGrid: "60:300:120"}, []string{"bt cap model fitted on 80..250 W, asked for 60 W (20 W below) and 300 W (50 W above); it holds the value at the end of its range there"}},
	} {
		es, err := Extrapolations(tc.s)
		if err != nil {
			t.Fatalf("%+v: %v", tc.s, err)
		}
		if got := extrapolationStrings(es); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("Extrapolations(%+v) =\n%q\nwant\n%q", tc.s, got, tc.want)
		}
	}
}

// The summary records the machine-size source and the extrapolations.
func TestRunRecordsProvenance(t *testing.T) {
	for _, tc := range []struct {
		s      Spec
		source string
		want   string
	}{
		{Spec{Trace: "toy.swf"}, "MaxProcs", MachineFromMaxProcs},
		{Spec{Trace: "toy.swf"}, "MaxNodes", MachineFromMaxNodes},
		{Spec{Trace: "toy.swf"}, "largest job", MachineFromLargestJob},
		{Spec{Trace: "toy.swf", Procs: 4}, "option", MachineFromFlag},
		{Spec{}, "MaxProcs", MachineFromGenerator},
	} {
		tr := toyTrace("")
		tr.MachineSource = tc.source
		res, err := Run(context.Background(), tc.s, tr, Outputs{})
		if err != nil {
			t.Fatal(err)
		}
		if res.Summary.MachineSource != tc.want {
			t.Errorf("%+v, trace source %q: machine_size_source %q, want %q", tc.s, tc.source, res.Summary.MachineSource, tc.want)
		}
		if len(res.Summary.ModelExtrapolation) != 1 || !strings.HasPrefix(res.Summary.ModelExtrapolation[0], "xsbench freq") {
			t.Errorf("model_extrapolation %q, want the xsbench frequency model's", res.Summary.ModelExtrapolation)
		}
	}
	tr := toyTrace("")
	if _, err := Run(context.Background(), Spec{IdleW: -4}, tr, Outputs{}); err == nil || err.Error() != "idle_w = -4: idle power per processor must be in (0, 5000] W" {
		t.Errorf("Run with idle_w -4: %v", err)
	}
}

// A comparison warns once per model, for the runs that use it: the cap
// policies use cap tables (inside the fitted 80..250 W), the DVFS ones
// frequency tables (xsbench outside), and every comparison runs the DVFS
// baselines performance and powersave.
func TestCompareExtrapolations(t *testing.T) {
	for _, tc := range []struct {
		policies []string
		n        int
	}{
		{[]string{"powercap-dr", "powercap-uniform"}, 1},
		{nil, 1},
		{[]string{"performance", "powersave", "dr"}, 1},
		{[]string{"powercap-dr", "dr"}, 1},
	} {
		es := CompareExtrapolations(CompareConfig{Policies: tc.policies})
		if len(es) != tc.n || (tc.n == 1 && (es[0].App != "xsbench" || es[0].Knob != powercap.Freq)) {
			t.Errorf("CompareExtrapolations(%v) = %v, want %d (xsbench freq)", tc.policies, es, tc.n)
		}
	}
}
