package sim

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"drsim/powercap"
	"drsim/workloads"
)

const gpuMachine = `name = "gpu-test"
[[node_type]]
name = "cpu"
prefix = "c"
count = 4
cores = 2
idle_w = 100

[[node_type]]
name = "gpu"
prefix = "g"
count = 2
cores = 1
gpus = 4
idle_w = 300
gpu_idle_w = 50
gpu_busy_w = 400

[[partition]]
name = "cpu"
nodes = "c[1-4]"
default = true

[[partition]]
name = "gpu"
nodes = "g[1-2]"
allocation = "node"
`

// gpuFiles writes the test machine and a trace of the given SWF job lines.
func gpuFiles(t *testing.T, lines ...string) (machineFile, trace string) {
	t.Helper()
	dir := t.TempDir()
	machineFile, trace = filepath.Join(dir, "m.toml"), filepath.Join(dir, "t.swf")
	if err := os.WriteFile(machineFile, []byte(gpuMachine), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(trace, []byte("; MaxProcs: 10\n"+strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return machineFile, trace
}

// A GPU job at a fixed pair (both knobs powersave: the lowest CPU and GPU
// caps of its model) takes exactly its modelled runtime there, and its
// energy per device is the modelled power times that time: node rest
// (idle_w − 4 idle GPUs) plus the CPU package in cpu_energy, 4 GPUs in
// gpu_energy. The CPU job beside it has no GPU energy.
func TestGPUJobFixedPair(t *testing.T) {
	m, tr := gpuFiles(t,
		"1 0 -1 1000 1 -1 -1 1 2000 -1 1 1 1 1 1 2 -1 -1", // 1000 s on the gpu partition (field 16 = 2)
		"2 0 -1 500 2 -1 -1 2 600 -1 1 1 1 1 1 1 -1 -1")   // 500 s on the cpu partition
	for _, mode := range []string{"powersave", "performance"} {
		s := Spec{Trace: tr, Machine: m, PartitionMap: "field16:1=cpu,2=gpu", GPUMap: "all:4", GPUAppMap: "one:minigan@rtx6000",
			PowerCap: mode, GPUCap: mode, Check: true}
		ds, err := Load(s)
		if err != nil {
			t.Fatal(err)
		}
		var jobs, pow bytes.Buffer
		res, err := Run(context.Background(), s, ds, Outputs{Jobs: &jobs, Power: &pow})
		if err != nil {
			t.Fatal(err)
		}
		if res.Stats.NViolations > 0 {
			t.Fatal(res.Stats.Violations)
		}
		var p powercap.Profile
		for _, q := range powercap.BuiltinGPU() {
			if q.Name == "minigan@rtx6000" {
				p = q
			}
		}
		j := p.Joint
		c, g := j.CPUCaps[len(j.CPUCaps)-1], j.GPUCaps[len(j.GPUCaps)-1]
		if mode == "powersave" {
			c, g = j.CPUCaps[0], j.GPUCaps[0]
		}
		top, _ := p.JointAt(j.CPUCaps[len(j.CPUCaps)-1], j.GPUCaps[len(j.GPUCaps)-1])
		at, _ := p.JointAt(c, g)
		dur := 1000 * at.Runtime / top.Runtime
		wantCPU := (300 - 4*50 + at.CPUPower) * dur
		wantGPU := 4 * at.GPUPower * dur
		rows := strings.Split(strings.TrimSpace(jobs.String()), "\n")
		hdr := strings.Split(rows[0], ",")
		if hdr[len(hdr)-2] != "cpu_energy" || hdr[len(hdr)-1] != "gpu_energy" {
			t.Fatalf("header %q", rows[0])
		}
		col := func(row []string, name string) float64 {
			for i, h := range hdr {
				if h == name {
					v, _ := strconv.ParseFloat(row[i], 64)
					return v
				}
			}
			t.Fatalf("no column %s", name)
			return 0
		}
		for _, r := range rows[1:] {
			f := strings.Split(r, ",")
			if f[0] == "2" {
				if col(f, "gpu_energy") != 0 || col(f, "cpu_energy") != col(f, "consumed_energy") {
					t.Errorf("%s: CPU job row %s", mode, r)
				}
				continue
			}
			close := func(a, b float64) bool { return math.Abs(a-b) <= 1e-9*b+2e-3 }
			if !close(col(f, "execution_time"), dur) || !close(col(f, "cpu_energy"), wantCPU) || !close(col(f, "gpu_energy"), wantGPU) ||
				!close(col(f, "consumed_energy"), wantCPU+wantGPU) {
				t.Errorf("%s: GPU job row %s; want runtime %v, cpu %v J, gpu %v J", mode, r, dur, wantCPU, wantGPU)
			}
			if *res.Summary.GPUKWh*3.6e6 != col(f, "gpu_energy") && !close(*res.Summary.GPUKWh*3.6e6, wantGPU) {
				t.Errorf("%s: summary GPU energy %v kWh", mode, *res.Summary.GPUKWh)
			}
		}
		// power.csv's gpu_w: 4 GPUs at p_gpu from 0 to dur, then 0.
		prow := strings.Split(strings.TrimSpace(pow.String()), "\n")
		if prow[0] != "time,power_w,limit_w,busy_procs,running_jobs,gpu_w" {
			t.Errorf("power.csv header %q", prow[0])
		}
		gpuJ, lastT, lastG := 0.0, 0.0, 0.0
		for _, r := range prow[1:] {
			f := strings.Split(r, ",")
			tt, _ := strconv.ParseFloat(f[0], 64)
			g, _ := strconv.ParseFloat(f[5], 64)
			gpuJ += lastG * (tt - lastT)
			lastT, lastG = tt, g
		}
		if math.Abs(gpuJ-wantGPU) > 1e-6*wantGPU {
			t.Errorf("%s: ∫gpu_w dt = %v J, want %v", mode, gpuJ, wantGPU)
		}
		if mode == "powersave" && !(dur > 1000) {
			t.Errorf("powersave pair runtime %v s: not slower than the top", dur)
		}
	}
}

// The --gpu-map rules, and the one-line errors of bad GPU options.
func TestGPUMapAndErrors(t *testing.T) {
	for _, tc := range []struct {
		spec string
		job  workloads.Job
		want int64
	}{
		{"all:4", workloads.Job{Procs: 100}, 4},
		{"procs:4", workloads.Job{Procs: 9}, 3},
		{"procs:4", workloads.Job{Procs: 8}, 2},
		{"field16:2=4,*=1", workloads.Job{Partition: 2}, 4},
		{"field16:2=4,*=1", workloads.Job{Partition: 3}, 1},
		{"field16:2=4", workloads.Job{Partition: 3}, 0},
	} {
		r, err := parseGPUMap(tc.spec)
		if err != nil {
			t.Fatalf("%s: %v", tc.spec, err)
		}
		if got := r(&tc.job); got != tc.want {
			t.Errorf("%s on %+v: %d GPUs, want %d", tc.spec, tc.job, got, tc.want)
		}
	}
	m, tr := gpuFiles(t, "1 0 -1 1000 1 -1 -1 1 2000 -1 1 1 1 1 1 2 -1 -1")
	_, plain := gpuFiles(t, "1 0 -1 1000 1 -1 -1 1 2000 -1 1 1 1 1 1 2 -1 -1")
	for _, tc := range []struct {
		s    Spec
		want string
	}{
		{Spec{Trace: tr, Machine: m, GPUMap: "all:x"}, `gpu-map: "x" is not a GPU count in [0, 1000000]`},
		{Spec{Trace: tr, Machine: m, GPUMap: "procs:0"}, `gpu-map: procs:0 needs processors per GPU in [1, 1000000]`},
		{Spec{Trace: tr, Machine: m, GPUMap: "field16:1=2,1=3"}, `gpu-map: partition number 1 mapped twice`},
		{Spec{Trace: tr, Machine: m, GPUMap: "some:1"}, `gpu-map: "some:1" is not one of all:N, field16:V=N,...,*=N or procs:K`},
		{Spec{Trace: tr, Machine: m, GPUCap: "fast"}, `gpucap: "fast" is not one of performance, powersave, dr, uniform`},
		{Spec{Trace: tr, Machine: m, GPUCap: "dr", PowerCap: "uniform"}, `gpucap: dr cannot be combined with the uniform CPU cap; use --powercap dr`},
		{Spec{Trace: tr, Machine: m, GPUAppMap: "one:nosuch"}, `gpu-app-map: `},
		{Spec{Trace: tr, Machine: m, GPUCap: "uniform", PowerCap: "dr"}, `gpucap: uniform cannot be combined with the dr CPU governor; use --powercap uniform`},
		{Spec{Trace: tr, Machine: m, GPUCap: "uniform", DRPartition: "gpu"}, `gpucap: the uniform cap shares the limit over the whole machine; use --gpucap dr with --dr-partition`},
		{Spec{Trace: plain, GPUCap: "dr"}, `gpucap: "dr" needs a machine file with GPU nodes (--machine)`},
		{Spec{Trace: plain, GPUMap: "all:1"}, `gpu-map: "all:1" needs a machine file with GPU nodes (--machine)`},
	} {
		ds, err := Load(tc.s)
		if err != nil {
			t.Fatal(err)
		}
		_, err = Run(context.Background(), tc.s, ds, Outputs{})
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%+v: error %v, want %q", tc.s, err, tc.want)
		}
	}
}

// drsim compare's GPU policies are the runs of their flags: gpucap-dr is
// --gpucap dr, powercap-joint is --powercap dr --gpucap dr, each row's
// energy that of the direct run with the same events.
func TestCompareGPUPolicies(t *testing.T) {
	var lines []string
	for i := range 40 {
		procs, part := 1, 1
		if i%2 == 0 {
			procs, part = 2, 2
		}
		lines = append(lines, fmt.Sprintf("%d %d -1 %d %d -1 -1 %d %d -1 1 1 1 1 1 %d -1 -1", i+1, i*300, 2000+100*i, procs, procs, 4000+100*i, part))
	}
	m, tr := gpuFiles(t, lines...)
	base := Spec{Trace: tr, Machine: m, PartitionMap: "field16:1=cpu,2=gpu", GPUMap: "all:4", DRRatio: 0.5, DRLimit: 0.3, DRDuration: "1h-2h", Check: true}
	c, err := Compare(context.Background(), CompareConfig{Base: base, Policies: []string{"gpucap-dr", "powercap-joint"}, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Rows) != 2 {
		t.Fatalf("%d rows", len(c.Rows))
	}
	for i, flags := range []Spec{{GPUCap: "dr"}, {PowerCap: "dr", GPUCap: "dr"}} {
		s := base
		s.GPUCap, s.PowerCap = flags.GPUCap, flags.PowerCap
		ds, err := Load(s)
		if err != nil {
			t.Fatal(err)
		}
		res, err := Run(context.Background(), s, ds, Outputs{})
		if err != nil {
			t.Fatal(err)
		}
		r := c.Rows[i]
		if r.EnergyKWh != res.Summary.EnergyKWh || r.Violations != 0 || r.MaxExcessW != 0 {
			t.Errorf("%s: energy %v kWh (direct run %v), %d violations, excess %v W", r.Policy, r.EnergyKWh, res.Summary.EnergyKWh, r.Violations, r.MaxExcessW)
		}
		if res.Summary.DRHours == 0 {
			t.Errorf("%s: no DR time", r.Policy)
		}
	}
}

// --gpucap uniform: under a limit L on a machine of N processors, a GPU
// job runs at the pair with the largest X ≤ L/N (X = IdleW + (CPU cap +
// GPUs·(GPU cap − gpu_idle_w))/cores bounds the pair's power per
// processor), so it takes that pair's Scale times its work.
func TestGPUCapUniform(t *testing.T) {
	m, tr := gpuFiles(t, "1 100 -1 1000 1 -1 -1 1 2000 -1 1 1 1 1 1 2 -1 -1")
	ev := filepath.Join(t.TempDir(), "ev.csv")
	const limit = 7000.0 // 700 W per processor of 10
	if err := os.WriteFile(ev, []byte("start,end,limit_w\n0,100000,7000\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s := Spec{Trace: tr, Machine: m, PartitionMap: "field16:1=cpu,2=gpu", GPUMap: "all:4", GPUAppMap: "one:minigan@rtx6000",
		GPUCap: "uniform", DREvents: ev}
	ds, err := Load(s)
	if err != nil {
		t.Fatal(err)
	}
	var jobs bytes.Buffer
	res, err := Run(context.Background(), s, ds, Outputs{Jobs: &jobs})
	if err != nil {
		t.Fatal(err)
	}
	k := slices.Index(res.Apps, "minigan@rtx6000@gpu")
	if k < 0 {
		t.Fatalf("apps %v", res.Apps)
	}
	lv := res.Tables[k].Levels
	if len(lv) != GPUGridN {
		t.Fatalf("%d levels; want %d (GPU caps at the top CPU cap)", len(lv), GPUGridN)
	}
	c, pick := limit/10, -1
	for i, l := range lv {
		if i > 0 && l.X < lv[i-1].X {
			t.Fatalf("levels not ascending in X: %v", lv)
		}
		if l.X <= c {
			pick = i
		}
		if l.Power > l.X {
			t.Errorf("level %d: power %v W above its X %v", i, l.Power, l.X)
		}
	}
	if pick <= 0 || pick == len(lv)-1 {
		t.Fatalf("limit share %v W picks level %d of %v: choose a limit between levels", c, pick, lv)
	}
	row := strings.Split(strings.Split(strings.TrimSpace(jobs.String()), "\n")[1], ",")
	got, _ := strconv.ParseFloat(row[8], 64)
	if want := 1000 * lv[pick].Scale; math.Abs(got-want) > 1e-6 {
		t.Errorf("runtime %v s, want %v (level %d)", got, want, pick)
	}
}
