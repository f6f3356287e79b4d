package sweep

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestMain doubles as the child process of TestKillResume: with
// SWEEP_TEST_CHILD=config,out it runs that sweep and exits. It pauses
// 40 ms after each cell so that the parent's kill lands mid-sweep even on
// a loaded machine (cells of 3,000 jobs take a few milliseconds).
func TestMain(m *testing.M) {
	if arg := os.Getenv("SWEEP_TEST_CHILD"); arg != "" {
		cfgPath, out, _ := strings.Cut(arg, ",")
		cfg, err := LoadConfig(cfgPath)
		if err == nil {
			pace := func(Progress) { time.Sleep(40 * time.Millisecond) }
			_, err = Run(context.Background(), cfg, Options{Out: out, Workers: 2, Progress: pace})
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func mustConfig(t testing.TB, text string) *Config {
	t.Helper()
	c, err := ParseConfig("test.toml", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func mustRun(t testing.TB, cfg *Config, opt Options) *Report {
	t.Helper()
	rep, err := Run(context.Background(), cfg, opt)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

func mustMerge(t testing.TB, dirs ...string) string {
	t.Helper()
	out := filepath.Join(t.TempDir(), "table")
	if err := Merge(dirs, out, MergeOptions{}); err != nil {
		t.Fatal(err)
	}
	return out
}

// tree returns every file under dir (relative path → content), leaving out
// manifests, whose line order follows completion order.
func tree(t testing.TB, dir string) map[string][]byte {
	t.Helper()
	m := map[string][]byte{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || strings.HasPrefix(d.Name(), "manifest") {
			return err
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		m[rel] = b
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func sameTree(t testing.TB, what string, want, got map[string][]byte) {
	t.Helper()
	for _, k := range sortedKeys(want) {
		if !bytes.Equal(want[k], got[k]) {
			t.Errorf("%s: %s differs (%d vs %d bytes)", what, k, len(want[k]), len(got[k]))
		}
	}
	for _, k := range sortedKeys(got) {
		if _, ok := want[k]; !ok {
			t.Errorf("%s: unexpected file %s", what, k)
		}
	}
}

// union merges shard trees, as the cells of several directories.
func union(ts ...map[string][]byte) map[string][]byte {
	u := map[string][]byte{}
	for _, t := range ts {
		for k, v := range t {
			u[k] = v
		}
	}
	return u
}

const identityTOML = `jobs = 300
policy = ["easy", "conservative", "fcfs"]
dvfs = ["performance", "powersave"]
seed = [1, 2]
baseline = { dvfs = "performance" }
[output]
jobs = "gz"
power = true
`

// Cells, tables and plots are byte-identical across worker counts and
// shardings.
func TestIdenticalAcrossWorkersAndShards(t *testing.T) {
	cfg := mustConfig(t, identityTOML)
	one := filepath.Join(t.TempDir(), "w1")
	rep := mustRun(t, cfg, Options{Out: one, Workers: 1})
	if rep.Cells != 12 || rep.Ran != 12 {
		t.Fatalf("report %+v, want 12 cells run", rep)
	}
	wantCells, wantTable := tree(t, one), tree(t, mustMerge(t, one))
	if len(wantTable) != 4 {
		t.Errorf("merge wrote %v, want table.csv, table.md and two plots", sortedKeys(wantTable))
	}

	two := filepath.Join(t.TempDir(), "w2")
	mustRun(t, cfg, Options{Out: two, Workers: 2})
	sameTree(t, "workers 2", wantCells, tree(t, two))
	sameTree(t, "workers 2 merge", wantTable, tree(t, mustMerge(t, two)))

	for _, n := range []int{3, 5} {
		var dirs []string
		var trees []map[string][]byte
		for i := range n {
			d := filepath.Join(t.TempDir(), fmt.Sprintf("s%d", i))
			mustRun(t, cfg, Options{Out: d, Workers: 2, Shard: Shard{i, n}})
			dirs = append(dirs, d)
			trees = append(trees, tree(t, d))
		}
		sameTree(t, fmt.Sprintf("%d shards", n), wantCells, union(trees...))
		sameTree(t, fmt.Sprintf("%d shards merge", n), wantTable, tree(t, mustMerge(t, dirs...)))
		if err := Merge(dirs[1:], filepath.Join(t.TempDir(), "x"), MergeOptions{}); err == nil || !strings.Contains(err.Error(), "cells are missing") {
			t.Errorf("merge without shard 0: %v, want missing cells", err)
		}
	}
}

// checkOnce checks that dir holds exactly the cells of cfg, each logged
// once as done, with no temporary directory left.
func checkOnce(t *testing.T, cfg *Config, dir string) {
	t.Helper()
	cells, _ := cfg.Cells()
	ents, err := os.ReadDir(filepath.Join(dir, "cells"))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	if !slices.Equal(names, sortedIDs(cells)) {
		t.Errorf("cells/ holds %d entries %v..., want the %d cell IDs and nothing else", len(names), names[:min(3, len(names))], len(cells))
	}
	entries, err := ReadManifest(filepath.Join(dir, "manifest.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	count := map[string]int{}
	for _, e := range entries {
		if e.Status != StatusDone {
			t.Errorf("manifest: %s %s", e.ID, e.Status)
		}
		count[e.ID]++
	}
	for _, c := range cells {
		if count[c.ID] != 1 {
			t.Errorf("manifest: cell %s logged %d times, want once", c.ID, count[c.ID])
		}
	}
	if len(entries) != len(cells) {
		t.Errorf("manifest has %d entries, want %d", len(entries), len(cells))
	}
}

// A 100-cell sweep on the embedded workload, stopped after 30 cells and
// resumed, ends with every cell once and the same results as a run that was
// never stopped.
func TestHundredCellsResume(t *testing.T) {
	cfg := mustConfig(t, "jobs = 500\npolicy = [\"easy\", \"conservative\"]\nseed = ["+seeds(50)+"]\n[output]\njobs = \"off\"\n")
	dir := filepath.Join(t.TempDir(), "out")
	ctx, cancel := context.WithCancel(context.Background())
	var seen int
	_, err := Run(ctx, cfg, Options{Out: dir, Workers: 2, Progress: func(p Progress) {
		if seen = p.Done; p.Done >= 30 {
			cancel()
		}
	}})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("stopped run: %v, want context.Canceled", err)
	}
	rep := mustRun(t, cfg, Options{Out: dir, Workers: 2})
	if rep.Cells != 100 || rep.Skipped < 30 || rep.Ran == 0 || rep.Skipped+rep.Ran != 100 {
		t.Errorf("resumed: %+v after %d done, want 100 cells, ≥30 skipped", rep, seen)
	}
	checkOnce(t, cfg, dir)
	ref := filepath.Join(t.TempDir(), "ref")
	mustRun(t, cfg, Options{Out: ref})
	sameTree(t, "resumed vs straight", tree(t, ref), tree(t, dir))
	// A third run does nothing.
	if rep := mustRun(t, cfg, Options{Out: dir}); rep.Ran != 0 || rep.Skipped != 100 {
		t.Errorf("third run: %+v", rep)
	}
}

func seeds(n int) string {
	var s []string
	for i := 1; i <= n; i++ {
		s = append(s, fmt.Sprint(i))
	}
	return strings.Join(s, ", ")
}

// SIGKILL at several points, then a rerun: no cell lost, duplicated or
// half-written, and the results of an uninterrupted run.
func TestKillResume(t *testing.T) {
	if testing.Short() {
		t.Skip("starts subprocesses")
	}
	text := "jobs = 3000\npolicy = [\"easy\", \"conservative\"]\ndvfs = [\"performance\", \"powersave\"]\nseed = [1, 2, 3, 4, 5, 6]\n[output]\npower = true\n"
	cfgPath := filepath.Join(t.TempDir(), "exp.toml")
	if err := os.WriteFile(cfgPath, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := mustConfig(t, text)
	ref := filepath.Join(t.TempDir(), "ref")
	mustRun(t, cfg, Options{Out: ref})
	want := tree(t, ref)

	for _, killAfter := range []int{0, 1, 5, 15} { // manifest lines seen before the kill
		t.Run(fmt.Sprint(killAfter), func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "out")
			for round := 0; ; round++ {
				cmd := exec.Command(os.Args[0], "-test.run=^$")
				cmd.Env = append(os.Environ(), "SWEEP_TEST_CHILD="+cfgPath+","+dir)
				if err := cmd.Start(); err != nil {
					t.Fatal(err)
				}
				if round > 0 {
					if err := cmd.Wait(); err != nil {
						t.Fatalf("resume: %v", err)
					}
					break
				}
				waitLines(filepath.Join(dir, "manifest.jsonl"), killAfter)
				cmd.Process.Signal(syscall.SIGKILL)
				cmd.Wait()
				if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() {
					t.Fatalf("the sweep finished before the kill (%v): the test proves nothing", cmd.ProcessState)
				}
			}
			checkOnce(t, cfg, dir)
			sameTree(t, "killed and resumed", want, tree(t, dir))
		})
	}
}

// waitLines waits until path has n lines (or 20 s pass).
func waitLines(path string, n int) {
	for end := time.Now().Add(20 * time.Second); time.Now().Before(end); time.Sleep(time.Millisecond) {
		b, _ := os.ReadFile(path)
		if bytes.Count(b, []byte("\n")) >= n {
			return
		}
	}
}

// A failing cell is logged as failed; the others finish and the next run
// retries only it.
func TestFailedCell(t *testing.T) {
	cfg := mustConfig(t, "jobs = 50\npolicy = [\"easy\", \"nosuch\"]\n")
	dir := filepath.Join(t.TempDir(), "out")
	rep, err := Run(context.Background(), cfg, Options{Out: dir})
	if err == nil || !strings.Contains(err.Error(), "nosuch") || rep.Ran != 1 || rep.Failed != 1 {
		t.Fatalf("Run = %+v, %v; want one cell run and one failure naming the policy", rep, err)
	}
	rep, _ = Run(context.Background(), cfg, Options{Out: dir})
	if rep.Skipped != 1 || rep.Failed != 1 {
		t.Errorf("rerun %+v, want 1 skipped, 1 failed again", rep)
	}
	entries, _ := ReadManifest(filepath.Join(dir, "manifest.jsonl"))
	var st []string
	for _, e := range entries {
		st = append(st, e.Status)
	}
	slices.Sort(st) // completion order
	if strings.Join(st, ",") != "done,failed,failed" {
		t.Errorf("manifest statuses %v", st)
	}
}

// An output directory holds one sweep.
func TestOtherSweepRefused(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	mustRun(t, mustConfig(t, "jobs = 50\n"), Options{Out: dir})
	_, err := Run(context.Background(), mustConfig(t, "jobs = 60\n"), Options{Out: dir})
	if err == nil || !strings.Contains(err.Error(), "different sweep") {
		t.Errorf("err = %v", err)
	}
}
