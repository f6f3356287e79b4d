package scheduler

import (
	"context"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"drsim/workloads"
)

// lastFirst is a broken policy for the multifactor check: it starts the
// queue's last job first, reserving nothing.
var lastFirst = PolicyFunc(func(v *View) {
	last := -1
	for i := v.Next(0, v.Total); i >= 0; i = v.Next(i+1, v.Total) {
		last = i
	}
	if last >= 0 && v.Fits(last) {
		v.Start(last)
	}
})

// oneUserTree is one account with one user: fs is then 2^(−U/1).
func oneUserTree() *ShareTree {
	return &ShareTree{AcctShares: []float64{1}, UserAcct: []int32{0}, UserShares: []float64{1}}
}

// The classic fair-share factor, by hand. Root's children: accounts A (2
// shares) and B (1) and root's own user (1), so 4 shares; A's users u1 (3)
// and u2 (1), B's user u3 (1). Usage u1 30, u2 10, u3 60 (root 100):
//
//	u1: U .3, A's U .4, UE = .3 + (.4−.3)·3/4 = .375, S = 2/4·3/4 = .375, fs = 2^−1
//	u2: U .1, UE = .1 + (.4−.1)·1/4 = .175, S = 2/4·1/4 = .125, fs = 2^−1.4
//	u3: U .6, B's U .6, UE = .6, S = 1/4·1 = .25, fs = 2^−2.4
func TestFairShareClassic(t *testing.T) {
	tr := &ShareTree{AcctShares: []float64{2, 1}, RootUsers: 1, UserAcct: []int32{0, 0, 1}, UserShares: []float64{3, 1, 1}}
	e, err := New(Config{Procs: 4, Order: "multifactor", Priority: &Priority{CalcPeriod: 300, Tree: tr}})
	if err != nil {
		t.Fatal(err)
	}
	e.growTree()
	st := e.prio
	// No usage anywhere: U = 0 for all, fs = 1.
	for u := range 3 {
		if f := e.fairShare(u); f != 1 {
			t.Errorf("no usage: user %d fs %v, want 1", u, f)
		}
	}
	st.addUsage(0, 3, 10) // procs·δ with no decay
	st.addUsage(1, 1, 10)
	st.addUsage(2, 6, 10)
	st.snapAccounts() // as at the start of a recompute
	st.epoch++
	want := []float64{0.5, math.Pow(2, -1.4), math.Pow(2, -2.4)}
	for u, w := range want {
		if f := e.fairShare(u); math.Abs(f-w) > 1e-12 {
			t.Errorf("user %d: fs %v, want %v", u, f, w)
		}
	}
}

// Usage with decay, by hand: half-life 693 s gives d = 1 − .693/693 =
// .999 per second. A 2-processor job runs from 0 to 500 with recomputes
// every 300 s: at 300 it adds 2·300·d^300; with EndUsage (Slurm with
// AccountingStorageEnforce=limits) at its end 2·200·d^200, without it
// nothing more (Slurm's default: the stretch after the last recompute is
// lost); at 600 everything decays by d^300.
func TestUsageDecay(t *testing.T) {
	d := 0.999
	for _, end := range []bool{true, false} {
		e, err := New(Config{Procs: 4, Policy: "fcfs", Order: "multifactor",
			Priority: &Priority{CalcPeriod: 300, HalfLife: 693, Tree: oneUserTree(), WeightFairshare: 1000, EndUsage: end}})
		if err != nil {
			t.Fatal(err)
		}
		if err := e.Run(context.Background(), &SliceSource{Jobs: []workloads.Job{j(1, 0, 500, 2, 500)}}); err != nil {
			t.Fatal(err)
		}
		want := 600 * math.Pow(d, 300) * math.Pow(d, 300)
		if end {
			want = (600*math.Pow(d, 300) + 400*math.Pow(d, 200)) * math.Pow(d, 300)
		}
		if got := e.prio.usage[0] * e.prio.scale; math.Abs(got-want) > 1e-9*want {
			t.Fatalf("EndUsage %v: usage %v, want %v", end, got, want)
		}
	}
	e, err := New(Config{Procs: 4, Policy: "fcfs", Order: "multifactor",
		Priority: &Priority{CalcPeriod: 300, HalfLife: 693, Tree: oneUserTree(), WeightFairshare: 1000}})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Run(context.Background(), &SliceSource{Jobs: []workloads.Job{j(1, 0, 500, 2, 500)}}); err != nil {
		t.Fatal(err)
	}
	if e.prio.last != 600 {
		t.Fatalf("last recompute at %v, want 600 (the grid stops once nothing waits or runs)", e.prio.last)
	}
}

