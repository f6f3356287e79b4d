package workloads

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestSacctRealFixtures reads the sacct dumps of a real Slurm 22.05 with
// slurmdbd (testdata/sacct, made by .ci/slurm/accounting.sh; see its
// README) and checks every job against truth.csv, which comes from
// slurmctld's own job-completion log, not from sacct: the jobs that ran
// are kept with their submit, start and end times, node, CPU and GPU
// counts, time limit and partition; the jobs that never started are
// dropped, or kept with zero runtime under KeepUnstarted.
func TestSacctRealFixtures(t *testing.T) {
	dir := filepath.Join("testdata", "sacct")
	truthFile := filepath.Join(dir, "truth.csv")
	raw, err := os.ReadFile(truthFile)
	if os.IsNotExist(err) {
		t.Skipf("%s: no real sacct fixtures yet", truthFile)
	}
	if err != nil {
		t.Fatal(err)
	}
	truth := readTruth(t, truthFile, string(raw))
	loc := fixtureZone(t, filepath.Join(dir, "VERSIONS"))
	logs, _ := filepath.Glob(filepath.Join(dir, "*.sacct"))
	if len(logs) == 0 {
		t.Fatalf("%s: no *.sacct files beside truth.csv", dir)
	}
	for _, path := range logs {
		for _, keep := range []bool{false, true} {
			t.Run(filepath.Base(path)+map[bool]string{false: "", true: "/keep-unstarted"}[keep], func(t *testing.T) {
				tr, err := LoadFile(path, Options{ProcsField: ProcsAlloc, KeepUnstarted: keep, TZ: loc})
				if err != nil {
					t.Fatal(err)
				}
				checkAgainstTruth(t, tr, truth, keep)
			})
		}
	}
}

// fixtureZone reads the zone the daemons ran in from VERSIONS ("zone:
// Europe/Paris (CET+0100)"): the dumps' times are wall clock in it.
func fixtureZone(t *testing.T, path string) *time.Location {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		if z, ok := strings.CutPrefix(l, "zone: "); ok {
			loc, err := time.LoadLocation(strings.Fields(z)[0])
			if err != nil {
				t.Fatalf("%s: %v", path, err)
			}
			return loc
		}
	}
	t.Fatalf("%s: no zone line", path)
	return nil
}

// truthRow is one line of truth.csv (see .ci/slurm/jobcomp2truth.sh).
type truthRow struct {
	id                           int64
	partition                    string
	submit, start, end           int64 // epoch s; start -1: never started
	nodes, cpus, limit, allocGPU int64 // allocGPU -1: not recorded
	state                        string
}

func readTruth(t *testing.T, file, text string) []truthRow {
	t.Helper()
	lines := strings.Split(strings.TrimSpace(text), "\n")
	want := "id,jobid,partition,submit,start,end,nodes,cpus,timelimit,req_gpus,alloc_gpus,state,exit"
	if lines[0] != want {
		t.Fatalf("%s:1: header %q, want %q", file, lines[0], want)
	}
	var rows []truthRow
	for i, l := range lines[1:] {
		f := strings.Split(l, ",")
		if len(f) != 13 {
			t.Fatalf("%s:%d: %d fields", file, i+2, len(f))
		}
		num := func(s string, empty int64) int64 {
			if s == "" {
				return empty
			}
			v, err := strconv.ParseInt(s, 10, 64)
			if err != nil {
				t.Fatalf("%s:%d: %q: %v", file, i+2, s, err)
			}
			return v
		}
		rows = append(rows, truthRow{id: num(f[0], 0), partition: f[2], submit: num(f[3], 0), start: num(f[4], -1), end: num(f[5], 0),
			nodes: num(f[6], 0), cpus: num(f[7], 0), limit: num(f[8], -1), allocGPU: num(f[10], -1), state: f[11]})
	}
	return rows
}

func checkAgainstTruth(t *testing.T, tr *Trace, truth []truthRow, keep bool) {
	t.Helper()
	byID := map[int64]Job{}
	for _, j := range tr.Jobs {
		if _, dup := byID[j.ID]; dup {
			t.Errorf("job %d kept twice", j.ID)
		}
		byID[j.ID] = j
	}
	base := tr.Header.UnixStartTime
	unstarted := 0
	for _, w := range truth {
		j, ok := byID[w.id]
		if w.start < 0 {
			unstarted++
			switch {
			case !keep && ok:
				t.Errorf("job %d never started (%s) but was kept", w.id, w.state)
			case keep && !ok:
				t.Errorf("job %d never started (%s): not kept under KeepUnstarted", w.id, w.state)
			case keep && (j.Run != 0 || j.Wait != -1 || base+int64(j.Submit) != w.submit):
				t.Errorf("job %d kept unstarted: submit %d run %v wait %v; want submit %d, run 0, wait -1", w.id, base+int64(j.Submit), j.Run, j.Wait, w.submit)
			}
			continue
		}
		if !ok {
			t.Errorf("job %d (%s) missing", w.id, w.state)
			continue
		}
		submit := base + int64(j.Submit)
		start := submit + int64(j.Wait)
		end := start + int64(j.Run)
		got := [...]int64{submit, start, end, j.Nodes, j.Procs, int64(j.ReqTime)}
		want := [...]int64{w.submit, w.start, w.end, w.nodes, w.cpus, w.limit}
		if got != want {
			t.Errorf("job %d: submit, start, end, nodes, cpus, limit = %v, truth %v", w.id, got, want)
		}
		if w.allocGPU >= 0 && j.GPUs != w.allocGPU {
			t.Errorf("job %d: %d GPUs, truth %d", w.id, j.GPUs, w.allocGPU)
		}
		if p := Name(tr.Names.Partitions, j.Partition); p != w.partition {
			t.Errorf("job %d: partition %q, truth %q", w.id, p, w.partition)
		}
	}
	if n := tr.Report.Count(NotStarted); !keep && n != int64(unstarted) {
		t.Errorf("%d dropped as never started, truth has %d", n, unstarted)
	}
	if len(tr.Jobs) != len(truth)-map[bool]int{false: unstarted, true: 0}[keep] {
		t.Errorf("%d jobs kept, truth has %d (%d never started)", len(tr.Jobs), len(truth), unstarted)
	}
}
