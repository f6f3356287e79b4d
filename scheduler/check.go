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
	e      *Engine
	held   []bool
	busy   int
	lo, hi int32 // the processors it may hand out: [0, len(held)), or its partition's

	// On a partitioned machine (partition.go) the partitions' checkers
	// share held, and each also checks that jobs stay inside its
	// partition, get whole nodes in a whole-node partition, and that no
	// node has more GPUs allocated than it has.
	p       *Part
	gpuHeld []int // per node of the partition
	// A shared-core partition with GPUs (gres.go): cores held per node,
	// and the placement whose per-node free counts must match.
	coreHeld []int
	gres     *cluster.Gres
}

func newCheckedAlloc(e *Engine, a cluster.Allocator) *checkedAlloc {
	return &checkedAlloc{Allocator: a, e: e, held: make([]bool, a.Total()), hi: int32(a.Total())}
}

// part makes c the checker of partition p, sharing the machine's
// ownership map held.
func (c *checkedAlloc) part(p *Part, held []bool) {
	c.p, c.held, c.lo, c.hi = p, held, int32(p.Lo), int32(p.Lo+p.Procs)
	c.gpuHeld = make([]int, p.Procs/p.Cores)
}

// gresPart makes c also check partition g's cores and GPUs per node.
func (c *checkedAlloc) gresPart(g *cluster.Gres) {
	c.gres, c.coreHeld = g, make([]int, g.Nodes())
}

// partChecks checks one allocated (sign +1) or released (−1) range
// against c's partition.
func (c *checkedAlloc) partChecks(r cluster.Range, sign int) {
	p := c.p
	if r.Lo < c.lo || r.Hi > c.hi {
		c.e.violate("processors [%d,%d) of a job in partition %q are outside it ([%d,%d))", r.Lo, r.Hi, p.Name, c.lo, c.hi)
		return
	}
	lo, hi := int(r.Lo-c.lo), int(r.Hi-c.lo)
	if p.Exclusive && (lo%p.Cores != 0 || hi%p.Cores != 0) {
		c.e.violate("partition %q allocates whole nodes of %d processors but handed out processors [%d,%d)", p.Name, p.Cores, r.Lo, r.Hi)
	}
	if !p.Exclusive || p.GPUs == 0 {
		return
	}
	// A whole-node job holds all of its nodes' GPUs.
	for n := lo / p.Cores; n < ceilDiv(hi, p.Cores); n++ {
		c.gpuHeld[n] += sign * p.GPUs
		if g := c.gpuHeld[n]; g > p.GPUs || g < 0 {
			c.e.violate("node %d of partition %q has %d GPUs allocated; it has %d", n, p.Name, g, p.GPUs)
		}
	}
}

func (c *checkedAlloc) Alloc(n int, dst []cluster.Range) ([]cluster.Range, bool) {
	before := len(dst)
	out, ok := c.Allocator.Alloc(n, dst)
	if ok {
		c.allocated(n, out[before:])
		c.nodes(out[before:], 1, 0)
	}
	return out, ok
}

// AllocNodes checks a GPU job's allocation on a shared-core partition
// (gres.go): its processors as Alloc does, k nodes of perNode cores each,
// and per node cores and GPUs in use within the node's and matching the
// placement's free counts.
func (c *checkedAlloc) AllocNodes(k, perNode, gpus int, dst []cluster.Range) ([]cluster.Range, bool) {
	before := len(dst)
	out, ok := c.Allocator.(gresAlloc).AllocNodes(k, perNode, gpus, dst)
	if ok {
		c.allocated(k*perNode, out[before:])
		if got := c.nodes(out[before:], 1, gpus); got != k {
			c.e.violate("a job asking for %d nodes of %d cores and %d GPUs got processors on %d nodes", k, perNode, gpus, got)
		}
	}
	return out, ok
}

// ReleaseNodes checks the release of a GPU job's processors and GPUs.
func (c *checkedAlloc) ReleaseNodes(rs []cluster.Range, gpus int) {
	c.released(rs)
	c.Allocator.(gresAlloc).ReleaseNodes(rs, gpus)
	c.counts()
	c.nodes(rs, -1, gpus)
}

