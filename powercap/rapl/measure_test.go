package rapl

import (
	"context"
	"errors"
	"io/fs"
	"math"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// rig is a fake machine: tree, quantising FS, clock and the fake app.
type rig struct {
	root string
	fs   *fakeFS
	clk  *fakeClock
	app  *fakeApp
	cfg  Config
}

func newRig(t *testing.T, z zoneFiles) *rig {
	r := &rig{root: newTree(t.TempDir(), z), fs: &fakeFS{}, clk: newFakeClock()}
	zone, err := Tree{Root: r.root, FS: r.fs}.Find("package-0")
	if err != nil {
		t.Fatal(err)
	}
	r.app = &fakeApp{zone: zone, clk: r.clk}
	r.cfg = Config{Zone: zone, Command: []string{"./app", "-n", "4"}, Runner: r.app, Clock: r.clk}
	return r
}

func (r *rig) file(name string) uint64 { return readUint(filepath.Join(r.cfg.Zone.Path, name)) }

// checkRestored checks that the zone holds its original cap and window.
func (r *rig) checkRestored(t *testing.T, z zoneFiles) {
	t.Helper()
	if l, w := r.file(fileLimit), r.file(fileWindow); l != z.Limit || w != z.Window {
		t.Errorf("after Measure: limit %d µW, window %d µs; want the originals %d, %d", l, w, z.Limit, z.Window)
	}
}

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-12*math.Max(1, math.Abs(b)) }

func TestMeasureSweep(t *testing.T) {
	r := newRig(t, defaultZone)
	r.cfg.Caps = []float64{100.07, 150, 200}
	r.cfg.Repeat = 2
	r.cfg.Window = 10_000
	var progress int
	r.cfg.Progress = func(Measurement) { progress++ }
	ms, err := Measure(context.Background(), r.cfg)
	if err != nil {
		t.Fatal(err)
	}
	// Hand-computed from fakeApp: 5 s at 40 W, then 1500 J at min(cap, 150 W).
	// 100.07 W reads back as 100 W (1/8 W steps); the window 10000 µs as 9765.
	want := []Measurement{
		{Requested: 100.07, Cap: 100, Run: 1, Runtime: 20, Energy: 1700},
		{Requested: 100.07, Cap: 100, Run: 2, Runtime: 20, Energy: 1700},
		{Requested: 150, Cap: 150, Run: 1, Runtime: 15, Energy: 1700},
		{Requested: 150, Cap: 150, Run: 2, Runtime: 15, Energy: 1700},
		{Requested: 200, Cap: 200, Run: 1, Runtime: 15, Energy: 1700},
		{Requested: 200, Cap: 200, Run: 2, Runtime: 15, Energy: 1700},
	}
	if len(ms) != len(want) || progress != len(want) {
		t.Fatalf("got %d measurements and %d progress calls, want %d", len(ms), progress, len(want))
	}
	for i, w := range want {
		w.Window = 9765
		w.Power = w.Energy / w.Runtime // 85 W and 113.33 W
		if m := ms[i]; m.Requested != w.Requested || m.Cap != w.Cap || m.Window != w.Window || m.Run != w.Run ||
			m.Runtime != w.Runtime || m.Energy != w.Energy || !near(m.Power, w.Power) {
			t.Errorf("measurement %d = %+v\nwant %+v", i, m, w)
		}
	}
	// The app ran under the read-back caps, with the command as given.
	if got := r.app.caps; len(got) != 6 || got[0] != 100 || got[5] != 200 {
		t.Errorf("caps seen by the app = %v", got)
	}
	if strings.Join(r.app.argvs[0], " ") != "./app -n 4" {
		t.Errorf("argv = %q", r.app.argvs[0])
	}
	// Window once, each cap once (not per repeat), then both restored.
	wantLog := "constraint_0_time_window_us=9765 constraint_0_power_limit_uw=100000000 " +
		"constraint_0_power_limit_uw=150000000 constraint_0_power_limit_uw=200000000 " +
		"constraint_0_time_window_us=1000000 constraint_0_power_limit_uw=150000000"
	if got := r.fs.log(); got != wantLog {
		t.Errorf("writes:\n%s\nwant\n%s", got, wantLog)
	}
	r.checkRestored(t, defaultZone)
}

func TestMeasureWrapAround(t *testing.T) {
	// A 1000 J counter 1 J from wrapping: each 1700 J run wraps it once or twice.
	z := defaultZone
	z.Max, z.Energy = 999_999_999, 999_000_000
	for _, tt := range []struct {
		interval time.Duration
		want     float64
	}{
		{0, 1700},               // default 1 s: a reading per 1 s step, ≤ 150 J apart
		{3 * time.Second, 1700}, // ≤ 450 J apart: still less than one wrap
		{time.Hour, 700},        // first and last readings only: wraps lost (1700 mod 1000)
	} {
		r := newRig(t, z)
		r.cfg.Caps, r.cfg.Repeat, r.cfg.Interval = []float64{100}, 2, tt.interval
		ms, err := Measure(context.Background(), r.cfg)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range ms {
			if m.Energy != tt.want || m.Runtime != 20 {
				t.Errorf("interval %v: energy %v J in %v s, want %v J in 20 s", tt.interval, m.Energy, m.Runtime, tt.want)
			}
		}
	}
}

