package main

import (
	"bytes"
	"io"
	"strings"
	"testing"
)

// drsim predict --hpl prints the Dahu row of Cornebize et al. 2019 (seed
// 004, Table 1, line 93) with the defaults: 24.55 TFlop/s in 3394 s on 32
// nodes; 2 slow nodes (the slowest 10 % slower) stretch the compute term.
func TestPredictHPL(t *testing.T) {
	run := func(args ...string) (string, error) {
		var out bytes.Buffer
		err := newApp(&out, io.Discard).Run(append([]string{"drsim", "predict"}, args...))
		return out.String(), err
	}
	out, err := run("--hpl", "500000", "--grid", "32x32")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"(32 nodes)", "time       3394.45 s", "rate       24.55 TFlop/s"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	out, err = run("--hpl", "500000", "--slowest", "1.1", "--node-w", "500")
	if err != nil {
		t.Fatal(err)
	}
	// compute 1.1 × 1338.48 = 1472.33 s; + 2055.97 = 3528.30 s; 32 × 500 W × T = 15.68 kWh.
	for _, want := range []string{"compute    1472.33 s", "time       3528.3 s", "energy     15.6813 kWh"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	for _, bad := range [][]string{{"--hpl", "1000", "--grid", "32"}, {"--hpl", "1000", "--cap", "150"}} {
		if _, err := run(bad...); err == nil {
			t.Errorf("%v accepted", bad)
		}
	}
}