// Age and size factors, and the recompute schedule. Machine of 4
// processors; job 1 fills it from 0 to 100; job 2 (2 processors, submitted
// at 10) and job 3 (3 processors, at 20) wait. WeightJobSize 100: sizes
// (2/4+2/4)/2 = .5 and (3/4+3/4)/2 = .75, so at submit (age 0) their
// priorities are 50 and 75: job 3 leads. WeightAge 1000 with MaxAge 100 s:
// at a recompute at 60 they are 500+50 = 550 and 400+75 = 475: job 2
// leads. So with PriorityCalcPeriod 60 job 2 starts at 100 and job 3 after
// it (150); with 1000 no recompute happens before 100 and job 3 goes
// first.
func TestAgeSizeAndRecompute(t *testing.T) {
	jobs := []workloads.Job{j(1, 0, 100, 4, 100), j(2, 10, 50, 2, 50), j(3, 20, 50, 3, 50)}
	for _, tc := range []struct {
		period float64
		want   string
	}{
		{60, "1:0-100 2:100-150 3:150-200"},
		{1000, "1:0-100 2:150-200 3:100-150"},
	} {
		p := &Priority{CalcPeriod: tc.period, WeightAge: 1000, MaxAge: 100, WeightJobSize: 100, Tree: oneUserTree()}
		if got := simulate(t, Config{Procs: 4, Policy: "fcfs", Order: "multifactor", Priority: p}, jobs...).starts(); got != tc.want {
			t.Errorf("period %v: %s, want %s", tc.period, got, tc.want)
		}
	}
	// FavorSmall flips the sizes: ((4−2)/4+(4−2)/4)/2 = .5 for job 2 and
	// .25 for job 3, so job 2 leads at submit.
	p := &Priority{CalcPeriod: 1000, WeightJobSize: 100, FavorSmall: true, Tree: oneUserTree()}
	if got, want := simulate(t, Config{Procs: 4, Policy: "fcfs", Order: "multifactor", Priority: p}, jobs...).starts(), "1:0-100 2:100-150 3:150-200"; got != want {
		t.Errorf("favor small: %s, want %s", got, want)
	}
}

// Fair share decides: users u1 and u2 (one share each in one account).
// u1's job 1 runs 0-100 on the whole 4-processor machine; at 100 both
// users have a 4-processor job waiting, u1's submitted first. With no
// decay, at the recompute at 100 (period 50, after the finish) u1 has used
// 400 processor-seconds and u2 none: U = 1 and 0, UE = 1/2 and 0, S = 1/2,
// fs = 2^−1 and 1: u2's job (3) starts first although it came later.
func TestFairShareOrder(t *testing.T) {
	tr := &ShareTree{AcctShares: []float64{1}, UserAcct: []int32{0, 0}, UserShares: []float64{1, 1}}
	p := &Priority{CalcPeriod: 50, WeightFairshare: 1000, Tree: tr,
		AssocOf: func(w *workloads.Job) int { return int(w.User) - 1 }}
	mk := func(id int64, submit float64, user int64) workloads.Job {
		w := j(id, submit, 100, 4, 100)
		w.User = user
		return w
	}
	jobs := []workloads.Job{mk(1, 0, 1), mk(2, 10, 1), mk(3, 20, 2)}
	c := simulate(t, Config{Procs: 4, Policy: "fcfs", Order: "multifactor", Priority: p}, jobs...)
	if got, want := c.starts(), "1:0-100 2:200-300 3:100-200"; got != want {
		t.Fatalf("%s, want %s", got, want)
	}
}

// --check catches a policy that starts a job while a higher-priority one
// fits and no reservation was made.
func TestCheckPriorityOrder(t *testing.T) {
	p := &Priority{CalcPeriod: 1000, WeightJobSize: 100, Tree: oneUserTree()}
	e, err := New(Config{Procs: 4, Policy: "fcfs", Order: "multifactor", Priority: p, Check: true})
	if err != nil {
		t.Fatal(err)
	}
	e.policy, e.checkFCFS = lastFirst, false
	jobs := []workloads.Job{j(1, 0, 100, 4, 100), j(2, 10, 50, 3, 50), j(3, 20, 50, 1, 50)}
	if err := e.Run(context.Background(), &SliceSource{Jobs: jobs}); err != nil {
		t.Fatal(err)
	}
	st := e.Stats()
	if st.NViolations == 0 || !strings.Contains(st.Violations[0], "job 3 (priority 25) started while job 2 (priority 75)") {
		t.Fatalf("violations %d %q", st.NViolations, st.Violations)
	}
}

func TestMultifactorNeedsPriority(t *testing.T) {
	if _, err := New(Config{Procs: 4, Order: "multifactor"}); err == nil {
		t.Fatal("multifactor order without Priority accepted")
	}
	if _, err := New(Config{Procs: 4, Priority: &Priority{CalcPeriod: 1}}); err == nil {
		t.Fatal("Priority with the submit order accepted")
	}
}

