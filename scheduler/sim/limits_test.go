package sim

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"drsim/scheduler"
	"drsim/workloads"
)

// toyTrace: 10 one-processor jobs of 3600 s submitted every hour from
// trace time 0 on a 1-processor machine: the span is [0, 36000) (the work
// packed on the machine ends at 36000, after the last job's own end).
// UnixStartTime 1000000000 is 2001-09-09T01:46:40Z.
func toyTrace(zone string) *workloads.Trace {
	tr := &workloads.Trace{MachineProcs: 1, Header: workloads.Header{UnixStartTime: 1000000000, TimeZone: zone}}
	for i := range 10 {
		tr.Jobs = append(tr.Jobs, workloads.Job{ID: int64(i + 1), Submit: float64(i * 3600), Run: 3600, Procs: 1, Estimate: 3600})
	}
	return tr
}

func TestSpan(t *testing.T) {
	t0, t1 := Span(Spec{}, toyTrace(""))
	if t0 != 0 || t1 != 36000 {
		t.Errorf("Span = %v, %v; want 0, 36000", t0, t1)
	}
	// On 4 processors the packed work ends at 9000, before the last job's
	// own end, 9×3600 + 3600 = 36000.
	if _, t1 := Span(Spec{Procs: 4}, toyTrace("")); t1 != 36000 {
		t.Errorf("Span on 4 procs ends at %v; want 36000", t1)
	}
}

func decode(t *testing.T, csv, zone string) ([]Event, error) {
	t.Helper()
	return DecodeEvents(strings.NewReader(csv), "ev.csv", toyTrace(zone), 1000, Spec{})
}

func TestDecodeEvents(t *testing.T) {
	tests := []struct {
		name, csv, zone string
		want            []Event
	}{
		{"seconds, watts", "start,end,limit_w\n100,200,500\n0,50,400\n", "",
			[]Event{{0, 50, 400}, {100, 200, 500}}},
		// 1000 W peak × 0.8; columns in any order.
		{"fraction", "limit_frac,end,start\n0.8,7200,3600\n", "", []Event{{3600, 7200, 800}}},
		// 02:46:40Z is 3600 s after UnixStartTime.
		{"ISO UTC", "start,end,limit_w\n2001-09-09T02:46:40Z,2001-09-09T03:46:40Z,1\n", "", []Event{{3600, 7200, 1}}},
		// Without an offset, times are in the trace's zone: Stockholm is UTC+2
		// in September, so 04:46:40 local is 02:46:40Z.
		{"ISO local", "start,end,limit_w\n2001-09-09 04:46:40,2001-09-09T05:46:40,1\n", "Europe/Stockholm", []Event{{3600, 7200, 1}}},
		// Without a zone, naive times are UTC.
		{"ISO no zone", "start,end,limit_w\n2001-09-09 02:46:40,2001-09-09 03:46:40,1\n", "", []Event{{3600, 7200, 1}}},
		// An event starting before the first submit starts at it.
		{"clipped", "start,end,limit_w\n-500,100,1\n", "", []Event{{0, 100, 1}}},
		// Touching events are fine.
		{"touching", "start,end,limit_w\n0,100,1\n100,200,2\n", "", []Event{{0, 100, 1}, {100, 200, 2}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := decode(t, tc.csv, tc.zone)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(tc.want) {
				t.Fatalf("DecodeEvents = %v, want %v", got, tc.want)
			}
			for i := range got {
				if math.Abs(got[i].Start-tc.want[i].Start) > 1e-9 || math.Abs(got[i].End-tc.want[i].End) > 1e-9 || math.Abs(got[i].LimitW-tc.want[i].LimitW) > 1e-9 {
					t.Fatalf("DecodeEvents = %v, want %v", got, tc.want)
				}
			}
		})
	}
}

