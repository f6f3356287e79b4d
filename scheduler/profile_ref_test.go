package scheduler_test

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"testing"

	"drsim/internal/sharedtest"
	"drsim/scheduler"
	"drsim/scheduler/sim"
	"drsim/workloads"
)

// refConservative is conservative backfilling as it was before the block
// profile (scheduler/conservative.go at commit 2f9072d), kept verbatim on
// its plain array profile as the reference for end-to-end equality. It is
// registered only for the duration of the tests that use it.
type refConservative struct {
	p     scheduler.RefProfile
	valid bool
}

func (*refConservative) Name() string { return "conservative-ref" }

func (c *refConservative) Schedule(v *scheduler.View) {
	p := &c.p
	from := 0
	if !v.Changed() && c.valid {
		p.Advance(v.Now)
		from = v.NewFrom()
	} else {
		p.Reset(v.Now, v.Free(), v.PowerHeadroom())
		for i := 0; i < v.Running(); i++ {
			r := v.RunningJob(i)
			p.Release(math.Max(v.Now, r.EstEnd), r.Procs, r.Power)
		}
	}
	c.valid = true
	for i := v.Next(from, v.Total); i >= 0; i = v.Next(i+1, v.Total) {
		if v.Free() == 0 {
			c.valid = false
			break
		}
		q := v.Job(i)
		t := p.Earliest(q.Procs, q.Power, q.Est)
		if math.IsInf(t, 1) {
			continue
		}
		if t == v.Now {
			if !v.Fits(i) {
				c.valid = false
			} else {
				v.Start(i)
			}
		}
		v.Reserve(i, t)
		p.Reserve(t, t+q.Est, q.Procs, q.Power)
	}
}

func withReference(t testing.TB, f func()) {
	t.Helper()
	scheduler.Policies["conservative-ref"] = func() scheduler.Policy { return &refConservative{} }
	defer delete(scheduler.Policies, "conservative-ref")
	f()
}

// jobsCSV runs spec on tr and returns jobs.csv.
func jobsCSV(t testing.TB, spec sim.Spec, tr *workloads.Trace) []byte {
	t.Helper()
	var buf bytes.Buffer
	spec.Check = true
	res, err := sim.Run(context.Background(), spec, tr, sim.Outputs{Jobs: &buf})
	if err != nil {
		t.Fatal(err)
	}
	if res.Stats.NViolations > 0 {
		t.Fatalf("%+v: invariant violations: %v", spec, res.Stats.Violations)
	}
	return buf.Bytes()
}

// sameAsReference requires byte-identical jobs.csv from conservative and
// the reference under spec.
func sameAsReference(t *testing.T, name string, spec sim.Spec, tr *workloads.Trace) {
	t.Helper()
	spec.Policy = "conservative"
	got := jobsCSV(t, spec, tr)
	spec.Policy = "conservative-ref"
	want := jobsCSV(t, spec, tr)
	if !bytes.Equal(got, want) {
		gl, wl := bytes.Split(got, []byte("\n")), bytes.Split(want, []byte("\n"))
		for i := range min(len(gl), len(wl)) {
			if !bytes.Equal(gl[i], wl[i]) {
				t.Fatalf("%s: jobs.csv differs at line %d:\n got %s\nwant %s", name, i+1, gl[i], wl[i])
			}
		}
		t.Fatalf("%s: jobs.csv has %d lines, reference %d", name, len(gl), len(wl))
	}
	if bytes.Count(got, []byte("\n")) < 2 {
		t.Fatalf("%s: no jobs ran", name)
	}
}