func TestMeasureRestores(t *testing.T) {
	exit3 := errors.New("exit status 3")
	tests := []struct {
		name    string
		setup   func(r *rig, cancel context.CancelFunc)
		want    string // error text
		is      error
		runs    int // successful measurements returned
		calls   int // runner calls
		written bool
	}{
		{"success", func(*rig, context.CancelFunc) {}, "", nil, 2, 2, true},
		{"runner error", func(r *rig, _ context.CancelFunc) { r.app.fail = map[int]error{2: exit3} },
			"rapl: cap 120 W, run 1/1: ./app -n 4: exit status 3", exit3, 1, 2, true},
		{"cancelled during a run", func(r *rig, cancel context.CancelFunc) { r.app.hook = map[int]func(){2: cancel} },
			"rapl: cap 120 W, run 1/1: ./app -n 4: context canceled", context.Canceled, 1, 2, true},
		{"cancelled between runs", func(r *rig, cancel context.CancelFunc) { r.cfg.Progress = func(Measurement) { cancel() } },
			"rapl: stopped before cap 120 W: context canceled", context.Canceled, 1, 1, true},
		{"cancelled before start", func(r *rig, cancel context.CancelFunc) { cancel() },
			"rapl: stopped before cap 90 W: context canceled", context.Canceled, 0, 0, false},
		{"restore fails too", func(r *rig, _ context.CancelFunc) {
			r.app.fail = map[int]error{1: exit3}
			r.app.hook = map[int]func(){1: func() { r.fs.setDeny(fileLimit, syscall.EACCES) }}
		}, "rapl: cap 90 W, run 1/1: ./app -n 4: exit status 3; restoring the original cap 150 W and window 1000000 µs failed: rapl: " +
			"ROOT/intel-rapl:0/constraint_0_power_limit_uw is not writable (run as root, or the platform locks RAPL): permission denied",
			fs.ErrPermission, 0, 1, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newRig(t, defaultZone)
			r.cfg.Caps, r.cfg.Window = []float64{90, 120}, 500_000
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			tt.setup(r, cancel)
			ms, err := Measure(ctx, r.cfg)
			want := strings.ReplaceAll(tt.want, "ROOT", r.root)
			if (err == nil) != (want == "") || err != nil && err.Error() != want {
				t.Errorf("error = %v\nwant  %s", err, want)
			}
			if tt.is != nil && !errors.Is(err, tt.is) {
				t.Errorf("error %v is not %v", err, tt.is)
			}
			if len(ms) != tt.runs || len(r.app.argvs) != tt.calls {
				t.Errorf("%d measurements, %d runner calls; want %d, %d", len(ms), len(r.app.argvs), tt.runs, tt.calls)
			}
			if tt.name == "restore fails too" {
				return // the cap could not be put back: checked by the error
			}
			r.checkRestored(t, defaultZone)
			if got := r.fs.log() != ""; got != tt.written {
				t.Errorf("wrote anything = %v, want %v (log %q)", got, tt.written, r.fs.log())
			}
		})
	}
}

func TestMeasureRefusesBeforeRunning(t *testing.T) {
	tests := []struct {
		name  string
		setup func(r *rig)
		want  string
	}{
		{"cap not writable", func(r *rig) { r.fs.setDeny(fileLimit, syscall.EACCES) },
			"rapl: ROOT/intel-rapl:0/constraint_0_power_limit_uw is not writable (run as root, or the platform locks RAPL): permission denied"},
		{"window not writable", func(r *rig) { r.cfg.Window = 2_000_000; r.fs.setDeny(fileWindow, syscall.EPERM) },
			"rapl: ROOT/intel-rapl:0/constraint_0_time_window_us is not writable (run as root, or the platform locks RAPL): operation not permitted"},
		{"disabled zone", func(r *rig) {
			writeZone(r.root, "intel-rapl:0", zoneFiles{Name: "package-0", Limit: 1, Window: 1, Enabled: 0})
		},
			"rapl: zone package-0 (intel-rapl:0) is disabled (ROOT/intel-rapl:0/enabled is 0): caps would not be enforced"},
		{"no caps", func(r *rig) { r.cfg.Caps = nil }, "rapl: Config.Caps is empty"},
		{"bad cap", func(r *rig) { r.cfg.Caps = []float64{100, math.NaN()} }, "rapl: Config.Caps[1] = NaN W is not a positive power"},
		{"no command", func(r *rig) { r.cfg.Command = nil }, "rapl: Config.Command is empty"},
		{"no zone", func(r *rig) { r.cfg.Zone = Zone{} }, "rapl: Config.Zone has no Path"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newRig(t, defaultZone)
			r.cfg.Caps = []float64{100}
			tt.setup(r)
			out := filepath.Join(t.TempDir(), "meas.csv")
			_, err := MeasureFile(context.Background(), r.cfg, "app", out, false)
			if want := strings.ReplaceAll(tt.want, "ROOT", r.root); err == nil || err.Error() != want {
				t.Errorf("error = %v\nwant  %s", err, want)
			}
			if len(r.app.argvs) != 0 {
				t.Errorf("the command ran %d times", len(r.app.argvs))
			}
			if got := r.fs.log(); got != "" {
				t.Errorf("wrote %q", got)
			}
			if ents, _ := filepath.Glob(filepath.Join(filepath.Dir(out), "*")); len(ents) != 0 {
				t.Errorf("files created: %v", ents)
			}
		})
	}
}
