package scheduler_test

import (
	"bytes"
	"testing"

	"drsim/internal/sharedtest"
	"drsim/scheduler"
	"drsim/scheduler/sim"
	"drsim/workloads"
)

// TestConservativeReuseStartsAndCutoff compares conservative with the
// same policy rebuilding at every finish (the reference) on random
// workloads (both overrun rules, both queue orders, both pass modes) and
// on lublin_256, and checks that the reuse walk both started kept groups
// whose start had come (startKept) and kept groups past the
// free-processor cutoff (walkPast) on each: jobs.csv and the engine's
// counters must not change.
func TestConservativeReuseStartsAndCutoff(t *testing.T) {
	scheduler.Policies["conservative-noreuse"] = scheduler.NewConservativeNoReuse
	defer delete(scheduler.Policies, "conservative-noreuse")
	started, past, restore := scheduler.CountReuseWalkEnds()
	defer restore()
	run := func(s sim.Spec, tr *workloads.Trace) {
		got, gst := jobsAndStats(t, s, "conservative", tr)
		want, wst := jobsAndStats(t, s, "conservative-noreuse", tr)
		if !bytes.Equal(got, want) || gst != wst {
			t.Fatalf("%+v: differs from rebuilding at every finish (stats %v, %v)", s, gst, wst)
		}
	}
	randomReuseRuns(41, run)
	rs, rp := *started, *past
	s := sim.Spec{Trace: sharedtest.Path(t, "traces/lublin_256.swf")}
	tr, err := sim.Load(s)
	if err != nil {
		t.Fatal(err)
	}
	run(s, tr)
	t.Logf("groups started %d, kept past the cutoff %d on random workloads; %d, %d on lublin_256", rs, rp, *started-rs, *past-rp)
	if rs < 1000 || rp < 10000 || *started-rs < 3000 || *past-rp < 50000 {
		t.Fatalf("only %d, %d groups started and %d, %d kept past the cutoff", rs, *started-rs, rp, *past-rp)
	}
}
