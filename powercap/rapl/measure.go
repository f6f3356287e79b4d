package rapl

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"
)

// Config is one calibration sweep. Zero values of the optional fields work.
type Config struct {
	Zone    Zone      // required: the zone to cap and meter, e.g. from FindZone
	Caps    []float64 // required: caps in W, measured in this order
	Command []string  // required: the program and its arguments

	Repeat   int           // runs per cap; 0 means 1
	Window   uint64        // time window (µs) set for the sweep; 0 leaves it as found
	Interval time.Duration // energy-counter poll period during a run; 0 means 1 s
	Runner   Runner        // nil means ExecRunner{} (no stdin, output discarded)
	Clock    Clock         // nil means SystemClock{}

	// Progress, when set, is called after each successful run.
	Progress func(Measurement)
}

// Measurement is the outcome of one run of the command under one cap.
type Measurement struct {
	Requested float64 // the cap asked for (W)
	Cap       float64 // the cap read back after writing it: the one applied (W)
	Window    uint64  // the time window read back (µs)
	Run       int     // 1-based repeat number
	Runtime   float64 // wall-clock seconds
	Energy    float64 // zone energy during the run (J)
	Power     float64 // mean zone power, Energy/Runtime (W)
}

// Measure runs cfg.Command cfg.Repeat times under each cap and returns one
// Measurement per run. It reads the zone's cap and time window before
// changing anything and restores them when it returns, whether it succeeds,
// fails or is cancelled; a failed restore is added to the returned error. On
// error the measurements taken so far are returned with it.
func Measure(ctx context.Context, cfg Config) (ms []Measurement, err error) {
	if err := cfg.check(); err != nil {
		return nil, err
	}
	cfg.defaults()
	z := cfg.Zone
	maxE, origLimit, origWindow, err := prepare(z)
	if err != nil {
		return nil, err
	}
	var setLimit, setWindow bool // set after the first successful write of each
	defer func() {
		err = joinLine(err, restore(z, origLimit, origWindow, setLimit, setWindow))
	}()
	if err := context.Cause(ctx); err != nil {
		return nil, fmt.Errorf("rapl: stopped before cap %v W: %w", cfg.Caps[0], err)
	}
	window := origWindow
	if cfg.Window != 0 {
		if err := z.SetTimeWindow(cfg.Window); err != nil {
			return nil, err
		}
		setWindow = true
		if window, err = z.TimeWindow(); err != nil {
			return nil, err
		}
	}
	for _, w := range cfg.Caps {
		if err := context.Cause(ctx); err != nil {
			return ms, fmt.Errorf("rapl: stopped before cap %v W: %w", w, err)
		}
		if err := z.SetPowerLimit(toMicro(w)); err != nil {
			return ms, err
		}
		setLimit = true
		applied, err := z.PowerLimit()
		if err != nil {
			return ms, err
		}
		for r := 1; r <= cfg.Repeat; r++ {
			m := Measurement{Requested: w, Cap: float64(applied) / 1e6, Window: window, Run: r}
			if err := cfg.runOnce(ctx, maxE, &m); err != nil {
				return ms, fmt.Errorf("rapl: cap %v W, run %d/%d: %w", w, r, cfg.Repeat, err)
			}
			if cfg.Progress != nil {
				cfg.Progress(m)
			}
			ms = append(ms, m)
		}
	}
	return ms, nil
}

func (cfg *Config) check() error {
	switch {
	case cfg.Zone.Path == "":
		return errors.New("rapl: Config.Zone has no Path")
	case len(cfg.Caps) == 0:
		return errors.New("rapl: Config.Caps is empty")
	case len(cfg.Command) == 0:
		return errors.New("rapl: Config.Command is empty")
	case cfg.Repeat < 0:
		return fmt.Errorf("rapl: Config.Repeat %d is negative", cfg.Repeat)
	case cfg.Interval < 0:
		return fmt.Errorf("rapl: Config.Interval %v is negative", cfg.Interval)
	}
	for i, w := range cfg.Caps {
		if !(w > 0 && w < 1e9) { // also rejects NaN
			return fmt.Errorf("rapl: Config.Caps[%d] = %v W is not a positive power", i, w)
		}
	}
	return nil
}

