package scheduler

import (
	"context"
	"strings"
	"testing"

	"drsim/cluster"
	"drsim/workloads"
)

// overlapping is a broken placement: it counts processors correctly but
// always hands out the lowest ones, so two running jobs share processors.
type overlapping struct{ total, free int }

func (o *overlapping) Name() string { return "overlapping" }
func (o *overlapping) Total() int   { return o.total }
func (o *overlapping) Free() int    { return o.free }
func (o *overlapping) Alloc(n int, dst []cluster.Range) ([]cluster.Range, bool) {
	if n > o.free {
		return dst, false
	}
	o.free -= n
	return append(dst, cluster.Range{Lo: 0, Hi: int32(n)}), true
}
func (o *overlapping) Release(rs []cluster.Range) {
	for _, r := range rs {
		o.free += int(r.Len())
	}
}

func init() {
	cluster.Placements["test-overlapping"] = func(c cluster.PlacementConfig) (cluster.Allocator, error) {
		return &overlapping{total: c.Procs, free: c.Procs}, nil
	}
}

var twoSmallJobs = []workloads.Job{
	{ID: 1, Submit: 0, Run: 100, Estimate: 100, Procs: 2},
	{ID: 2, Submit: 10, Run: 100, Estimate: 100, Procs: 2},
}

// A placement that gives two running jobs the same processors is caught
// by the ownership map even though its counts are right; asked for
// (Check), the violations are reported; forced on by the test binary,
// they fail Run.
func TestCheckCatchesDoubleAllocation(t *testing.T) {
	for _, asked := range []bool{true, false} {
		e, err := New(Config{Procs: 4, Policy: "fcfs", Placement: "test-overlapping", Check: asked})
		if err != nil {
			t.Fatal(err)
		}
		err = e.Run(context.Background(), &SliceSource{Jobs: twoSmallJobs})
		st := e.Stats()
		if st.NViolations == 0 || !strings.Contains(st.Violations[0], "processor 0 allocated twice") {
			t.Fatalf("asked=%v: violations %v", asked, st.Violations)
		}
		if asked && err != nil {
			t.Errorf("asked for checks: Run returned %v; want the violations in Stats only", err)
		}
		if !asked && (err == nil || !strings.Contains(err.Error(), "invariant violations (checks are on in tests)")) {
			t.Errorf("checks forced by the test binary: Run returned %v; want an error", err)
		}
	}
}

// The same broken placement passes unnoticed with the checks off, which
// is what benchmarks (WithoutTestChecks) measure.
func TestWithoutTestChecks(t *testing.T) {
	defer WithoutTestChecks()()
	e, err := New(Config{Procs: 4, Policy: "fcfs", Placement: "test-overlapping"})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Run(context.Background(), &SliceSource{Jobs: twoSmallJobs}); err != nil || e.Stats().NViolations != 0 {
		t.Fatalf("unchecked run: %v, %d violations", err, e.Stats().NViolations)
	}
}

// The end-of-run energy balance holds on a clean run and fails when the
// jobs' own energies and the meter's disagree by a part in 1e6.
func TestFinalEnergyCheck(t *testing.T) {
	e, err := New(Config{Procs: 4, Policy: "fcfs", Apps: twoLevels, IdleW: 10, Check: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Run(context.Background(), &SliceSource{Jobs: twoSmallJobs}); err != nil || e.Stats().NViolations != 0 {
		t.Fatalf("clean run: %v, %v", err, e.Stats().Violations)
	}
	// 2 jobs × 2 procs × 100 W × 100 s.
	if e.jobJ != 40000 || e.Meter().BusyJ != 40000 {
		t.Fatalf("job energies %v J, meter %v J; want 40000", e.jobJ, e.Meter().BusyJ)
	}
	e.jobJ *= 1 + 1e-6
	e.finalChecks()
	if st := e.Stats(); st.NViolations != 1 || !strings.Contains(st.Violations[0], "energy: jobs' own energies sum to 40000.040000 J") {
		t.Fatalf("perturbed balance: %v", st.Violations)
	}
}

// Jobs a hand-built source gives that cannot run are dropped with their
// reason, and every other job ends exactly once (the final checks).
func TestDropReasons(t *testing.T) {
	jobs := []workloads.Job{
		{ID: 1, Submit: 0, Run: 10, Procs: 0},
		{ID: 2, Submit: 1, Run: 10, Procs: 9},
		{ID: 3, Submit: 2, Run: 0, Procs: 1},
		{ID: 4, Submit: 3, Run: 10, Procs: 1},
		{ID: 5, Submit: 4, Run: 10, Procs: 8},
	}
	e, err := New(Config{Procs: 8, Policy: "easy", Check: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Run(context.Background(), &SliceSource{Jobs: jobs}); err != nil {
		t.Fatal(err)
	}
	st := e.Stats()
	if st.Dropped != 3 || st.DroppedBy != [nDropReasons]int{1, 1, 1} || st.Finished != 2 || st.NViolations != 0 {
		t.Fatalf("dropped %d %v, finished %d, violations %v", st.Dropped, st.DroppedBy, st.Finished, st.Violations)
	}
}
