package plot

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var (
	update = flag.Bool("update", false, "rewrite testdata/*_golden.svg")
	pngDir = flag.String("png", "", "also write a PNG of each golden plot to this directory, for looking at")
)

// goldenCases renders each plot function on its small fixed input.
var goldenCases = []struct {
	name   string
	render func(w io.Writer, opt Options) error
}{
	{"power", func(w io.Writer, o Options) error { return PowerOverTime(w, fixturePower(), o) }},
	{"tradeoff", func(w io.Writer, o Options) error { return SavingVsSlowdown(w, fixtureTradeOffs(), o) }},
	{"queue", func(w io.Writer, o Options) error { return QueueAndUtilisation(w, fixtureQueueUtil(), o) }},
	{"gantt", func(w io.Writer, o Options) error { return Gantt(w, fixtureGantt(), o) }},
	{"fit", func(w io.Writer, o Options) error { return FitPlot(w, fixtureFit(), o) }},
}

func TestGolden(t *testing.T) {
	for _, tc := range goldenCases {
		t.Run(tc.name, func(t *testing.T) {
			var a, b bytes.Buffer
			if err := tc.render(&a, Options{}); err != nil {
				t.Fatal(err)
			}
			if err := tc.render(&b, Options{}); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(a.Bytes(), b.Bytes()) {
				t.Fatalf("two renderings of %s differ (%d vs %d bytes): SVG output is not deterministic", tc.name, a.Len(), b.Len())
			}
			golden := filepath.Join("testdata", tc.name+"_golden.svg")
			if *update {
				if err := os.WriteFile(golden, a.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (go test -update writes it)", err)
			}
			if !bytes.Equal(a.Bytes(), want) {
				t.Errorf("%s differs from %s (go test -update accepts it): %s", tc.name, golden, firstDiff(want, a.Bytes()))
			}
			if *pngDir != "" {
				var png bytes.Buffer
				if err := tc.render(&png, Options{Format: PNG}); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(filepath.Join(*pngDir, tc.name+".png"), png.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
			}
		})
	}
}

// firstDiff describes where two outputs first differ, by line.
func firstDiff(want, got []byte) string {
	wl, gl := strings.Split(string(want), "\n"), strings.Split(string(got), "\n")
	for i := range min(len(wl), len(gl)) {
		if wl[i] != gl[i] {
			return fmt.Sprintf("line %d:\n- %s\n+ %s", i+1, wl[i], gl[i])
		}
	}
	return fmt.Sprintf("%d vs %d lines", len(wl), len(gl))
}
