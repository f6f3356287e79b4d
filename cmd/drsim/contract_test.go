package main

import (
	"bytes"
	"flag"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// goldenUpdate reports whether golden files should be rewritten: with
// "go test -update" when some test file defines that flag, or with
// DRSIM_UPDATE_GOLDEN=1 (this file defines no flag, to avoid clashing).
func goldenUpdate() bool {
	if f := flag.Lookup("update"); f != nil && f.Value.String() == "true" {
		return true
	}
	return os.Getenv("DRSIM_UPDATE_GOLDEN") == "1"
}

func TestContractVerifyGolden(t *testing.T) {
	tests := []struct {
		golden  string
		args    []string
		wantErr string
	}{
		// the contracts issue's worked example
		{"contract-verify-example.golden", []string{"--types", "0.2,0.4,0.8", "--c0", "10", "--menu", "2550:30,1200:15,200:5"}, ""},
		{"contract-verify-example-json.golden", []string{"--types", "0.2,0.4,0.8", "--c0", "10", "--menu", "2550:30,1200:15,200:5", "--json"}, ""},
		{"contract-verify-broken.golden", []string{"--types", "0.2,0.4,0.8", "--c0", "10", "--menu", "2350:30,1000:5,200:15"}, "breaks 4 constraint(s)"},
	}
	for _, tc := range tests {
		t.Run(tc.golden, func(t *testing.T) {
			var out bytes.Buffer
			err := newApp(&out, io.Discard).Run(append([]string{"drsim", "contract", "verify"}, tc.args...))
			if (err == nil) != (tc.wantErr == "") || (err != nil && !strings.Contains(err.Error(), tc.wantErr)) {
				t.Fatalf("error %v, want %q", err, tc.wantErr)
			}
			golden := filepath.Join("testdata", tc.golden)
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
				t.Errorf("output differs from %s (DRSIM_UPDATE_GOLDEN=1 go test accepts it):\ngot:\n%s\nwant:\n%s", golden, out.Bytes(), want)
			}
		})
	}
}

func TestContractVerifyUsageErrors(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"--types", "0.4,0.2", "--c0", "10", "--menu", "1:1,0:0"}, "strictly increasing"},
		{[]string{"--types", "0.2,0.4", "--c0", "0", "--menu", "1:1,0:0"}, "--c0 0: inconvenience scale c0 must be > 0"},
		{[]string{"--types", "0.2,0.4", "--c0", "-3", "--menu", "1:1,0:0"}, "--c0 -3: inconvenience scale c0 must be > 0"},
		{[]string{"--types", "0.2,x", "--c0", "1", "--menu", "1:1,0:0"}, `--types: item 2 "x"`},
		{[]string{"--types", "0.2,0.4", "--c0", "1", "--menu", "1:1,0"}, `--menu: bundle 2 "0"`},
		{[]string{"--types", "0.2,0.4", "--c0", "1", "--menu", "1:1"}, "1 bundles for 2 types"},
		{[]string{"--types", "0.2,0.4", "--c0", "1", "--menu", "1:1,0:0", "--cost", "linear"}, "unknown cost"},
		{[]string{"--types", "0.2,0.4", "--c0", "1", "--menu", "1:1,0:0", "extra"}, "unexpected argument"},
	}
	for _, tc := range tests {
		err := newApp(io.Discard, io.Discard).Run(append([]string{"drsim", "contract", "verify"}, tc.args...))
		if err == nil || !strings.Contains(err.Error(), tc.want) || exitCode(err) != exitInput {
			t.Errorf("contract verify %v: error %v (exit %d), want exit %d and %q", tc.args, err, exitCode(err), exitInput, tc.want)
		}
	}
}
