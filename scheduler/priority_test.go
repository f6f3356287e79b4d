package scheduler

import (
	"context"
	"math"
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
// every 300 s: at 300 it adds 2·300·d^300; at its end 2·200·d^200; at 600
// everything decays by d^300.
func TestUsageDecay(t *testing.T) {
	e, err := New(Config{Procs: 4, Policy: "fcfs", Order: "multifactor",
		Priority: &Priority{CalcPeriod: 300, HalfLife: 693, Tree: oneUserTree(), WeightFairshare: 1000}})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Run(context.Background(), &SliceSource{Jobs: []workloads.Job{j(1, 0, 500, 2, 500)}}); err != nil {
		t.Fatal(err)
	}
	d := 0.999
	want := (600*math.Pow(d, 300) + 400*math.Pow(d, 200)) * math.Pow(d, 300)
	if got := e.prio.usage[0] * e.prio.scale; math.Abs(got-want) > 1e-9*want {
		t.Fatalf("usage %v, want %v", got, want)
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
