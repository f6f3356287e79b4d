package scheduler

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"testing"

	"drsim/workloads"
)

// TestSuspendQueueMatchesPerNodeEvents replays random workloads with node
// power saving twice, with the suspend timers queued (suspendq.go) and
// with one heap event per timer (the engine before the queue, with the
// same keys), and wants the same records, event counts, node statistics
// and meter energies, bit for bit. The configurations cover both pass
// modes, instant and slow boots, an evicting governor, a suspend time
// below the clock's resolution late in the trace (so timers fall due at
// the instant that arms them), nodes of one and of several processors.
func TestSuspendQueueMatchesPerNodeEvents(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 25))
	var merged, applied, sorted int
	for it := range 120 {
		cfg, jobs := randomSuspendCase(rng)
		name := fmt.Sprintf("%d/%s/ppn%d/S%g/R%g/pass%d", it, cfg.Policy, cfg.ProcsPerNode, cfg.SuspendAfter, cfg.ResumeTime, cfg.Pass)
		run := func(perNode bool) (*Engine, *collect, []suspTimer) {
			var seq []suspTimer
			suspendPerNode, suspendHook = perNode, func(t float64, node int32) { seq = append(seq, suspTimer{t: t, node: node}) }
			defer func() { suspendPerNode, suspendHook = false, nil }()
			c := &collect{}
			cc := cfg
			cc.Recorder, cc.Check = c, true
			if cfg.Governor != nil {
				cc.Governor = &evictOnce{}
			}
			if cfg.Priority != nil {
				p := *cfg.Priority
				p.Tree = oneUserTree()
				cc.Priority = &p
			}
			e, err := New(cc)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if err := e.Run(context.Background(), &SliceSource{Jobs: jobs}); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if s := e.Stats(); s.NViolations > 0 {
				t.Fatalf("%s: %v", name, s.Violations)
			}
			return e, c, seq
		}
		eq, cq, seqq := run(false)
		er, cr, seqr := run(true)
		if !reflect.DeepEqual(seqq, seqr) {
			t.Fatalf("%s: suspend events applied in another order", name)
		}
		if !reflect.DeepEqual(cq.rows, cr.rows) {
			t.Fatalf("%s: records differ:\nqueue %s\nper-node %s", name, cq.starts(), cr.starts())
		}
		sq, sr := eq.Stats(), er.Stats()
		if sq.Events != sr.Events || sq.Suspends != sr.Suspends || sq.Boots != sr.Boots || sq.Evictions != sr.Evictions || sq.Passes != sr.Passes {
			t.Fatalf("%s: stats differ: queue %+v\nper-node %+v", name, *sq, *sr)
		}
		mq, mr := eq.Meter(), er.Meter()
		if mq.BusyJ != mr.BusyJ || mq.IdleJ != mr.IdleJ || mq.OffJ != mr.OffJ || mq.TransJ != mr.TransJ || mq.Energy() != mr.Energy() {
			t.Fatalf("%s: energies differ: queue %v %v %v %v, per-node %v %v %v %v", name,
				mq.BusyJ, mq.IdleJ, mq.OffJ, mq.TransJ, mr.BusyJ, mr.IdleJ, mr.OffJ, mr.TransJ)
		}
		merged += eq.np.susp.nMerged
		sorted += eq.np.susp.nSorted
		applied += sq.Suspends
	}
	// The merge (PassInstant runs of timers applied without the heap) ran.
	if merged == 0 || applied == 0 || sorted == 0 {
		t.Fatalf("merged %d of %d suspends, sorted %d runs: the queue's paths were not exercised", merged, applied, sorted)
	}
}

// randomSuspendCase is a random machine with node power saving and a
// workload for it.
func randomSuspendCase(rng *rand.Rand) (Config, []workloads.Job) {
	procs := []int{8, 16, 32, 64}[rng.IntN(4)]
	ppn := []int{1, 2, 4}[rng.IntN(3)]
	cfg := Config{
		Procs: procs, ProcsPerNode: ppn,
		SuspendAfter: []float64{1e-9, 1, 30, 100, 600}[rng.IntN(5)],
		ResumeTime:   []float64{0, 10, 300}[rng.IntN(3)],
		BootW:        50, OffW: 5,
		Policy: []string{"fcfs", "easy", "conservative"}[rng.IntN(3)],
		Apps:   twoLevels, IdleW: 10,
	}
	if rng.IntN(2) == 0 {
		cfg.Pass = PassEvent
	}
	// Late in the trace a suspend time of 1e-9 s is below half the
	// clock's resolution: t + SuspendAfter == t.
	t0 := 0.0
	if rng.IntN(2) == 0 {
		t0 = 3e8
	}
	if rng.IntN(3) == 0 {
		// recomputes at times shared with suspends (KindPriority comes
		// after KindSuspend at one time)
		cfg.Order = "multifactor"
		cfg.Priority = &Priority{CalcPeriod: []float64{30, 100}[rng.IntN(2)], WeightAge: 1000, MaxAge: 500, WeightJobSize: 100}
	}
	if rng.IntN(4) == 0 {
		cfg.Governor = &evictOnce{}
		cfg.Limits = []LimitStep{{t0 + 2000 + float64(rng.IntN(3000)), 1e9}}
	}
	coarse := rng.IntN(2) == 0
	n := 100 + rng.IntN(200)
	jobs := make([]workloads.Job, n)
	at := t0
	for i := range jobs {
		if rng.IntN(4) != 0 { // else submitted with the one before
			at += math.Round(rng.ExpFloat64() * 60)
		}
		run := 1 + math.Round(rng.ExpFloat64()*300)
		if coarse {
			// few distinct runtimes: jobs end together, and the nodes
			// they free are armed out of node order
			run = 50 * float64(1+rng.IntN(6))
		}
		jobs[i] = j(int64(i+1), at, run, int64(1+rng.IntN(procs)), run*float64(1+rng.IntN(3)))
	}
	return cfg, jobs
}

// TestSuspendTimerDueWithRun: a timer armed for the time of the run being
// applied (t + SuspendAfter rounds to t) goes into the heap as its own
// event, with the key a node's own suspend event has, not into the FIFO.
func TestSuspendTimerDueWithRun(t *testing.T) {
	e, err := New(Config{Procs: 4, ProcsPerNode: 1, SuspendAfter: 1e-9, ResumeTime: 10, Apps: twoLevels, IdleW: 10})
	if err != nil {
		t.Fatal(err)
	}
	const at = 3e8 // at + 1e-9 == at
	sq := &e.np.susp
	sq.due, sq.dhead, sq.dueT = []suspTimer{{t: at, node: 0}, {t: at, node: 3}}, 1, at
	e.armSuspend(2, at)
	if len(sq.fifo) != 0 || e.q.Len() != 1 {
		t.Fatalf("fifo %v, heap %d events: want the timer in the heap only", sq.fifo, e.q.Len())
	}
	if ev := e.q.Peek(); *ev != (Event{T: at, Kind: KindSuspend, Seq: 3, Job: 2, Gen: e.np.nodes.Gen(2)}) {
		t.Fatalf("event %+v", *ev)
	}
	// Once the run is done, a timer armed for later goes into the FIFO
	// behind a marker.
	sq.dhead = 2
	e.armSuspend(1, at+5)
	if len(sq.fifo) != 1 || e.q.Len() != 2 {
		t.Fatalf("fifo %v, heap %d events", sq.fifo, e.q.Len())
	}
}