// The account's effective usage is the one of the start of the last
// recompute, the user's is current (Slurm's decay thread sets the accounts'
// usage_efctv before it adds the period's usage). Accounts A and B (1 share
// each), A's users u0 and u1 (1 each), B's u2: S(u0) = 1/2·1/2 = .25. A
// 1-processor job of u0 runs from 0 to 250, recomputes every 100 s, no
// decay, no job-end usage:
//
//	100: A's U before = 0 (no usage); u0 adds 100: U = 1, UE = 1 + (0 − 1)·1/2 = .5, fs = 2^(−.5/.25) = .25
//	200: A's U before = 100/100 = 1; u0 adds 100: U = 1, UE = 1, fs = 2^−4
//
// (with the account's current U, fs would be 2^−4 at 100 already). Job 2
// of u1 (4 processors) waits until 250; its priority is 1000·fs(u1):
// at 100, U(u1) = 0, UE = 0 + (0 − 0)·1/2 = 0, fs = 1; at 200 UE = 1/2,
// fs = 2^(−.5/.25) = .25.
func TestAccountUsageFromLastRecompute(t *testing.T) {
	tr := &ShareTree{AcctShares: []float64{1, 1}, UserAcct: []int32{0, 0, 1}, UserShares: []float64{1, 1, 1}}
	p := &Priority{CalcPeriod: 100, WeightFairshare: 1000, Tree: tr,
		AssocOf: func(w *workloads.Job) int { return int(w.User) }}
	e, err := New(Config{Procs: 4, Policy: "fcfs", Order: "multifactor", Priority: p})
	if err != nil {
		t.Fatal(err)
	}
	j1, j2 := j(1, 0, 250, 1, 300), j(2, 1, 10, 4, 60)
	j1.User, j2.User = 0, 1
	var fs0, prio2 []float64
	obs := PolicyFunc(func(v *View) {
		if v.Now < 100 {
			v.WakeAt(100)
		} else if v.Now < 200 {
			v.WakeAt(200)
		}
		if v.Now == 100 || v.Now == 200 {
			fs0 = append(fs0, v.e.fairShare(0))
			prio2 = append(prio2, v.e.jobs[v.e.wq.slots[v.e.wq.head]].pr.prio)
		}
		for i := v.Next(0, v.Total); i >= 0 && v.Fits(i); i = v.Next(i+1, v.Total) {
			v.Start(i)
		}
	})
	e.policy = obs
	if err := e.Run(context.Background(), &SliceSource{Jobs: []workloads.Job{j1, j2}}); err != nil {
		t.Fatal(err)
	}
	if len(fs0) != 2 || fs0[0] != 0.25 || fs0[1] != math.Pow(2, -4) {
		t.Errorf("u0's fs at 100 and 200: %v, want [0.25 0.0625]", fs0)
	}
	if len(prio2) != 2 || prio2[0] != 1000 || prio2[1] != 250 {
		t.Errorf("job 2's priority at 100 and 200: %v, want [1000 250]", prio2)
	}
}

// The job-size factor counts the nodes a job asked for (Slurm's
// min_nodes, sacct ReqTRES node=), not those it was given: on 6 nodes of
// 4 processors (24), an 8-processor job that asked for 1 node and ran on
// 2 has size (1/6 + 8/24)/2 = .25, priority 500·.25 = 125 (what sprio
// showed for such a job in the real Slurm run of priority-check.sh);
// counted by its 2 allocated nodes it would be (2/6 + 8/24)/2 → 166.
func TestSizeFactorRequestedNodes(t *testing.T) {
	for _, tc := range []struct {
		req, nodes int64
		want       float64
	}{{1, 2, 125}, {0, 2, 166}} {
		p := &Priority{CalcPeriod: 1000, WeightJobSize: 500, Nodes: 6, Tree: oneUserTree()}
		e, err := New(Config{Procs: 24, ProcsPerNode: 4, Policy: "fcfs", Order: "multifactor", Priority: p})
		if err != nil {
			t.Fatal(err)
		}
		w := j(2, 1, 10, 8, 60)
		w.ReqNodes, w.Nodes = tc.req, tc.nodes
		if err := e.Run(context.Background(), &SliceSource{Jobs: []workloads.Job{j(1, 0, 100, 24, 100), w}}); err != nil {
			t.Fatal(err)
		}
		got := -1.0 // job 2's priority from its submit (no recompute before its start at 100)
		for k := range e.jobs {
			if e.jobs[k].id == 2 {
				got = e.jobs[k].pr.prio
			}
		}
		if got != tc.want {
			t.Errorf("ReqNodes %d, Nodes %d: priority %v, want %v", tc.req, tc.nodes, got, tc.want)
		}
	}
}

