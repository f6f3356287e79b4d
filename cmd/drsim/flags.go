package main

import (
	"github.com/urfave/cli/v2"

	"drsim/scheduler/sim"
)

// simFlags are the flags that describe one simulation (sim.Spec); run,
// compare and sweep share them.
func simFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "trace", Usage: "SWF trace, plain or gzip (default: embedded Lublin–Feitelson workload, 10,000 jobs on 256 processors)"},
		&cli.IntFlag{Name: "jobs", Usage: "keep the first N jobs (0: all)"},
		&cli.IntFlag{Name: "procs", Usage: "machine size in processors (default: trace header MaxProcs, then MaxNodes)"},
		&cli.IntFlag{Name: "procs-per-node", Usage: "processors per node", Value: 1},
		&cli.StringFlag{Name: "procs-field", Usage: "processor count from SWF field 8 (req) or 5 (alloc), falling back to the other", Value: "req"},
		&cli.StringFlag{Name: "estimate", Usage: "runtime estimate: requested time (req) or the true runtime (run)", Value: "req"},
		&cli.StringFlag{Name: "trace-format", Usage: "trace format: auto (a JobID|... header is sacct -P output), swf or sacct (default: auto)"},
		&cli.StringFlag{Name: "trace-tz", Usage: "time zone of a sacct log's times, e.g. Europe/Paris (default: UTC)"},
		&cli.BoolFlag{Name: "keep-unstarted", Usage: "keep sacct jobs that never started (cancelled while pending) as submits with zero runtime"},
		&cli.StringFlag{Name: "overrun", Usage: "jobs running past their requested time: kill (walltime reached) or extend", Value: "kill"},
		&cli.StringFlag{Name: "policy", Usage: "scheduling policy: fcfs, easy, conservative or slurm-backfill (Slurm's sched/backfill, SchedulerParameters from --slurm-conf)", Value: "easy"},
		&cli.StringFlag{Name: "order", Usage: "queue order: submit or sef (shortest estimate first)", Value: "submit"},
		&cli.StringFlag{Name: "pass", Usage: "scheduling pass after each instant (instant) or each event (event)", Value: "instant"},
		&cli.StringFlag{Name: "placement", Usage: "processor placement: contiguous, scattered, topology (needs --preset or --topology) or fastnodes (contiguous, but wide jobs avoid slow nodes; with node variability)", Value: "contiguous"},
		&cli.Uint64Flag{Name: "seed", Usage: "seed for every random choice", Value: 1},
		&cli.BoolFlag{Name: "check", Usage: "check invariants online; fail on any violation"},
		&cli.StringFlag{Name: "dvfs", Usage: "frequency policy: performance, powersave or dr", Value: "performance"},
		&cli.StringFlag{Name: "app-map", Usage: "job→application rule: exe, user, mix[:app=w,...] or one:APP", Value: "mix"},
		&cli.StringFlag{Name: "models", Usage: "power models: builtin or a directory of model files from drsim calibrate", Value: "builtin"},
		&cli.StringFlag{Name: "pstates", Usage: "CPU frequencies in GHz, comma separated, or continuous (default 1.2..2.4 step 0.2, 2.7)"},
		&cli.Float64Flag{Name: "idle-w", Usage: "idle processor power in W (default: 40% of the lowest busy power)"},
		&cli.StringFlag{Name: "dr-events", Usage: "CSV of DR events: start,end,limit_w or start,end,limit_frac"},
		&cli.Float64Flag{Name: "dr-ratio", Usage: "generate DR events covering this fraction of the span"},
		&cli.Float64Flag{Name: "dr-limit", Usage: "limit of generated DR events as a fraction of peak power", Value: 0.8},
		&cli.StringFlag{Name: "dr-duration", Usage: "length of generated DR events, e.g. 3h or 2h-4h", Value: "2h-4h"},
		&cli.StringFlag{Name: "dr-daily", Usage: "daily DR window in the trace's local time, e.g. 14:00-18:00"},
		&cli.Uint64Flag{Name: "dr-seed", Usage: "seed for generated DR events (default: --seed)"},
		&cli.Float64Flag{Name: "base-limit", Usage: "power limit outside DR events in W (default: none)"},
		&cli.StringFlag{Name: "netmodel", Usage: "network model: on or off (default: on when --preset or --topology is given, else off)"},
		&cli.StringFlag{Name: "preset", Usage: "machine for the network model and topology placement: hopper, mira, edison or stampede"},
		&cli.StringFlag{Name: "topology", Usage: "topology description `FILE` (.toml or .json), instead of --preset"},
		&cli.StringFlag{Name: "interference", Usage: "concurrent jobs share network links (max-min): on or off", Value: "off"},
		&cli.StringFlag{Name: "powercap", Usage: "power-cap mode instead of --dvfs: off, performance (Pmax), powersave (Pmin), dr or uniform", Value: "off"},
		&cli.StringFlag{Name: "cap-grid", Usage: "admissible package caps MIN:MAX:STEP in W (default 80:250:10)"},
		&cli.Float64Flag{Name: "rapl-window", Usage: "RAPL averaging window in s for the window-averaged limit check (default 1)"},
		&cli.Float64Flag{Name: "malleable", Usage: "fraction of jobs (seeded hash of the job ID) that may shrink during DR events (--powercap dr)"},
		&cli.Float64Flag{Name: "resize-cost", Usage: "reconfiguration pause per resize in s", Value: 30},
		&cli.Float64Flag{Name: "suspend-after", Usage: "power a node off after its processors have all been free this many s (0: never)"},
		&cli.Float64Flag{Name: "resume-time", Usage: "s a powered-off node takes to boot; jobs on it wait (with --suspend-after)"},
		&cli.Float64Flag{Name: "boot-w", Usage: "power of a booting node in W (default: the node's idle power)"},
		&cli.Float64Flag{Name: "off-w", Usage: "power of a powered-off node in W"},
		&cli.StringFlag{Name: "machine", Usage: "machine file `FILE` (node types and partitions, docs/machine.md), a slurm.conf (read as the machine) or builtin:default|perlmutter"},
		&cli.StringFlag{Name: "dr-partition", Usage: "with --machine: DR limits apply to this partition's nodes only, and governors govern its jobs only (default: the whole machine)"},
		&cli.StringFlag{Name: "priority", Usage: "queue priority: submit (by submit time, --order) or multifactor (Slurm's priority/multifactor with classic fair share, from --slurm-conf) (default: submit)"},
		&cli.StringFlag{Name: "slurm-conf", Usage: "slurm.conf `FILE` for --priority multifactor: Priority* keys, PartitionName PriorityJobFactor, SchedulerParameters (other keys are ignored)"},
		&cli.StringFlag{Name: "slurm-set", Usage: "slurm.conf settings over --slurm-conf (or Slurm's defaults), `KEY=VALUE;...`, e.g. PriorityWeightAge=1000;PriorityWeightFairshare=10000;SchedulerParameters=bf_interval=5"},
		&cli.StringFlag{Name: "assoc", Usage: "fair-share associations `FILE`: TOML ([accounts], [users] \"acct/user\", [qos]) or `sacctmgr show assoc -P` output (default: equal shares per user)"},
		&cli.StringFlag{Name: "node-var", Usage: "per-node variability CSV `FILE`: node,speed,power[,idle_w] (relative speed, busy power factor, the node's own idle W; node index or machine-file name)"},
		&cli.Float64Flag{Name: "node-speed-sd", Usage: "seeded per-node speed spread: relative speeds 1+sd·z, z normal truncated at ±3 (e.g. 0.03)"},
		&cli.StringFlag{Name: "slow-nodes", Usage: "seeded slow nodes FRACTION:SLOWDOWN, e.g. 0.0625:1.1 (1/16 of the nodes take 10% longer)"},
		&cli.Float64Flag{Name: "job-noise", Usage: "seeded per-run noise on a job's pace: × (1 + sd·z), z normal truncated at ±3 (e.g. 0.02)"},
		&cli.StringFlag{Name: "node-drift", Usage: "nodes changing over time: NODE@T:FACTOR (slower) or NODE@T:±WW (idle power, whole node)[,...], from trace time T s on (e.g. 3@8640000:1.1,5@8640000:+11W)"},
		&cli.StringFlag{Name: "pace", Usage: "a job's pace over its nodes: slowest (bulk-synchronous), mean, or ignore (durations as without variability)", Value: "slowest"},
		&cli.StringFlag{Name: "partition-map", Usage: "job→partition rule with --machine: all:NAME or field16:1=cpu,2=gpu,*=cpu (default: by name for sacct traces, else the default partition)"},
		&cli.StringFlag{Name: "gpucap", Usage: "GPU knob of GPU jobs on a machine with GPU nodes: performance (max cap), powersave (min cap), dr or uniform (docs/gpu-dr.md; default performance)"},
		&cli.StringFlag{Name: "gpu-app-map", Usage: "GPU jobs' profiles, as --app-map over the built-in GPU profiles with a joint model (default mix)"},
		&cli.StringFlag{Name: "gpu-map", Usage: "GPUs per job routed to a GPU partition: all:N, field16:V=N,*=N or procs:K (one per K processors; default: from the trace)"},
	}
}

