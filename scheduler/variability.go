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
// Limits of this version: the factors are fixed per node (no per-job noise
// or drift); EASY's reservation check is off, since a job's pace is known
// only once it is placed (as with the network model).

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

// initVariability checks Config.ProcVar.
func (e *Engine) initVariability() error {
	pv := e.cfg.ProcVar
	if pv == nil {
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
	e.vary = true
	e.checkRes = false
	return nil
}

// varyStart sets j's time factor and power factor from its allocation.
func (e *Engine) varyStart(j *job) {
	slow, sumS, sumP := 0.0, 0.0, 0.0
	for _, r := range j.alloc {
		for _, v := range e.cfg.ProcVar[r.Lo:r.Hi] {
			slow = max(slow, v.Slow)
			sumS += v.Slow
			sumP += v.Power
		}
	}
	n := float64(cluster.Count(j.alloc))
	switch e.cfg.Pace {
	case PaceSlowest:
		j.slow = slow
	case PaceMean:
		j.slow = sumS / n
	default:
		j.slow = 1
	}
	j.pf = sumP / n
}

// procSlow returns the time factors of processors [lo, lo+n), one per
// unit of that many processors (whole-node partitions allocate nodes), for
// cluster.PlacementConfig.Slow; nil without variability or a bad length
// (initVariability reports it).
func procSlow(pv []cluster.NodeVar, lo, n, unit int) []float64 {
	if pv == nil || lo+n > len(pv) {
		return nil
	}
	out := make([]float64, 0, n/unit)
	for p := lo; p < lo+n; p += unit {
		out = append(out, pv[p].Slow)
	}
	return out
}
