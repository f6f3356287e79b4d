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
	// An SWF trace on a machine file without --partition-map (every job
	// to the default partition) is piped too.
	for _, spec := range []Spec{
		{Trace: path, Policy: "conservative", DVFS: "powersave", Check: true},
		{Trace: path, Policy: "slurm-backfill", Machine: "../../examples/sacct/machine.toml", Check: true},
	} {
		if a, b := streamRun(t, spec, false), streamRun(t, spec, true); a != b {
			t.Fatalf("%s, %s: streamed run differs from the loaded run", spec.Policy, spec.Machine)
		}
	}
}

// A sacct log on a machine file without --partition-map is routed by
// partition name: Open loads it whole, as the router needs every name.
func TestOpenLoadsSacctByName(t *testing.T) {
	spec := Spec{Trace: "../../testdata/sacct/jobs.sacct", TraceTZ: "Europe/Paris", Machine: "../../examples/sacct/machine.toml"}
	tr, _, done, err := Open(spec)
	if err != nil {
		t.Fatal(err)
	}
	defer done()
	if len(tr.Jobs) == 0 || len(tr.Names.Partitions) == 0 {
		t.Fatalf("Open piped a sacct log routed by partition name (%d jobs, partitions %v)", len(tr.Jobs), tr.Names.Partitions)
	}
}

// streamRun runs spec from Open (stream) or Load and returns jobs.csv and
// the summary.
func streamRun(t *testing.T, spec Spec, stream bool) string {
	t.Helper()
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
	if res.Summary.Jobs < 1000 {
		t.Fatalf("%s: only %d jobs ran", spec.Policy, res.Summary.Jobs)
	}
	res.Summary.WriteJSON(&sum)
	return jobs.String() + sum.String()
}
