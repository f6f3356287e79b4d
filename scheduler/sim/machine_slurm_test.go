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
// cpu partition's 23 jobs and the gpu partition's 11 (shared by core in
// slurm.conf: select/cons_tres, CR_Core; GPU jobs hold cores and GPUs per
// node) run, none dropped; only the power figures differ (slurm.conf has
// none). machine-slurm.toml, the slurm.conf plus the TOML's power
// figures, gives jobs.csv byte for byte as machine.toml.
func TestRunSlurmConf(t *testing.T) {
	old := UnknownKeysOut
	UnknownKeysOut = nil
	defer func() { UnknownKeysOut = old }()

	toml, tomlJobs := runSacct(t, "../../examples/sacct/machine.toml")
	conf, _ := runSacct(t, "../../testdata/sacct/slurm.conf")
	if conf.Parts[0] != toml.Parts[0] || conf.Parts[0].Jobs != 23 {
		t.Errorf("cpu partition %+v, TOML %+v", conf.Parts[0], toml.Parts[0])
	}
	if conf.Parts[1] != toml.Parts[1] || conf.Parts[1].Name != "gpu" || conf.Parts[1].Jobs != 11 {
		t.Errorf("gpu partition %+v, TOML %+v", conf.Parts[1], toml.Parts[1])
	}
	if shared := slices.Index(scheduler.DropReasons[:], "GPUs in a shared-core partition"); shared >= 0 && conf.Stats.DroppedBy[shared] != 0 {
		t.Errorf("%d jobs dropped as GPUs in a shared-core partition", conf.Stats.DroppedBy[shared])
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
