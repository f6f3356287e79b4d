package scheduler

import (
	"fmt"
	"math"

	"drsim/cluster"
)

// Per-node variability (issue 17; Config.ProcVar). Each processor carries
// its node's time factor and power factor (cluster.NodeVar). When a job
// starts, its compute time is multiplied by the pace over its processors
// (Config.Pace) and its power by the mean power factor over them:
//
//   - PaceSlowest: a bulk-synchronous job runs at its slowest node's pace
//     (Cornebize et al. 2019, seed 004 §6.3: a few slow hosts set the pace
//     of HPL), so its duration is the base duration × the largest time
//     factor of its nodes.
//   - PaceMean: the processor-weighted mean time factor (loosely coupled
//     work that balances its load).
//   - PaceIgnore: durations as without variability (today's behaviour);
//     power factors still apply.
//
// Every processor of the job draws its node's power factor × the level's
// per-processor power for the whole duration: the fast nodes that wait at
// the barrier busy-wait, which the taurus measurements (Heinrich, seed 000
// §8.2) found draws load power, not idle. Idle processors draw the
// nominal idle power. The factors enter as multipliers that are exactly
// 1 without variability (x·1 = x in IEEE arithmetic), so outputs are
// byte-identical then; the only other cost is one branch at job start.
//
// Temporal variability: Config.JobNoise multiplies each run's pace by a
// seeded 1 + sd·z (z normal, truncated at ±3; not under PaceIgnore), and
// Config.Drift slows nodes from given times on (DriftStep). A job's pace
// is fixed when it starts.
//
// Limits of this version: EASY's reservation check is off, since a job's
// pace is known only once it is placed (as with the network model).

// Pace says how a job's nodes' time factors combine.
type Pace uint8

const (
	PaceSlowest Pace = iota // the slowest node's (default)
	PaceMean                // the processor-weighted mean
	PaceIgnore              // 1: durations as without variability
)

// Paces names the paces, by value.
var Paces = [...]string{"slowest", "mean", "ignore"}

// ParsePace returns the pace named s.
func ParsePace(s string) (Pace, error) {
	for i, n := range Paces {
		if n == s {
			return Pace(i), nil
		}
	}
	return 0, fmt.Errorf("unknown pace %q (known: slowest, mean, ignore)", s)
}

// DriftStep says that from time T on, processors [Lo, Hi) (a node) take
// Slow times as long as before (temporal variability: Cornebize et al.
// 2019, seed 004 line 278, saw a few Dahu nodes slow down over months;
// Heinrich, seed 000 near line 1500, an idle power drift). Jobs started
// before T keep their pace.
type DriftStep struct {
	T      float64
	Lo, Hi int
	Slow   float64
	IdleW  float64 // the node's idle power (its whole power line) rises by IdleW W from T on (nodeload.go); 0: none
}

// slowView is a placement's copy of time factors, one per unit processors
// from lo (whole-node partitions), kept current under drift.
type slowView struct {
	s        []float64
	lo, unit int
}

// initVarFactors copies Config.ProcVar into the engine's own factors
// (drift changes them); New calls it before building the placements.
func (e *Engine) initVarFactors() {
	pv := e.cfg.ProcVar
	if pv == nil || len(pv) != e.cfg.Procs {
		return // initVariability reports a bad length
	}
	e.vSlow, e.vPow = make([]float64, len(pv)), make([]float64, len(pv)+1)
	for p, v := range pv {
		e.vSlow[p], e.vPow[p+1] = v.Slow, e.vPow[p]+v.Power
	}
	e.sPre = make([]float64, len(pv)+1)
	e.bMax = make([]float64, (len(pv)+vBlock-1)/vBlock)
	e.slowIndex(0, len(pv))
}

// vBlock is the block size of the time factors' block maxima.
const vBlock = 32

// slowIndex rebuilds the prefix sums of the time factors from processor
// lo on and the block maxima of the blocks overlapping [lo, hi).
func (e *Engine) slowIndex(lo, hi int) {
	for p := lo; p < len(e.vSlow); p++ {
		e.sPre[p+1] = e.sPre[p] + e.vSlow[p]
	}
	for b := lo / vBlock; b*vBlock < hi; b++ {
		m := 0.0
		for _, v := range e.vSlow[b*vBlock : min((b+1)*vBlock, len(e.vSlow))] {
			if v > m {
				m = v
			}
		}
		e.bMax[b] = m
	}
}

// slowMax returns the largest time factor of processors [lo, hi): whole
// blocks by their maxima, the ends one by one.
func (e *Engine) slowMax(lo, hi int) float64 {
	m := 0.0
	for ; lo < hi && lo%vBlock != 0; lo++ {
		if v := e.vSlow[lo]; v > m {
			m = v
		}
	}
	for ; lo+vBlock <= hi; lo += vBlock {
		if v := e.bMax[lo/vBlock]; v > m {
			m = v
		}
	}
	for ; lo < hi; lo++ {
		if v := e.vSlow[lo]; v > m {
			m = v
		}
	}
	return m
}

