package netmodel

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// FuzzLoadTopology: a topology file (TOML, or JSON when json is set) never
// panics the loader, fails with one line naming the file, and otherwise
// builds a topology whose node and link counts are positive and whose
// routes between the first and last node are consistent. Specs describing
// more than 1<<14 nodes are only parsed, not built, to keep each run short.
// Seeds: netmodel/testdata, inline files and the topo-* cases of
// testdata/bad (scripts/fuzz.sh runs it).
func FuzzLoadTopology(f *testing.F) {
	for _, s := range []string{
		"kind = \"torus\"\ndims = [4, 4]\nlink_gbs = 5\n",
		"kind = \"fat-tree\"\nports = 4\nlevels = 2\nlink_gbs = 10\n",
		"kind = \"dragonfly\"\ngroups = 3\nrouters_per_group = 4\nlink_gbs = 5\ncolour = 1\n",
		"kind = \"torus\"\ndims = [4, \"x\"]\n",
	} {
		f.Add([]byte(s), false)
	}
	f.Add([]byte(`{"kind":"torus","dims":[3,3],"link_gbs":1,"plateau":2}`), true)
	seeds, _ := filepath.Glob("testdata/*")
	more, _ := filepath.Glob("../testdata/bad/topo-*/*")
	for _, p := range append(seeds, more...) {
		if b, err := os.ReadFile(p); err == nil && !strings.HasSuffix(p, "args") && !strings.HasSuffix(p, "want") {
			f.Add(b, strings.HasSuffix(p, ".json"))
		}
	}
	f.Fuzz(func(t *testing.T, data []byte, json bool) {
		name := "t.toml"
		if json {
			name = "t.json"
		}
		s, err := LoadSpec(bytes.NewReader(data), name)
		if err == nil && specNodes(s) > 1<<14 {
			return
		}
		top, err := LoadTopology(bytes.NewReader(data), name)
		if err != nil {
			if msg := err.Error(); strings.ContainsAny(msg, "\n\r") || !strings.HasPrefix(msg, name+":") {
				t.Fatalf("error is not one line starting with %s: %q", name, msg)
			}
			return
		}
		n := top.Nodes()
		if n < 1 || top.Switches() < 1 {
			t.Fatalf("topology with %d nodes and %d switches", n, top.Switches())
		}
		a, b := int32(0), int32(n-1)
		if h, d := top.Hops(a, b), top.Distance(a, b); h < 0 || d < 0 || top.Hops(b, a) != h {
			t.Fatalf("hops %d→%d = %d (back %d), distance %d", a, b, h, top.Hops(b, a), d)
		}
		if l := top.Latency(a, b); l < 0 || math.IsNaN(l) || math.IsInf(l, 0) {
			t.Fatalf("latency %d→%d = %v", a, b, l)
		}
	})
}

// specNodes estimates the node count a spec describes (before validation).
func specNodes(s Spec) float64 {
	npr := math.Max(1, float64(s.NodesPerRouter))
	switch s.Kind {
	case "fat-tree":
		return 2 * math.Pow(math.Max(2, float64(s.Ports))/2, math.Max(1, float64(s.Levels)))
	case "torus":
		n := npr
		for _, d := range s.Dims {
			n *= math.Max(1, float64(d))
		}
		return n
	}
	return math.Max(1, float64(s.Groups)) * math.Max(1, float64(s.RoutersPerGroup)) * npr
}
