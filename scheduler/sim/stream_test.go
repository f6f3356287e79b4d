package sim

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"testing"

	"drsim/workloads"
)

// Streaming a trace from its file gives exactly the outputs of loading it.
func TestStreamEqualsLoad(t *testing.T) {
	tr, err := workloads.Lublin(workloads.LublinConfig{Jobs: 4000, Seed: 3, RateFactor: 2})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "w.swf")
	var buf bytes.Buffer
	if err := workloads.WriteSWF(&buf, &tr.Header, tr.Jobs); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	run := func(stream bool) string {
		spec := Spec{Trace: path, Policy: "conservative", DVFS: "powersave", Check: true}
		tr, src, done, err := Open(spec)
		if !stream {
			tr, err = Load(spec)
			src = nil
		}
		if err != nil {
			t.Fatal(err)
		}
		defer done()
		if stream && len(tr.Jobs) != 0 {
			t.Fatal("Open loaded the jobs instead of piping them")
		}
		var jobs, sum bytes.Buffer
		res, err := Run(context.Background(), spec, tr, Outputs{Jobs: &jobs, Source: src})
		if err != nil {
			t.Fatal(err)
		}
		if res.Stats.NViolations > 0 {
			t.Fatal(res.Stats.Violations)
		}
		res.Summary.WriteJSON(&sum)
		return jobs.String() + sum.String()
	}
	if a, b := run(false), run(true); a != b {
		t.Fatal("streamed run differs from the loaded run")
	}
}
