package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"drsim/scheduler/sim"
)

var update = flag.Bool("update", false, "rewrite testdata/*.golden")

// TestRunGolden pins drsim run's output byte for byte: the schedule, the
// energy and the DR figures of the embedded workload under each policy and
// governor (the same newApp as main; also a determinism check).
func TestRunGolden(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"run-easy", []string{"--jobs", "800"}},
		{"run-fcfs-powersave", []string{"--jobs", "800", "--policy", "fcfs", "--dvfs", "powersave"}},
		{"run-conservative-dr", []string{"--jobs", "800", "--policy", "conservative", "--dvfs", "dr", "--dr-ratio", "0.3", "--check"}},
		{"run-easy-powercap-dr", []string{"--jobs", "800", "--powercap", "dr", "--dr-ratio", "0.3", "--check"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out, stderr bytes.Buffer
			args := append([]string{"drsim", "run"}, tc.args...)
			if err := newApp(&out, &stderr).Run(args); err != nil {
				t.Fatal(err)
			}
			// The default P-states reach below and above the range the
			// built-in xsbench frequency model was fitted on (1.937..2.557
			// GHz): said once, on stderr. The cap grid is inside every
			// cap model's range (80..250 W).
			warn := "drsim: warning: power model outside its fitted range: xsbench freq model fitted on 1.937..2.557 GHz, asked for 1.2 GHz (0.7371 GHz below) and 2.7 GHz (0.1428 GHz above)"
			if got, freq := stderr.String(), !strings.Contains(tc.name, "powercap"); strings.Contains(got, warn) != freq || strings.Count(got, "\n") != map[bool]int{true: 1}[freq] {
				t.Errorf("stderr %q: want the xsbench warning once: %v", got, freq)
			}
			golden := filepath.Join("testdata", tc.name+".golden")
			if goldenUpdate() {
				if err := os.WriteFile(golden, out.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(out.Bytes(), want) {
				t.Errorf("output differs from %s (go test -update accepts it):\ngot:\n%s\nwant:\n%s", golden, out.Bytes(), want)
			}
		})
	}
}

// A trace whose submits are out of order is piped until the first
// out-of-order record, then loaded whole and run again: the outputs equal
// those of running the loaded trace directly, with nothing left of the
// first attempt. A trace that fails while piped leaves no output directory.
func TestRunUnsortedTraceRestarts(t *testing.T) {
	var text strings.Builder
	text.WriteString("; MaxProcs: 8\n")
	for i := range 20000 { // more than one pipe batch before the disorder
		submit := i * 7
		if i == 15000 {
			submit = 14990 * 7 // out of order
		}
		run := 50 + i%400
		fmt.Fprintf(&text, "%d %d 0 %d %d -1 -1 %d %d -1 1 1 1 1 1 1 -1 -1\n", i+1, submit, run, 1+i%8, 1+i%8, 2*run)
	}
	dir := t.TempDir()
	trace := filepath.Join(dir, "t.swf")
	if err := os.WriteFile(trace, []byte(text.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	if err := newApp(io.Discard, io.Discard).Run([]string{"drsim", "run", "--trace", trace, "--out", out}); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join(out, "jobs.csv"))
	if err != nil {
		t.Fatal(err)
	}
	spec := sim.Spec{Trace: trace}
	tr, err := sim.Load(spec)
	if err != nil {
		t.Fatal(err)
	}
	var want bytes.Buffer
	if _, err := sim.Run(context.Background(), spec, tr, sim.Outputs{Jobs: &want}); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want.Bytes()) || bytes.Count(got, []byte("\n")) != 20001 {
		t.Fatalf("unsorted trace: jobs.csv differs from the loaded trace's (%d vs %d lines)", bytes.Count(got, []byte("\n")), bytes.Count(want.Bytes(), []byte("\n")))
	}

	bad := filepath.Join(dir, "bad.swf")
	if err := os.WriteFile(bad, []byte(text.String()+"x y\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	never := filepath.Join(dir, "never")
	err = newApp(io.Discard, io.Discard).Run([]string{"drsim", "run", "--trace", bad, "--out", never})
	if code := exitCode(err); code != exitInput {
		t.Fatalf("exit code %d (%v), want %d", code, err, exitInput)
	}
	if _, err := os.Stat(never); !os.IsNotExist(err) {
		t.Errorf("a failed run left %s behind (stat: %v)", never, err)
	}
}

// --cpuprofile and --memprofile write profiles that go tool pprof reads
// (gzip-compressed protobuf); an unwritable path is an error, not a silent
// no-op; an existing file is the user's: refused (exit 2), left as it was.
func TestProfileFlags(t *testing.T) {
	for _, flag := range []string{"--cpuprofile", "--memprofile"} {
		run := func(path string) error {
			return newApp(io.Discard, io.Discard).Run([]string{"drsim", flag, path, "run", "--jobs", "300"})
		}
		path := filepath.Join(t.TempDir(), "p.prof")
		if err := run(path); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(path)
		if err != nil || len(b) < 2 || b[0] != 0x1f || b[1] != 0x8b {
			t.Fatalf("%s %s: %d bytes, err %v; want a gzip-compressed pprof profile", flag, path, len(b), err)
		}
		if err := run(filepath.Join(t.TempDir(), "no", "such", "dir", "p")); err == nil || !strings.HasPrefix(err.Error(), flag+": ") {
			t.Fatalf("%s, unwritable path: err = %v", flag, err)
		}
		err = run(path)
		if after, _ := os.ReadFile(path); err == nil || exitCode(err) != exitInput || !bytes.Equal(after, b) {
			t.Fatalf("%s, existing file: err = %v (exit %d), file changed %v", flag, err, exitCode(err), !bytes.Equal(after, b))
		}
	}
}

// --suspend-after without a node size notes that every processor is a
// node; with --procs-per-node (even 1, said outright) or a machine file it
// does not.
func TestRunNodePowerNote(t *testing.T) {
	note := "drsim: note: --suspend-after powers off nodes of one processor each"
	for _, tc := range []struct {
		args []string
		want bool
	}{
		{[]string{"--suspend-after", "600"}, true},
		{[]string{"--suspend-after", "600", "--procs-per-node", "4"}, false},
		{[]string{"--suspend-after", "600", "--procs-per-node", "1"}, false},
		{[]string{"--procs-per-node", "4"}, false},
		{nil, false},
	} {
		var out, stderr bytes.Buffer
		args := append([]string{"drsim", "run", "--jobs", "200", "--powercap", "performance"}, tc.args...)
		if err := newApp(&out, &stderr).Run(args); err != nil {
			t.Fatalf("%v: %v", tc.args, err)
		}
		if got := strings.Count(stderr.String(), note); got != map[bool]int{true: 1}[tc.want] {
			t.Errorf("%v: the note said %d times, want it %v (stderr %q)", tc.args, got, tc.want, stderr.String())
		}
	}
}
