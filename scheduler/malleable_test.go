package scheduler

import (
	"context"
	"math"
	"slices"
	"testing"

	"drsim/cluster"
	"drsim/results"
	"drsim/workloads"
)

func rg(lo, hi int32) cluster.Range { return cluster.Range{Lo: lo, Hi: hi} }

func TestSplitAndNormRanges(t *testing.T) {
	tests := []struct {
		in         []cluster.Range
		n          int
		keep, rest []cluster.Range
	}{
		{[]cluster.Range{rg(0, 4)}, 2, []cluster.Range{rg(0, 2)}, []cluster.Range{rg(2, 4)}},
		{[]cluster.Range{rg(0, 2), rg(5, 8)}, 2, []cluster.Range{rg(0, 2)}, []cluster.Range{rg(5, 8)}},
		{[]cluster.Range{rg(0, 2), rg(5, 8)}, 3, []cluster.Range{rg(0, 2), rg(5, 6)}, []cluster.Range{rg(6, 8)}},
		{[]cluster.Range{rg(0, 2), rg(5, 8)}, 5, []cluster.Range{rg(0, 2), rg(5, 8)}, nil},
	}
	for _, tc := range tests {
		keep, rest := splitRanges(slices.Clone(tc.in), tc.n)
		if !slices.Equal(keep, tc.keep) || !slices.Equal(rest, tc.rest) {
			t.Errorf("split(%v, %d) = %v, %v; want %v, %v", tc.in, tc.n, keep, rest, tc.keep, tc.rest)
		}
	}
	got := normRanges([]cluster.Range{rg(6, 8), rg(0, 2), rg(2, 3), rg(4, 6)})
	if want := []cluster.Range{rg(0, 3), rg(4, 8)}; !slices.Equal(got, want) {
		t.Errorf("normRanges = %v, want %v", got, want)
	}
}

// resizeInDR shrinks every running job to half its size (runtime factor
// 2, pause p) when a limit comes into force and grows it back when it
// lifts (factor 1/2, pause p). Levels never change.
type resizeInDR struct {
	p    float64
	orig map[int32]int
}

func (resizeInDR) Name() string                    { return "resize-in-dr" }
func (resizeInDR) StartLevel(e *Engine, _ int) int { return 1 }
func (resizeInDR) PowerAware() bool                { return false }
func (g resizeInDR) Adjust(c *Control) {
	for _, s := range c.Running() {
		n := c.Job(s).Procs
		switch {
		case c.InDR() && g.orig[s] == 0:
			g.orig[s] = n
			c.Resize(s, n/2, 2, g.p)
		case !c.InDR() && g.orig[s] > n:
			c.Resize(s, g.orig[s], 0.5, g.p)
			g.orig[s] = 0
		}
	}
}

// Work conservation, hand-computed. One 4-processor job of 100 s at the
// top level (100 W a processor) on 4 processors idling at 10 W; a limit
// from t=50 to t=100 shrinks it to 2 processors with runtime factor 2.
//
//   - pause 0: half the work is left at t=50; at 2 processors it takes
//     0.5 × 200 = 100 s, so without growing back it would end at 150. At
//     t=100 it has done 50/200 = 0.25 more (α = 0.75) and grows back: the
//     last 0.25 at 4 processors takes 25 s, so it ends at 125. Job energy
//     400 W × 50 + 200 W × 50 + 400 W × 25 = 40000 J; idle 2 × 10 W × 50.
//   - pause 10 each way: from t=50 the remaining time is 100 + 10, so at
//     t=100 it has done 40/200 = 0.2 (α = 0.7); growing back, the rest
//     takes 10 + 0.3 × 100 = 40 s: it ends at 140. Energy 400×50 +
//     200×50 + 400×40 = 46000 J.
func TestResizeWorkConservation(t *testing.T) {
	for _, tc := range []struct {
		pause, end, jobJ, idleJ float64
	}{
		{0, 125, 40000, 1000},
		{10, 140, 46000, 1000},
	} {
		rec := &energyRec{byID: map[int64]results.Record{}}
		e, err := New(Config{Procs: 4, Policy: "fcfs", Apps: twoLevels, IdleW: 10, Check: true, Recorder: rec,
			Governor: resizeInDR{p: tc.pause, orig: map[int32]int{}}, Limits: []LimitStep{{50, 1e9}, {100, math.Inf(1)}}})
		if err != nil {
			t.Fatal(err)
		}
		if err := e.Run(context.Background(), &SliceSource{Jobs: []workloads.Job{j(1, 0, 100, 4, 1000)}}); err != nil {
			t.Fatal(err)
		}
		if e.Stats().NViolations > 0 {
			t.Fatal(e.Stats().Violations)
		}
		r := rec.byID[1]
		if math.Abs(r.End-tc.end) > 1e-9 || math.Abs(r.Energy-tc.jobJ) > 1e-6 || r.Procs != 4 {
			t.Errorf("pause %v: end %v energy %v procs %d; want %v %v 4", tc.pause, r.End, r.Energy, r.Procs, tc.end, tc.jobJ)
		}
		if m := e.Meter(); math.Abs(m.IdleJ-tc.idleJ) > 1e-6 {
			t.Errorf("pause %v: idle %v J, want %v", tc.pause, m.IdleJ, tc.idleJ)
		}
	}
}

// Growing beyond the free processors is refused; shrinking frees
// processors (which then draw idle power) and growing takes them back.
func TestResizeRefusedAndReleased(t *testing.T) {
	var log []string
	e, err := New(Config{Procs: 4, Policy: "fcfs", Apps: twoLevels, IdleW: 10, Check: true})
	if err != nil {
		t.Fatal(err)
	}
	e.meter = cluster.NewMeter(4, 10, 0)
	e.submit(&workloads.Job{ID: 1, Run: 100, Procs: 4, Estimate: 100})
	e.view.reset(e)
	e.view.Start(0)
	c := &Control{e: e}
	s := c.Running()[0]
	if c.Resize(s, 5, 1, 0) {
		log = append(log, "grew beyond the machine")
	}
	if !c.Resize(s, 1, 4, 0) || c.FreeProcs() != 3 || e.meter.Power() != 100+3*10 {
		log = append(log, "shrink to 1 did not free 3 processors")
	}
	if !c.Resize(s, 3, 1.0/3, 0) || c.FreeProcs() != 1 || cluster.Count(e.jobs[s].alloc) != 3 {
		log = append(log, "grow to 3 failed")
	}
	if e.Stats().NViolations > 0 || len(log) > 0 {
		t.Fatal(log, e.Stats().Violations)
	}
}