// With no weight on age or fair share, a recompute changes no priority
// and skips the queue (reprioritise). The reference weighs age by 1e-9,
// too little to move any floor(priority) with job-size weights of 100, so
// it takes the full recompute with the same priorities: random workloads
// under EASY and slurm-backfill start every job at the same time.
func TestRecomputeWithoutTimeFactors(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 8))
	for trial := range 40 {
		procs := 8 + rng.IntN(57)
		jobs := make([]workloads.Job, 100+rng.IntN(200))
		submit := 0.0
		for k := range jobs {
			submit += float64(rng.IntN(60))
			req := float64(30 + rng.IntN(2000))
			jobs[k] = j(int64(k+1), submit, float64(1+rng.IntN(int(req))), int64(1+rng.IntN(procs)), req)
		}
		policy := []string{"easy", "slurm-backfill"}[trial%2]
		run := func(ageWeight float64) string {
			p := &Priority{CalcPeriod: 60, WeightAge: ageWeight, MaxAge: 86400, WeightJobSize: 100, FavorSmall: trial%4 < 2, Tree: oneUserTree()}
			return simulate(t, Config{Procs: procs, Policy: policy, Order: "multifactor", Priority: p}, jobs...).starts()
		}
		if got, want := run(0), run(1e-9); got != want {
			t.Fatalf("trial %d (%s): starts differ from the full recompute:\n got %s\nwant %s", trial, policy, got, want)
		}
	}
}

// A recompute walks the jobs in trace order, as Slurm's decay thread walks
// its job list: a running job adds its usage, and a user's fair-share
// factor is computed at its first waiting job from the usage so far. One
// account (1 share) with users u0 and u1 (1 share each: S = 1/2), no
// decay, recomputes every 100 s, on 4 processors. Job 1 (u0, 1 processor)
// and job 3 (u1, 1 processor) run from 0 to 250; job 2 (u1, 4 processors),
// between them in trace order, waits until 250.
//
//	100: A's U before = 0. Job 1 adds 100 (root 100); job 2: U(u1) = 0,
//	     UE = 0, fs = 1, priority 1000; job 3 adds 100 (root 200).
//	200: A's U before = 200/200 = 1. Job 1 adds 100 (u0 200, root 300);
//	     job 2: U(u1) = 100/300, UE = 1/3 + (1 − 1/3)·1/2 = 2/3,
//	     fs = 2^(−4/3), priority floor(396.85) = 396; job 3 adds 100.
//
// With job 3's usage counted before job 2's factor (every running job
// first), job 2 would get 707 and 353. u0, with no waiting job, gets its
// factor from all the usage on first use after the recompute: at 200,
// U = 200/400, UE = .5 + (1 − .5)·1/2 = .75, fs = 2^−1.5.
func TestRecomputeWalksTraceOrder(t *testing.T) {
	tr := &ShareTree{AcctShares: []float64{1}, UserAcct: []int32{0, 0}, UserShares: []float64{1, 1}}
	p := &Priority{CalcPeriod: 100, WeightFairshare: 1000, Tree: tr,
		AssocOf: func(w *workloads.Job) int { return int(w.User) }}
	e, err := New(Config{Procs: 4, Policy: "fcfs", Order: "multifactor", Priority: p})
	if err != nil {
		t.Fatal(err)
	}
	j1, j2, j3 := j(1, 0, 250, 1, 300), j(2, 0, 10, 4, 60), j(3, 0, 250, 1, 300)
	j1.User, j2.User, j3.User = 0, 1, 1
	var prio2, fs0 []float64
	obs := PolicyFunc(func(v *View) {
		if v.Now < 100 {
			v.WakeAt(100)
		} else if v.Now < 200 {
			v.WakeAt(200)
		}
		if v.Now == 100 || v.Now == 200 {
			prio2 = append(prio2, v.e.jobs[v.e.wq.slots[v.e.wq.head]].pr.prio)
			fs0 = append(fs0, v.e.fairShare(0))
		}
		for i := v.Next(0, v.Total); i >= 0; i = v.Next(i+1, v.Total) {
			if v.Fits(i) {
				v.Start(i)
			}
		}
	})
	e.policy, e.checkFCFS = obs, false // it starts job 3 past job 2
	if err := e.Run(context.Background(), &SliceSource{Jobs: []workloads.Job{j1, j2, j3}}); err != nil {
		t.Fatal(err)
	}
	if len(prio2) != 2 || prio2[0] != 1000 || prio2[1] != 396 {
		t.Errorf("job 2's priority at 100 and 200: %v, want [1000 396]", prio2)
	}
	if len(fs0) != 2 || math.Abs(fs0[1]-math.Pow(2, -1.5)) > 1e-12 {
		t.Errorf("u0's fs at 100 and 200: %v, want 2^-1.5 at 200", fs0)
	}
}
