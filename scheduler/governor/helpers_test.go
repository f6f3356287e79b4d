package governor

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"drsim/powercap"
	"drsim/results"
	"drsim/scheduler"
	"drsim/workloads"
)

// The helpers of package scheduler's tests that these tests (moved from
// there with the governors) use.

// j builds a job: submit time, runtime, processors, requested time (also
// the estimate).
func j(id int64, submit, run float64, procs int64, req float64) workloads.Job {
	return workloads.Job{ID: id, Submit: submit, Run: run, Procs: procs, ReqProcs: procs, ReqTime: req, Estimate: req}
}

// twoLevels: 50 W at scale 2 and 100 W at scale 1.
var twoLevels = []powercap.Table{{App: "toy", Levels: []powercap.Level{{X: 1, Power: 50, Scale: 2}, {X: 2, Power: 100, Scale: 1}}}}

// energyRec keeps the records by job ID.
type energyRec struct{ byID map[int64]results.Record }

func (r *energyRec) Record(x *results.Record) error { r.byID[x.ID] = *x; return nil }

// collect records the jobs in finish order.
type collect struct{ rows []results.Record }

func (c *collect) Record(r *results.Record) error { c.rows = append(c.rows, *r); return nil }

// starts is "id:start-end" by job ID (IDs 1 to n).
func (c *collect) starts() string {
	byID := map[int64]results.Record{}
	for _, r := range c.rows {
		byID[r.ID] = r
	}
	var b []string
	for id := int64(1); id <= int64(len(c.rows)); id++ {
		r := byID[id]
		b = append(b, fmt.Sprintf("%d:%g-%g", id, r.Start, r.End))
	}
	return strings.Join(b, " ")
}

// simulate runs jobs under cfg with invariant checks.
func simulate(t *testing.T, cfg scheduler.Config, jobs ...workloads.Job) *collect {
	t.Helper()
	c := &collect{}
	cfg.Recorder = c
	cfg.Check = true
	e, err := scheduler.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Run(context.Background(), &scheduler.SliceSource{Jobs: jobs}); err != nil {
		t.Fatal(err)
	}
	if s := e.Stats(); s.NViolations > 0 {
		t.Fatalf("invariant violations: %v", s.Violations)
	}
	return c
}

// energyRecords runs jobs under pol with governor g (tables tabs, three
// applications by ID, limit lim, invariant checks) and returns the
// records by job ID; it fails the test on an error or a violation.
func energyRecords(t *testing.T, it int, pol string, procs int, tabs []powercap.Table, lim []scheduler.LimitStep, g scheduler.Governor, jobs []workloads.Job) map[int64]results.Record {
	t.Helper()
	rec := &energyRec{byID: map[int64]results.Record{}}
	e, err := scheduler.New(scheduler.Config{Procs: procs, Policy: pol, Apps: tabs, AppOf: func(w *workloads.Job) int { return int(w.ID % 3) },
		IdleW: 5, Limits: lim, Governor: g, Recorder: rec, Check: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Run(context.Background(), &scheduler.SliceSource{Jobs: jobs}); err != nil {
		t.Fatal(err)
	}
	if e.Stats().NViolations > 0 {
		t.Fatalf("instance %d %s: %v", it, pol, e.Stats().Violations)
	}
	return rec.byID
}

// sameRecords fails the test unless the run with the caches (recs[0])
// recorded every job exactly as the run without them (recs[1]).
func sameRecords(t *testing.T, it int, pol string, recs [2]map[int64]results.Record, jobs []workloads.Job) {
	t.Helper()
	if len(recs[0]) == len(jobs) && reflect.DeepEqual(recs[0], recs[1]) {
		return
	}
	for id, a := range recs[1] {
		if b := recs[0][id]; !reflect.DeepEqual(a, b) {
			t.Fatalf("instance %d %s: job %d: %+v with the caches, %+v without", it, pol, id, b, a)
		}
	}
	t.Fatalf("instance %d %s: %d records with the caches, %d without, of %d jobs", it, pol, len(recs[0]), len(recs[1]), len(jobs))
}
