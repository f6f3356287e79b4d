package sim

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	"drsim/scheduler"
	"drsim/workloads"
)

// Event is one demand-response event: a power limit of LimitW watts over
// [Start, End) in trace seconds.
type Event struct{ Start, End, LimitW float64 }

// Limits resolves the spec's demand-response options into a power-limit
// schedule: steps sorted by time, W = +Inf where no limit is in force.
// peakW is the cluster's peak power, the base of fractional limits. See
// Events for the options and BaseLimit for the limit outside events.
func Limits(d Spec, tr *workloads.Trace, peakW float64) ([]scheduler.LimitStep, error) {
	d = d.withDefaults()
	if d.BaseLimit < 0 || math.IsNaN(d.BaseLimit) || math.IsInf(d.BaseLimit, 0) {
		return nil, fmt.Errorf("base-limit: %v W is not a power limit; need > 0 (or 0 for none)", d.BaseLimit)
	}
	ev, err := Events(d, tr, peakW)
	if err != nil {
		return nil, err
	}
	t0, _ := Span(d, tr)
	return Steps(ev, d.BaseLimit, t0), nil
}

// Steps turns sorted, non-overlapping events into a limit schedule: base W
// (0 or less: none, +Inf) from t0 and between events, each event's limit
// inside it. Touching events with equal limits merge.
func Steps(ev []Event, base, t0 float64) []scheduler.LimitStep {
	if base <= 0 {
		base = math.Inf(1)
	}
	var s []scheduler.LimitStep
	push := func(t, w float64) {
		n := len(s)
		if n > 0 && s[n-1].T == t {
			s = s[:n-1]
			n--
		}
		cur := math.Inf(1)
		if n > 0 {
			cur = s[n-1].W
		}
		if w != cur {
			s = append(s, scheduler.LimitStep{T: t, W: w})
		}
	}
	if !math.IsInf(base, 1) {
		push(t0, base)
	}
	for _, e := range ev {
		push(e.Start, e.LimitW)
		push(e.End, base)
	}
	return s
}

// Events returns the DR events of the spec, sorted by start. At most one
// source may be given:
//
//   - DREvents: a CSV file with columns start,end and one of limit_w (W) or
//     limit_frac (fraction of peakW); see ReadEvents.
//   - DRRatio r in (0, 1]: events at DRLimit×peakW, each lasting DRDuration
//     ("3h" fixed, "2h-4h" drawn uniformly, whole seconds), placed at
//     random (seed DRSeed) without overlap so that they cover r of the span
//     (Span) exactly (to the second): durations are drawn until they add up
//     to r×span (the last one is cut short), then the free time is split
//     into random gaps by sorted uniform draws.
//   - DRDaily "HH:MM-HH:MM": that window every day, in the trace's local
//     time (Header.UnixStartTime + Header.TimeZone), at DRLimit×peakW,
//     clipped to the span. A window ending before it starts wraps past
//     midnight. Without UnixStartTime, trace time 0 is midnight; without a
//     TimeZoneString the zone is UTC.
//
// Events starting before the first submit start at it (the meter starts
// there); events entirely outside the span are an error.
func Events(d Spec, tr *workloads.Trace, peakW float64) ([]Event, error) {
	d = d.withDefaults()
	n := 0
	for _, on := range []bool{d.DREvents != "", d.DRRatio != 0, d.DRDaily != ""} {
		if on {
			n++
		}
	}
	switch {
	case n == 0:
		return nil, nil
	case n > 1:
		return nil, fmt.Errorf("dr-events, dr-ratio and dr-daily are alternatives; give one")
	case len(tr.Jobs) == 0:
		return nil, fmt.Errorf("DR events: the trace has no jobs")
	}
	if d.DREvents != "" {
		return ReadEvents(d.DREvents, tr, peakW, d)
	}
	if !(d.DRLimit > 0) || math.IsInf(d.DRLimit, 0) {
		return nil, fmt.Errorf("dr-limit: %v is not a fraction of peak power; need > 0", d.DRLimit)
	}
	if d.DRDaily != "" {
		return dailyEvents(d.DRDaily, tr, d.DRLimit*peakW, d)
	}
	if !(d.DRRatio > 0 && d.DRRatio <= 1) {
		return nil, fmt.Errorf("dr-ratio: %v is not a fraction of the span; need 0 < r ≤ 1", d.DRRatio)
	}
	lo, hi, err := parseDuration(d.DRDuration)
	if err != nil {
		return nil, err
	}
	t0, t1 := Span(d, tr)
	return randomEvents(t0, t1, d.DRRatio, lo, hi, d.DRLimit*peakW, d.DRSeed), nil
}

// routed returns tr restricted to the jobs partOf (a machine file's router)
// sends to a partition, so that generated DR events and the limit schedule
// cover the jobs that run: with a filter to one partition, the span of the
// whole log would place events long after the last kept job ends and the
// meter would integrate idle power up to the last one. tr itself without a
// router or when every job is routed.
func routed(tr *workloads.Trace, partOf func(*workloads.Job) int) *workloads.Trace {
	if partOf == nil {
		return tr
	}
	n := 0
	for i := range tr.Jobs {
		if partOf(&tr.Jobs[i]) >= 0 {
			n++
		}
	}
	if n == len(tr.Jobs) {
		return tr
	}
	kept := *tr
	kept.Jobs = make([]workloads.Job, 0, n)
	for i := range tr.Jobs {
		if partOf(&tr.Jobs[i]) >= 0 {
			kept.Jobs = append(kept.Jobs, tr.Jobs[i])
		}
	}
	return &kept
}

