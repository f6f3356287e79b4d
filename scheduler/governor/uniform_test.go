package governor

import (
	"context"
	"math"
	"testing"

	"drsim/powercap"
	"drsim/results"
	"drsim/scheduler"
	"drsim/workloads"
)

// toyCaps is a cap table: X in W per processor, Power ≤ X.
var toyCaps = []powercap.Table{{App: "toycap", Knob: powercap.Cap, Levels: []powercap.Level{
	{X: 100, Power: 80, Scale: 1.5}, {X: 150, Power: 120, Scale: 1.2}, {X: 200, Power: 150, Scale: 1}}}}

func TestUniformLevel(t *testing.T) {
	lv := toyCaps[0].Levels
	for _, tc := range []struct {
		limit float64
		procs int
		want  int
	}{
		{math.Inf(1), 4, 2},
		{800, 4, 2},   // 200 W each: the top cap
		{799, 4, 1},   // 199.75 W: snapped down to 150
		{600, 4, 1},   // exactly 150
		{599.9, 4, 0}, // 149.975 → 100
		{100, 4, 0},   // 25 W: below Pmin, the lowest cap
	} {
		if got := UniformLevel(lv, tc.limit, tc.procs); got != tc.want {
			t.Errorf("UniformLevel(limit %v, %d procs) = %d, want %d", tc.limit, tc.procs, got, tc.want)
		}
	}
}

// Hand-computed: a 2-processor job of 100 s on 4 processors idling at 20 W.
// A limit of 560 W from t=50 caps every processor at 140 W, snapped down
// to 100 W (level 0: 80 W, 1.5× slower): the remaining half takes 75 s, so
// the job ends at 125 with 2×150×50 + 2×80×75 = 27000 J. The power under
// the limit is 2×80 + 2×20 = 200 W ≤ 560. A second job submitted at 60
// starts at once (not power-aware) at level 0.
func TestUniformRetiming(t *testing.T) {
	rec := &energyRec{byID: map[int64]results.Record{}}
	u := &Uniform{}
	e, err := scheduler.New(scheduler.Config{Procs: 4, Policy: "fcfs", Apps: toyCaps, IdleW: 20, Governor: u, Check: true, Recorder: rec,
		Limits: []scheduler.LimitStep{{T: 50, W: 560}}})
	if err != nil {
		t.Fatal(err)
	}
	jobs := []workloads.Job{j(1, 0, 100, 2, 1000), j(2, 60, 10, 2, 1000)}
	if err := e.Run(context.Background(), &scheduler.SliceSource{Jobs: jobs}); err != nil {
		t.Fatal(err)
	}
	if e.Stats().NViolations > 0 || u.Unreachable != 0 {
		t.Fatal(e.Stats().Violations, u.Unreachable)
	}
	if r := rec.byID[1]; r.End != 125 || r.Energy != 27000 {
		t.Errorf("job 1 end %v energy %v, want 125 27000", r.End, r.Energy)
	}
	if r := rec.byID[2]; r.Start != 60 || r.End != 75 || r.Energy != 2*80*15 {
		t.Errorf("job 2 start %v end %v energy %v, want 60 75 2400", r.Start, r.End, r.Energy)
	}
}

// Below Pmin the uniform cap cannot hold the limit: it is counted as
// unreachable, not reported as a violation, and the meter sees the excess.
func TestUniformUnreachable(t *testing.T) {
	u := &Uniform{}
	e, err := scheduler.New(scheduler.Config{Procs: 4, Policy: "fcfs", Apps: toyCaps, IdleW: 20, Governor: u, Check: true,
		Limits: []scheduler.LimitStep{{T: 10, W: 200}}})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Run(context.Background(), &scheduler.SliceSource{Jobs: []workloads.Job{j(1, 0, 100, 4, 1000)}}); err != nil {
		t.Fatal(err)
	}
	if e.Stats().NViolations != 0 || u.Unreachable != 1 || e.Meter().MaxExcessW != 4*80-200 {
		t.Fatalf("violations %v, unreachable %d, excess %v", e.Stats().Violations, u.Unreachable, e.Meter().MaxExcessW)
	}
}
