package scheduler

import (
	"math"
	"math/rand/v2"
	"testing"

	"drsim/workloads"
)

// Slurm's backfill by hand, 4 processors, bf_interval 10, resolution 1:
//
//	job 1: 0,   4 procs, runs 100 (limit 100)  starts at 0 (main scheduler)
//	job 2: 1,   4 procs, runs 50 (limit 50)    blocked: head
//	job 3: 2,   2 procs, runs 30 (limit 30)    fits the plan only after job 2
//	job 4: 3,   1 proc,  runs 5 (limit 5)      also blocked (no free processors)
//
// At 100 job 1 ends: the main scheduler starts job 2 at once (not waiting
// for a tick). Job 2 leaves nothing free, so jobs 3 and 4 wait for its end
// at 150, when the main scheduler starts job 3 (2 procs) and job 4 (1).
func TestSlurmBackfillMainScheduler(t *testing.T) {
	jobs := []workloads.Job{j(1, 0, 100, 4, 100), j(2, 1, 50, 4, 50), j(3, 2, 30, 2, 30), j(4, 3, 5, 1, 5)}
	got := simulate(t, Config{Procs: 4, Policy: "slurm-backfill", SlurmSched: &SlurmSched{BfInterval: 10, BfMaxJobTest: 100, BfWindow: 1000, BfResolution: 1}}, jobs...).starts()
	if want := "1:0-100 2:100-150 3:150-180 4:150-155"; got != want {
		t.Fatalf("%s, want %s", got, want)
	}
}

// Backfill happens on ticks only, and reservations follow
// bf_job_part_count_reserve. 4 processors, bf_interval 10:
//
//	job 1: 0, 2 procs, runs 100 (limit 100)   starts at 0
//	job 2: 1, 4 procs, runs 10 (limit 10)     head, reserved at 100
//	job 3: 3, 1 proc,  runs 200 (limit 200)   ends after 100: only if not reserved against
//	job 4: 4, 1 proc,  runs 50 (limit 50)     ends by 100: backfills
//
// Jobs 3 and 4 arrive at 3 and 4 with 2 processors free, but the main
// scheduler stops at job 2 (the head), so they wait for the backfill tick
// at 10. With bf_job_part_count_reserve=1 job 2 holds 4 processors from
// 100: job 3 (to 210) would delay it and waits; job 4 (to 60) starts at
// 10. With a reserve count of 0 it is the same here (job 3's own
// reservation comes after job 2's: at 110). With a window of 50 s job 2's
// start (100) is beyond it, so nothing is reserved and both start at 10.
func TestSlurmBackfillTicksAndReservations(t *testing.T) {
	jobs := []workloads.Job{j(1, 0, 100, 2, 100), j(2, 1, 10, 4, 10), j(3, 3, 200, 1, 200), j(4, 4, 50, 1, 50)}
	for _, tc := range []struct {
		name string
		ps   SlurmSched
		want string
	}{
		{"reserve 1", SlurmSched{BfInterval: 10, BfMaxJobTest: 100, BfWindow: 1000, BfResolution: 1, BfPartCountResv: 1}, "1:0-100 2:100-110 3:110-310 4:10-60"},
		{"reserve all", SlurmSched{BfInterval: 10, BfMaxJobTest: 100, BfWindow: 1000, BfResolution: 1}, "1:0-100 2:100-110 3:110-310 4:10-60"},
		{"window 50", SlurmSched{BfInterval: 10, BfMaxJobTest: 100, BfWindow: 50, BfResolution: 1}, "1:0-100 2:210-220 3:10-210 4:10-60"},
		// Testing only the head (bf_max_job_test=1): nothing backfills.
		{"test 1", SlurmSched{BfInterval: 10, BfMaxJobTest: 1, BfWindow: 1000, BfResolution: 1}, "1:0-100 2:100-110 3:110-310 4:110-160"},
	} {
		ps := tc.ps
		got := simulate(t, Config{Procs: 4, Policy: "slurm-backfill", SlurmSched: &ps}, jobs...).starts()
		if got != tc.want {
			t.Errorf("%s: %s, want %s", tc.name, got, tc.want)
		}
	}
}

