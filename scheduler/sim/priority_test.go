package sim

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"drsim/scheduler/slurmconf"
	"drsim/workloads"
)

// The real sacct fixture replays under multifactor priority with the real
// sacctmgr associations: users map to their (account, user) associations,
// the slurm.conf's unknown keys are listed once, and --check holds.
func TestPriorityFromSlurmFiles(t *testing.T) {
	var msg bytes.Buffer
	old := UnknownKeysOut
	UnknownKeysOut = &msg
	defer func() { UnknownKeysOut = old }()
	dir := t.TempDir()
	conf := filepath.Join(dir, "slurm.conf")
	base, err := os.ReadFile("../../testdata/sacct/slurm.conf")
	if err != nil {
		t.Fatal(err)
	}
	extra := "PriorityType=priority/multifactor\nPriorityFlags=NO_FAIR_TREE\nPriorityWeightFairshare=10000\nPriorityWeightAge=100\nPriorityCalcPeriod=1\n"
	if err := os.WriteFile(conf, append(base, extra...), 0o644); err != nil {
		t.Fatal(err)
	}
	spec := Spec{Trace: "../../testdata/sacct/jobs.sacct", Machine: "", Priority: "multifactor", SlurmConf: conf,
		Assoc: "../../testdata/sacct/assoc.txt", Check: true}
	tr, err := Load(spec)
	if err != nil {
		t.Fatal(err)
	}
	res, err := Run(context.Background(), spec, tr, Outputs{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Stats.NViolations != 0 || res.Summary.Jobs == 0 {
		t.Fatalf("%d jobs, violations %q", res.Summary.Jobs, res.Stats.Violations)
	}
	if got := msg.String(); strings.Count(got, "\n") != 1 || !strings.Contains(got, "ignored keys: ClusterName SlurmctldHost") || strings.Contains(got, "PriorityType") {
		t.Errorf("unknown-keys line %q", got)
	}
	// Associations: u1 is in astro (3 shares), u2 in astro and bio: a job
	// of u2 under bio maps to bio/u2.
	res2 := newAssocResolverFrom(t, "../../testdata/sacct/assoc.txt", tr)
	u1 := res2.of(&workloads.Job{User: idx(tr.Names.Users, "u1"), Group: idx(tr.Names.Accounts, "astro")})
	u2 := res2.of(&workloads.Job{User: idx(tr.Names.Users, "u2"), Group: idx(tr.Names.Accounts, "bio")})
	if res2.tree.UserShares[u1] != 3 || res2.tree.AcctShares[res2.tree.UserAcct[u1]] != 2 {
		t.Errorf("u1: association %d shares %v", u1, res2.tree.UserShares[u1])
	}
	if res2.tree.AcctShares[res2.tree.UserAcct[u2]] != 1 || u2 == res2.user[[2]string{"astro", "u2"}] {
		t.Errorf("u2 under bio mapped to association %d", u2)
	}
	// A bad value is a file:line error.
	if err := os.WriteFile(conf, append(base, "PriorityWeightAge=lots\n"...), 0o644); err != nil {
		t.Fatal(err)
	}
	n := bytes.Count(base, []byte("\n")) + 1
	_, err = Run(context.Background(), spec, tr, Outputs{})
	if err == nil || !strings.Contains(err.Error(), conf+":"+strconv.Itoa(n)+": PriorityWeightAge=\"lots\"") {
		t.Errorf("bad weight: %v", err)
	}
	spec.Order = "sef"
	if _, err := Run(context.Background(), spec, tr, Outputs{}); err == nil || !strings.Contains(err.Error(), "order") {
		t.Errorf("sef with multifactor: %v", err)
	}
}

func newAssocResolverFrom(t *testing.T, path string, tr *workloads.Trace) *assocResolver {
	t.Helper()
	a, err := slurmconf.LoadAssoc(path)
	if err != nil {
		t.Fatal(err)
	}
	return newAssocResolver(a, tr)
}

func idx(names []string, s string) int64 {
	for i, n := range names {
		if n == s {
			return int64(i + 1)
		}
	}
	return -1
}

// A piped sacct log names its users and accounts only as it is read, after
// the associations are resolved; with --assoc, Open loads the trace whole so
// that the file's associations are the ones the jobs get (before, every
// user of a piped log became a new one-share association named by number).
func TestOpenWithAssocKnowsNames(t *testing.T) {
	spec := Spec{Trace: "../../testdata/sacct/jobs.sacct", Procs: 64, Priority: "multifactor", Assoc: "../../testdata/sacct/assoc.txt"}
	tr, _, closeFn, err := Open(spec)
	if err != nil {
		t.Fatal(err)
	}
	defer closeFn()
	if idx(tr.Names.Users, "u1") < 0 || idx(tr.Names.Accounts, "astro") < 0 {
		t.Fatalf("Open with --assoc: users %q, accounts %q: want the log's names before the run", tr.Names.Users, tr.Names.Accounts)
	}
	res := newAssocResolverFrom(t, spec.Assoc, tr)
	u1 := res.of(&workloads.Job{User: idx(tr.Names.Users, "u1"), Group: idx(tr.Names.Accounts, "astro")})
	if got := len(res.tree.UserShares); u1 >= got || res.tree.UserShares[u1] != 3 {
		t.Errorf("u1/astro: association %d of %d: want the file's (3 shares)", u1, got)
	}
}
