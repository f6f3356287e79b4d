package sim

import (
	"bytes"
	"context"
	"slices"
	"testing"

	"drsim/scheduler"
)

// runSacct runs the real sacct dump of testdata/sacct on machine and
// returns the result and jobs.csv.
func runSacct(t *testing.T, machine string) (*Result, []byte) {
	t.Helper()
	s := Spec{Trace: "../../testdata/sacct/jobs.sacct", TraceTZ: "Europe/Paris", Machine: machine}
	tr, src, closeFn, err := Open(s)
	if err != nil {
		t.Fatal(err)
	}
	defer closeFn()
	var jobs bytes.Buffer
	res, err := Run(context.Background(), s, tr, Outputs{Source: src, Jobs: &jobs})
	if err != nil {
		t.Fatal(err)
	}
	return res, jobs.Bytes()
}

// --machine takes the slurm.conf the real Slurm ran with (detected by
// content). It routes every job as examples/sacct/machine.toml does: the
// cpu partition's 23 jobs run exactly as there (same count, waits and
// work); the 11 gpu jobs reach the gpu partition, which slurm.conf shares
// by core (select/cons_tres, CR_Core), so the engine runs its GPU jobs
// only if it places GPU jobs on shared-core partitions (this version
// drops them as "GPUs in a shared-core partition"). machine-slurm.toml,
// the slurm.conf plus the TOML's power figures and whole-node gpu
// partition, gives jobs.csv byte for byte as machine.toml.
func TestRunSlurmConf(t *testing.T) {
	old := UnknownKeysOut
	UnknownKeysOut = nil
	defer func() { UnknownKeysOut = old }()

	toml, tomlJobs := runSacct(t, "../../examples/sacct/machine.toml")
	conf, _ := runSacct(t, "../../testdata/sacct/slurm.conf")
	if conf.Parts[0] != toml.Parts[0] || conf.Parts[0].Jobs != 23 {
		t.Errorf("cpu partition %+v, TOML %+v", conf.Parts[0], toml.Parts[0])
	}
	shared := slices.Index(scheduler.DropReasons[:], "GPUs in a shared-core partition")
	gpu := conf.Parts[1].Jobs
	if shared >= 0 {
		gpu += conf.Stats.DroppedBy[shared]
	}
	if conf.Parts[1].Name != "gpu" || gpu != 11 || toml.Parts[1].Jobs != 11 {
		t.Errorf("gpu partition %+v (+ dropped as shared: %d), TOML %+v", conf.Parts[1], gpu-conf.Parts[1].Jobs, toml.Parts[1])
	}
	_, overJobs := runSacct(t, "../../examples/sacct/machine-slurm.toml")
	if !bytes.Equal(overJobs, tomlJobs) || len(tomlJobs) == 0 {
		t.Errorf("machine-slurm.toml's jobs.csv differs from machine.toml's:\n%s\n---\n%s", overJobs, tomlJobs)
	}
}

// The priority run of testdata/slurm-priority/run1 replayed with Slurm's
// priority and backfill from its slurm.conf, on the machine read from
// that same slurm.conf, gives jobs.csv byte for byte as on the TOML
// written for it (.ci/slurm/priority-machine.toml): the same partitions
// on the same processors.
func TestRunSlurmConfPriority(t *testing.T) {
	old := UnknownKeysOut
	UnknownKeysOut = nil
	defer func() { UnknownKeysOut = old }()
	const dir = "../../testdata/slurm-priority/run1/"
	var out [2]bytes.Buffer
	for i, m := range []string{dir + "slurm.conf", "../../.ci/slurm/priority-machine.toml"} {
		s := Spec{Trace: dir + "jobs.sacct", Machine: m, Priority: "multifactor", Policy: "slurm-backfill",
			SlurmConf: dir + "slurm.conf", Assoc: dir + "assoc.txt"}
		tr, src, closeFn, err := Open(s)
		if err != nil {
			t.Fatal(err)
		}
		res, err := Run(context.Background(), s, tr, Outputs{Source: src, Jobs: &out[i]})
		closeFn()
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Parts) != 2 || res.Parts[0].Jobs != 107 || res.Parts[1].Jobs != 53 {
			t.Errorf("%s: partitions %+v, want cpu 107 jobs and fast 53", m, res.Parts)
		}
	}
	if !bytes.Equal(out[0].Bytes(), out[1].Bytes()) {
		t.Errorf("jobs.csv on slurm.conf differs from the TOML's")
	}
}