// bf_resolution rounds the plan's times up: with a resolution of 60, job
// 1 is estimated to end at 120 (not 100) and job 4's 50 s estimate counts
// as 60, so from the tick at 60 job 4 (to 120 in the plan) still fits
// before job 2's reservation at 120; but at resolution 60 the tick grid is
// that of bf_interval (10), so it starts at 10: 10+60 ≤ 120.
func TestSlurmBackfillResolution(t *testing.T) {
	jobs := []workloads.Job{j(1, 0, 100, 2, 100), j(2, 1, 10, 4, 10), j(3, 3, 200, 1, 200), j(4, 4, 50, 1, 50), j(5, 5, 100, 1, 100)}
	// Job 5 (100 s) ends at 110 from 10: before job 2's reservation at 120
	// with resolution 60 (plan 10+120=130 > 120: no), so it waits.
	got := simulate(t, Config{Procs: 4, Policy: "slurm-backfill", SlurmSched: &SlurmSched{BfInterval: 10, BfMaxJobTest: 100, BfWindow: 1000, BfResolution: 60, BfPartCountResv: 1}}, jobs...).starts()
	if want := "1:0-100 2:100-110 3:110-310 4:10-60 5:110-210"; got != want {
		t.Fatalf("%s, want %s", got, want)
	}
}

func TestBfPlan(t *testing.T) {
	var pl bfPlan
	pl.reset(0, 1)
	pl.release(10, 2) // 3 free from 10
	pl.release(20, 1) // 4 from 20
	if got := pl.earliest(3, 5); got != 10 {
		t.Errorf("earliest(3,5) = %v, want 10", got)
	}
	pl.take(10, 30, 2) // 1 free over [10,20), 2 over [20,30), 4 after
	if got := pl.earliest(2, 5); got != 20 {
		t.Errorf("earliest(2,5) = %v, want 20", got)
	}
	if got := pl.earliest(3, 5); got != 30 {
		t.Errorf("earliest(3,5) = %v, want 30", got)
	}
	if got := pl.earliest(1, 100); got != 0 {
		t.Errorf("earliest(1,100) = %v, want 0", got)
	}
	if got := pl.earliest(5, 1); got < 1e300 {
		t.Errorf("earliest(5,1) = %v, want +Inf", got)
	}
}

// batch_sched_delay: submits alone run the main scheduler at most once per
// 3 s. The run's first instant counts as a run (slurmctld has just
// scheduled at start-up), so jobs 1 and 2 (at 0 and 1) start at 3; job 3
// at 10 starts at once (7 s after the last run); job 4 at 11 waits for 13.
// Backfill ticks are at 20, 40, ...: none is involved.
func TestSlurmBackfillBatchDelay(t *testing.T) {
	jobs := []workloads.Job{j(1, 0, 50, 2, 50), j(2, 1, 50, 1, 50), j(3, 10, 50, 1, 50), j(4, 11, 50, 1, 50)}
	ps := SlurmSched{BfInterval: 20, BfMaxJobTest: 100, BfWindow: 1000, BfResolution: 1, BatchDelay: 3}
	got := simulate(t, Config{Procs: 8, Policy: "slurm-backfill", SlurmSched: &ps}, jobs...).starts()
	if want := "1:3-53 2:3-53 3:10-60 4:13-63"; got != want {
		t.Fatalf("%s, want %s", got, want)
	}
}