// specFromFlags reads the simulation flags into a Spec.
func specFromFlags(c *cli.Context) sim.Spec {
	return sim.Spec{
		Trace: c.String("trace"), Jobs: c.Int("jobs"), Procs: c.Int("procs"), ProcsPerNode: c.Int("procs-per-node"),
		ProcsField: c.String("procs-field"), Estimate: c.String("estimate"), Overrun: c.String("overrun"),
		TraceFormat: c.String("trace-format"), TraceTZ: c.String("trace-tz"), KeepUnstarted: c.Bool("keep-unstarted"),
		Policy: c.String("policy"), Order: c.String("order"), Pass: c.String("pass"), Placement: c.String("placement"),
		Seed: c.Uint64("seed"), Check: c.Bool("check"),
		DVFS: c.String("dvfs"), AppMap: c.String("app-map"), Models: c.String("models"), PStates: c.String("pstates"),
		IdleW:    c.Float64("idle-w"),
		DREvents: c.String("dr-events"), DRRatio: c.Float64("dr-ratio"), DRLimit: c.Float64("dr-limit"),
		DRDuration: c.String("dr-duration"), DRDaily: c.String("dr-daily"), DRSeed: c.Uint64("dr-seed"),
		BaseLimit: c.Float64("base-limit"),
		NetModel:  c.String("netmodel"), Preset: c.String("preset"), Topology: c.String("topology"),
		Interference: c.String("interference"),
		PowerCap:     c.String("powercap"), CapGrid: c.String("cap-grid"), RAPLWindow: c.Float64("rapl-window"),
		Malleable: c.Float64("malleable"), ResizeCost: c.Float64("resize-cost"),
		SuspendAfter: c.Float64("suspend-after"), ResumeTime: c.Float64("resume-time"),
		BootW: c.Float64("boot-w"), OffW: c.Float64("off-w"),
		Machine: c.String("machine"), PartitionMap: c.String("partition-map"), DRPartition: c.String("dr-partition"),
		GPUCap: c.String("gpucap"), GPUAppMap: c.String("gpu-app-map"), GPUMap: c.String("gpu-map"),
		Priority: c.String("priority"), SlurmConf: c.String("slurm-conf"), Assoc: c.String("assoc"), SlurmSet: c.String("slurm-set"),
		NodeVar: c.String("node-var"), NodeSpeedSD: c.Float64("node-speed-sd"), SlowNodes: c.String("slow-nodes"), Pace: c.String("pace"),
		JobNoise: c.Float64("job-noise"), NodeDrift: c.String("node-drift"),
	}
}
