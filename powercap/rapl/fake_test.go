package rapl

// Fakes shared by the tests: a sysfs tree in a temporary directory, an FS
// that quantises and refuses writes like the kernel does, a clock that
// advances only when told, and a runner that draws power from the tree.

import (
	"context"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
)

// zoneFiles are the initial file contents of one fake zone.
type zoneFiles struct {
	Name                   string
	Energy, Max            uint64 // µJ
	Limit, Window, Enabled uint64 // µW, µs, 0/1
}

// writeZone creates root/dir with the files of z.
func writeZone(root, dir string, z zoneFiles) string {
	path := filepath.Join(root, dir)
	must(os.MkdirAll(path, 0o755))
	files := map[string]string{
		fileName:      z.Name + "\n",
		fileEnergy:    fmt.Sprintln(z.Energy),
		fileMaxEnergy: fmt.Sprintln(z.Max),
		fileLimit:     fmt.Sprintln(z.Limit),
		fileWindow:    fmt.Sprintln(z.Window),
		fileEnabled:   fmt.Sprintln(z.Enabled),
	}
	for f, s := range files {
		must(os.WriteFile(filepath.Join(path, f), []byte(s), 0o644))
	}
	return path
}

// defaultZone is package-0 as found: a 150 W cap over 1 s (both exactly
// representable in the hardware's units), counter 1000 J from wrapping.
var defaultZone = zoneFiles{Name: "package-0", Energy: 5_000_000, Max: 262_143_328_850, Limit: 150_000_000, Window: 1_000_000, Enabled: 1}

// newTree makes a machine with one package zone (intel-rapl:0, files from
// z), its core and uncore sub-zones and a second package, plus the
// control-type directory and a non-RAPL class member that Zones must skip.
func newTree(dir string, z zoneFiles) string {
	root := filepath.Join(dir, "powercap")
	writeZone(root, "intel-rapl:0", z)
	sub := defaultZone
	sub.Name = "core"
	writeZone(root, "intel-rapl:0:0", sub)
	writeZone(root, "intel-rapl:1:0", sub)
	sub.Name = "uncore"
	writeZone(root, "intel-rapl:0:1", sub)
	sub.Name = "package-1"
	writeZone(root, "intel-rapl:1", sub)
	must(os.MkdirAll(filepath.Join(root, "intel-rapl"), 0o755))
	must(os.MkdirAll(filepath.Join(root, "dtpm"), 0o755))
	return root
}

func must(err error) {
	if err != nil {
		panic(err)
	}
}

func readUint(path string) uint64 {
	b, err := os.ReadFile(path)
	must(err)
	v, err := strconv.ParseUint(strings.TrimSpace(string(b)), 10, 64)
	must(err)
	return v
}

// fakeFS is the real file system with the kernel's write behaviour: power
// limits read back floored to 1/8 W, time windows to multiples of
// 976.5625 µs (then truncated to whole µs), and writes to files in deny
// fail with the given error.
type fakeFS struct {
	OSFS
	mu     sync.Mutex
	deny   map[string]error // base name → write error
	writes []string         // "file=value" as stored, in order
}

func (f *fakeFS) WriteFile(name string, data []byte) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	base := filepath.Base(name)
	if err := f.deny[base]; err != nil {
		return &fs.PathError{Op: "open", Path: name, Err: err}
	}
	v, err := strconv.ParseUint(string(data), 10, 64)
	if err != nil {
		return &fs.PathError{Op: "write", Path: name, Err: fs.ErrInvalid}
	}
	switch base {
	case fileLimit:
		v = v / 125_000 * 125_000
	case fileWindow:
		v = uint64(math.Floor(float64(v)/976.5625) * 976.5625)
	}
	f.writes = append(f.writes, fmt.Sprintf("%s=%d", base, v))
	return f.OSFS.WriteFile(name, []byte(strconv.FormatUint(v, 10)))
}

func (f *fakeFS) setDeny(base string, err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.deny == nil {
		f.deny = map[string]error{}
	}
	f.deny[base] = err
}

func (f *fakeFS) log() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return strings.Join(f.writes, " ")
}

// fakeClock advances only in Advance. Advance fires every due timer and
// returns only once each fired timer's owner has armed its next timer or
// stopped, so the poller's reading happens inside Advance, deterministically.
type fakeClock struct {
	mu     sync.Mutex
	cond   *sync.Cond
	now    time.Time
	timers map[*fakeTimer]bool
	armed  int // NewTimer and Stop calls so far
}

type fakeTimer struct {
	c  *fakeClock
	at time.Time
	ch chan time.Time
}

func newFakeClock() *fakeClock {
	c := &fakeClock{now: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC), timers: map[*fakeTimer]bool{}}
	c.cond = sync.NewCond(&c.mu)
	return c
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) NewTimer(d time.Duration) Timer {
	c.mu.Lock()
	defer c.mu.Unlock()
	t := &fakeTimer{c: c, at: c.now.Add(d), ch: make(chan time.Time, 1)}
	c.timers[t] = true
	c.armed++
	c.cond.Broadcast()
	return t
}

func (t *fakeTimer) C() <-chan time.Time { return t.ch }

func (t *fakeTimer) Stop() bool {
	t.c.mu.Lock()
	defer t.c.mu.Unlock()
	was := t.c.timers[t]
	delete(t.c.timers, t)
	t.c.armed++
	t.c.cond.Broadcast()
	return was
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
	target := c.armed
	for t := range c.timers {
		if !t.at.After(c.now) {
			delete(c.timers, t)
			t.ch <- c.now
			target++
		}
	}
	for c.armed < target {
		c.cond.Wait()
	}
}

// fakeApp is a program that idles at 40 W for 5 s, then does 1500 J of work
// at min(cap, 150 W): under a cap of 100 W it runs 20 s and uses 1700 J.
// It advances the zone's counter (wrapping at max) and the clock in 1 s
// steps, so the poller sees every step.
type fakeApp struct {
	zone  Zone
	clk   *fakeClock
	fail  map[int]error              // call number → error returned at the end
	hook  map[int]func()             // call number → run at the run's 3rd second
	caps  []float64                  // applied cap seen by each call
	argvs [][]string                 // argv of each call
	pow   func(capW float64) float64 // nil: min(cap, 150)
}

func (a *fakeApp) Run(ctx context.Context, argv []string) error {
	a.argvs = append(a.argvs, argv)
	call := len(a.argvs)
	lim, err := a.zone.PowerLimit()
	must(err)
	capW := float64(lim) / 1e6
	a.caps = append(a.caps, capW)
	p := min(capW, 150)
	if a.pow != nil {
		p = a.pow(capW)
	}
	steps := []float64{40, 40, 40, 40, 40}
	for w := 1500.0; w > 0; w -= p {
		steps = append(steps, p) // 1500/p is whole for the caps the tests use
	}
	maxE, err := a.zone.MaxEnergyRange()
	must(err)
	for i, watts := range steps {
		if err := ctx.Err(); err != nil {
			return err // as exec does when it kills the child
		}
		if i == 2 && a.hook[call] != nil {
			a.hook[call]()
		}
		e, err := a.zone.Energy()
		must(err)
		e = (e + uint64(watts*1e6)) % (maxE + 1)
		must(os.WriteFile(filepath.Join(a.zone.Path, fileEnergy), []byte(strconv.FormatUint(e, 10)), 0o644))
		a.clk.Advance(time.Second)
	}
	return a.fail[call]
}
