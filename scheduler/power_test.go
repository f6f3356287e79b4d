package scheduler

import (
	"context"
	"fmt"
	"math"
	"testing"

	"drsim/powercap"
	"drsim/results"
	"drsim/workloads"
)

// twoLevels: at level 0 a processor draws 50 W and runs 2× slower; at level
// 1 (the top) it draws 100 W at full speed.
var twoLevels = []powercap.Table{{App: "toy", Levels: []powercap.Level{{X: 1, Power: 50, Scale: 2}, {X: 2, Power: 100, Scale: 1}}}}

// inDR starts every job at level out, moves the running jobs to level in
// while a limit is in force and back to out outside.
type inDR struct{ in, out int }

// slowInDR runs jobs at the top, at level 0 while a limit is in force;
// fastInDR the other way round.
var slowInDR, fastInDR = inDR{in: 0, out: 1}, inDR{in: 1, out: 0}

func (g inDR) Name() string                      { return fmt.Sprintf("level-%d-in-dr", g.in) }
func (g inDR) StartLevel(e *Engine, app int) int { return g.out }
func (inDR) PowerAware() bool                    { return false }
func (g inDR) Adjust(c *Control) {
	lv := g.out
	if c.InDR() {
		lv = g.in
	}
	for _, s := range c.Running() {
		c.SetLevel(s, lv)
	}
}

type energyRec struct{ byID map[int64]results.Record }

func (r *energyRec) Record(x *results.Record) error { r.byID[x.ID] = *x; return nil }

func runPower(t *testing.T, gov Governor, limits []LimitStep, jobs ...workloads.Job) (*Engine, *energyRec) {
	t.Helper()
	rec := &energyRec{byID: map[int64]results.Record{}}
	e, err := New(Config{Procs: 2, Policy: "fcfs", Apps: twoLevels, IdleW: 10, Governor: gov, Limits: limits, Recorder: rec, Check: true})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Run(context.Background(), &SliceSource{Jobs: jobs}); err != nil {
		t.Fatal(err)
	}
	if e.Stats().NViolations > 0 {
		t.Fatal(e.Stats().Violations)
	}
	return e, rec
}

// Hand-computed: one 1-processor job of 100 s (at the top level) on a
// 2-processor machine idling at 10 W per processor.
func TestEnergyAndRetiming(t *testing.T) {
	tests := []struct {
		name      string
		gov       Governor
		limits    []LimitStep
		end, jobJ float64
		idleJ     float64
	}{
		// 100 s at 100 W; the other processor idles 100 s at 10 W.
		{"performance", Performance{}, nil, 100, 10000, 1000},
		// 200 s at 50 W; idle 200 s × 10 W.
		{"powersave", Powersave{}, nil, 200, 10000, 2000},
		// Half the work at the top (0–50 s), then a limit from t=50: the other
		// half at level 0 takes 0.5 × 200 = 100 s, so the job ends at 150.
		// Energy 100 W × 50 s + 50 W × 100 s; idle 150 s × 10 W.
		{"slowed at 50", slowInDR, []LimitStep{{50, 1e9}}, 150, 10000, 1500},
		// Slowed at 50, back to the top at 70: 0.5 − 20/200 = 0.4 of the work
		// left at the top takes 40 s, so it ends at 110.
		// Energy 100×50 + 50×20 + 100×40 = 10000 J; idle 110 s × 10 W.
		{"slowed 50-70", slowInDR, []LimitStep{{50, 1e9}, {70, math.Inf(1)}}, 110, 10000, 1100},
		// Two steps at the same time: the second is the one in force, so
		// the job is never slowed (no limit from 50) or slowed from 50.
		{"lifted at once", slowInDR, []LimitStep{{50, 1e9}, {50, math.Inf(1)}}, 100, 10000, 1000},
		{"limited at once", slowInDR, []LimitStep{{50, math.Inf(1)}, {50, 1e9}}, 150, 10000, 1500},
		// Started at level 0 (200 s); at 50 a quarter is done and the rest
		// at the top would end at 125, before the first finish time; at 60
		// 0.35 is done, and the rest at level 0 takes 0.65 × 200 = 130 s:
		// the finish moves back past 125 to 190. Energy 50×50 + 100×10 +
		// 50×130; idle 190 s × 10 W.
		{"fast 50-60", fastInDR, []LimitStep{{50, 1e9}, {60, math.Inf(1)}}, 190, 10000, 1900},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e, rec := runPower(t, tc.gov, tc.limits, j(1, 0, 100, 1, 1000))
			r := rec.byID[1]
			if r.End != tc.end || r.Energy != tc.jobJ {
				t.Errorf("end %v energy %v, want %v %v", r.End, r.Energy, tc.end, tc.jobJ)
			}
			m := e.Meter()
			if m.BusyJ != tc.jobJ || m.IdleJ != tc.idleJ {
				t.Errorf("meter busy %v idle %v, want %v %v", m.BusyJ, m.IdleJ, tc.jobJ, tc.idleJ)
			}
		})
	}
}