// randomTrace returns n jobs on a machine of procs processors, drawn from
// few classes (processors, estimate) so that runs of identical jobs, the
// case conservative batches, are common, with bursts of arrivals.
func randomTrace(r *rand.Rand, n, procs int) *workloads.Trace {
	ests := []float64{600, 3600, 7200, 14400, 86400}
	sizes := []int64{1, 1, 1, 2, 4, int64(procs / 4), int64(procs / 2), int64(procs)}
	jobs := make([]workloads.Job, n)
	at := 0.0
	var size int64 = 1
	est := 3600.0
	for i := range jobs {
		if r.IntN(3) == 0 { // new class; otherwise repeat the last one
			size = max(1, sizes[r.IntN(len(sizes))])
			est = ests[r.IntN(len(ests))]
		}
		if r.IntN(4) == 0 {
			at += float64(r.IntN(3000))
		}
		run := math.Ceil(est * r.Float64())
		if r.IntN(8) == 0 {
			run = est + 100 // runs over: killed, or extended
		}
		jobs[i] = workloads.Job{ID: int64(i + 1), Submit: at, Run: max(1, run), Procs: size, ReqProcs: size,
			ReqTime: est, Estimate: est, Exe: int64(r.IntN(5)), User: int64(r.IntN(5))}
	}
	return &workloads.Trace{Jobs: jobs, MachineProcs: int64(procs)}
}

// TestConservativeMatchesReferenceRandom compares conservative with the
// reference on random workloads, without power limits and under
// demand-response limits with a power-aware governor (the power path),
// in both queue orders, both overrun rules and both pass modes.
func TestConservativeMatchesReferenceRandom(t *testing.T) {
	specs := []sim.Spec{
		{},
		{Order: "sef"},
		{Overrun: "extend"},
		{Pass: "event"},
		{DVFS: "dr", DRRatio: 0.5, DRLimit: 0.5, DRDuration: "1h-3h"},
		{DVFS: "dr", DRRatio: 0.3, DRLimit: 0.7, DRDuration: "1h-3h", Overrun: "extend", Order: "sef"},
	}
	withReference(t, func() {
		for seed := range 60 {
			r := rand.New(rand.NewPCG(uint64(seed), 7))
			tr := randomTrace(r, 150+r.IntN(250), 4+r.IntN(60))
			for k, s := range specs {
				s.Seed = uint64(seed + 1)
				sameAsReference(t, fmt.Sprintf("seed %d spec %d", seed, k), s, tr)
			}
		}
	})
}

// TestConservativeMatchesReferenceTraces compares conservative with the
// reference on the first 30,000 jobs of HPC2N and RICC, without a limit
// and under generated demand-response events.
func TestConservativeMatchesReferenceTraces(t *testing.T) {
	for _, name := range []string{"HPC2N-2002-2.2-cln.swf.gz", "RICC-2010-2.swf.gz"} {
		path := sharedtest.Path(t, "traces/"+name)
		for _, s := range []sim.Spec{{}, {DVFS: "dr", DRRatio: 0.3}} {
			s.Trace, s.Jobs = path, 30000
			tr, err := sim.Load(s)
			if err != nil {
				t.Fatal(err)
			}
			withReference(t, func() { sameAsReference(t, name+" "+s.DVFS, s, tr) })
		}
	}
}

// BenchmarkConservative replays whole traces under conservative
// backfilling, processors only, through the engine alone (no output):
//
//	DRSIM_SHARED=/work/shared go test -run ^$ -bench Conservative ./scheduler
func BenchmarkConservative(b *testing.B) {
	defer scheduler.WithoutTestChecks()() // time the engine users run
	for _, name := range []string{"HPC2N-2002-2.2-cln.swf.gz", "RICC-2010-2.swf.gz", "CEA-Curie-2011-2.1-cln.swf.gz"} {
		b.Run(name, func(b *testing.B) {
			tr, err := workloads.LoadFile(sharedtest.Path(b, "traces/"+name), workloads.Options{})
			if err != nil {
				b.Fatal(err)
			}
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				e, err := scheduler.New(scheduler.Config{Procs: int(tr.MachineProcs), Policy: "conservative"})
				if err != nil {
					b.Fatal(err)
				}
				if err := e.Run(context.Background(), &scheduler.SliceSource{Jobs: tr.Jobs}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(len(tr.Jobs))*float64(b.N)/b.Elapsed().Seconds(), "jobs/s")
		})
	}
}

