package sim

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"drsim/results"
	"drsim/workloads"
)

// The builtin default machine is the processor-only machine of the
// embedded workload: a run with it gives byte-identical jobs.csv and the
// same summary as a run without a machine file, under every policy and
// with the dr governor in DR events.
func TestDefaultMachineIdentical(t *testing.T) {
	for _, s := range []Spec{
		{Policy: "fcfs", Jobs: 3000}, {Policy: "easy", Jobs: 3000}, {Policy: "conservative", Jobs: 3000},
		{Policy: "easy", DVFS: "dr", DRRatio: 0.25, Jobs: 3000},
	} {
		t.Run(s.Policy+"/"+s.DVFS, func(t *testing.T) {
			plain, sp := runCSV(t, s)
			s.Machine = "builtin:default"
			withM, sm := runCSV(t, s)
			if !bytes.Equal(plain, withM) {
				t.Errorf("jobs.csv differs with builtin:default (%d vs %d bytes)", len(plain), len(withM))
			}
			if *sp != *sm {
				t.Errorf("summary differs:\n%+v\n%+v", *sp, *sm)
			}
		})
	}
}

type summaryKey struct {
	jobs                        int
	meanWait, energy, peak, exc float64
}

func runCSV(t *testing.T, s Spec) ([]byte, *summaryKey) {
	t.Helper()
	tr, err := Load(s)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	res, err := Run(context.Background(), s, tr, Outputs{Jobs: &buf})
	if err != nil {
		t.Fatal(err)
	}
	sum := res.Summary
	return buf.Bytes(), &summaryKey{sum.Jobs, sum.MeanWait, sum.EnergyKWh, sum.PeakW, sum.MaxExcessW}
}

const twoPartMachine = `name = "lublin-two"
[[node_type]]
name = "cpu"
prefix = "c"
count = 192
cores = 1

[[node_type]]
name = "gpu"
prefix = "g"
count = 16
cores = 4
gpus = 2
idle_w = 240
gpu_idle_w = 40
gpu_busy_w = 300

[[partition]]
name = "cpu"
node_type = "cpu"
allocation = "core"
default = true

[[partition]]
name = "gpu"
nodes = "g[01-16]"
allocation = "node"
`

