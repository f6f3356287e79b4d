package scheduler

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"drsim/cluster"
	"drsim/results"
	"drsim/workloads"
)

// j builds a job: submit time, runtime, processors, requested time (also
// the estimate).
func j(id int64, submit, run float64, procs int64, req float64) workloads.Job {
	return workloads.Job{ID: id, Submit: submit, Run: run, Procs: procs, ReqProcs: procs, ReqTime: req, Estimate: req}
}

// collect records start, end and state per job, in finish order.
type collect struct {
	rows  []results.Record
	order []int64
}

func (c *collect) Record(r *results.Record) error {
	rr := *r
	rr.Alloc = append([]cluster.Range(nil), r.Alloc...)
	c.rows = append(c.rows, rr)
	c.order = append(c.order, r.ID)
	return nil
}

func (c *collect) starts() string {
	var b []string
	byID := map[int64]results.Record{}
	ids := []int64{}
	for _, r := range c.rows {
		byID[r.ID] = r
		ids = append(ids, r.ID)
	}
	for id := int64(1); id <= int64(len(ids)); id++ {
		r := byID[id]
		b = append(b, fmt.Sprintf("%d:%g-%g", id, r.Start, r.End))
	}
	return strings.Join(b, " ")
}

func simulate(t *testing.T, cfg Config, jobs ...workloads.Job) *collect {
	t.Helper()
	c := &collect{}
	cfg.Recorder = c
	cfg.Check = true
	e, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Run(context.Background(), &SliceSource{Jobs: jobs}); err != nil {
		t.Fatal(err)
	}
	if s := e.Stats(); s.NViolations > 0 {
		t.Fatalf("invariant violations: %v", s.Violations)
	}
	return c
}

// Hand-computed schedules; each row's comment derives the expected starts.
// Times are exact (integers), so the comparison is exact.
func TestHandSchedules(t *testing.T) {
	tests := []struct {
		name   string
		cfg    Config
		jobs   []workloads.Job
		starts string // id:start-end, by job id
	}{{
		// FCFS: J1 fills the machine until 10; J2 (1 proc) and J3 (2) both fit at 10.
		name: "fcfs basic", cfg: Config{Procs: 4, Policy: "fcfs"},
		jobs:   []workloads.Job{j(1, 0, 10, 4, 10), j(2, 1, 5, 1, 5), j(3, 2, 2, 2, 2)},
		starts: "1:0-10 2:10-15 3:10-12",
	}, {
		// FCFS never skips: J2 (4 procs) blocks J3 although J3 would fit at 1.
		name: "fcfs no skipping", cfg: Config{Procs: 4, Policy: "fcfs"},
		jobs:   []workloads.Job{j(1, 0, 10, 3, 10), j(2, 1, 5, 4, 5), j(3, 2, 2, 1, 2)},
		starts: "1:0-10 2:10-15 3:15-17",
	}, {
		// EASY: head J2 (4 procs) reserved at shadow 10 with 0 extra. J3 (1 proc,
		// est 8) submitted at 2 ends at 10 = shadow exactly: allowed. J4 has no
		// free processor until J2 ends at 15.
		name: "easy backfill ends exactly at shadow", cfg: Config{Procs: 4, Policy: "easy"},
		jobs:   []workloads.Job{j(1, 0, 10, 3, 10), j(2, 1, 5, 4, 5), j(3, 2, 8, 1, 8), j(4, 3, 8, 1, 8)},
		starts: "1:0-10 2:10-15 3:2-10 4:15-23",
	}, {
		// Same, but J3's estimate is 9: it would end at 11 > shadow 10 and extra
		// is 0, so it must wait; J2 starts at 10, J3 and J4 at 15.
		name: "easy no backfill past shadow", cfg: Config{Procs: 4, Policy: "easy"},
		jobs:   []workloads.Job{j(1, 0, 10, 3, 10), j(2, 1, 5, 4, 5), j(3, 2, 8, 1, 9), j(4, 3, 8, 1, 8)},
		starts: "1:0-10 2:10-15 3:15-23 4:15-23",
	}, {
		// EASY extra processors: P=6, J1 holds 4 until 10; head J2 needs 4, so at
		// the shadow 10 there are 6 free and 2 extra. J3 (2 procs, est 100) ends
		// after the shadow but uses only the 2 extra: backfilled at 2. Extra is
		// now 0, so J4 (1 proc, est 50) cannot use it, and free is 0 anyway.
		name: "easy backfill on extra processors", cfg: Config{Procs: 6, Policy: "easy"},
		jobs:   []workloads.Job{j(1, 0, 10, 4, 10), j(2, 1, 5, 4, 5), j(3, 2, 100, 2, 100), j(4, 3, 50, 1, 50)},
		starts: "1:0-10 2:10-15 3:2-102 4:15-65",
	}, {
		// Extra shrinks: P=7, J1 holds 4 until 10, head J2 needs 4: 7 free at 10,
		// 3 extra. J3 (2 procs, long) takes 2 extra (1 left); J4 (2 procs, long)
		// exceeds the 1 left and ends after the shadow: waits. J5 (1 proc, long)
		// fits the last extra processor. When J2 ends at 15, 4 processors are
		// free and J4 starts.
		name: "easy extra shrinks", cfg: Config{Procs: 7, Policy: "easy"},
		jobs: []workloads.Job{j(1, 0, 10, 4, 10), j(2, 1, 5, 4, 5), j(3, 2, 100, 2, 100),
			j(4, 3, 100, 2, 100), j(5, 4, 100, 1, 100)},
		starts: "1:0-10 2:10-15 3:2-102 4:15-115 5:4-104",
	}, {
		// Conservative vs EASY. P=4: J1 3 procs until 10; J2 (2 procs) reserved at
		// 10; J3 (4 procs) reserved at 20 after J2. J4 (1 proc, est 100) would
		// overlap J3's reservation, so conservative reserves it at 30.
		name: "conservative", cfg: Config{Procs: 4, Policy: "conservative"},
		jobs:   []workloads.Job{j(1, 0, 10, 3, 10), j(2, 1, 10, 2, 10), j(3, 2, 10, 4, 10), j(4, 3, 100, 1, 100)},
		starts: "1:0-10 2:10-20 3:20-30 4:30-130",
	}, {
		// The same jobs under EASY: only the head (J2) is protected, so J4 uses
		// one of the 2 extra processors at 3, and J3 waits for it until 103.
		name: "easy on the conservative example", cfg: Config{Procs: 4, Policy: "easy"},
		jobs:   []workloads.Job{j(1, 0, 10, 3, 10), j(2, 1, 10, 2, 10), j(3, 2, 10, 4, 10), j(4, 3, 100, 1, 100)},
		starts: "1:0-10 2:10-20 3:103-113 4:3-103",
	}, {
		// Over-run kill: J1 ran 20 s but asked for 10: killed at 10, and J2
		// starts then.
		name: "overrun kill", cfg: Config{Procs: 1, Policy: "fcfs"},
		jobs:   []workloads.Job{j(1, 0, 20, 1, 10), j(2, 0, 5, 1, 5)},
		starts: "1:0-10 2:10-15",
	}, {
		name: "overrun extend", cfg: Config{Procs: 1, Policy: "fcfs", Overrun: OverrunExtend},
		jobs:   []workloads.Job{j(1, 0, 20, 1, 10), j(2, 0, 5, 1, 5)},
		starts: "1:0-20 2:20-25",
	}, {
		// Shortest estimate first: at 10 both J2 (est 50) and J3 (est 5) wait;
		// J3 goes first.
		name: "sef order", cfg: Config{Procs: 1, Policy: "fcfs", Order: "sef"},
		jobs:   []workloads.Job{j(1, 0, 10, 1, 10), j(2, 1, 50, 1, 50), j(3, 2, 5, 1, 5)},
		starts: "1:0-10 2:15-65 3:10-15",
	}}
	for _, tc := range tests {
		for _, pass := range []Pass{PassInstant, PassEvent} {
			t.Run(fmt.Sprintf("%s/pass%d", tc.name, pass), func(t *testing.T) {
				cfg := tc.cfg
				cfg.Pass = pass
				if got := simulate(t, cfg, tc.jobs...).starts(); got != tc.starts {
					t.Errorf("schedule = %s\nwant       %s", got, tc.starts)
				}
			})
		}
	}
}