// TestConservativeEarlyEndKeepsSchedule compares conservative with the same
// policy placing every queued job at every pass, on random workloads in
// both overrun rules (an overrun leaves a kept profile showing processors
// that are not free), both queue orders and both pass modes: the early end
// of a pass and the placements it defers to the next must change neither
// jobs.csv nor the engine's counters.
func TestConservativeEarlyEndKeepsSchedule(t *testing.T) {
	scheduler.Policies["conservative-full"] = scheduler.NewConservativeFull
	defer delete(scheduler.Policies, "conservative-full")
	specs := []sim.Spec{{}, {Overrun: "extend"}, {Order: "sef", Overrun: "extend"}, {Pass: "event"}}
	sameOnRandom(t, specs, 9, "conservative-full", "placing every job")
}

// sameOnRandom runs conservative and the reference policy ref on 150
// random workloads (random stream salt) under each of specs, and fails
// the test where jobs.csv or the engine's counters differ (what names
// the reference in the message).
func sameOnRandom(t *testing.T, specs []sim.Spec, salt uint64, ref, what string) {
	t.Helper()
	for seed := range 150 {
		r := rand.New(rand.NewPCG(uint64(seed), salt))
		tr := randomTrace(r, 300+r.IntN(500), 4+r.IntN(60))
		for k, s := range specs {
			s.Seed = uint64(seed + 1)
			got, gst := jobsAndStats(t, s, "conservative", tr)
			want, wst := jobsAndStats(t, s, ref, tr)
			if !bytes.Equal(got, want) {
				t.Fatalf("seed %d spec %d: jobs.csv differs from %s", seed, k, what)
			}
			if gst != wst {
				t.Fatalf("seed %d spec %d: stats %+v, %s %+v", seed, k, gst, what, wst)
			}
		}
	}
}

// jobsAndStats runs spec under policy on tr and returns jobs.csv and the
// engine's passes, events and finished jobs.
func jobsAndStats(t *testing.T, spec sim.Spec, policy string, tr *workloads.Trace) ([]byte, [3]int) {
	t.Helper()
	var buf bytes.Buffer
	spec.Check, spec.Policy = true, policy
	res, err := sim.Run(context.Background(), spec, tr, sim.Outputs{Jobs: &buf})
	if err != nil {
		t.Fatal(err)
	}
	if res.Stats.NViolations > 0 {
		t.Fatalf("%+v: invariant violations: %v", spec, res.Stats.Violations)
	}
	if res.Stats.Finished == 0 {
		t.Fatalf("%+v: no job finished", spec)
	}
	return buf.Bytes(), [3]int{res.Stats.Passes, res.Stats.Events, res.Stats.Finished}
}

// TestConservativeEarlyEndKeepsScheduleTraces is the same comparison on
// the first 30,000 jobs of HPC2N and RICC: HPC2N under the extend rule has
// overrunning jobs whose processors a kept profile shows free.
func TestConservativeEarlyEndKeepsScheduleTraces(t *testing.T) {
	scheduler.Policies["conservative-full"] = scheduler.NewConservativeFull
	defer delete(scheduler.Policies, "conservative-full")
	for _, name := range []string{"HPC2N-2002-2.2-cln.swf.gz", "RICC-2010-2.swf.gz"} {
		path := sharedtest.Path(t, "traces/"+name)
		for _, s := range []sim.Spec{{}, {Overrun: "extend"}} {
			s.Trace, s.Jobs = path, 30000
			tr, err := sim.Load(s)
			if err != nil {
				t.Fatal(err)
			}
			got, gst := jobsAndStats(t, s, "conservative", tr)
			want, wst := jobsAndStats(t, s, "conservative-full", tr)
			if !bytes.Equal(got, want) || gst != wst {
				t.Fatalf("%s overrun %q: differs from placing every job (stats %v, %v)", name, s.Overrun, gst, wst)
			}
		}
	}
}

// TestConservativeReuseKeepsSchedule compares conservative with the same
// policy without incremental passes (every pass after a finish rebuilds
// the profile and places every job again) on random workloads, in both
// overrun rules, both queue orders, both pass modes (also combined with
// the extend rule) and with node speed variability (whose estimated ends
// differ from the reservations: the passes reuse with the differences as
// gains and losses, consreuse.go): jobs.csv and the engine's counters
// must not change.
func TestConservativeReuseKeepsSchedule(t *testing.T) {
	scheduler.Policies["conservative-noreuse"] = scheduler.NewConservativeNoReuse
	defer delete(scheduler.Policies, "conservative-noreuse")
	specs := []sim.Spec{{}, {Overrun: "extend"}, {Order: "sef", Overrun: "extend"}, {Pass: "event"},
		{NodeSpeedSD: 0.05}, {Pass: "event", Overrun: "extend"}, {Order: "sef", Pass: "event", Overrun: "extend"},
		{NodeSpeedSD: 0.3, Order: "sef", Pass: "event"}}
	sameOnRandom(t, specs, 11, "conservative-noreuse", "rebuilding at every finish")
}

