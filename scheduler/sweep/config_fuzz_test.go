package sweep

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzParseConfig: an experiment file never panics the parser, fails with
// one line naming the file, and otherwise has non-empty dimensions of known
// keys whose cells (when there are few enough to expand) have distinct IDs.
// Seeds: inline files and the sweep-* cases of testdata/bad (scripts/fuzz.sh
// runs it).
func FuzzParseConfig(f *testing.F) {
	for _, s := range []string{
		exampleTOML,
		"policy = [\"easy\", \"fcfs\"]\nseed = [1, 2]\n",
		"jobs = -1\ndr_ratio = [0.1, 0.2]\n[output]\npower_step = 60.0\n",
		"colour = \"red\"\n",
		"baseline = { nope = 1 }\n",
		"seed = [1, \"two\"]\n",
		"[output]\njobs = \"zip\"\n",
	} {
		f.Add([]byte(s))
	}
	files, _ := filepath.Glob("../../testdata/bad/sweep-*/*.toml")
	for _, p := range files {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := ParseConfig("x.toml", data)
		if err != nil {
			if msg := err.Error(); strings.ContainsAny(msg, "\n\r") || !strings.HasPrefix(msg, "x.toml:") {
				t.Fatalf("error is not one line starting with x.toml: %q", msg)
			}
			return
		}
		n := 1
		for _, d := range c.Dims {
			if _, ok := fieldFor(d.Key); !ok || len(d.Values) == 0 {
				t.Fatalf("dimension %q with %d values", d.Key, len(d.Values))
			}
			n *= len(d.Values)
			if n > 4096 {
				return // too many cells to expand on every input
			}
		}
		cells, err := c.Cells()
		if err != nil {
			return
		}
		seen := map[string]bool{}
		for _, cell := range cells {
			if seen[cell.ID] {
				t.Fatalf("cell %s appears twice", cell.ID)
			}
			seen[cell.ID] = true
		}
	})
}
