package rapl

import "time"

// A Clock tells the time and makes one-shot timers. SystemClock is the real
// one; tests use a fake that advances when told to.
type Clock interface {
	Now() time.Time
	NewTimer(d time.Duration) Timer
}

// A Timer delivers one value on C once its duration has elapsed, unless
// stopped first.
type Timer interface {
	C() <-chan time.Time
	Stop() bool
}

// SystemClock is the wall clock (monotonic readings, so runtimes are immune
// to clock steps).
type SystemClock struct{}

func (SystemClock) Now() time.Time                 { return time.Now() }
func (SystemClock) NewTimer(d time.Duration) Timer { return sysTimer{time.NewTimer(d)} }

type sysTimer struct{ t *time.Timer }

func (s sysTimer) C() <-chan time.Time { return s.t.C }
func (s sysTimer) Stop() bool          { return s.t.Stop() }
