package main

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"drsim/powercap/rapl"

	"github.com/gocarina/gocsv"
)

// fakePowercap makes ROOT/intel-rapl:0 (package-0) with a 10 J energy
// counter at 8 J, a 150 W cap and a 1 s window, and returns ROOT and the
// zone directory.
func fakePowercap(t *testing.T) (root, zone string) {
	t.Helper()
	root = filepath.Join(t.TempDir(), "powercap")
	zone = filepath.Join(root, "intel-rapl:0")
	if err := os.MkdirAll(zone, 0o755); err != nil {
		t.Fatal(err)
	}
	for f, v := range map[string]string{
		"name": "package-0", "energy_uj": "8000000", "max_energy_range_uj": "10000000",
		"constraint_0_power_limit_uw": "150000000", "constraint_0_time_window_us": "1000000", "enabled": "1",
	} {
		if err := os.WriteFile(filepath.Join(zone, f), []byte(v+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root, zone
}

func zoneValue(t *testing.T, zone, file string) uint64 {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(zone, file))
	if err != nil {
		t.Fatal(err)
	}
	v, err := strconv.ParseUint(strings.TrimSpace(string(b)), 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// addEnergy is a command that stands in for the application: it advances the
// fake counter by 4 J, wrapping at 10 J as RAPL does, so every run uses
// exactly 4 J however long it takes.
func addEnergy(zone string) []string {
	return []string{"sh", "-c", `f="$1/energy_uj"; e=$(cat "$f"); echo $(( (e + 4000000) % 10000001 )) > "$f"`, "sh", zone}
}

func TestMeasureCLI(t *testing.T) {
	root, zone := fakePowercap(t)
	out := filepath.Join(t.TempDir(), "meas.csv")
	var stdout, stderr bytes.Buffer
	args := append([]string{"drsim", "measure", "--root", root, "--caps", "80:100:20", "--repeat", "2",
		"--window", "2ms", "--out", out, "--"}, addEnergy(zone)...)
	if err := newApp(&stdout, &stderr).Run(args); err != nil {
		t.Fatalf("%v\nstderr: %s", err, stderr.String())
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var rows []rapl.Row
	if err := gocsv.UnmarshalBytes(b, &rows); err != nil {
		t.Fatal(err)
	}
	if got := len(rows); got != 4 {
		t.Fatalf("%d rows, want 4:\n%s", got, b)
	}
	for i, r := range rows {
		// Exactly 4 J per run: the counter wrapped in runs 1 and 4 (8→2 J, 10→3.999999 J).
		if r.App != "sh" || r.X != []float64{80, 80, 100, 100}[i] || r.Nodes != 1 || r.EnergyJ != 4 ||
			r.RuntimeS <= 0 || math.Abs(r.PowerW*r.RuntimeS-4) > 1e-9 {
			t.Errorf("row %d = %+v", i, r)
		}
	}
	if l, w := zoneValue(t, zone, "constraint_0_power_limit_uw"), zoneValue(t, zone, "constraint_0_time_window_us"); l != 150000000 || w != 1000000 {
		t.Errorf("cap %d µW, window %d µs after measure; want the originals restored", l, w)
	}
	if n := strings.Count(stderr.String(), "measure: package-0 cap"); n != 4 {
		t.Errorf("%d progress lines, want 4:\n%s", n, stderr.String())
	}
	if stdout.Len() != 0 {
		t.Errorf("stdout %q, want nothing (the CSV went to --out)", stdout.String())
	}

	// An existing --out is refused before anything runs, then replaced with --force.
	before := zoneValue(t, zone, "energy_uj")
	err = newApp(&stdout, &stderr).Run(slices.Concat([]string{"drsim", "measure", "--root", root, "--caps", "90", "--out", out, "--"}, addEnergy(zone)))
	if err == nil || exitCode(err) != exitInput || err.Error() != "measure: "+out+" exists (use --force to overwrite)" {
		t.Errorf("measure onto an existing file: %v (exit %d)", err, exitCode(err))
	}
	if zoneValue(t, zone, "energy_uj") != before {
		t.Error("the command ran although --out existed")
	}
	err = newApp(&stdout, &stderr).Run(slices.Concat([]string{"drsim", "measure", "--root", root, "--caps", "90", "--force", "--app", "mini", "--out", out, "--"}, addEnergy(zone)))
	if b, _ := os.ReadFile(out); err != nil || !strings.HasPrefix(string(b), "app,x,power_w,runtime_s,nodes,energy_j\nmini,90,") {
		t.Errorf("--force: %v, file %q", err, b)
	}
}

func TestMeasureCLIStdoutAndFailure(t *testing.T) {
	root, zone := fakePowercap(t)
	var stdout, stderr bytes.Buffer
	if err := newApp(&stdout, &stderr).Run(slices.Concat([]string{"drsim", "measure", "--root", root, "--caps", "120", "--"}, addEnergy(zone))); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(stdout.String(), "app,x,power_w,runtime_s,nodes,energy_j\nsh,120,") || strings.Count(stdout.String(), "\n") != 2 {
		t.Errorf("stdout = %q", stdout.String())
	}

	out := filepath.Join(t.TempDir(), "m.csv")
	err := newApp(&stdout, &stderr).Run([]string{"drsim", "measure", "--root", root, "--caps", "100,120", "--out", out, "--", "sh", "-c", "exit 3"})
	if want := "rapl: cap 100 W, run 1/1: sh -c exit 3: exit status 3"; err == nil || err.Error() != want || exitCode(err) != exitRuntime {
		t.Errorf("failing command: %v, want %s", err, want)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("--out exists after a failed sweep (%v)", err)
	}
	if l := zoneValue(t, zone, "constraint_0_power_limit_uw"); l != 150000000 {
		t.Errorf("cap %d µW after a failed run, want 150000000 restored", l)
	}
}

func TestMeasureCLIErrors(t *testing.T) {
	root, _ := fakePowercap(t)
	empty := t.TempDir()
	tests := []struct {
		args []string
		want string
		code int
	}{
		{[]string{"--root", root, "--caps", "100"}, "measure: no command to measure (usage: drsim measure --caps 80,100 [flags] -- COMMAND [ARG...])", exitInput},
		{[]string{"--root", root, "--caps", "100", "--"}, "measure: no command to measure (usage: drsim measure --caps 80,100 [flags] -- COMMAND [ARG...])", exitInput},
		{[]string{"--root", root, "--caps", "100:x:5", "--", "true"}, `measure: --caps: rapl: caps "100:x:5": item 1 ("100:x:5"): hi: invalid syntax`, exitInput},
		{[]string{"--root", root, "--caps", "100", "--repeat", "0", "--", "true"}, "--repeat 0: runs per cap must be in [1, 1000000]", exitInput},
		{[]string{"--root", empty, "--caps", "100", "--", "true"}, "measure: no RAPL zones under " + empty + " (this machine has no Intel RAPL powercap interface)", exitRuntime},
		{[]string{"--root", root, "--zone", "dram", "--caps", "100", "--", "true"}, `rapl: no zone "dram" under ` + root + ` (known: package-0 (intel-rapl:0))`, exitRuntime},
	}
	for _, tt := range tests {
		err := newApp(&bytes.Buffer{}, &bytes.Buffer{}).Run(append([]string{"drsim", "measure"}, tt.args...))
		if err == nil || err.Error() != tt.want || exitCode(err) != tt.code {
			t.Errorf("measure %q: %v (exit %d)\nwant %s (exit %d)", tt.args, err, exitCode(err), tt.want, tt.code)
		}
	}
}
