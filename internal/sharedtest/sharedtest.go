// Package sharedtest locates the real data in ../shared for acceptance tests.
//
// .ci/run sets DRSIM_SHARED to the shared data directory. When it is set, a
// missing file fails the test; when it is unset (a plain "go test ./..." on a
// fresh machine), acceptance tests are skipped with a message saying so.
package sharedtest

import (
	"os"
	"path/filepath"
	"sort"
	"testing"
)

// Env is the environment variable that names the shared data directory.
const Env = "DRSIM_SHARED"

// Dir returns the shared data directory, or skips t when Env is unset.
func Dir(t testing.TB) string {
	t.Helper()
	dir := os.Getenv(Env)
	if dir == "" {
		t.Skipf("%s not set: acceptance test on real data skipped (.ci/run sets it)", Env)
	}
	if _, err := os.Stat(dir); err != nil {
		t.Fatalf("%s=%q: %v", Env, dir, err)
	}
	return dir
}

// Path returns the path of rel inside the shared data directory. It skips t
// when Env is unset and fails t when the file is missing.
func Path(t testing.TB, rel string) string {
	t.Helper()
	p := filepath.Join(Dir(t), rel)
	if _, err := os.Stat(p); err != nil {
		t.Fatalf("shared data file missing: %v", err)
	}
	return p
}

// Traces returns the paths of every SWF trace in shared/traces (*.swf and
// *.swf.gz), sorted, failing t if there are none.
func Traces(t testing.TB) []string {
	t.Helper()
	dir := filepath.Join(Dir(t), "traces")
	var out []string
	for _, pat := range []string{"*.swf", "*.swf.gz"} {
		m, _ := filepath.Glob(filepath.Join(dir, pat))
		out = append(out, m...)
	}
	if len(out) == 0 {
		t.Fatalf("no SWF traces under %s", dir)
	}
	sort.Strings(out)
	return out
}
