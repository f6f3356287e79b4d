package sim

import (
	"math"
	"sort"

	"drsim/scheduler"
)

// DefaultRAPLWindow is the RAPL averaging window (s) when Spec.RAPLWindow
// is 0: about the default PL1 time window of Intel packages (~1 s).
const DefaultRAPLWindow = 1.0

// windowSink checks the RAPL form of the limit: RAPL enforces a cap as an
// average over a time window, so short excursions are allowed. It sees the
// cluster's piecewise-constant power (a scheduler.PowerObserver) and
// computes, over every window [t − W, t] lying inside one stretch of a
// constant finite limit L, the largest excess of the window-averaged power
// over L (W; ≤ 0 when the invariant holds, -Inf when no window fits).
// Windows that straddle a limit change are not checked: writing a new
// RAPL limit restarts its averaging. At job granularity power changes only
// at events, so the window-averaged excess is at most the instantaneous
// one; the cap governors keep the instantaneous power under the limit, so
// both are ≤ 0 for them.
type windowSink struct {
	w       float64
	ts, ps  []float64 // steps of the current constant-limit stretch
	limit   float64
	maxExcW float64
}

var _ scheduler.PowerObserver = (*windowSink)(nil)

func newWindowSink(w float64) *windowSink {
	if w <= 0 {
		w = DefaultRAPLWindow
	}
	return &windowSink{w: w, limit: math.Inf(1), maxExcW: math.Inf(-1)}
}

func (s *windowSink) Power(t, watts, limit float64, _, _ int) error {
	if limit != s.limit {
		s.flush(t)
		s.limit = limit
	}
	if n := len(s.ts); n > 0 && s.ts[n-1] == t {
		s.ps[n-1] = watts
	} else {
		s.ts, s.ps = append(s.ts, t), append(s.ps, watts)
	}
	return nil
}

// flush closes the current stretch at end.
func (s *windowSink) flush(end float64) {
	if !math.IsInf(s.limit, 1) && len(s.ts) > 0 {
		if m, ok := windowMax(s.ts, s.ps, end, s.w); ok {
			s.maxExcW = math.Max(s.maxExcW, m-s.limit)
		}
	}
	s.ts, s.ps = s.ts[:0], s.ps[:0]
}

// windowMax returns the largest average of the step function (power ps[k]
// from ts[k] to the next step, the last to end) over a window of length w
// inside [ts[0], end]; ok is false when the stretch is shorter than w. The
// window integral is piecewise linear in the window's end t, with kinks
// where t or t − w meets a step, so its maximum is at one of those
// points or at an end of the admissible range.
func windowMax(ts, ps []float64, end, w float64) (float64, bool) {
	lo := ts[0] + w
	if lo > end {
		return 0, false
	}
	cum := make([]float64, len(ts)+1) // ∫ from ts[0] to ts[k]
	for k := 1; k < len(ts); k++ {
		cum[k] = cum[k-1] + ps[k-1]*(ts[k]-ts[k-1])
	}
	integral := func(t float64) float64 { // ∫ from ts[0] to t
		k := sort.SearchFloat64s(ts, t)
		if k == len(ts) || ts[k] > t {
			k--
		}
		return cum[k] + ps[k]*(t-ts[k])
	}
	best := math.Inf(-1)
	try := func(t float64) {
		if t >= lo && t <= end {
			best = math.Max(best, (integral(t)-integral(t-w))/w)
		}
	}
	try(lo)
	try(end)
	for _, t := range ts {
		try(t)
		try(t + w)
	}
	return best, true
}

// capWindow returns the RAPL window check of a power-cap run, nil in the
// DVFS mode.
func capWindow(d Spec) *windowSink {
	if !capMode(d) {
		return nil
	}
	return newWindowSink(d.RAPLWindow)
}

func (s *windowSink) observer() scheduler.PowerObserver {
	if s == nil {
		return nil
	}
	return s
}

// result closes the last stretch at end and returns the worst
// window-averaged excess over the limit, floored at 0 (0: the RAPL
// invariant held).
func (s *windowSink) result(end float64) float64 {
	if s == nil {
		return 0
	}
	if n := len(s.ts); n > 0 {
		end = math.Max(end, s.ts[n-1])
	}
	s.flush(end)
	return math.Max(0, s.maxExcW)
}
