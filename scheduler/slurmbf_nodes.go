package scheduler

import (
	"math"

	"drsim/cluster"
)

// nodePlan is the backfill plan of a partition of whole nodes (a machine
// file's partition, Part.Cores > 1), as Slurm's sched/backfill keeps it:
// running jobs hold cores of specific nodes until their estimated ends, and
// a pending job's reservation holds whole nodes (Slurm's node_space map of
// node bitmaps) from its planned start to its planned end, whatever cores
// it would use on them. A job fits from t if the nodes reserved by no
// earlier job over [t, t+dur) have, each at its fewest over the interval,
// enough free cores between them (on an exclusive partition: enough nodes
// with every core free); its reservation takes those nodes in index order
// (first fit) until its processors are covered.
//
// Steps: free cores of node n from at[k] to at[k+1] are free[k*nodes+n];
// resv[k*nodes+n] marks node n reserved over that step.
type nodePlan struct {
	nodes, cores int
	lo           int // the partition's first processor
	exclusive    bool
	at           []float64
	free         []int32
	resv         []bool
	end          float64 // the window's end: nothing is planned past it
	pick         []int32 // scratch: nodes of the current answer
	minFree      []int32 // scratch: a node's fewest free cores over an interval
	usable       []bool  // scratch: a node is reserved by no one over it
}

// usesNodes reports whether the bound partition is planned by node.
func (e *Engine) usesNodes() bool {
	return e.parts != nil && e.parts[e.cur].Cores > 1
}

// reset starts a plan at now from the bound partition's running jobs, each
// holding its cores until its estimated end rounded up by rnd (ends at or
// past horizon hold them to the window's end).
func (pl *nodePlan) reset(v *View, now, horizon float64, rnd bfRound) {
	e := v.e
	p := &e.parts[e.cur]
	pl.cores, pl.lo, pl.exclusive = p.Cores, p.Lo, p.Exclusive
	pl.nodes = p.Procs / p.Cores
	pl.end = horizon
	n := pl.nodes
	pl.at = append(pl.at[:0], now)
	pl.free = pl.free[:0]
	for range n {
		pl.free = append(pl.free, int32(pl.cores))
	}
	for k := range e.runs.Len() {
		pl.addAlloc(0, e.jobs[e.runs.at(k).slot].alloc, -1)
	}
	// Running jobs come in estimated-end order: each end opens a step.
	for k := range e.runs.Len() {
		r := e.runs.at(k)
		t := max(rnd.up(r.estEnd), now)
		if t >= horizon {
			break
		}
		last := len(pl.at) - 1
		if pl.at[last] != t {
			pl.at = append(pl.at, t)
			pl.free = append(pl.free, pl.free[last*n:(last+1)*n]...)
			last++
		}
		pl.addAlloc(last, e.jobs[r.slot].alloc, 1)
	}
	pl.resv = pl.resv[:0]
	for range pl.free {
		pl.resv = append(pl.resv, false)
	}
	pl.minFree = grow32(pl.minFree, n)
	pl.usable = growBool(pl.usable, n)
}

// addAlloc adds sign × the cores of alloc on each node to step k.
func (pl *nodePlan) addAlloc(k int, alloc []cluster.Range, sign int32) {
	row := pl.free[k*pl.nodes : (k+1)*pl.nodes]
	for _, r := range alloc {
		for p := int(r.Lo); p < int(r.Hi); {
			node := (p - pl.lo) / pl.cores
			next := min(int(r.Hi), pl.lo+(node+1)*pl.cores)
			if node >= 0 && node < pl.nodes {
				row[node] += sign * int32(next-p)
			}
			p = next
		}
	}
}

// fits reports whether procs processors fit from step k for dur seconds,
// leaving the nodes they would take, in index order, in pl.pick.
func (pl *nodePlan) fits(k, procs int, dur float64) bool {
	n := pl.nodes
	for i := range n {
		pl.minFree[i], pl.usable[i] = math.MaxInt32, true
	}
	end := pl.at[k] + dur
	for m := k; m < len(pl.at) && (m == k || pl.at[m] < end); m++ {
		row, rs := pl.free[m*n:(m+1)*n], pl.resv[m*n:(m+1)*n]
		for i := range n {
			pl.usable[i] = pl.usable[i] && !rs[i]
			pl.minFree[i] = min(pl.minFree[i], row[i])
		}
	}
	pl.pick = pl.pick[:0]
	got := 0
	for i := 0; i < n && got < procs; i++ {
		f := int(pl.minFree[i])
		if !pl.usable[i] || f <= 0 || pl.exclusive && f < pl.cores {
			continue
		}
		pl.pick = append(pl.pick, int32(i))
		got += f
	}
	return got >= procs
}