func (cfg *Config) defaults() {
	if cfg.Repeat == 0 {
		cfg.Repeat = 1
	}
	if cfg.Interval == 0 {
		cfg.Interval = time.Second
	}
	if cfg.Runner == nil {
		cfg.Runner = ExecRunner{}
	}
	if cfg.Clock == nil {
		cfg.Clock = SystemClock{}
	}
}

// prepare checks that the zone can be metered and capped, and reads what
// restore will need, before anything is written.
func prepare(z Zone) (maxE, limit, window uint64, err error) {
	on, err := z.Enabled()
	if err != nil {
		return 0, 0, 0, err
	}
	if !on {
		return 0, 0, 0, fmt.Errorf("rapl: zone %v is disabled (%s/%s is 0): caps would not be enforced", z, z.Path, fileEnabled)
	}
	if maxE, err = z.MaxEnergyRange(); err != nil {
		return 0, 0, 0, err
	}
	if _, err = z.Energy(); err != nil {
		return 0, 0, 0, err
	}
	if limit, err = z.PowerLimit(); err != nil {
		return 0, 0, 0, err
	}
	if window, err = z.TimeWindow(); err != nil {
		return 0, 0, 0, err
	}
	return maxE, limit, window, nil
}

// restore writes back the original window and cap, each only if it was
// changed (writing back an unchanged value could re-quantise it); it tries
// both even when the first fails.
func restore(z Zone, limit, window uint64, setLimit, setWindow bool) error {
	var werr, lerr error
	if setWindow {
		werr = z.SetTimeWindow(window)
	}
	if setLimit {
		lerr = z.SetPowerLimit(limit)
	}
	if err := joinLine(lerr, werr); err != nil {
		return fmt.Errorf("restoring the original cap %v W and window %d µs failed: %w", float64(limit)/1e6, window, err)
	}
	return nil
}

// runOnce runs the command once, polling the energy counter every
// cfg.Interval so that no wrap is missed, and fills m's runtime, energy and
// power.
func (cfg *Config) runOnce(ctx context.Context, maxE uint64, m *Measurement) error {
	z := cfg.Zone
	e0, err := z.Energy()
	if err != nil {
		return err
	}
	c := NewCounter(maxE, e0)
	done, polled := make(chan struct{}), make(chan error, 1)
	timer := cfg.Clock.NewTimer(cfg.Interval) // armed before the run starts, so fake clocks see it
	go func() {
		var first error
		for {
			select {
			case <-done:
				timer.Stop()
				polled <- first
				return
			case <-timer.C():
				if e, err := z.Energy(); err != nil {
					first = cmpOr(first, err)
				} else {
					c.Add(e)
				}
				timer = cfg.Clock.NewTimer(cfg.Interval)
			}
		}
	}()
	t0 := cfg.Clock.Now()
	runErr := cfg.Runner.Run(ctx, cfg.Command)
	t1 := cfg.Clock.Now()
	close(done)
	pollErr := <-polled // the poller owns c until here
	if runErr != nil {
		return fmt.Errorf("%s: %w", strings.Join(cfg.Command, " "), runErr)
	}
	if pollErr != nil {
		return pollErr
	}
	e1, err := z.Energy()
	if err != nil {
		return err
	}
	c.Add(e1)
	m.Runtime = t1.Sub(t0).Seconds()
	if m.Runtime <= 0 {
		return errors.New("the run took no measurable time")
	}
	m.Energy = float64(c.Total()) / 1e6
	m.Power = m.Energy / m.Runtime
	return nil
}

// toMicro converts W to µW.
func toMicro(w float64) uint64 { return uint64(math.Round(w * 1e6)) }

func cmpOr(a, b error) error {
	if a != nil {
		return a
	}
	return b
}

// joinLine joins two errors on one line (errors.Join would use a newline);
// both stay reachable with errors.Is.
func joinLine(a, b error) error {
	switch {
	case a == nil:
		return b
	case b == nil:
		return a
	}
	return fmt.Errorf("%w; %w", a, b)
}
