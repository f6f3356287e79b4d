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

// calibrate --format nodepower prints the [[node_type]] lines a machine
// file takes; pasted into one, `drsim machine show` reads them back.
// Taurus (issue 17's table): only all-cores points were measured, so
// static_w is the idle 92 W and core_busy_w (P_all(2.3) − 92)/12 with the
// cubic fit's P_all(2.3) = 179.03 W (worst error row above). The second
// node is hand-made with a 1-core point per P-state, so its load line has
// an intercept of its own: at 2.0 GHz 1 core 120 W, 4 cores 180 W, slope
// (180−120)/(3/4) = 80 W per unit load, P_static = 120 − 80/4 = 100 W;
// core_busy_w = (180 − 90)/4 = 22.5 W (the linear fit through two
// P-states is exact there).
func TestCalibrateNodePowerMachineRoundTrip(t *testing.T) {
	var b strings.Builder
	b.WriteString("node,pstate_ghz,active_cores,total_cores,app,watts\ntaurus-7,2.3,0,12,idle,92\n")
	for i, p := range []float64{179.25, 172.12, 166.25, 160.81, 155.12, 150.00, 144.75, 140.68, 136.00, 132.38, 128.88, 125.25} {
		fmt.Fprintf(&b, "taurus-7,%.1f,12,12,ep,%.2f\n", 2.3-0.1*float64(i), p)
	}
	hand := "node,pstate_ghz,active_cores,total_cores,app,watts\nn1,2.0,0,4,idle,90\n" +
		"n1,2.0,1,4,lu,120\nn1,2.0,4,4,lu,180\nn1,1.0,1,4,lu,105\nn1,1.0,4,4,lu,135\n"
	dir := t.TempDir()
	for _, c := range []struct {
		csv, form string
		want      []string // the figures, as printed
		show      string   // the static table row of machine show
	}{
		{b.String(), "cubic", []string{"cores = 12", "idle_w = 92.00", "static_w = 92.00", "core_busy_w = 7.2523"}, "x          92.00   92.00     7.667"},
		{hand, "linear", []string{"cores = 4", "idle_w = 90.00", "static_w = 100.00", "core_busy_w = 22.5000"}, "x          90.00   100.00    25.000"},
	} {
		in := filepath.Join(dir, c.form+".csv")
		if err := os.WriteFile(in, []byte(c.csv), 0o644); err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		if err := newApp(&out, io.Discard).Run([]string{"drsim", "calibrate", "--format", "nodepower", "--input", in, "--x", "freq", "--form", c.form}); err != nil {
			t.Fatal(err)
		}
		_, figs, ok := strings.Cut(out.String(), "# machine file [[node_type]] figures")
		if !ok {
			t.Fatalf("%s: no machine-file figures in:\n%s", c.form, out.String())
		}
		for _, w := range c.want {
			if !strings.Contains(figs, w+"\n") {
				t.Errorf("%s: figures lack %q:\n%s", c.form, w, figs)
			}
		}
		_, body, _ := strings.Cut(figs, "\n")
		mf := filepath.Join(dir, c.form+".toml")
		toml := "name = \"rt\"\n[[node_type]]\nname = \"x\"\ncount = 2\n" + body + "[[partition]]\nname = \"p\"\nnode_type = \"x\"\nallocation = \"core\"\n"
		if err := os.WriteFile(mf, []byte(toml), 0o644); err != nil {
			t.Fatal(err)
		}
		out.Reset()
		if err := newApp(&out, io.Discard).Run([]string{"drsim", "machine", "show", mf}); err != nil {
			t.Fatalf("%s: machine show of the pasted figures: %v\n%s", c.form, err, toml)
		}
		if !strings.Contains(out.String(), "static W") || !strings.Contains(out.String(), c.show) {
			t.Errorf("%s: machine show lacks %q:\n%s", c.form, c.show, out.String())
		}
	}
}