// allocated checks n processors just handed out as out.
func (c *checkedAlloc) allocated(n int, out []cluster.Range) {
	got := 0
	for _, r := range out {
		if r.Lo < 0 || int(r.Hi) > len(c.held) || r.Lo >= r.Hi {
			c.e.violate("allocator returned processors [%d,%d) on a %d-processor machine", r.Lo, r.Hi, len(c.held))
			continue
		}
		if c.p != nil {
			c.partChecks(r, 1)
		}
		for p := r.Lo; p < r.Hi; p++ {
			if c.held[p] && c.p != nil && c.p.Exclusive {
				c.e.violate("node %d of partition %q (processor %d) handed to two jobs", int(p-c.lo)/c.p.Cores, c.p.Name, p)
			} else if c.held[p] {
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
}

func (c *checkedAlloc) Release(rs []cluster.Range) {
	c.released(rs)
	c.Allocator.Release(rs)
	c.counts()
	c.nodes(rs, -1, 0)
}

// released checks processors rs about to be given back.
func (c *checkedAlloc) released(rs []cluster.Range) {
	for _, r := range rs {
		if r.Lo < 0 || int(r.Hi) > len(c.held) {
			c.e.violate("release of processors [%d,%d) on a %d-processor machine", r.Lo, r.Hi, len(c.held))
			continue
		}
		if c.p != nil {
			c.partChecks(r, -1)
		}
		for p := r.Lo; p < r.Hi; p++ {
			if !c.held[p] {
				c.e.violate("processor %d released while free", p)
			}
			c.held[p] = false
		}
		c.busy -= int(r.Len())
	}
}

// nodes updates, on a shared-core partition with GPUs, the cores and GPUs
// held on each node that processors rs (a job's, allocated: sign +1, or
// released: −1) touch, gpus GPUs per node, and checks each such node: in
// use within what the node has, and the placement's free counts equal to
// the node's less what is held. It returns the number of nodes touched.
func (c *checkedAlloc) nodes(rs []cluster.Range, sign, gpus int) int {
	if c.gres == nil {
		return 0
	}
	cores, gpn := c.gres.PerNode()
	lo := int(c.lo)
	touched := 0
	each := func(f func(n, k int)) { // node n, k of its processors in rs; a node's chunks are consecutive
		for _, r := range rs {
			for p := int(r.Lo) - lo; p < int(r.Hi)-lo; {
				n := p / cores
				hi := min(int(r.Hi)-lo, (n+1)*cores)
				f(n, hi-p)
				p = hi
			}
		}
	}
	last := -1
	each(func(n, k int) {
		c.coreHeld[n] += sign * k
		if n != last {
			c.gpuHeld[n] += sign * gpus
			last = n
			touched++
		}
	})
	each(func(n, _ int) {
		fc, fg := c.gres.NodeFree(n)
		switch {
		case c.coreHeld[n] > cores || c.coreHeld[n] < 0 || c.gpuHeld[n] > gpn || c.gpuHeld[n] < 0:
			c.e.violate("node %d of partition %q has %d cores and %d GPUs in use; it has %d and %d", n, c.p.Name, c.coreHeld[n], c.gpuHeld[n], cores, gpn)
		case fc != cores-c.coreHeld[n] || fg != gpn-c.gpuHeld[n]:
			c.e.violate("node %d of partition %q: the placement counts %d free cores and %d free GPUs, the ownership map %d and %d", n, c.p.Name, fc, fg, cores-c.coreHeld[n], gpn-c.gpuHeld[n])
		}
	})
	return touched
}

// counts checks the allocator's own free count against the ownership map.
func (c *checkedAlloc) counts() {
	if free := c.Allocator.Free(); free != int(c.hi-c.lo)-c.busy {
		c.e.violate("the allocator counts %d free processors, the ownership map %d", free, int(c.hi-c.lo)-c.busy)
	}
}

// finalChecks runs when the last event has been handled: every submitted
// job finished exactly once (finish checks that the job was running, so
// with equal counts none finished twice), and the energy balances.
func (e *Engine) finalChecks() {
	n := e.runs.Len() + e.wq.Len()
	if e.parts != nil {
		_, running := e.machineBusy()
		n = running + e.machineQueued()
		for _, s := range e.parts {
			if s.checked != nil && s.checked.busy != 0 {
				e.violate("%d processors of partition %q still held after the last job ended", s.checked.busy, s.Name)
			}
		}
	}
	if n != 0 {
		e.violate("%d jobs never finished", n)
	}
	if e.stats.Finished != e.stats.Submitted {
		e.violate("%d jobs submitted but %d finished", e.stats.Submitted, e.stats.Finished)
	}
	if e.checked != nil && e.checked.busy != 0 {
		e.violate("%d processors still held after the last job ended", e.checked.busy)
	}
	if e.nl != nil {
		e.checkNodeLoad() // nodeload.go: every node's busy count back to 0
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
	// GPUs (gpu.go): Σ jobs' own GPU energies against the machine's.
	if e.gpuOn && !agree(e.jobGPUJ, e.gpuJ) {
		e.violate("energy: jobs' own GPU energies sum to %.6f J, the machine's GPU energy is %.6f J", e.jobGPUJ, e.gpuJ)
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
