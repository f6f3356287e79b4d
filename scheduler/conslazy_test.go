package scheduler_test

import (
	"bytes"
	"math"
	"testing"

	"drsim/internal/sharedtest"
	"drsim/scheduler"
	"drsim/scheduler/sim"
)

// TestConservativeLazyTailKeepsSchedule lets every keyed conservative
// pass skip (conslazy.go), however short its queue, and compares with
// placing every job at every pass on random workloads: the same jobs.csv
// and the same passes, events and finished jobs, in both queue orders,
// both overrun rules, both pass modes and under node speeds. The passes
// must have skipped, started jobs while skipping, and materialised.
func TestConservativeLazyTailKeepsSchedule(t *testing.T) {
	scheduler.Policies["conservative-full"] = scheduler.NewConservativeFull
	defer delete(scheduler.Policies, "conservative-full")
	skipped, started, mat, fails, restore := scheduler.SetLazyTail(0)
	defer restore()
	specs := []sim.Spec{{}, {Overrun: "extend"}, {Order: "sef", Overrun: "extend"}, {Pass: "event"},
		{NodeSpeedSD: 0.05}, {Order: "sef", Pass: "event", Overrun: "extend"}, {Estimate: "run"}}
	sameOnRandom(t, specs, 13, "conservative-full", "placing every job")
	if *skipped == 0 || *started == 0 || *mat == 0 || *fails == 0 {
		t.Fatalf("passes skipped %d jobs, started %d while skipping, materialised %d, skipped %d without a search (a failed class): each must be some", *skipped, *started, *mat, *fails)
	}
	t.Logf("skipped %d jobs, started %d while skipping, materialised %d, skipped %d without a search", *skipped, *started, *mat, *fails)
}

// TestConservativeLazyTailTrace compares, on KTH-SP2 under --dvfs
// powersave (an overloaded machine: the queue grows to thousands of jobs,
// DESIGN.md), conservative as it runs (skipping on long queues) with
// passes that never skip.
func TestConservativeLazyTailTrace(t *testing.T) {
	s := sim.Spec{Trace: sharedtest.Path(t, "traces/KTH-SP2-1996-2.1-cln.swf.gz"), DVFS: "powersave"}
	tr, err := sim.Load(s)
	if err != nil {
		t.Fatal(err)
	}
	skipped, _, _, _, restore := scheduler.SetLazyTail(1000)
	got, gst := jobsAndStats(t, s, "conservative", tr)
	restore()
	if *skipped == 0 {
		t.Fatal("no pass skipped")
	}
	_, _, _, _, restore = scheduler.SetLazyTail(math.MaxInt)
	want, wst := jobsAndStats(t, s, "conservative", tr)
	restore()
	if !bytes.Equal(got, want) || gst != wst {
		t.Fatalf("skipping differs from not skipping (stats %v, %v)", gst, wst)
	}
}
