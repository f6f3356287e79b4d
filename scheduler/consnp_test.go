package scheduler_test

import (
	"bytes"
	"drsim/internal/sharedtest"
	"testing"

	"drsim/scheduler"
	"drsim/scheduler/sim"
)

// TestConservativeNodePowerKeepsSchedule compares conservative, which
// keeps its reservations between passes under node power saving (the wait
// queue's estimates hold the boot allowance: syncBootEst), with placing
// every job at every pass (which rebuilds at every pass under power
// saving, as conservative did before), on random workloads; every
// reusing pass checks its profile and kept certificates
// (CheckReusePasses).
func TestConservativeNodePowerKeepsSchedule(t *testing.T) {
	scheduler.Policies["conservative-full"] = scheduler.NewConservativeFull
	defer delete(scheduler.Policies, "conservative-full")
	passes, failure, restore := scheduler.CheckReusePasses()
	defer restore()
	specs := []sim.Spec{
		{SuspendAfter: 100, ResumeTime: 30},
		{SuspendAfter: 600, ResumeTime: 300, Overrun: "extend"},
		{SuspendAfter: 50, ResumeTime: 0},
		{SuspendAfter: 200, ResumeTime: 60, Pass: "event"},
		{SuspendAfter: 100, ResumeTime: 30, Order: "sef"},
		{SuspendAfter: 100, ResumeTime: 30, NodeSpeedSD: 0.05},
		{SuspendAfter: 150, ResumeTime: 45, Overrun: "extend", Pass: "event"},
		{SuspendAfter: 100, ResumeTime: 30, Priority: "multifactor"},
	}
	sameOnRandom(t, specs, 17, "conservative-full", "placing every job")
	if *failure != "" {
		t.Fatal(*failure)
	}
	if *passes == 0 {
		t.Fatal("no pass reused")
	}
	t.Logf("%d passes reused", *passes)
}

// TestConservativeNodePowerTrace is the same comparison on KTH-SP2 and
// LANL-CM5 with nodes of one processor powering off after idling and
// booting when used, under both overrun rules: under the extend rule a
// reservation can start at the estimated end of a job that runs on, with
// no event then (LANL-CM5 found the quick pass that kept it there).
func TestConservativeNodePowerTrace(t *testing.T) {
	scheduler.Policies["conservative-full"] = scheduler.NewConservativeFull
	defer delete(scheduler.Policies, "conservative-full")
	for _, s := range []sim.Spec{
		{Trace: "KTH-SP2-1996-2.1-cln.swf.gz", SuspendAfter: 600, ResumeTime: 300},
		{Trace: "LANL-CM5-1994-4.1-cln.swf.gz", SuspendAfter: 300, ResumeTime: 100},
		{Trace: "LANL-CM5-1994-4.1-cln.swf.gz", SuspendAfter: 300, ResumeTime: 100, Overrun: "extend"},
	} {
		s.Trace = sharedtest.Path(t, "traces/"+s.Trace)
		tr, err := sim.Load(s)
		if err != nil {
			t.Fatal(err)
		}
		passes, failure, restore := scheduler.CheckReusePasses()
		got, gst := jobsAndStats(t, s, "conservative", tr)
		restore()
		if *failure != "" {
			t.Fatalf("%s: %s", s.Trace, *failure)
		}
		if *passes == 0 {
			t.Fatalf("%s: no pass reused", s.Trace)
		}
		want, wst := jobsAndStats(t, s, "conservative-full", tr)
		if !bytes.Equal(got, want) || gst != wst {
			t.Fatalf("%s overrun %q: differs from placing every job (stats %v, %v)", s.Trace, s.Overrun, gst, wst)
		}
	}
}