// TestConservativeReuseKeepsScheduleTraces is the same comparison on the
// first 40,000 jobs of HPC2N, RICC and CEA-Curie, on the first 60,000
// of LANL-CM5 under the extend rule, and on whole LLNL-Thunder and
// SDSC-BLUE under node speeds.
func TestConservativeReuseKeepsScheduleTraces(t *testing.T) {
	scheduler.Policies["conservative-noreuse"] = scheduler.NewConservativeNoReuse
	defer delete(scheduler.Policies, "conservative-noreuse")
	var cases []sim.Spec
	for _, name := range []string{"HPC2N-2002-2.2-cln.swf.gz", "RICC-2010-2.swf.gz", "CEA-Curie-2011-2.1-cln.swf.gz"} {
		path := sharedtest.Path(t, "traces/"+name)
		cases = append(cases, sim.Spec{Trace: path, Jobs: 40000}, sim.Spec{Trace: path, Jobs: 40000, Overrun: "extend"})
	}
	// LANL-CM5 under the extend rule, which once differed from 47,390
	// jobs on (TestConservativeReuseWalk).
	cases = append(cases, sim.Spec{Trace: sharedtest.Path(t, "traces/LANL-CM5-1994-4.1-cln.swf.gz"), Jobs: 60000, Overrun: "extend"})
	// Under node speeds (consreuse.go's adjustments): whole LLNL-Thunder
	// and SDSC-BLUE differed until a walk that started a job with another
	// estimated end stopped rebuilding the profile from the running jobs
	// (walkAdj; session 23).
	for _, name := range []string{"LLNL-Thunder-2007-1.1-cln.swf.gz", "SDSC-BLUE-2000-4.2-cln.swf.gz"} {
		cases = append(cases, sim.Spec{Trace: sharedtest.Path(t, "traces/"+name), NodeSpeedSD: 0.03, Seed: 1})
	}
	for _, s := range cases {
		tr, err := sim.Load(s)
		if err != nil {
			t.Fatal(err)
		}
		got, gst := jobsAndStats(t, s, "conservative", tr)
		want, wst := jobsAndStats(t, s, "conservative-noreuse", tr)
		if !bytes.Equal(got, want) || gst != wst {
			t.Fatalf("%s overrun %q node speeds %v: differs from rebuilding at every finish (stats %v, %v)", s.Trace, s.Overrun, s.NodeSpeedSD, gst, wst)
		}
	}
}

// TestConservativeReuseWithGovernor is the same comparison under
// governors that follow the running list's change log (dr's quick path;
// DR-Scale's start order, with resizes updating entries in place). dr's
// estimates are set by the limit, so exact at enqueue: its passes reuse
// between limits; DR-Scale's are not, so its passes do not reuse, but
// each still restarts conservative's cursor of the log, which must leave
// the governors' reads (checked against the list under Check) as they
// were.
func TestConservativeReuseWithGovernor(t *testing.T) {
	scheduler.Policies["conservative-noreuse"] = scheduler.NewConservativeNoReuse
	defer delete(scheduler.Policies, "conservative-noreuse")
	specs := []sim.Spec{{DVFS: "dr", DRRatio: 0.25}, {PowerCap: "dr", Malleable: 0.5, DRRatio: 0.25}}
	for seed := range 40 {
		r := rand.New(rand.NewPCG(uint64(seed), 13))
		tr := randomTrace(r, 300+r.IntN(500), 4+r.IntN(60))
		for k, s := range specs {
			s.Seed = uint64(seed + 1)
			got, gst := jobsAndStats(t, s, "conservative", tr)
			want, wst := jobsAndStats(t, s, "conservative-noreuse", tr)
			if !bytes.Equal(got, want) || gst != wst {
				t.Fatalf("seed %d spec %d: differs from rebuilding at every finish (stats %v, %v)", seed, k, gst, wst)
			}
		}
	}
}