// earliest starts its scan from the answers it gave earlier in the pass
// (bfPlan.seen); that must never change an answer. Random plans of up to
// 64 processors, each with 40 queries and a take after each: every answer
// equals a scan of the whole plan, and fitsNow, directly and by the plan's
// stairs, says whether that answer is the first step.
func TestBfPlanEarliestFromSeen(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 0))
	var pl bfPlan
	for trial := range 300 {
		pl.reset(0, rng.IntN(65))
		ends := 1 + rng.IntN(20)
		t0 := 0.0
		for range ends {
			t0 += float64(1 + rng.IntN(50))
			pl.release(t0, rng.IntN(8))
		}
		pl.end = math.Inf(1)
		if trial%2 == 1 {
			pl.end = t0 / 2
		}
		for q := range 40 {
			procs, dur := 1+rng.IntN(64), float64(1+rng.IntN(200))
			want := pl.scan(procs, dur, pl.at[0])
			if fits, stairs := pl.fitsNow(procs, dur), pl.stairs().fitsNow(procs, dur); fits != stairs || fits != (want == pl.at[0]) {
				t.Fatalf("trial %d query %d: fitsNow(%d, %v) = %v, by the stairs %v, earliest %v (plan %v %v)", trial, q, procs, dur, fits, stairs, want, pl.at, pl.free)
			}
			got := pl.earliest(procs, dur)
			if got != want {
				t.Fatalf("trial %d query %d: earliest(%d, %v) = %v, want %v (plan %v %v)", trial, q, procs, dur, got, want, pl.at, pl.free)
			}
			if !math.IsInf(got, 1) && rng.IntN(2) == 0 {
				pl.take(got, got+dur, procs)
			}
		}
	}
}

// The main scheduler's clock as slurmctld's background thread keeps it
// (seen in slurmctld.log, Slurm 22.05.8): wake-ups every whole second, a
// full run every sched_interval (5 s here) from start-up, and a run for
// submits once batch_sched_delay (3 s) has passed since the last wake-up
// run, full or not; a run on a job's end is immediate and does not count.
// 8 processors, backfill out of the way:
//
//	job 1 at 0, runs 9:  start-up run at 0 → due 3        → starts 3, ends 12
//	job 2 at 4:          last run 3 → due 6; full run at 5 → starts 5
//	job 3 at 6:          last run 5 (full) → due 8        → starts 8
//	job 4 at 11:         last run 10 (full) → due 13; job 1 ends at 12 → starts 12
//	job 5 at 13:         last wake-up run 10 → due 13     → starts 13
//
// (With the end at 12 counted as a run, job 5 would wait for 15.)
func TestSlurmMainSchedulerClock(t *testing.T) {
	jobs := []workloads.Job{j(1, 0, 9, 1, 60), j(2, 4, 50, 1, 60), j(3, 6, 50, 1, 60), j(4, 11, 50, 1, 60), j(5, 13, 50, 1, 60)}
	ps := SlurmSched{BfInterval: 1000, BfMaxJobTest: 100, BfWindow: 1000, BfResolution: 1, BatchDelay: 3, SchedInterval: 5}
	got := simulate(t, Config{Procs: 8, Policy: "slurm-backfill", SlurmSched: &ps}, jobs...).starts()
	if want := "1:3-12 2:5-55 3:8-58 4:12-62 5:13-63"; got != want {
		t.Fatalf("%s, want %s", got, want)
	}
}