// A partitioned run of the embedded workload (jobs alternate between a
// 192-processor core partition and 16 four-core GPU nodes), under every
// policy and with DR limits on the whole machine or on the GPU partition:
// the online checks (no node, GPU or processor handed out twice, no job
// outside its partition, power under the limit, energy balance) find no
// violation, and jobs larger than their partition are dropped with that
// reason.
func TestPartitionedRuns(t *testing.T) {
	dir := t.TempDir()
	mf := filepath.Join(dir, "machine.toml")
	if err := os.WriteFile(mf, []byte(twoPartMachine), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, s := range []Spec{
		{Policy: "fcfs"}, {Policy: "easy"}, {Policy: "conservative"},
		{Policy: "easy", DVFS: "dr", DRRatio: 0.3, DRLimit: 0.6},
		{Policy: "easy", PowerCap: "dr", DRRatio: 0.3, DRLimit: 0.6, DRPartition: "gpu"},
		{Policy: "conservative", DVFS: "dr", DRRatio: 0.3, DRLimit: 0.6, DRPartition: "cpu"},
	} {
		t.Run(s.Policy+"/"+s.DVFS+s.PowerCap+"/"+s.DRPartition, func(t *testing.T) {
			s.Machine, s.PartitionMap, s.Jobs, s.Check = mf, "field16:1=cpu,2=gpu", 4000, true
			tr, err := Load(s)
			if err != nil {
				t.Fatal(err)
			}
			gpuJobs := 0
			for i := range tr.Jobs {
				tr.Jobs[i].Partition = 1 + int64(i%2)
				if i%4 == 1 {
					tr.Jobs[i].GPUs = 1 + int64(i%3)
				}
				if i%2 == 1 {
					gpuJobs++
				}
			}
			res, err := Run(context.Background(), s, tr, Outputs{})
			if err != nil {
				t.Fatal(err)
			}
			if res.Stats.NViolations != 0 {
				t.Fatalf("%d violations: %v", res.Stats.NViolations, res.Stats.Violations)
			}
			if res.Stats.Finished+res.Stats.Dropped != len(tr.Jobs) || res.Stats.Finished < len(tr.Jobs)/2 {
				t.Errorf("%d finished, %d dropped of %d", res.Stats.Finished, res.Stats.Dropped, len(tr.Jobs))
			}
			if !strings.Contains(res.Summary.DropWhy, "larger than its partition (engine)") {
				t.Errorf("drop reasons %q: want jobs over 64 processors of gpu dropped", res.Summary.DropWhy)
			}
			if s.DRRatio > 0 && (res.Summary.DRHours == 0 || res.Summary.MaxExcessW > 1e-6) {
				t.Errorf("DR hours %v, worst excess %v W", res.Summary.DRHours, res.Summary.MaxExcessW)
			}
			t.Logf("%d finished, %d dropped (%s), DR %.1f h, excess %v W, evictions %d", res.Stats.Finished, res.Stats.Dropped, res.Summary.DropWhy, res.Summary.DRHours, res.Summary.MaxExcessW, res.Stats.Evictions)
			_ = gpuJobs
		})
	}
}

// Machine-file errors and misuse reach the run as spec errors.
func TestMachineSpecErrors(t *testing.T) {
	tr := &workloads.Trace{Jobs: []workloads.Job{{ID: 1, Run: 10, Procs: 1}}, MachineProcs: 4}
	for _, c := range []struct {
		s    Spec
		want string
	}{
		{Spec{PartitionMap: "all:cpu"}, "partition-map: \"all:cpu\" needs a machine file"},
		{Spec{DRPartition: "gpu"}, "dr-partition: \"gpu\" needs a machine file"},
		{Spec{Machine: "builtin:perlmutter", DRPartition: "debug"}, `dr-partition: no partition "debug"`},
		{Spec{Machine: "builtin:perlmutter", Procs: 64}, "procs: 64 given with a machine file"},
		{Spec{Machine: "builtin:perlmutter", PartitionMap: "field16:1=gpu,x=cpu"}, `partition-map: "x" is not a partition number`},
		{Spec{Machine: "builtin:nope"}, `unknown builtin machine "nope"`},
	} {
		_, err := Run(context.Background(), c.s, tr, Outputs{})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want %q", c.s, err, c.want)
		}
	}
}

// Slurm accounting traces name partitions: Job.Partition indexes
// Trace.Names.Partitions, a job with none goes to the default partition,
// and one naming a partition the machine lacks is dropped with that
// reason.
func TestRouteByName(t *testing.T) {
	dir := t.TempDir()
	mf := filepath.Join(dir, "machine.toml")
	if err := os.WriteFile(mf, []byte(twoPartMachine), 0o644); err != nil {
		t.Fatal(err)
	}
	tr := &workloads.Trace{Names: workloads.Names{Partitions: []string{"gpu", "debug", "cpu"}}}
	for i := range 8 {
		tr.Jobs = append(tr.Jobs, workloads.Job{ID: int64(i + 1), Submit: float64(i), Run: 100, Procs: 4, ReqTime: 200, Estimate: 200,
			Partition: int64(i % 4)}) // 0: none (default cpu), 1: gpu, 2: debug (unknown), 3: cpu
	}
	var jobs bytes.Buffer
	res, err := Run(context.Background(), Spec{Machine: mf, Check: true}, tr, Outputs{Jobs: &jobs})
	if err != nil {
		t.Fatal(err)
	}
	if res.Stats.Finished != 6 || res.Summary.DropWhy != "no such partition (engine): 2" {
		t.Errorf("%d finished, drops %q; want 6 and 2 with no such partition", res.Stats.Finished, res.Summary.DropWhy)
	}
	// The cpu partition is processors 0-191, the gpu nodes 192-255: jobs 2 and 6 (gpu) hold one 4-core node.
	for _, l := range strings.Split(strings.TrimSpace(jobs.String()), "\n")[1:] {
		f := strings.Split(l, ",")
		id, alloc := f[0], f[13]
		gpu := id == "2" || id == "6"
		if lo := strings.Split(alloc, "-")[0]; gpu != (len(lo) == 3 && lo >= "192") {
			t.Errorf("job %s on processors %s", id, alloc)
		}
	}
}