// TestConservativeReuseWalk is the comparison on jobs 44,166 to 47,390 of
// LANL-CM5 under the extend rule (also with per-event passes), where
// reuse once walked its kept placements past the wait queue's tombstones
// without View.Next's skips: the queue's bounds then stayed looser than a
// rebuilt pass leaves them, a later pass's suffix-bound cutoff did not
// fire, the profile stayed valid, and an arrival's pass kept a
// reservation an overrunning job had left in the past where a rebuilding
// run recomputed it and started job 115148 at 21,441,048 instead of
// 21,441,323.
func TestConservativeReuseWalk(t *testing.T) {
	scheduler.Policies["conservative-noreuse"] = scheduler.NewConservativeNoReuse
	defer delete(scheduler.Policies, "conservative-noreuse")
	path := sharedtest.Path(t, "traces/LANL-CM5-1994-4.1-cln.swf.gz")
	for _, s := range []sim.Spec{{Overrun: "extend"}, {Overrun: "extend", Pass: "event"}} {
		s.Trace, s.Jobs = path, 47390
		tr, err := sim.Load(s)
		if err != nil {
			t.Fatal(err)
		}
		tr.Jobs = tr.Jobs[44165:]
		s.Trace, s.Jobs = "", 0
		got, gst := jobsAndStats(t, s, "conservative", tr)
		want, wst := jobsAndStats(t, s, "conservative-noreuse", tr)
		if !bytes.Equal(got, want) || gst != wst {
			t.Fatalf("pass %q: differs from rebuilding at every finish (stats %v, %v)", s.Pass, gst, wst)
		}
	}
}

// TestConservativeEarlyEndUnderLimit compares conservative with the same
// policy placing every job at every pass under DR limits, where the
// profile tracks power headroom and passes end early once no later job
// can start now (conspower.go): random workloads under the dr and
// uniform governors, in both overrun rules, both queue orders and both
// pass modes, with limits low enough that most passes run under one.
// jobs.csv and the engine's counters must not change; the comparison with
// conservative-noreuse also covers reuse between limits (an estimate set
// by the limit is exact at enqueue).
func TestConservativeEarlyEndUnderLimit(t *testing.T) {
	scheduler.Policies["conservative-full"] = scheduler.NewConservativeFull
	scheduler.Policies["conservative-noreuse"] = scheduler.NewConservativeNoReuse
	defer delete(scheduler.Policies, "conservative-full")
	defer delete(scheduler.Policies, "conservative-noreuse")
	underLimits(60, 17, func(s sim.Spec, tr *workloads.Trace, what string) {
		sameAsFullAndNoReuse(t, s, tr, what)
	})
}

// underLimits calls fn with each of n random workloads (seeds 0..n-1,
// salted) under each of four governor specs (dr and uniform, both
// overrun rules, both queue orders and both pass modes) whose limits are
// low enough that most passes run under one.
func underLimits(n int, salt uint64, fn func(s sim.Spec, tr *workloads.Trace, what string)) {
	specs := []sim.Spec{
		{DVFS: "dr", DRRatio: 0.5, DRLimit: 0.6},
		{DVFS: "dr", DRRatio: 0.3, Overrun: "extend", Order: "sef"},
		{PowerCap: "dr", DRRatio: 0.5, DRLimit: 0.5, Pass: "event"},
		{PowerCap: "uniform", DRRatio: 0.4, DRLimit: 0.7, Overrun: "extend"},
	}
	for seed := range n {
		r := rand.New(rand.NewPCG(uint64(seed), salt))
		tr := randomTrace(r, 300+r.IntN(500), 4+r.IntN(60))
		for k, s := range specs {
			s.Seed = uint64(seed + 1)
			fn(s, tr, fmt.Sprintf("seed %d spec %d", seed, k))
		}
	}
}

