package scheduler

import (
	"fmt"
	"math"
	"sync/atomic"
	"testing"

	"drsim/cluster"
)

// The online invariant checks (Config.Check, drsim run --check) live in the
// engine's code paths (start, sync, finish, observePower, the views and the
// governors); this file holds the ones that need state of their own: the
// processor ownership map behind "no over-allocation", the end-of-run
// energy balance, and the rule that checks are on in every test.

// testChecks turns the checks on for every engine built in a test binary
// (testing.Testing), whatever its Config says. A violation a test did not
// ask to see (Config.Check false) then fails Run with an error, so no test
// can pass on a run that broke an invariant. Benchmarks measure the
// unchecked engine: see WithoutTestChecks.
var testChecks atomic.Bool

func init() { testChecks.Store(testing.Testing()) }

// WithoutTestChecks turns off the checks that tests force on, until the
// returned function is called. Benchmarks use it to time the engine users
// run; tests must not.
func WithoutTestChecks() (restore func()) {
	old := testChecks.Swap(false)
	return func() { testChecks.Store(old) }
}

// checkedAlloc wraps an allocator with a processor ownership map: handing
// out a processor that is already held, releasing one that is free, or
// one outside the machine is a violation. It sees every allocation and
// release the engine makes (starts, finishes, evictions, resizes, and the
// node layer's), so a free-list bug that kept the counts right would still
// be caught.
type checkedAlloc struct {
	cluster.Allocator
	e    *Engine
	held []bool
	busy int
}

func newCheckedAlloc(e *Engine, a cluster.Allocator) *checkedAlloc {
	return &checkedAlloc{Allocator: a, e: e, held: make([]bool, a.Total())}
}

func (c *checkedAlloc) Alloc(n int, dst []cluster.Range) ([]cluster.Range, bool) {
	before := len(dst)
	out, ok := c.Allocator.Alloc(n, dst)
	if !ok {
		return out, ok
	}
	got := 0
	for _, r := range out[before:] {
		if r.Lo < 0 || int(r.Hi) > len(c.held) || r.Lo >= r.Hi {
			c.e.violate("allocator returned processors [%d,%d) on a %d-processor machine", r.Lo, r.Hi, len(c.held))
			continue
		}
		for p := r.Lo; p < r.Hi; p++ {
			if c.held[p] {
				c.e.violate("processor %d allocated twice", p)
			}
			c.held[p] = true
		}
		got += int(r.Len())
	}
	if got != n {
		c.e.violate("asked the allocator for %d processors, got %d", n, got)
	}
	c.busy += got
	c.counts()
	return out, ok
}

func (c *checkedAlloc) Release(rs []cluster.Range) {
	for _, r := range rs {
		if r.Lo < 0 || int(r.Hi) > len(c.held) {
			c.e.violate("release of processors [%d,%d) on a %d-processor machine", r.Lo, r.Hi, len(c.held))
			continue
		}
		for p := r.Lo; p < r.Hi; p++ {
			if !c.held[p] {
				c.e.violate("processor %d released while free", p)
			}
			c.held[p] = false
		}
		c.busy -= int(r.Len())
	}
	c.Allocator.Release(rs)
	c.counts()
}

// counts checks the allocator's own free count against the ownership map.
func (c *checkedAlloc) counts() {
	if free := c.Allocator.Free(); free != len(c.held)-c.busy {
		c.e.violate("the allocator counts %d free processors, the ownership map %d", free, len(c.held)-c.busy)
	}
}

// finalChecks runs when the last event has been handled: every submitted
// job finished exactly once (finish checks that the job was running, so
// with equal counts none finished twice), and the energy balances.
func (e *Engine) finalChecks() {
	if n := e.runs.Len() + e.wq.Len(); n != 0 {
		e.violate("%d jobs never finished", n)
	}
	if e.stats.Finished != e.stats.Submitted {
		e.violate("%d jobs submitted but %d finished", e.stats.Submitted, e.stats.Finished)
	}
	if e.checked != nil && e.checked.busy != 0 {
		e.violate("%d processors still held after the last job ended", e.checked.busy)
	}
	if !e.hasPower || !e.allFinite {
		return
	}
	m := e.meter
	// Σ over jobs of each job's own integral of its power (finished and
	// evicted runs) against the meter's integral of the busy power.
	if !agree(e.jobJ, m.BusyJ) {
		e.violate("energy: jobs' own energies sum to %.6f J, the meter's job energy is %.6f J", e.jobJ, m.BusyJ)
	}
	// The integral of the total power against its parts.
	if total, parts := m.TotalJ(), m.Energy(); !agree(total, parts) {
		e.violate("energy: ∫P dt = %.6f J but jobs + idle + off + transition = %.6f J", total, parts)
	}
}

// agree reports whether a and b agree to 1e-9 relative (1e-6 J absolute
// near zero): both are sums of the same piecewise-constant products taken
// in different orders.
func agree(a, b float64) bool {
	return math.Abs(a-b) <= 1e-9*math.Max(math.Abs(a), math.Abs(b))+1e-6
}

// strictErr is Run's error when checks forced on by a test found
// violations the test did not ask for.
func (e *Engine) strictErr() error {
	if !e.forcedCheck || e.stats.NViolations == 0 {
		return nil
	}
	return fmt.Errorf("scheduler: %d invariant violations (checks are on in tests), first: %s", e.stats.NViolations, e.stats.Violations[0])
}