// A partition's apps list restricts the power profiles its jobs run: every
// gpu job is lulesh, the cpu jobs keep the run's mix; a name the models
// lack is an error at the list's line.
func TestPartitionApps(t *testing.T) {
	dir := t.TempDir()
	mf := filepath.Join(dir, "machine.toml")
	src := strings.Replace(twoPartMachine, `allocation = "node"`, `allocation = "node"`+"\n"+`apps = ["LULESH"]`, 1)
	if err := os.WriteFile(mf, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	s := Spec{Machine: mf, PartitionMap: "field16:1=cpu,2=gpu", Jobs: 400, Check: true}
	tr, err := Load(s)
	if err != nil {
		t.Fatal(err)
	}
	for i := range tr.Jobs {
		tr.Jobs[i].Partition = 1 + int64(i%2)
	}
	res, err := Run(context.Background(), s, tr, Outputs{})
	if err != nil {
		t.Fatal(err)
	}
	lulesh := slices.Index(res.Apps, "lulesh")
	others := map[int]bool{}
	for i := range tr.Jobs {
		a := res.AppOf(&tr.Jobs[i])
		if i%2 == 1 && a != lulesh {
			t.Fatalf("gpu job %d runs %s, want lulesh", tr.Jobs[i].ID, res.Apps[a])
		}
		if i%2 == 0 {
			others[a] = true
		}
	}
	if len(others) < 3 {
		t.Errorf("cpu jobs run %d applications, want the mix", len(others))
	}
	bad := strings.Replace(src, `"LULESH"`, `"hpl"`, 1)
	if err := os.WriteFile(mf, []byte(bad), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = Run(context.Background(), s, tr, Outputs{})
	if want := mf + `:28: partition "gpu": key "apps": no application "hpl"`; err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("got %v\nwant %s", err, want)
	}
}

// A sacct log opened for a run (Open, as drsim run does) on a machine file
// routes its jobs by the partition names Slurm recorded: the real dump in
// testdata/sacct ran 23 jobs on cpu and 11 on gpu (truth.csv less the 3
// that never started). A streamed log names its partitions as it goes, so
// such a run loads the log first; before that, every job went to the
// default partition and the GPU jobs were dropped.
func TestOpenRoutesSacctByName(t *testing.T) {
	s := Spec{Trace: "../../testdata/sacct/jobs.sacct", TraceTZ: "Europe/Paris", Machine: "../../examples/sacct/machine.toml"}
	tr, src, closeFn, err := Open(s)
	if err != nil {
		t.Fatal(err)
	}
	defer closeFn()
	res, err := Run(context.Background(), s, tr, Outputs{Source: src})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]int{}
	for _, p := range res.Parts {
		got[p.Name] = p.Jobs
	}
	if got["cpu"] != 23 || got["gpu"] != 11 || res.Stats.Dropped != 0 {
		t.Errorf("jobs by partition %v, dropped %d; want cpu 23, gpu 11, none dropped", got, res.Stats.Dropped)
	}
}

