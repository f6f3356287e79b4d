package sim

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"drsim/internal/sharedtest"
	"drsim/results"
	"drsim/workloads"
)

// audit checks what the engine's online checks cannot see from inside:
// every kept job is reported exactly once, and the job-side energy the
// meter integrated equals the sum of the per-job energies (finishing runs
// plus evicted runs).
type audit struct {
	seen   map[int64]int
	jobJ   float64
	maxEnd float64
}

func (a *audit) Record(r *results.Record) error {
	a.seen[r.Seq]++
	a.jobJ += r.Energy + r.Wasted
	a.maxEnd = math.Max(a.maxEnd, r.End)
	return nil
}

// TestAcceptanceInvariants replays every real trace in full under every
// policy (the longest, RICC under conservative, takes about 140 s; the
// subtests run in parallel) with the online checks on (--check: processors never over-allocated, no
// start before submit, fcfs starts in queue order, easy's head never
// starts later than its first reservation, remaining work never negative,
// every job finishes) and asserts zero violations, that every kept job
// appears exactly once, and that total energy = Σ job energy + idle energy
// (+ off and transition energy, 0 here) to 1e-9 relative.
func TestAcceptanceInvariants(t *testing.T) {
	for _, path := range sharedtest.Traces(t) {
		for _, policy := range []string{"fcfs", "easy", "conservative"} {
			name := filepath.Base(path) + "/" + policy
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				auditRun(t, Spec{Trace: path, Policy: policy, Check: true})
			})
		}
	}
}

// TestAcceptancePowerSaving is TestAcceptanceInvariants with node power
// saving on (Slurm-like suspend after 600 s idle, 300 s boots), over a few
// traces, policies, node sizes and a DR variant: zero violations (which
// include "no job executes on a node that is not up"), exactly-once, Σ job
// energy = meter job energy, and total = jobs + idle + off + transition
// energy to 1e-9 relative; and nodes did power off and boot.
func TestAcceptancePowerSaving(t *testing.T) {
	for _, tc := range []struct {
		trace, policy string
		ppn           int
		dr            bool
	}{
		{"KTH-SP2-1996-2.1-cln.swf.gz", "easy", 1, false},
		{"KTH-SP2-1996-2.1-cln.swf.gz", "easy", 1, true},
		{"NASA-iPSC-1993-3.1-cln.swf.gz", "fcfs", 4, false},
		{"CTC-SP2-1996-3.1-cln.swf.gz", "conservative", 1, false},
		{"LLNL-Thunder-2007-1.1-cln.swf.gz", "easy", 4, false},
	} {
		name := fmt.Sprintf("%s/%s/ppn%d/dr=%v", tc.trace, tc.policy, tc.ppn, tc.dr)
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			spec := Spec{Trace: sharedtest.Path(t, "traces/"+tc.trace), Policy: tc.policy, Check: true, ProcsPerNode: tc.ppn,
				SuspendAfter: 600, ResumeTime: 300, BootW: 0, OffW: 2}
			if tc.dr {
				spec.DVFS, spec.DRRatio = "dr", 0.3
			}
			s := auditRun(t, spec).Summary
			if s.Boots == 0 || s.OffKWh <= 0 || s.TransitionKWh <= 0 {
				t.Fatalf("no power saving happened: %d boots, %v kWh off, %v kWh booting", s.Boots, s.OffKWh, s.TransitionKWh)
			}
		})
	}
}

// auditRun runs spec with the online checks and the audit recorder and
// fails on any violation or imbalance.
func auditRun(t *testing.T, spec Spec) *Result {
	t.Helper()
	tr, err := Load(spec)
	if err != nil {
		t.Fatal(err)
	}
	a := &audit{seen: map[int64]int{}}
	res, err := Run(context.Background(), spec, tr, Outputs{Record: a})
	if err != nil {
		t.Fatal(err)
	}
	if res.Stats.NViolations > 0 {
		t.Fatalf("%d violations, first: %v", res.Stats.NViolations, res.Stats.Violations)
	}
	if len(a.seen) != len(tr.Jobs) {
		t.Fatalf("%d distinct jobs reported, %d kept", len(a.seen), len(tr.Jobs))
	}
	for seq, n := range a.seen {
		if n != 1 {
			t.Fatalf("job at trace position %d reported %d times", seq, n)
		}
	}
	s := res.Summary
	if got, want := s.JobKWh*3.6e6, a.jobJ; math.Abs(got-want) > 1e-9*want {
		t.Fatalf("meter job energy %.6f J, Σ job energies %.6f J (rel %.2g)", got, want, math.Abs(got-want)/want)
	}
	if total := (s.JobKWh + s.IdleKWh + s.OffKWh + s.TransitionKWh) * 3.6e6; math.Abs(total-s.EnergyKWh*3.6e6) > 1e-9*total {
		t.Fatalf("total %v kWh != jobs %v + idle %v + off %v + transition %v", s.EnergyKWh, s.JobKWh, s.IdleKWh, s.OffKWh, s.TransitionKWh)
	}
	if s.Jobs != len(tr.Jobs) {
		t.Fatalf("summary counts %d jobs, %d kept", s.Jobs, len(tr.Jobs))
	}
	return res
}

// TestDeterminism runs the same spec twice, under GOMAXPROCS 1 and 2, and
// compares every output byte. (Reading overlaps gunzip and parsing on
// goroutines of their own, and under GOMAXPROCS 2 Load parses on two;
// nothing else in a run is concurrent.)
func TestDeterminism(t *testing.T) {
	gen, err := workloads.Lublin(workloads.LublinConfig{Jobs: 3000, Seed: 7, RateFactor: 2})
	if err != nil {
		t.Fatal(err)
	}
	var zbuf bytes.Buffer
	zw := gzip.NewWriter(&zbuf)
	if err := workloads.WriteSWF(zw, &gen.Header, gen.Jobs); err != nil {
		t.Fatal(err)
	}
	zw.Close()
	path := filepath.Join(t.TempDir(), "w.swf.gz")
	if err := os.WriteFile(path, zbuf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	// The DR run loads the trace; the plain one pipes it (reading and
	// writing on their own goroutines), and must equal the loaded run.
	run := func(procs int, dr, pipe bool) []byte {
		defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
		var jobs, power, sum bytes.Buffer
		spec := Spec{Trace: path, Policy: "easy", Placement: "scattered", Seed: 7}
		if dr {
			spec.DVFS, spec.DRRatio = "dr", 0.3
		}
		tr, src, done, err := Open(spec)
		if !pipe {
			tr, err = Load(spec)
			src = nil
		}
		if err != nil {
			t.Fatal(err)
		}
		defer done()
		res, err := Run(context.Background(), spec, tr, Outputs{Jobs: &jobs, Power: &power, Source: src})
		if err != nil {
			t.Fatal(err)
		}
		if err := res.Summary.WriteJSON(&sum); err != nil {
			t.Fatal(err)
		}
		return []byte(fmt.Sprintf("%s\n%s\n%s", jobs.Bytes(), power.Bytes(), sum.Bytes()))
	}
	a, b := run(1, true, false), run(2, true, false)
	if !bytes.Equal(a, b) {
		t.Fatal("two identical runs produced different outputs")
	}
	p1, p2, l := run(1, false, true), run(2, false, true), run(2, false, false)
	if !bytes.Equal(p1, p2) || !bytes.Equal(p1, l) {
		t.Fatal("piped runs under GOMAXPROCS 1 and 2 and the loaded run differ")
	}
	if len(a) < 1000 {
		t.Fatalf("outputs suspiciously small (%d bytes)", len(a))
	}
}
