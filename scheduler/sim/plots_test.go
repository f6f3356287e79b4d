package sim

import (
	"context"
	"fmt"
	"math"
	"strings"
	"testing"

	"drsim/cluster"
	"drsim/results"
	"drsim/results/plot"
	"drsim/scheduler"
)

// Hand-computed: jobs (submit, start) = (0,0) (0,5) (2,5) (3,9): at 0 one
// waits, at 2 two, at 3 three, at 5 one, at 9 none.
func TestTimelineQueue(t *testing.T) {
	tl := NewTimeline(4)
	for _, st := range [][2]float64{{0, 0}, {0, 5}, {2, 5}, {3, 9}} {
		tl.Record(&results.Record{Submit: st[0], Start: st[1], End: st[1] + 1, Alloc: []cluster.Range{{Lo: 0, Hi: 1}}})
	}
	got := fmt.Sprint(tl.Queue())
	if want := "[{0 1} {2 2} {3 3} {5 1} {9 0}]"; got != want {
		t.Errorf("Queue() = %s, want %s", got, want)
	}
}

func TestEventIntervals(t *testing.T) {
	inf := math.Inf(1)
	steps := []scheduler.LimitStep{{T: 10, W: 100}, {T: 20, W: 80}, {T: 30, W: inf}, {T: 50, W: 90}}
	got := fmt.Sprint(EventIntervals(steps, 70))
	if want := "[{10 30} {50 70}]"; got != want {
		t.Errorf("EventIntervals = %s, want %s", got, want)
	}
}

// A run with DR renders all three figures as SVG.
func TestTimelineFigures(t *testing.T) {
	spec := Spec{Jobs: 300, DVFS: "dr", DRRatio: 0.3}
	tr, err := Load(spec)
	if err != nil {
		t.Fatal(err)
	}
	tl := NewTimeline(int(tr.MachineProcs))
	res, err := Run(context.Background(), spec, tr, Outputs{Observer: tl, Record: tl})
	if err != nil {
		t.Fatal(err)
	}
	figs, err := tl.Figures(res.Limits, plot.SVG)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range figs {
		names = append(names, f.Name)
		if !strings.Contains(string(f.Data), "<svg") {
			t.Errorf("%s is not an SVG", f.Name)
		}
	}
	if got := strings.Join(names, " "); got != "power.svg queue.svg gantt.svg" {
		t.Errorf("figures %s", got)
	}
}
