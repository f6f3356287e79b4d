package scheduler_test

import (
	"context"
	"testing"

	"drsim/internal/sharedtest"
	"drsim/scheduler"
	"drsim/scheduler/sim"
	"drsim/workloads"
)

// TestConservativeLastCandidateMatchesRef compares every answer of
// lastCandidateAt (two loops, the frontier's scanning a group's entries
// in an inner loop) with the former one-loop scan on the same profile
// and queue (scheduler.CheckLastCandidate), on random workloads in both
// overrun rules, both queue orders and both pass modes, and on the first
// 20,000 jobs of RICC and CTC-SP2.
func TestConservativeLastCandidateMatchesRef(t *testing.T) {
	calls, failure, restore := scheduler.CheckLastCandidate()
	defer restore()
	run := func(s sim.Spec, tr *workloads.Trace) {
		s.Policy = "conservative"
		if _, err := sim.Run(context.Background(), s, tr, sim.Outputs{}); err != nil {
			t.Fatal(err)
		}
		if *failure != "" {
			t.Fatalf("%s (trace %q, overrun %q, order %q, pass %q, seed %d)", *failure, s.Trace, s.Overrun, s.Order, s.Pass, s.Seed)
		}
	}
	randomReuseRuns(41, run)
	random := *calls
	for _, name := range []string{"RICC-2010-2.swf.gz", "CTC-SP2-1996-3.1-cln.swf.gz"} {
		s := sim.Spec{Trace: sharedtest.Path(t, "traces/"+name), Jobs: 20000}
		tr, err := sim.Load(s)
		if err != nil {
			t.Fatal(err)
		}
		run(s, tr)
	}
	t.Logf("calls checked: %d on random workloads, %d on traces", random, *calls-random)
	if random < 1000 || *calls-random < 10000 {
		t.Fatalf("only %d and %d calls checked", random, *calls-random)
	}
}
