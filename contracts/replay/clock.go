package replay

import (
	"fmt"
	"math"
	"strings"
	"time"

	"drsim/contracts"
	"drsim/workloads"
)

// clockMode is how trace time becomes price-series time.
type clockMode uint8

const (
	modeInstant clockMode = iota // UTC series: the instant UnixStartTime + t
	modeLabel                    // local-label and cyclic series: the trace's wall clock, as a UTC-stamped label
	modeZoned                    // UTC series with PriceZone: the trace's wall clock read in PriceZone
	modeIndex                    // hour-index series: hour 0 is the first slot
)

var modeNames = [...]string{"instant (UnixStartTime + t)", "trace wall clock as the series' local labels",
	"trace wall clock read in the price zone", "hour index from the first slot"}

// priceClock maps trace time (s) to the time of the price series.
type priceClock struct {
	s      *contracts.Series
	mode   clockMode
	base   time.Time      // instant of trace time 0
	local  *time.Location // the trace's zone
	zone   *time.Location // PriceZone
	t0     float64        // first slot start, trace time
	offset time.Duration
}

const week = 7 * 24 * time.Hour

// newClock builds the mapping and the first slot start T0 (first submit
// moved back onto the series' hour grid).
func newClock(cfg *Config, tr *workloads.Trace, first float64) (*priceClock, error) {
	s := cfg.Prices
	c := &priceClock{s: s, base: time.Unix(tr.Header.UnixStartTime, 0).UTC(), local: time.UTC, zone: cfg.PriceZone, t0: first}
	switch {
	case strings.HasPrefix(s.Clock, "hour index") && !s.Cyclic:
		c.mode = modeIndex
	case s.Clock != "UTC":
		c.mode = modeLabel
	case cfg.PriceZone != nil:
		c.mode = modeZoned
	}
	if tz := tr.Header.TimeZone; tz != "" && (c.mode == modeLabel || c.mode == modeZoned) {
		loc, err := time.LoadLocation(tz)
		if err != nil {
			return nil, fmt.Errorf("replay: trace TimeZoneString %q: %v", tz, err)
		}
		c.local = loc
	}
	if c.mode != modeIndex {
		d := c.at(first).Sub(s.Start) % cfg.Slot
		if d < 0 {
			d += cfg.Slot
		}
		c.t0 = first - d.Seconds()
	}
	if !cfg.PriceStart.IsZero() {
		d := cfg.PriceStart.Sub(c.at(c.t0))
		c.offset = time.Duration(math.Ceil(float64(d)/float64(week))) * week
	}
	c.offset += cfg.Offset
	return c, nil
}

func dur(sec float64) time.Duration { return time.Duration(math.Round(sec * 1e9)) }

// at returns the price-series time of trace time t.
func (c *priceClock) at(t float64) time.Time {
	switch c.mode {
	case modeIndex:
		return c.s.Start.Add(dur(t-c.t0) + c.offset)
	case modeInstant:
		return c.base.Add(dur(t) + c.offset)
	}
	w := c.base.Add(dur(t)).In(c.local)
	l := time.Date(w.Year(), w.Month(), w.Day(), w.Hour(), w.Minute(), w.Second(), w.Nanosecond(), time.UTC).Add(c.offset)
	if c.mode == modeLabel {
		return l
	}
	return time.Date(l.Year(), l.Month(), l.Day(), l.Hour(), l.Minute(), l.Second(), l.Nanosecond(), c.zone)
}

// price returns the price of slot k (length S seconds) and the series time
// of its start: the hour containing the start, or for slots longer than the
// series step the mean of the steps starting in the slot.
func (c *priceClock) price(k int, S float64) (float64, time.Time, error) {
	start := c.t0 + float64(k)*S
	ts := c.at(start)
	step := c.s.Step.Seconds()
	n := 1
	if S > step {
		n = int(math.Ceil(S/step - 1e-9))
	}
	sum := 0.0
	for j := range n {
		p, err := c.s.At(c.at(start + float64(j)*step))
		if err != nil {
			return 0, ts, fmt.Errorf("replay: slot %d (trace time %gs, price time %s): %w; shift the prices with a price start or offset",
				k, start, ts.Format(time.RFC3339), err)
		}
		sum += p
	}
	return sum / float64(n), ts, nil
}

// describe says how trace time was mapped, for the summary.
func (c *priceClock) describe() string {
	s := modeNames[c.mode]
	if c.mode == modeLabel || c.mode == modeZoned {
		s += " (trace zone " + c.local.String()
		if c.mode == modeZoned {
			s += ", price zone " + c.zone.String()
		}
		s += ")"
	}
	if c.offset != 0 {
		s += fmt.Sprintf(", shifted by %s (%.4g weeks)", c.offset, float64(c.offset)/float64(week))
	}
	return s
}