// Bad files name file:line:column and the column.
func TestDecodeEventsErrors(t *testing.T) {
	tests := []struct{ name, csv, want string }{
		{"inverted", "start,end,limit_w\n0,100,1\n300,200,1\n", `ev.csv:3:5: column end="200": event ends at 200 s, not after its start 300 s`},
		{"empty", "start,end,limit_w\n300,300,1\n", `ev.csv:2:5: column end="300"`},
		{"overlap", "start,end,limit_w\n0,100,1\n50,150,1\n", `ev.csv:3:1: column start="50": event [50, 150) s overlaps the event on line 2, which ends at 100 s`},
		{"overlap unsorted", "start,end,limit_w\n50,150,1\n0,100,1\n", `ev.csv:2:1: column start="50": event [50, 150) s overlaps the event on line 3`},
		{"zero limit", "start,end,limit_w\n0,100,0\n", `ev.csv:2:7: column limit_w="0": limit must be > 0`},
		{"negative frac", "start,end,limit_frac\n0,100,-0.5\n", `ev.csv:2:7: column limit_frac="-0.5": limit must be > 0`},
		{"bad number", "start,end,limit_w\n0,100,lots\n", `ev.csv:2:7: column limit_w="lots": not a number`},
		{"bad time", "start,end,limit_w\n0,tomorrow,1\n", `ev.csv:2:3: column end="tomorrow": not seconds or an ISO timestamp`},
		{"after the trace", "start,end,limit_w\n40000,50000,1\n", `ev.csv:2:1: column start="40000": event [40000, 50000) s lies outside the simulated span [0, 36000) s`},
		{"before the trace", "start,end,limit_w\n-100,-50,1\n", `ev.csv:2:1: column start="-100"`},
		{"both limits", "start,end,limit_w,limit_frac\n0,1,1,1\n", "ev.csv:1: header needs exactly one of limit_w and limit_frac"},
		{"unknown column", "start,end,limit\n0,1,1\n", `ev.csv:1:11: unknown column "limit"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := decode(t, tc.csv, "")
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want it to contain %q", err, tc.want)
			}
		})
	}
	_, err := decode(t, "start,end,limit_w\n0,100,0\n", "")
	if ee, ok := errors.AsType[*EventError](err); !ok || ee.Line != 2 || ee.Column != "limit_w" {
		t.Errorf("error %#v is not an *EventError at line 2, column limit_w", err)
	}
}

// Generated events cover exactly the requested share of the span (to the
// second), never overlap, last 2–4 h except possibly the last (cut short),
// are the same for the same seed and differ for another.
func TestRandomEvents(t *testing.T) {
	t0, t1 := 1000.0, 1000+30*86400.0
	for _, ratio := range []float64{0.05, 0.25, 0.5, 1} {
		ev := randomEvents(t0, t1, ratio, 7200, 14400, 800, 7)
		cover := 0.0
		for i, e := range ev {
			if e.Start < t0 || e.End > t1 || e.End <= e.Start || e.LimitW != 800 {
				t.Fatalf("ratio %v: event %d %v outside [%v, %v) or empty", ratio, i, e, t0, t1)
			}
			if i > 0 && e.Start < ev[i-1].End {
				t.Fatalf("ratio %v: event %d overlaps the previous one", ratio, i)
			}
			if d := e.End - e.Start; i < len(ev)-1 && (d < 7200 || d > 14400) {
				t.Fatalf("ratio %v: event %d lasts %v s", ratio, i, d)
			}
			cover += e.End - e.Start
		}
		if want := math.Round(ratio * (t1 - t0)); cover != want {
			t.Errorf("ratio %v: events cover %v s, want %v", ratio, cover, want)
		}
	}
	a, b := randomEvents(t0, t1, 0.25, 7200, 14400, 1, 7), randomEvents(t0, t1, 0.25, 7200, 14400, 1, 8)
	if a[0] != randomEvents(t0, t1, 0.25, 7200, 14400, 1, 7)[0] || a[0] == b[0] {
		t.Error("events are not a function of the seed")
	}
}

// Daily windows are in the trace's local time, across a DST change;
// without a zone they are in UTC from trace time 0 = UnixStartTime.
func TestDailyEvents(t *testing.T) {
	loc, _ := time.LoadLocation("Europe/Stockholm")
	tr := &workloads.Trace{MachineProcs: 1, Header: workloads.Header{UnixStartTime: 1000000000, TimeZone: "Europe/Stockholm"}}
	// Jobs spanning 2001-09-09 to after the 2001-10-28 DST change.
	for i := range 60 {
		tr.Jobs = append(tr.Jobs, workloads.Job{ID: int64(i + 1), Submit: float64(i * 86400), Run: 600, Procs: 1})
	}
	ev, err := Events(Spec{DRDaily: "14:00-18:00"}, tr, 1000)
	if err != nil {
		t.Fatal(err)
	}
	if len(ev) < 58 {
		t.Fatalf("%d daily events over 59 days", len(ev))
	}
	for _, e := range ev {
		s := time.Unix(1000000000+int64(e.Start), 0).In(loc)
		if s.Hour() != 14 || s.Minute() != 0 || e.End-e.Start != 4*3600 || e.LimitW != 800 {
			t.Fatalf("event %v starts at %v local, lasts %v s", e, s, e.End-e.Start)
		}
	}
	// No zone and no UnixStartTime: trace time 0 is midnight UTC, so the
	// first window is [50400, 64800).
	tr.Header = workloads.Header{}
	ev, err = Events(Spec{DRDaily: "14:00-18:00", DRLimit: 0.5}, tr, 1000)
	if err != nil {
		t.Fatal(err)
	}
	if ev[0] != (Event{50400, 64800, 500}) {
		t.Errorf("first event %v, want {50400 64800 500}", ev[0])
	}
	// A window past midnight wraps to the next day.
	ev, _ = Events(Spec{DRDaily: "22:00-02:00"}, tr, 1000)
	if ev[0].Start != 0 || ev[0].End != 7200 || ev[1] != (Event{79200, 93600, 800}) {
		t.Errorf("wrapping window: %v", ev[:2])
	}
}

func TestSteps(t *testing.T) {
	inf := math.Inf(1)
	ev := []Event{{10, 20, 5}, {20, 30, 5}, {40, 50, 7}}
	got := Steps(ev, 0, 0)
	type L = scheduler.LimitStep
	want := []L{{T: 10, W: 5}, {T: 30, W: inf}, {T: 40, W: 7}, {T: 50, W: inf}}
	if !equalSteps(got, want) {
		t.Errorf("Steps = %v, want %v", got, want)
	}
	got = Steps(ev, 9, 0)
	want = []L{{T: 0, W: 9}, {T: 10, W: 5}, {T: 30, W: 9}, {T: 40, W: 7}, {T: 50, W: 9}}
	if !equalSteps(got, want) {
		t.Errorf("Steps with base = %v, want %v", got, want)
	}
}

func equalSteps(a, b []scheduler.LimitStep) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestLimitsSpecErrors(t *testing.T) {
	tr := toyTrace("")
	for _, tc := range []struct {
		s    Spec
		want string
	}{
		{Spec{DRRatio: 1.5}, "dr-ratio: 1.5"},
		{Spec{DRRatio: 0.2, DRLimit: -1}, "dr-limit: -1"},
		{Spec{DRRatio: 0.2, DRDuration: "4h-2h"}, "dr-duration"},
		{Spec{DRRatio: 0.2, DRDaily: "14:00-18:00"}, "alternatives"},
		{Spec{DRDaily: "2pm"}, "dr-daily"},
		{Spec{BaseLimit: -3}, "base-limit"},
		{Spec{DREvents: "/nonexistent/ev.csv"}, "dr-events"},
	} {
		if _, err := Limits(tc.s, tr, 1000); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Limits(%+v) error %v, want %q", tc.s, err, tc.want)
		}
	}
}

// End to end on the embedded workload: the generated events put the
// requested share of the span under a limit, the dr governor keeps to it,
// and a file of the same events gives the same run.
func TestRunWithEvents(t *testing.T) {
	s := Spec{Jobs: 500, Procs: 64, DVFS: "dr", DRRatio: 0.3, DRDuration: "1h-2h", Check: true}
	tr, err := Load(s)
	if err != nil {
		t.Fatal(err)
	}
	r, err := Run(context.Background(), s, tr, Outputs{})
	if err != nil {
		t.Fatal(err)
	}
	t0, t1 := Span(s, tr)
	if got, want := r.Summary.DRHours*3600, math.Round(0.3*(t1-t0)); math.Abs(got-want) > 1e-6 {
		t.Errorf("DR time %v s, want %v", got, want)
	}
	if r.Stats.NViolations > 0 || r.Summary.ExcessJ > 0 {
		t.Errorf("%d violations, %v J above the limit", r.Stats.NViolations, r.Summary.ExcessJ)
	}
	ev, _ := Events(s, tr, r.PeakW)
	var b strings.Builder
	b.WriteString("start,end,limit_w\n")
	for _, e := range ev {
		b.WriteString(g(e.Start) + "," + g(e.End) + "," + g(e.LimitW) + "\n")
	}
	path := filepath.Join(t.TempDir(), "ev.csv")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	s2 := s
	s2.DRRatio, s2.DREvents = 0, path
	r2, err := Run(context.Background(), s2, tr, Outputs{})
	if err != nil {
		t.Fatal(err)
	}
	var j1, j2 strings.Builder
	r.Summary.WriteJSON(&j1)
	r2.Summary.WriteJSON(&j2)
	if j1.String() != j2.String() {
		t.Errorf("the same events from a file give a different run:\n%s\n%s", j2.String(), j1.String())
	}
}

// Two touching events at the same limit merge into one step; outside
// events the base limit (here none: +Inf) applies.
func ExampleSteps() {
	ev := []Event{{Start: 3600, End: 7200, LimitW: 8e4}, {Start: 7200, End: 9000, LimitW: 8e4}, {Start: 20000, End: 23600, LimitW: 6e4}}
	for _, s := range Steps(ev, 0, 0) {
		fmt.Println(s.T, s.W)
	}
	// Output:
	// 3600 80000
	// 9000 +Inf
	// 20000 60000
	// 23600 +Inf
}
