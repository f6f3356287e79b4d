package main

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"
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
			var out bytes.Buffer
			args := append([]string{"drsim", "run"}, tc.args...)
			if err := newApp(&out, &out).Run(args); err != nil {
				t.Fatal(err)
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