// Two jobs finish at the same instant as a submit: the finishes are applied
// first, in start order, then the submit, so the new job starts at once.
func TestSameInstantFinishesThenSubmit(t *testing.T) {
	for _, pass := range []Pass{PassInstant, PassEvent} {
		c := simulate(t, Config{Procs: 2, Policy: "fcfs", Pass: pass},
			j(1, 0, 5, 1, 5), j(2, 0, 5, 1, 5), j(3, 5, 1, 2, 1))
		if got, want := fmt.Sprint(c.order), "[1 2 3]"; got != want {
			t.Errorf("pass %d: finish order %s, want %s", pass, got, want)
		}
		if got, want := c.starts(), "1:0-5 2:0-5 3:5-6"; got != want {
			t.Errorf("pass %d: schedule %s, want %s", pass, got, want)
		}
		if a := string(cluster.AppendIntervalSet(nil, c.rows[2].Alloc)); a != "0-1" {
			t.Errorf("J3 allocated %q, want 0-1", a)
		}
	}
}

func TestRegistriesBuildEveryEntry(t *testing.T) {
	for name := range Policies {
		p, err := Policies.New(name)
		if err != nil || p.Name() != name {
			t.Errorf("Policies.New(%q) = %v, %v", name, p, err)
		}
	}
	for name := range Orders {
		o, err := Orders.New(name)
		if err != nil || o.Name() != name {
			t.Errorf("Orders.New(%q) = %v, %v", name, o, err)
		}
	}
	if _, err := Policies.New("sjf"); err == nil || err.Error() != `scheduler: unknown policy "sjf" (known: conservative, easy, fcfs, slurm-backfill)` {
		t.Errorf("unknown policy error = %v", err)
	}
}