// A run on a job's end happens at the end's instant, even when the engine
// skips the policy then (nothing waits): it does not make a later pass a
// run. Run 2 of the committed Slurm runs (slurmctld.log): kth20 and kth23
// ended at 20.58 s with nothing waiting in their partition, kth26 was
// submitted there at 26.79 and started at 28.62, on the first wake-up
// batch_sched_delay after the one that served kth25's submit at 24.68
// (25.55), not at once. 8 processors,
// full runs every 100 s, backfill out of the way:
//
//	job 1 at 0, runs 9:  start-up run at 0 → due 3      → starts 3, ends 12 (nothing waits)
//	job 2 at 11:         last run 3 → due 6             → starts 11
//	job 3 at 13:         last wake-up run 11 → due 14   → starts 14
//
// (With the end at 12 taken for a run at 13, job 3 would start at 13.)
func TestSlurmMainSchedulerEndInstant(t *testing.T) {
	jobs := []workloads.Job{j(1, 0, 9, 1, 60), j(2, 11, 50, 1, 60), j(3, 13, 50, 1, 60)}
	ps := SlurmSched{BfInterval: 1000, BfMaxJobTest: 100, BfWindow: 1000, BfResolution: 1, BatchDelay: 3, SchedInterval: 100}
	got := simulate(t, Config{Procs: 8, Policy: "slurm-backfill", SlurmSched: &ps}, jobs...).starts()
	if want := "1:3-12 2:11-61 3:14-64"; got != want {
		t.Fatalf("%s, want %s", got, want)
	}
}

// A backfill pass ends once no job left to test could start now by the
// plan (SlurmBackfill.backfill's last); that must never change a start.
// Random workloads on up to 64 processors under random SchedulerParameters
// (reservations for every tested job, or a few; short windows; resolutions
// of 1, 7 and 60 s; bf_interval not a multiple of the resolution, so that
// passes fall between the plan's grid points), some with jobs running past
// their estimates: every job starts as under the exhaustive pass.
func TestSlurmBackfillEarlyEnd(t *testing.T) {
	Policies["slurm-backfill-exhaustive"] = func() Policy { return &SlurmBackfill{exhaustive: true} }
	defer delete(Policies, "slurm-backfill-exhaustive")
	rng := rand.New(rand.NewPCG(11, 3))
	for trial := range 60 {
		procs := 4 + rng.IntN(61)
		jobs, ps := randomBackfillTrial(rng, procs)
		cfg := Config{Procs: procs, Policy: "slurm-backfill", SlurmSched: &ps}
		if rng.IntN(2) == 0 {
			cfg.Overrun = OverrunExtend
		}
		got := simulate(t, cfg, jobs...).starts()
		cfg.Policy = "slurm-backfill-exhaustive"
		want := simulate(t, cfg, jobs...).starts()
		if got != want {
			t.Fatalf("trial %d (%d procs, %+v): starts differ from the exhaustive pass:\n got %s\nwant %s", trial, procs, ps, got, want)
		}
	}
}

// randomBackfillTrial makes 100 to 400 random jobs for a machine of procs
// processors (most of them small, some running past their estimates) and
// random SchedulerParameters: reservations for every tested job or a few,
// short windows, resolutions of 1, 7 and 60 s, bf_interval not a multiple
// of the resolution.
func randomBackfillTrial(rng *rand.Rand, procs int) ([]workloads.Job, SlurmSched) {
	n := 100 + rng.IntN(300)
	jobs := make([]workloads.Job, n)
	submit := 0.0
	for k := range jobs {
		submit += float64(rng.IntN(40))
		p := 1 + rng.IntN(procs)
		if rng.IntN(3) > 0 {
			p = 1 + rng.IntN(max(1, procs/8))
		}
		req := float64(30 + rng.IntN(3000))
		run := float64(1 + rng.IntN(int(req)))
		if rng.IntN(8) == 0 {
			run = req + float64(rng.IntN(500)) // past its estimate
		}
		jobs[k] = j(int64(k+1), submit, run, int64(p), req)
	}
	ps := SlurmSched{
		BfInterval:   []float64{10, 30, 45}[rng.IntN(3)],
		BfMaxJobTest: 1 + rng.IntN(60),
		BfWindow:     []float64{300, 2000, 86400}[rng.IntN(3)],
		BfResolution: []float64{1, 7, 60}[rng.IntN(3)],
		BatchDelay:   3,
	}
	if rng.IntN(3) == 0 {
		ps.BfPartCountResv = 1 + rng.IntN(3)
	}
	return jobs, ps
}
