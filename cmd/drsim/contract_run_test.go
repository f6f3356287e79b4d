package main

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func runContract(t *testing.T, args ...string) (string, error) {
	t.Helper()
	var out bytes.Buffer
	err := newApp(&out, io.Discard).Run(append([]string{"drsim", "contract"}, args...))
	return out.String(), err
}

func TestContractRunOut(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "con")
	args := []string{"--jobs", "200", "--app-map", "one:lulesh", "--c0", "0.001", "--pue", "1.3", "--sensitivity", "--out", dir}
	out, err := runContract(t, args...)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "ILLUSTRATIVE day") || !strings.Contains(out, "sensitivity to the price level") {
		t.Errorf("summary does not label the illustrative prices or lacks the sensitivity table:\n%s", out)
	}
	for _, f := range []string{"slots.csv", "slots.txt", "menus.csv", "summary.json", "summary.txt", "sensitivity.csv"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Error(err)
		}
	}
	b, err := os.ReadFile(filepath.Join(dir, "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	var js struct {
		Summary struct {
			Rewards string `json:"rewards"`
			Menus   int    `json:"menus"`
		} `json:"summary"`
	}
	if err := json.Unmarshal(b, &js); err != nil || js.Summary.Menus == 0 || !strings.Contains(js.Summary.Rewards, ".") ||
		len(js.Summary.Rewards)-strings.Index(js.Summary.Rewards, ".") != 3 {
		t.Errorf("summary.json: %v, %+v (money must be a decimal string in cents)", err, js)
	}
	before, _ := os.ReadFile(filepath.Join(dir, "slots.csv"))
	// an existing --out is never overwritten without --force
	if _, err := runContract(t, args...); err == nil || exitCode(err) != exitInput || !strings.Contains(err.Error(), "--force") {
		t.Errorf("second run without --force: %v (exit %d)", err, exitCode(err))
	}
	if _, err := runContract(t, append(args, "--force")...); err != nil {
		t.Errorf("with --force: %v", err)
	}
	after, _ := os.ReadFile(filepath.Join(dir, "slots.csv"))
	if !bytes.Equal(before, after) {
		t.Error("the same run wrote a different slots.csv (not deterministic)")
	}
}

func TestContractRunErrors(t *testing.T) {
	prices := filepath.Join(t.TempDir(), "p.csv")
	if err := os.WriteFile(prices, []byte("time,price\n2024-01-01T00:00:00Z,30\n2024-01-01T01:00:00Z,40\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--c0", "1", "stray"}, "unexpected argument"},
		{[]string{"--c0", "0"}, "c0"},
		{[]string{"--c0", "1", "--types", "0.5,0.4"}, "strictly increasing"},
		{[]string{"--c0", "1", "--count", "all"}, "count"},
		{[]string{"--c0", "1", "--price-start", "yesterday"}, "--price-start"},
		// the embedded workload starts at the Unix epoch, outside these prices
		{[]string{"--c0", "1", "--jobs", "50", "--prices", prices}, "outside"},
	} {
		_, err := runContract(t, tc.args...)
		if err == nil || exitCode(err) != exitInput || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("contract %v: %v (exit %d), want exit 2 with %q", tc.args, err, exitCode(err), tc.want)
		}
	}
}
