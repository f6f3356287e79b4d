package sim

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"path/filepath"
	"testing"

	"drsim/internal/sharedtest"
	"drsim/results"
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

// conservativeCap bounds the jobs per trace under conservative
// backfilling, whose passes cost O(queue × profile) on large machines.
// 0 means the whole trace.
const conservativeCap = 0

// TestAcceptanceInvariants replays every real trace under every policy
// with the online checks on (--check: processors never over-allocated, no
// start before submit, fcfs starts in queue order, easy's head never
// starts later than its first reservation, remaining work never negative,
// every job finishes) and asserts zero violations, that every kept job
// appears exactly once, and that total energy = Σ job energy + idle energy
// to 1e-9 relative.
func TestAcceptanceInvariants(t *testing.T) {
	for _, path := range sharedtest.Traces(t) {
		for _, policy := range []string{"fcfs", "easy", "conservative"} {
			name := filepath.Base(path) + "/" + policy
			t.Run(name, func(t *testing.T) {
				t.Parallel()
				spec := Spec{Trace: path, Policy: policy, Check: true}
				if policy == "conservative" {
					spec.Jobs = conservativeCap
				}
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
				if total := (s.JobKWh + s.IdleKWh) * 3.6e6; math.Abs(total-s.EnergyKWh*3.6e6) > 1e-9*total {
					t.Fatalf("total %v kWh != jobs %v + idle %v", s.EnergyKWh, s.JobKWh, s.IdleKWh)
				}
				if s.Jobs != len(tr.Jobs) {
					t.Fatalf("summary counts %d jobs, %d kept", s.Jobs, len(tr.Jobs))
				}
			})
		}
	}
}

// TestDeterminism runs the same spec twice and compares every output byte.
func TestDeterminism(t *testing.T) {
	run := func() []byte {
		var jobs, power, sum bytes.Buffer
		spec := Spec{Jobs: 3000, Policy: "easy", DVFS: "dr", DRRatio: 0.3, Placement: "scattered", Seed: 7}
		tr, err := Load(spec)
		if err != nil {
			t.Fatal(err)
		}
		res, err := Run(context.Background(), spec, tr, Outputs{Jobs: &jobs, Power: &power})
		if err != nil {
			t.Fatal(err)
		}
		if err := res.Summary.WriteJSON(&sum); err != nil {
			t.Fatal(err)
		}
		return []byte(fmt.Sprintf("%s\n%s\n%s", jobs.Bytes(), power.Bytes(), sum.Bytes()))
	}
	a, b := run(), run()
	if !bytes.Equal(a, b) {
		t.Fatal("two identical runs produced different outputs")
	}
	if len(a) < 1000 {
		t.Fatalf("outputs suspiciously small (%d bytes)", len(a))
	}
}