// sameAsFullAndNoReuse fails the test unless conservative gives the same
// jobs.csv and engine counters as conservative-full and
// conservative-noreuse (both registered by the caller) under s on tr.
func sameAsFullAndNoReuse(t *testing.T, s sim.Spec, tr *workloads.Trace, what string) {
	t.Helper()
	got, gst := jobsAndStats(t, s, "conservative", tr)
	for _, ref := range []string{"conservative-full", "conservative-noreuse"} {
		want, wst := jobsAndStats(t, s, ref, tr)
		if !bytes.Equal(got, want) || gst != wst {
			t.Fatalf("%s: differs from %s (stats %v, %v)", what, ref, gst, wst)
		}
	}
}

// TestConservativeEarlyEndUnderLimitParts is the comparison of
// TestConservativeEarlyEndUnderLimit on a machine file with partitions
// (CEA-Curie's first 6,000 jobs on examples/gpu/curie-hybrid.toml, which
// overloads its 144 whole nodes): with partitions too, every wait queue's
// estimates are re-read at a limit change, so limit-set estimates are
// exact and passes under a limit end early.
func TestConservativeEarlyEndUnderLimitParts(t *testing.T) {
	scheduler.Policies["conservative-full"] = scheduler.NewConservativeFull
	scheduler.Policies["conservative-noreuse"] = scheduler.NewConservativeNoReuse
	defer delete(scheduler.Policies, "conservative-full")
	defer delete(scheduler.Policies, "conservative-noreuse")
	path := sharedtest.Path(t, "traces/CEA-Curie-2011-2.1-cln.swf.gz")
	machine := filepath.Join("..", "examples", "gpu", "curie-hybrid.toml")
	specs := []sim.Spec{
		{GPUCap: "uniform", DRRatio: 0.25},
		{GPUCap: "dr", DRRatio: 0.4, DRLimit: 0.6, Overrun: "extend"},
		{PowerCap: "dr", DRRatio: 0.3, Pass: "event"},
		{PowerCap: "uniform", DRRatio: 0.4, Order: "sef"},
	}
	for k, s := range specs {
		s.Trace, s.Jobs, s.Machine = path, 6000, machine
		tr, err := sim.Load(s)
		if err != nil {
			t.Fatal(err)
		}
		sameAsFullAndNoReuse(t, s, tr, fmt.Sprintf("spec %d", k))
	}
}

// TestSlurmBackfillQueueArrays: slurm-backfill reads a tested job's
// processors and estimate from the wait queue's arrays wherever they are
// exact, which includes governors whose start level the limit in force
// sets (dr, uniform: the engine re-reads the estimates at every limit
// change). Its schedule must be that of reading every job's record, on
// random workloads under limits low enough that most passes run under
// one, and on a machine file of whole-node partitions (CEA-Curie's first
// 4,000 jobs on examples/gpu/curie-hybrid.toml).
func TestSlurmBackfillQueueArrays(t *testing.T) {
	scheduler.Policies["slurm-backfill-byrecord"] = scheduler.NewSlurmBackfillByRecord
	defer delete(scheduler.Policies, "slurm-backfill-byrecord")
	same := func(s sim.Spec, tr *workloads.Trace, what string) {
		t.Helper()
		got, gst := jobsAndStats(t, s, "slurm-backfill", tr)
		want, wst := jobsAndStats(t, s, "slurm-backfill-byrecord", tr)
		if !bytes.Equal(got, want) || gst != wst {
			t.Fatalf("%s: differs from reading every record (stats %v, %v)", what, gst, wst)
		}
	}
	underLimits(15, 23, same)
	path := sharedtest.Path(t, "traces/CEA-Curie-2011-2.1-cln.swf.gz")
	machine := filepath.Join("..", "examples", "gpu", "curie-hybrid.toml")
	for k, s := range []sim.Spec{
		{GPUCap: "dr", DRRatio: 0.4, DRLimit: 0.6},
		{PowerCap: "uniform", DRRatio: 0.4},
	} {
		s.Trace, s.Jobs, s.Machine = path, 4000, machine
		tr, err := sim.Load(s)
		if err != nil {
			t.Fatal(err)
		}
		same(s, tr, fmt.Sprintf("curie-hybrid spec %d", k))
	}
}
