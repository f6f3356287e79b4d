package main

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A cancelled run (what Ctrl-C and SIGTERM do through main's context)
// fails with exit code 1 and leaves no output file, partial or final.
func TestInterruptedRunLeavesNoFiles(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err := newApp(io.Discard, io.Discard).RunContext(ctx, []string{"drsim", "run", "--out", dir})
	if err == nil || !strings.Contains(err.Error(), "stopped at") {
		t.Fatalf("err = %v, want a stop", err)
	}
	if code := exitCode(err); code != exitRuntime {
		t.Errorf("exit code %d, want %d", code, exitRuntime)
	}
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		t.Errorf("left behind: %s", e.Name())
	}
}
