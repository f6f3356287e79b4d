package main

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// calibrate --out never replaces what an earlier calibration wrote without
// --force: the other knob's model merges into the file, the same knob's is
// refused (exit 2, file untouched), and --force replaces it.
func TestCalibrateOutNeedsForce(t *testing.T) {
	dir := t.TempDir()
	freq := filepath.Join(dir, "freq.csv")
	capCSV := filepath.Join(dir, "cap.csv")
	os.WriteFile(freq, []byte("app,x,power_w,runtime_s\nlu,1.2,80,300\nlu,1.6,100,240\nlu,2.0,125,200\nlu,2.4,150,160\n"), 0o644)
	os.WriteFile(capCSV, []byte("app,x,power_w,runtime_s\nlu,80,70,300\nlu,120,100,220\nlu,160,120,190\nlu,200,130,180\nlu,240,135,178\n"), 0o644)
	out := filepath.Join(dir, "models")
	run := func(args ...string) error {
		return newApp(io.Discard, io.Discard).Run(append([]string{"drsim", "calibrate", "--out", out}, args...))
	}
	if err := run("--input", freq, "--x", "freq", "--plot"); err != nil {
		t.Fatal(err)
	}
	if err := run("--input", capCSV, "--x", "cap"); err != nil {
		t.Fatalf("the other knob must merge: %v", err)
	}
	model := filepath.Join(out, "lu.json")
	before, err := os.ReadFile(model)
	if err != nil || !bytes.Contains(before, []byte(`"freq"`)) || !bytes.Contains(before, []byte(`"cap"`)) {
		t.Fatalf("merged model file: %v\n%s", err, before)
	}
	err = run("--input", freq, "--x", "freq")
	if after, _ := os.ReadFile(model); err == nil || exitCode(err) != exitInput ||
		!strings.Contains(err.Error(), "already has a freq model (use --force to replace it)") || !bytes.Equal(after, before) {
		t.Fatalf("same knob again: %v (exit %d), file changed %v", err, exitCode(err), !bytes.Equal(after, before))
	}
	// A plot that exists is refused too, before any file is written.
	os.Remove(model)
	err = run("--input", freq, "--x", "freq", "--plot")
	if _, statErr := os.Stat(model); err == nil || !strings.Contains(err.Error(), "lu-freq-power.svg already exists") || statErr == nil {
		t.Fatalf("existing plot: %v; model written anyway: %v", err, statErr == nil)
	}
	if err := run("--input", freq, "--x", "freq", "--plot", "--force"); err != nil {
		t.Fatalf("--force: %v", err)
	}
}
