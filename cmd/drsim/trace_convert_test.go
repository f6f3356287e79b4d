package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// testdata/jobs.sacct is workloads' sacctLog: Slurm 22.05-shaped output
// with an array element, a TIMEOUT job with GPUs, a job step, a job
// cancelled while pending, a running job, an instant failure and a
// Partition_Limit job.

// TestTraceConvertSacct pins drsim trace convert (sacct to SWF) and trace
// info on a sacct log byte for byte, and checks that the SWF it writes
// reads back as the same jobs.
func TestTraceConvertSacct(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "jobs.swf")
	var stdout, stderr bytes.Buffer
	if err := newApp(&stdout, &stderr).Run([]string{"drsim", "trace", "convert", "--keep-names", "testdata/jobs.sacct", out}); err != nil {
		t.Fatal(err)
	}
	swf, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var info bytes.Buffer
	if err := newApp(&info, &info).Run([]string{"drsim", "trace", "info", "testdata/jobs.sacct"}); err != nil {
		t.Fatal(err)
	}
	got := "$ drsim trace convert --keep-names testdata/jobs.sacct OUT\n" + strings.ReplaceAll(stderr.String(), out, "OUT") + "$ cat OUT\n" + string(swf) +
		"$ drsim trace info testdata/jobs.sacct\n" + info.String()
	checkGolden(t, "trace-convert-sacct.golden", []byte(got))

	// A second conversion refuses to overwrite, then --force does.
	err = newApp(&stdout, &stderr).Run([]string{"drsim", "trace", "convert", "testdata/jobs.sacct", out})
	if err == nil || !strings.Contains(err.Error(), "exists (give --force to overwrite it)") {
		t.Errorf("second convert: %v", err)
	}
	if err := newApp(&stdout, &stderr).Run([]string{"drsim", "trace", "convert", "--force", "--keep-names", "testdata/jobs.sacct", out}); err != nil {
		t.Fatal(err)
	}
	if again, _ := os.ReadFile(out); !bytes.Equal(again, swf) {
		t.Error("a second conversion differs from the first")
	}

	// The SWF and the sacct log simulate the same schedule and energy
	// (--app-map mix would hash the line numbers, which differ).
	run := func(trace string) string {
		var b bytes.Buffer
		if err := newApp(&b, &b).Run([]string{"drsim", "run", "--trace", trace, "--procs", "16", "--policy", "fcfs", "--app-map", "exe"}); err != nil {
			t.Fatal(err)
		}
		return b.String()
	}
	fromSacct, fromSWF := run("testdata/jobs.sacct"), run(out)
	if fromSacct != run("testdata/jobs.sacct") {
		t.Error("two runs on the sacct log differ")
	}
	// The dropped counts differ (the SWF has no dropped jobs left); the rest is equal.
	strip := func(s string) string {
		var keep []string
		for _, l := range strings.Split(s, "\n") {
			if !strings.HasPrefix(l, "jobs dropped") && !strings.HasPrefix(l, "------") && !strings.HasPrefix(l, "metric") {
				keep = append(keep, l)
			}
		}
		return strings.Join(keep, "\n")
	}
	if strip(fromSacct) != strip(fromSWF) {
		t.Errorf("run on the sacct log:\n%s\nrun on its SWF conversion:\n%s", fromSacct, fromSWF)
	}
}

func checkGolden(t *testing.T, name string, got []byte) {
	t.Helper()
	golden := filepath.Join("testdata", name)
	if goldenUpdate() {
		if err := os.WriteFile(golden, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("output differs from %s (go test -update accepts it):\ngot:\n%s\nwant:\n%s", golden, got, want)
	}
}