// Span estimates the simulated span: from the first submit to the later of
// the last possible end without waiting (max submit + runtime) and the end
// of the work packed on the machine (first submit + Σ procs×runtime /
// machine processors). Events are placed and checked against it, so it
// depends only on the trace and the machine size, never on the policy.
func Span(d Spec, tr *workloads.Trace) (t0, t1 float64) {
	if len(tr.Jobs) == 0 {
		return 0, 0
	}
	procs := float64(tr.MachineProcs)
	if d.Procs > 0 {
		procs = float64(d.Procs)
	}
	t0 = tr.Jobs[0].Submit
	t1 = t0
	work := 0.0
	for i := range tr.Jobs {
		j := &tr.Jobs[i]
		t0 = math.Min(t0, j.Submit)
		t1 = math.Max(t1, j.Submit+j.Run)
		work += float64(j.Procs) * j.Run
	}
	if procs > 0 {
		t1 = math.Max(t1, t0+work/procs)
	}
	return t0, t1
}

// parseDuration reads "3h" or "2h-4h" (Go durations) into seconds.
func parseDuration(s string) (lo, hi float64, err error) {
	a, b, rng := strings.Cut(s, "-")
	bad := func() error {
		return fmt.Errorf("dr-duration: %q: want a length such as 3h or a range such as 2h-4h (each at least 1s)", s)
	}
	da, err := time.ParseDuration(strings.TrimSpace(a))
	if err != nil {
		return 0, 0, bad()
	}
	db := da
	if rng {
		if db, err = time.ParseDuration(strings.TrimSpace(b)); err != nil {
			return 0, 0, bad()
		}
	}
	if da < time.Second || db < da {
		return 0, 0, fmt.Errorf("dr-duration: %q: need 1s ≤ min ≤ max", s)
	}
	return da.Seconds(), db.Seconds(), nil
}

// randomEvents places events covering ratio of [t0, t1]; see Events.
func randomEvents(t0, t1, ratio, lo, hi, limit float64, seed uint64) []Event {
	rng := rand.New(rand.NewPCG(seed, 0))
	target := math.Round(ratio * (t1 - t0))
	var durs []float64
	for sum := 0.0; sum < target; {
		d := math.Round(lo + rng.Float64()*(hi-lo))
		d = math.Min(d, target-sum)
		durs = append(durs, d)
		sum += d
	}
	gap := math.Floor(t1 - t0 - target)
	offs := make([]float64, len(durs))
	for i := range offs {
		offs[i] = math.Floor(rng.Float64() * (gap + 1))
		offs[i] = math.Min(offs[i], gap)
	}
	slices.Sort(offs)
	ev := make([]Event, len(durs))
	at := t0
	for i, d := range durs {
		s := at + offs[i]
		ev[i] = Event{Start: s, End: s + d, LimitW: limit}
		at += d
	}
	return ev
}

// dailyEvents builds one event per local day; see Events.
func dailyEvents(win string, tr *workloads.Trace, limit float64, d Spec) ([]Event, error) {
	var h1, m1, h2, m2 int
	if _, err := fmt.Sscanf(win, "%d:%d-%d:%d", &h1, &m1, &h2, &m2); err != nil ||
		h1 < 0 || h1 > 24 || h2 < 0 || h2 > 24 || m1 < 0 || m1 > 59 || m2 < 0 || m2 > 59 {
		return nil, fmt.Errorf("dr-daily: %q is not a window like 14:00-18:00", win)
	}
	if h1*60+m1 == h2*60+m2 {
		return nil, fmt.Errorf("dr-daily: %q is an empty window", win)
	}
	loc, err := traceZone(tr)
	if err != nil {
		return nil, err
	}
	epoch := tr.Header.UnixStartTime
	t0, t1 := Span(d, tr)
	day := time.Unix(epoch+int64(math.Floor(t0)), 0).In(loc)
	day = time.Date(day.Year(), day.Month(), day.Day()-1, 0, 0, 0, 0, loc)
	var ev []Event
	for ; ; day = time.Date(day.Year(), day.Month(), day.Day()+1, 0, 0, 0, 0, loc) {
		s := time.Date(day.Year(), day.Month(), day.Day(), h1, m1, 0, 0, loc)
		e := time.Date(day.Year(), day.Month(), day.Day(), h2, m2, 0, 0, loc)
		if !e.After(s) {
			e = time.Date(day.Year(), day.Month(), day.Day()+1, h2, m2, 0, 0, loc)
		}
		a, b := float64(s.Unix()-epoch), float64(e.Unix()-epoch)
		if a >= t1 {
			break
		}
		a = math.Max(a, t0)
		if b > a {
			ev = append(ev, Event{Start: a, End: b, LimitW: limit})
		}
	}
	if len(ev) == 0 {
		return nil, fmt.Errorf("dr-daily: %q never falls inside the simulated span", win)
	}
	return ev, nil
}

// traceZone is the trace's time zone: its TimeZoneString, or UTC.
func traceZone(tr *workloads.Trace) (*time.Location, error) {
	if tr.Header.TimeZone == "" {
		return time.UTC, nil
	}
	loc, err := time.LoadLocation(tr.Header.TimeZone)
	if err != nil {
		return nil, fmt.Errorf("trace time zone %q: %v", tr.Header.TimeZone, err)
	}
	return loc, nil
}
