package scheduler_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"

	"drsim/internal/sharedtest"
	"drsim/scheduler"
	"drsim/scheduler/sim"
	"drsim/workloads"
)

// TestConservativeReuseProfile checks, at every pass that reuses, the
// profile and the kept certificates against a reference profile
// (scheduler.CheckReusePasses: the running jobs released at their
// estimated ends plus the kept groups' reservations) on random workloads
// in both overrun rules, both queue orders and both pass modes.
func TestConservativeReuseProfile(t *testing.T) {
	n := checkReuse(t, func(run func(sim.Spec, *workloads.Trace)) { randomReuseRuns(29, run) })
	if n < 2000 {
		t.Fatalf("only %d passes reused", n)
	}
}

// TestConservativeReuseProfileSpeeds is TestConservativeReuseProfile
// under node speed variability, where started jobs' estimated ends differ
// from their reservations (consreuse.go's adjustments: the passes still
// reuse, with the differences as gains and losses).
func TestConservativeReuseProfileSpeeds(t *testing.T) {
	specs := []sim.Spec{{NodeSpeedSD: 0.05}, {NodeSpeedSD: 0.3, Overrun: "extend"}, {NodeSpeedSD: 0.1, Pass: "event", Order: "sef"}}
	n := checkReuse(t, func(run func(sim.Spec, *workloads.Trace)) {
		for seed := range 60 {
			r := rand.New(rand.NewPCG(uint64(seed), 31))
			tr := randomTrace(r, 300+r.IntN(500), 4+r.IntN(60))
			for _, s := range specs {
				s.Seed = uint64(seed + 1)
				run(s, tr)
			}
		}
	})
	if n < 2000 {
		t.Fatalf("only %d passes reused", n)
	}
}

// TestConservativeReuseProfileTraces is the same check on the first
// 20,000 jobs of RICC and CTC-SP2.
func TestConservativeReuseProfileTraces(t *testing.T) {
	var specs []sim.Spec
	for _, name := range []string{"RICC-2010-2.swf.gz", "CTC-SP2-1996-3.1-cln.swf.gz"} {
		specs = append(specs, sim.Spec{Trace: sharedtest.Path(t, "traces/"+name), Jobs: 20000})
	}
	n := checkReuse(t, func(run func(sim.Spec, *workloads.Trace)) {
		for _, s := range specs {
			tr, err := sim.Load(s)
			if err != nil {
				t.Fatal(err)
			}
			run(s, tr)
		}
	})
	if n < 2000 {
		t.Fatalf("only %d passes reused", n)
	}
}

// randomReuseRuns gives run 60 random workloads (drawn with the stream
// salt), each in both overrun rules, both queue orders and both pass modes.
func randomReuseRuns(salt uint64, run func(sim.Spec, *workloads.Trace)) {
	specs := []sim.Spec{{}, {Overrun: "extend"}, {Pass: "event"}, {Order: "sef", Overrun: "extend"}}
	for seed := range 60 {
		r := rand.New(rand.NewPCG(uint64(seed), salt))
		tr := randomTrace(r, 300+r.IntN(500), 4+r.IntN(60))
		for _, s := range specs {
			s.Seed = uint64(seed + 1)
			run(s, tr)
		}
	}
}

// checkReuse runs conservative on what cases gives it with the reuse
// check on, fails at the first failure, and returns the passes checked.
func checkReuse(t *testing.T, cases func(run func(sim.Spec, *workloads.Trace))) int {
	t.Helper()
	passes, failure, restore := scheduler.CheckReusePasses()
	defer restore()
	cases(func(s sim.Spec, tr *workloads.Trace) {
		s.Policy, s.Check = "conservative", true
		res, err := sim.Run(context.Background(), s, tr, sim.Outputs{})
		if err != nil {
			t.Fatal(err)
		}
		if *failure == "" && res.Stats.NViolations > 0 {
			*failure = fmt.Sprintf("invariant violations: %v", res.Stats.Violations)
		}
		if *failure != "" {
			t.Fatalf("%s (trace %q, overrun %q, order %q, pass %q, seed %d)", *failure, s.Trace, s.Overrun, s.Order, s.Pass, s.Seed)
		}
	})
	t.Logf("%d passes checked", *passes)
	return *passes
}

// TestConservativeReuseWalkSkips checks, at every pass that reuses, what
// lets its walk skip a kept group's compare with the wait queue
// (scheduler.CheckReuseWalk) on random workloads in both overrun rules,
// both queue orders and both pass modes, and on the first 20,000 jobs
// of RICC and CTC-SP2.
func TestConservativeReuseWalkSkips(t *testing.T) {
	checked, failure, restore := scheduler.CheckReuseWalk()
	defer restore()
	checkedConservativeRuns(t, 31, checked, failure, "groups")
}

// checkedConservativeRuns runs conservative backfilling on the random
// workloads of randomReuseRuns(seed) and on the first 20,000 jobs of RICC
// and CTC-SP2, under a check installed by the caller that counts in
// *count what it checked and reports its first failure in *failure. It
// fails the test at the first failure, or if fewer than 1,000 things
// (what) were checked on the random workloads or 10,000 on the traces.
func checkedConservativeRuns(t *testing.T, seed uint64, count *int, failure *string, what string) {
	t.Helper()
	run := func(s sim.Spec, tr *workloads.Trace) {
		s.Policy = "conservative"
		if _, err := sim.Run(context.Background(), s, tr, sim.Outputs{}); err != nil {
			t.Fatal(err)
		}
		if *failure != "" {
			t.Fatalf("%s (trace %q, overrun %q, order %q, pass %q, seed %d)", *failure, s.Trace, s.Overrun, s.Order, s.Pass, s.Seed)
		}
	}
	randomReuseRuns(seed, run)
	random := *count
	for _, name := range []string{"RICC-2010-2.swf.gz", "CTC-SP2-1996-3.1-cln.swf.gz"} {
		s := sim.Spec{Trace: sharedtest.Path(t, "traces/"+name), Jobs: 20000}
		tr, err := sim.Load(s)
		if err != nil {
			t.Fatal(err)
		}
		run(s, tr)
	}
	t.Logf("%s checked: %d on random workloads, %d on traces", what, random, *count-random)
	if random < 1000 || *count-random < 10000 {
		t.Fatalf("only %d and %d %s checked", random, *count-random, what)
	}
}

// TestConservativeKeepSearched checks every group that a pass reusing the
// profile keeps after searching it on the kept profile (keepSearched)
// against the reference profile before it (scheduler.CheckKeepSearched)
// on random workloads in both overrun rules, both queue orders and both
// pass modes, and that both of its answers occur.
func TestConservativeKeepSearched(t *testing.T) {
	kept, dropped, failure, restore := scheduler.CheckKeepSearched()
	defer restore()
	randomReuseRuns(37, func(s sim.Spec, tr *workloads.Trace) {
		s.Policy = "conservative"
		if _, err := sim.Run(context.Background(), s, tr, sim.Outputs{}); err != nil {
			t.Fatal(err)
		}
		if *failure != "" {
			t.Fatalf("%s (overrun %q, order %q, pass %q, seed %d)", *failure, s.Overrun, s.Order, s.Pass, s.Seed)
		}
	})
	t.Logf("groups kept %d, dropped %d", *kept, *dropped)
	if *kept < 1000 || *dropped < 1000 {
		t.Fatalf("only %d groups kept and %d dropped", *kept, *dropped)
	}
}