// initVariability checks Config.ProcVar, JobNoise and Drift.
func (e *Engine) initVariability() error {
	if err := e.initNodeLoad(); err != nil { // nodeload.go
		return err
	}
	pv := e.cfg.ProcVar
	if pv == nil {
		if e.cfg.JobNoise != 0 || len(e.cfg.Drift) > 0 {
			return fmt.Errorf("scheduler: job noise and drift need per-node variability (Config.ProcVar)")
		}
		return nil
	}
	if len(pv) != e.cfg.Procs {
		return fmt.Errorf("scheduler: variability given for %d processors on a %d-processor machine", len(pv), e.cfg.Procs)
	}
	if e.cfg.Pace > PaceIgnore {
		return fmt.Errorf("scheduler: unknown pace %d", e.cfg.Pace)
	}
	e.pfMax = 1
	for p, v := range pv {
		if !(v.Slow > 0) || !(v.Power > 0) || math.IsInf(v.Slow, 0) || math.IsInf(v.Power, 0) {
			return fmt.Errorf("scheduler: processor %d has time factor %v and power factor %v; need finite values > 0", p, v.Slow, v.Power)
		}
		e.pfMax = max(e.pfMax, v.Power)
	}
	if !(e.cfg.JobNoise >= 0 && e.cfg.JobNoise <= 0.3) {
		return fmt.Errorf("scheduler: job noise %v; need a value in [0, 0.3]", e.cfg.JobNoise)
	}
	for i, d := range e.cfg.Drift {
		switch {
		case d.Lo < 0 || d.Hi > e.cfg.Procs || d.Lo >= d.Hi:
			return fmt.Errorf("scheduler: drift step %d covers processors [%d, %d) of %d", i, d.Lo, d.Hi, e.cfg.Procs)
		case !(d.Slow > 0) || math.IsInf(d.Slow, 0) || math.IsNaN(d.T):
			return fmt.Errorf("scheduler: drift step %d at t=%v has factor %v; need a finite value > 0", i, d.T, d.Slow)
		case i > 0 && d.T < e.cfg.Drift[i-1].T:
			return fmt.Errorf("scheduler: drift steps not sorted at step %d (t=%v)", i, d.T)
		}
	}
	e.vary = true
	e.checkRes = false
	return nil
}

// applyDrift applies the drift steps due by now (job starts come in time
// order, so applying them lazily at the next start is exact for every job).
func (e *Engine) applyDrift(now float64) {
	for ; e.driftIdx < len(e.cfg.Drift) && e.cfg.Drift[e.driftIdx].T <= now; e.driftIdx++ {
		d := &e.cfg.Drift[e.driftIdx]
		if d.Slow == 1 {
			continue // an idle-power step (nodeload.go), or no change
		}
		for p := d.Lo; p < d.Hi; p++ {
			e.vSlow[p] *= d.Slow
		}
		e.slowIndex(d.Lo, d.Hi)
		for _, v := range e.slowViews {
			for k := range v.s {
				if p := v.lo + k*v.unit; p < d.Hi && p+v.unit > d.Lo {
					v.s[k] = e.vSlow[p]
				}
			}
		}
		for _, a := range e.factorRdrs {
			a.FactorsChanged()
		}
	}
}

// watchFactors keeps a, if it derives state from the time factors
// (cluster.FactorReader: fastnodes' ranking), to be told of drift.
func (e *Engine) watchFactors(a cluster.Allocator) {
	if r, ok := a.(cluster.FactorReader); ok && e.vSlow != nil {
		e.factorRdrs = append(e.factorRdrs, r)
	}
}

// varyStart sets j's time factor and power factor from its allocation:
// sums from prefix sums, the maximum from block maxima, so a wide job
// costs O(ranges + processors/32).
func (e *Engine) varyStart(j *job) {
	slow, sumS, sumP, cnt := 0.0, 0.0, 0.0, 0
	for _, r := range j.alloc {
		lo, hi := int(r.Lo), int(r.Hi)
		sumP += e.vPow[hi] - e.vPow[lo]
		sumS += e.sPre[hi] - e.sPre[lo]
		cnt += hi - lo
		if e.cfg.Pace == PaceSlowest {
			slow = max(slow, e.slowMax(lo, hi))
		}
	}
	n := float64(cnt)
	switch e.cfg.Pace {
	case PaceSlowest:
		j.slow = slow
	case PaceMean:
		j.slow = sumS / n
	default:
		j.slow = 1
	}
	if e.cfg.JobNoise > 0 && e.cfg.Pace != PaceIgnore {
		j.slow *= max(0.1, 1+e.cfg.JobNoise*jobNormal(e.cfg.Seed, j.id, j.evictions))
	}
	j.pf = sumP / n
}

// jobNormal is a standard normal draw truncated at ±3, a function of the
// seed, the job and its run (so a requeued job draws again), whatever the
// order jobs start in.
func jobNormal(seed uint64, id int64, run int) float64 {
	a := splitmix(seed ^ splitmix(uint64(id)) ^ uint64(run)<<48)
	b := splitmix(a)
	u1 := (float64(a>>11) + 0.5) / (1 << 53)
	u2 := float64(b>>11) / (1 << 53)
	z := math.Sqrt(-2*math.Log(u1)) * math.Cos(2*math.Pi*u2)
	return max(-3, min(3, z))
}

func splitmix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}

// procSlow returns the time factors of processors [lo, lo+n) for
// cluster.PlacementConfig.Slow: the engine's own (drift updates them) or,
// with unit > 1 (whole-node partitions allocate nodes), one per node, kept
// current by applyDrift; nil without variability.
func (e *Engine) procSlow(lo, n, unit int) []float64 {
	if e.vSlow == nil || lo+n > len(e.vSlow) {
		return nil
	}
	if unit == 1 {
		return e.vSlow[lo : lo+n : lo+n]
	}
	out := make([]float64, 0, n/unit)
	for p := lo; p < lo+n; p += unit {
		out = append(out, e.vSlow[p])
	}
	e.slowViews = append(e.slowViews, slowView{out, lo, unit})
	return out
}
