package rapl

import (
	"bytes"
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"
)

func TestExecRunner(t *testing.T) {
	var out, errb bytes.Buffer
	r := ExecRunner{Stdout: &out, Stderr: &errb}
	if err := r.Run(context.Background(), []string{"sh", "-c", "echo hi; echo oops >&2"}); err != nil {
		t.Fatal(err)
	}
	if out.String() != "hi\n" || errb.String() != "oops\n" {
		t.Errorf("stdout %q, stderr %q", out.String(), errb.String())
	}
	if err := r.Run(context.Background(), []string{"sh", "-c", "exit 3"}); err == nil || err.Error() != "exit status 3" {
		t.Errorf("exit 3: %v", err)
	}
	if err := r.Run(context.Background(), nil); err == nil {
		t.Error("empty argv: no error")
	}
}

func TestExecRunnerCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(5*time.Millisecond, cancel)
	start := time.Now()
	// sleep dies of the SIGINT; Grace would bound the wait if it did not.
	err := ExecRunner{Grace: time.Second}.Run(ctx, []string{"sleep", "10"})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled run = %v, want context.Canceled", err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("cancelled run took %v", d)
	}
}

var sinkU uint64

func BenchmarkCounterAdd(b *testing.B) {
	b.ReportAllocs()
	c := NewCounter(999_999, 0)
	for i := range b.N {
		c.Add(uint64(i*7919) % 1_000_000)
	}
	sinkU = c.Total()
}

// BenchmarkZoneEnergy is one poll: read and parse energy_uj (here from a
// tmpfs-backed fake tree, so sysfs cost is not included).
func BenchmarkZoneEnergy(b *testing.B) {
	z := Zone{Path: filepath.Join(newTree(b.TempDir(), defaultZone), "intel-rapl:0")}
	b.ReportAllocs()
	for range b.N {
		e, err := z.Energy()
		if err != nil {
			b.Fatal(err)
		}
		sinkU += e
	}
}