// Generated DR events cover the jobs a machine file keeps, not the whole
// log: with a filter to the cpu partition, jobs of an unmapped partition
// submitted until t = 1e6 s must not stretch the events (and the idle
// energy the meter integrates until the last one) past the kept jobs.
func TestDREventsSpanKeptJobs(t *testing.T) {
	dir := t.TempDir()
	mf := filepath.Join(dir, "machine.toml")
	if err := os.WriteFile(mf, []byte(twoPartMachine), 0o644); err != nil {
		t.Fatal(err)
	}
	tr := &workloads.Trace{MachineProcs: 256}
	for i := range 20 {
		j := workloads.Job{ID: int64(i + 1), Submit: float64(200 * i), Run: 500, Procs: 4, ReqTime: 600, Estimate: 600, Partition: 1}
		if i >= 10 {
			j.Submit, j.Partition = 1e5*float64(i-9), 7 // dropped: no such partition
		}
		tr.Jobs = append(tr.Jobs, j)
	}
	s := Spec{Machine: mf, PartitionMap: "field16:1=cpu", DVFS: "dr", DRRatio: 0.5, DRLimit: 0.5, Check: true}
	res, err := Run(context.Background(), s, tr, Outputs{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Stats.Finished != 10 || res.Stats.NViolations != 0 {
		t.Fatalf("%d finished, %d violations; want 10 and 0", res.Stats.Finished, res.Stats.NViolations)
	}
	// Kept jobs: submits 0, 200, …, 1800, each 500 s on 4 of 192 processors: span [0, 2300].
	last := res.Limits[len(res.Limits)-1].T
	if last > 2300 || res.Summary.DRHours*3600 < 0.5*2300-1 {
		t.Errorf("last limit step at %v s, DR %v h; want events inside [0, 2300] covering half of it", last, res.Summary.DRHours)
	}
}

// recs keeps finished jobs by ID.
type recs map[int64]results.Record

func (r recs) Record(x *results.Record) error { r[x.ID] = *x; return nil }

// The gpu partition of the real Slurm behind testdata/sacct shares its
// nodes by core (cons_tres, CR_Core), as examples/sacct/machine.toml now
// says. Every GPU job runs (none dropped), holds the GPUs Slurm allocated
// (truth.csv alloc_gpus, from slurmctld's own log) at 220 W each above
// idle (gpu_busy_w 250 − gpu_idle_w 30), and 8 of the 11 start when Slurm
// started them. The other three: job 15 was submitted to cpu,gpu (Slurm
// started it on gpu 11 s late), job 32 started 1 s late in Slurm (its
// scheduling latency), and 34_3 waited for its array's %2 throttle,
// which drsim does not model.
func TestSacctGPUSharedCores(t *testing.T) {
	s := Spec{Trace: "../../testdata/sacct/jobs.sacct", TraceTZ: "Europe/Paris", Machine: "../../examples/sacct/machine.toml"}
	tr, src, closeFn, err := Open(s)
	if err != nil {
		t.Fatal(err)
	}
	defer closeFn()
	got := recs{}
	res, err := Run(context.Background(), s, tr, Outputs{Source: src, Record: got})
	if err != nil {
		t.Fatal(err)
	}
	if res.Stats.Dropped != 0 || res.Stats.NViolations != 0 {
		t.Fatalf("dropped %d (%v), violations %v", res.Stats.Dropped, res.Stats.DroppedBy, res.Stats.Violations)
	}
	data, err := os.ReadFile("../../testdata/sacct/truth.csv")
	if err != nil {
		t.Fatal(err)
	}
	var t0 float64 // the first submit: the trace's time 0
	late := map[int64]bool{15: true, 32: true, 34: true}
	n := 0
	for i, line := range strings.Split(strings.TrimSpace(string(data)), "\n")[1:] {
		f := strings.Split(line, ",") // id,jobid,partition,submit,start,end,nodes,cpus,timelimit,req_gpus,alloc_gpus,state,exit
		sub, _ := strconv.ParseFloat(f[3], 64)
		if i == 0 {
			t0 = sub
		}
		if f[2] != "gpu" {
			continue
		}
		id, _ := strconv.ParseInt(f[0], 10, 64)
		start, _ := strconv.ParseFloat(f[4], 64)
		gpus, _ := strconv.ParseFloat(f[10], 64)
		r, ok := got[id]
		if !ok {
			t.Errorf("job %d (gpu) did not run", id)
			continue
		}
		n++
		if want := gpus * 220 * (r.End - r.Start); r.GPUEnergy != want {
			t.Errorf("job %d: GPU energy %v J, want %v GPUs × 220 W × %v s = %v", id, r.GPUEnergy, gpus, r.End-r.Start, want)
		}
		if !late[id] && r.Start != start-t0 {
			t.Errorf("job %d started at %v, Slurm at %v", id, r.Start, start-t0)
		}
	}
	if n != 11 {
		t.Errorf("%d GPU-partition jobs ran, want 11", n)
	}
}
