package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// drsim calibrate --format nodepower on Table 9.1 of Heinrich's thesis
// (seed 000, §9.1.2, lines 1662–1676: taurus-7, NAS-EP on 12 cores, 12
// P-states; idle ~92 W, §8.2.1): the cubic fit's worst error is 0.394 W
// (within the 0.4 W), the linear fit's 3.173 W.
func TestCalibrateNodePower(t *testing.T) {
	var b strings.Builder
	b.WriteString("node,pstate_ghz,active_cores,total_cores,app,watts\ntaurus-7,2.3,0,12,idle,92\n")
	for i, p := range []float64{179.25, 172.12, 166.25, 160.81, 155.12, 150.00, 144.75, 140.68, 136.00, 132.38, 128.88, 125.25} {
		fmt.Fprintf(&b, "taurus-7,%.1f,12,12,ep,%.2f\n", 2.3-0.1*float64(i), p)
	}
	in := filepath.Join(t.TempDir(), "taurus.csv")
	if err := os.WriteFile(in, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	run := func(args ...string) (string, error) {
		var out bytes.Buffer
		err := newApp(&out, io.Discard).Run(append([]string{"drsim", "calibrate", "--format", "nodepower", "--input", in}, args...))
		return out.String(), err
	}
	for form, want := range map[string]string{"cubic": "worst error 0.394 W", "linear": "worst error 3.173 W"} {
		out, err := run("--x", "freq", "--form", form)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(out, want) || !strings.Contains(out, "2.20  92.00 (idle)   172.12") {
			t.Errorf("%s: output lacks %q or the 2.2 GHz row:\n%s", form, want, out)
		}
	}
	for _, bad := range [][]string{{"--x", "cap"}, {"--x", "freq", "--form", "exp2"}, {"--x", "freq", "--out", t.TempDir()}} {
		if _, err := run(bad...); err == nil {
			t.Errorf("%v accepted", bad)
		}
	}
}