// earliest returns the first step start from which procs processors fit
// for dur seconds (+Inf if none before the window's end), with the nodes
// they would take in pl.pick.
func (pl *nodePlan) earliest(procs int, dur float64) float64 {
	for k := range pl.at {
		if pl.at[k] >= pl.end {
			break
		}
		if pl.fits(k, procs, dur) {
			return pl.at[k]
		}
	}
	return math.Inf(1)
}

// split makes t a step boundary (t at or after the first step) and returns
// its index.
func (pl *nodePlan) split(t float64) int {
	k := 0
	for k < len(pl.at) && pl.at[k] < t {
		k++
	}
	if k < len(pl.at) && pl.at[k] == t {
		return k
	}
	n := pl.nodes
	pl.at = append(pl.at, 0)
	copy(pl.at[k+1:], pl.at[k:])
	pl.at[k] = t
	pl.free = append(pl.free, make([]int32, n)...)
	copy(pl.free[(k+1)*n:], pl.free[k*n:])
	copy(pl.free[k*n:(k+1)*n], pl.free[(k-1)*n:k*n])
	pl.resv = append(pl.resv, make([]bool, n)...)
	copy(pl.resv[(k+1)*n:], pl.resv[k*n:])
	copy(pl.resv[k*n:(k+1)*n], pl.resv[(k-1)*n:k*n])
	return k
}

// reserve holds the nodes in pl.pick over [from, to).
func (pl *nodePlan) reserve(from, to float64) {
	lo, hi := pl.span(from, to)
	for k := lo; k < hi; k++ {
		for _, i := range pl.pick {
			pl.resv[k*pl.nodes+int(i)] = true
		}
	}
}

// hold takes a job started now out of the plan: its cores on its nodes
// over [from, to).
func (pl *nodePlan) hold(from, to float64, alloc []cluster.Range) {
	lo, hi := pl.span(from, to)
	for k := lo; k < hi; k++ {
		pl.addAlloc(k, alloc, -1)
	}
}

// span splits the plan at from and at to (clamped to the window's end) and
// returns the steps between.
func (pl *nodePlan) span(from, to float64) (lo, hi int) {
	to = max(min(to, pl.end), from)
	lo = pl.split(from)
	hi = pl.split(to)
	return lo, hi
}

// most returns the most processors free in any step before the window's
// end, reservations aside.
func (pl *nodePlan) most() int {
	m := 0
	for k := range pl.at {
		if pl.at[k] >= pl.end {
			break
		}
		s := 0
		for _, f := range pl.free[k*pl.nodes : (k+1)*pl.nodes] {
			if !pl.exclusive || int(f) == pl.cores {
				s += int(max(f, 0))
			}
		}
		m = max(m, s)
	}
	return m
}

func grow32(s []int32, n int) []int32 {
	if cap(s) < n {
		return make([]int32, n)
	}
	return s[:n]
}

func growBool(s []bool, n int) []bool {
	if cap(s) < n {
		return make([]bool, n)
	}
	return s[:n]
}

// backfillNodes is one backfill pass over a partition of whole nodes
// (backfill, with a nodePlan instead of processor counts).
func (p *SlurmBackfill) backfillNodes(v *View, ps *SlurmSched) {
	e, rnd := v.e, bfRound{ps.BfResolution}
	now, horizon := v.Now, v.Now+ps.BfWindow
	pl := &p.nodes
	pl.reset(v, now, horizon, rnd)
	reserved, tested := 0, 0
	most := pl.most() // as in backfill: larger jobs are skipped, not tested
	for i := v.Next(0, most); i >= 0 && tested < ps.BfMaxJobTest; i = v.Next(i+1, most) {
		tested++
		procs, est := bfJob(v, i)
		dur := rnd.up(est)
		t := math.Inf(1)
		if ps.BfPartCountResv > 0 && reserved >= ps.BfPartCountResv {
			if pl.fits(0, procs, dur) {
				t = now
			}
		} else {
			t = pl.earliest(procs, dur)
		}
		switch {
		case t == now && v.Fits(i):
			slot := e.wq.slots[i]
			v.Start(i)
			pl.hold(now, now+dur, e.jobs[slot].alloc)
		case t >= horizon:
		case ps.BfPartCountResv == 0 || reserved < ps.BfPartCountResv:
			reserved++
			v.Reserve(i, t)
			pl.reserve(t, t+dur)
		}
	}
}
