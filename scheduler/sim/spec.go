package sim

import (
	"fmt"
	"strings"
)

// Spec is one fully described simulation. Zero values mean defaults.
type Spec struct {
	Trace        string `toml:"trace" json:"trace,omitempty"`                   // SWF file; "" = embedded Lublin–Feitelson workload
	Jobs         int    `toml:"jobs" json:"jobs,omitempty"`                     // keep the first N jobs; 0 = all
	Procs        int    `toml:"procs" json:"procs,omitempty"`                   // machine size override; 0 = from the trace header
	ProcsPerNode int    `toml:"procs_per_node" json:"procs_per_node,omitempty"` // 0 = 1
	ProcsField   string `toml:"procs_field" json:"procs_field,omitempty"`       // req (default) | alloc
	Estimate     string `toml:"estimate" json:"estimate,omitempty"`             // req (default) | run
	Overrun      string `toml:"overrun" json:"overrun,omitempty"`               // kill (default) | extend
	Policy       string `toml:"policy" json:"policy,omitempty"`                 // fcfs | easy (default) | conservative | slurm-backfill
	Order        string `toml:"order" json:"order,omitempty"`                   // submit (default) | sef
	Pass         string `toml:"pass" json:"pass,omitempty"`                     // instant (default) | event
	Placement    string `toml:"placement" json:"placement,omitempty"`           // contiguous (default) | scattered
	Seed         uint64 `toml:"seed" json:"seed,omitempty"`                     // seeds every random choice; 0 = 1
	Check        bool   `toml:"check" json:"check,omitempty"`                   // online invariant checks

	// Slurm accounting logs (workloads/sacct.go).
	TraceFormat   string `toml:"trace_format" json:"trace_format,omitempty"`     // auto (default) | swf | sacct
	TraceTZ       string `toml:"trace_tz" json:"trace_tz,omitempty"`             // zone of sacct times, e.g. Europe/Paris; "" = UTC
	KeepUnstarted bool   `toml:"keep_unstarted" json:"keep_unstarted,omitempty"` // keep never-started sacct jobs with zero runtime

	// Power.
	DVFS    string  `toml:"dvfs" json:"dvfs,omitempty"`       // performance (default) | powersave | dr
	AppMap  string  `toml:"app_map" json:"app_map,omitempty"` // exe | user | mix[:a=w,...] (default mix) | one:NAME
	Models  string  `toml:"models" json:"models,omitempty"`   // builtin (default) | a directory of model files
	PStates string  `toml:"pstates" json:"pstates,omitempty"` // comma list of GHz; "" = 1.2..2.4 step 0.2 + 2.7; "continuous"
	IdleW   float64 `toml:"idle_w" json:"idle_w,omitempty"`   // idle processor power (W); 0 = derived, see IdlePower

	// Demand response (power limit over time).
	DREvents   string  `toml:"dr_events" json:"dr_events,omitempty"`     // CSV of start,end,limit_w|limit_frac
	DRRatio    float64 `toml:"dr_ratio" json:"dr_ratio,omitempty"`       // fraction of the span covered by generated events
	DRLimit    float64 `toml:"dr_limit" json:"dr_limit,omitempty"`       // limit of generated events, fraction of peak power (default 0.8)
	DRDuration string  `toml:"dr_duration" json:"dr_duration,omitempty"` // event length or range, e.g. "2h-4h" (default)
	DRDaily    string  `toml:"dr_daily" json:"dr_daily,omitempty"`       // daily window in trace local time, e.g. "14:00-18:00"
	DRSeed     uint64  `toml:"dr_seed" json:"dr_seed,omitempty"`         // 0 = Seed
	BaseLimit  float64 `toml:"base_limit" json:"base_limit,omitempty"`   // limit outside events (W); 0 = none

	// Network model (docs/network.md).
	NetModel     string `toml:"netmodel" json:"netmodel,omitempty"`         // off | on; "" = on when Preset or Topology is set, else off
	Preset       string `toml:"preset" json:"preset,omitempty"`             // machine: hopper | mira | edison | stampede
	Topology     string `toml:"topology" json:"topology,omitempty"`         // topology file (.toml or .json), instead of Preset
	Interference string `toml:"interference" json:"interference,omitempty"` // off (default) | on: concurrent jobs share links

	// Power-cap modes (docs/powercap.md).
	PowerCap   string  `toml:"powercap" json:"powercap,omitempty"`       // off (default: DVFS mode) | performance | powersave | dr | uniform
	CapGrid    string  `toml:"cap_grid" json:"cap_grid,omitempty"`       // MIN:MAX:STEP in W; "" = 80:250:10
	RAPLWindow float64 `toml:"rapl_window" json:"rapl_window,omitempty"` // RAPL averaging window (s) of the limit check; 0 = 1 s
	Malleable  float64 `toml:"malleable" json:"malleable,omitempty"`     // fraction of jobs that may change size (powercap dr)
	ResizeCost float64 `toml:"resize_cost" json:"resize_cost,omitempty"` // reconfiguration pause per resize (s)

	// Node power states (scheduler/nodepower.go), like Slurm's power saving.
	SuspendAfter float64 `toml:"suspend_after" json:"suspend_after,omitempty"` // s a node's processors must all be free before it powers off; 0 = never
	ResumeTime   float64 `toml:"resume_time" json:"resume_time,omitempty"`     // s a node takes to boot (jobs wait for it); 0 = at once
	BootW        float64 `toml:"boot_w" json:"boot_w,omitempty"`               // W per booting node; 0 = a node's idle draw (procs_per_node × idle_w)
	OffW         float64 `toml:"off_w" json:"off_w,omitempty"`                 // W per powered-off node

	// Machine file (cluster/machine, docs/machine.md): node types and partitions.
	Machine      string `toml:"machine" json:"machine,omitempty"`             // machine.toml or builtin:NAME; "" = one pool of Procs processors
	PartitionMap string `toml:"partition_map" json:"partition_map,omitempty"` // job→partition rule: all:NAME | field16:1=cpu,2=gpu,*=cpu; "" = by name (sacct) or the default partition
	DRPartition  string `toml:"dr_partition" json:"dr_partition,omitempty"`   // power limits apply to this partition's nodes only; "" = the whole machine

	// GPU jobs on a machine file's GPU nodes (gpu.go, docs/gpu-dr.md).
	GPUCap    string `toml:"gpucap" json:"gpucap,omitempty"`           // performance (default) | powersave | dr: the GPU knob's governor
	GPUAppMap string `toml:"gpu_app_map" json:"gpu_app_map,omitempty"` // GPU jobs' profiles, as app_map over the built-in GPU profiles; "" = mix
	GPUMap    string `toml:"gpu_map" json:"gpu_map,omitempty"`         // GPUs per job: all:N | field16:V=N,*=N | procs:K; "" = from the trace
	// Slurm's own scheduling (scheduler/priority.go, slurmconf).
	Priority  string `toml:"priority" json:"priority,omitempty"`     // submit (default) | multifactor
	SlurmConf string `toml:"slurm_conf" json:"slurm_conf,omitempty"` // slurm.conf with the Priority* keys and SchedulerParameters
	Assoc     string `toml:"assoc" json:"assoc,omitempty"`           // associations: TOML or `sacctmgr show assoc -P` output; "" = equal shares per user
	SlurmSet  string `toml:"slurm_set" json:"slurm_set,omitempty"`   // slurm.conf settings over SlurmConf, "Key=Value;Key=Value"
	// Per-node variability (scheduler/variability.go, docs/variability.md).
	NodeVar     string  `toml:"node_var" json:"node_var,omitempty"`           // CSV node,speed,power[,idle_w]; "" = none (or drawn)
	NodeSpeedSD float64 `toml:"node_speed_sd" json:"node_speed_sd,omitempty"` // seeded per-node speed spread (sd of relative speed); 0 = none
	SlowNodes   string  `toml:"slow_nodes" json:"slow_nodes,omitempty"`       // FRACTION:SLOWDOWN, e.g. 0.0625:1.1; "" = none
	JobNoise    float64 `toml:"job_noise" json:"job_noise,omitempty"`         // sd of a seeded per-run noise on a job's pace; 0 = none
	NodeDrift   string  `toml:"node_drift" json:"node_drift,omitempty"`       // NODE@T:FACTOR or NODE@T:±WW,...: nodes slowing (idle power moving) from trace time T (s) on; "" = none
	Pace        string  `toml:"pace" json:"pace,omitempty"`                   // slowest ("": default, kept empty so existing cell IDs stay) | mean | ignore
}

// WithDefaults returns s with every zero field set to its default: the
// fully resolved spec that Run simulates (and sweeps hash into cell IDs).
func (s Spec) WithDefaults() Spec { return s.withDefaults() }

func (s *Spec) withDefaults() Spec {
	d := *s
	def := func(p *string, v string) {
		if *p == "" {
			*p = v
		}
	}
	def(&d.ProcsField, "req")
	def(&d.Estimate, "req")
	def(&d.Overrun, "kill")
	def(&d.Policy, "easy")
	def(&d.Order, "submit")
	def(&d.Pass, "instant")
	def(&d.Placement, "contiguous")
	def(&d.DVFS, "performance")
	def(&d.AppMap, "mix")
	def(&d.Models, "builtin")
	if d.Seed == 0 {
		d.Seed = 1
	}
	if d.DRSeed == 0 {
		d.DRSeed = d.Seed
	}
	if d.DRLimit == 0 {
		d.DRLimit = 0.8
	}
	def(&d.DRDuration, "2h-4h")
	return d
}

// oneOf checks that v is one of the allowed values of the named field.
func oneOf(field, v string, allowed ...string) error {
	for _, a := range allowed {
		if v == a {
			return nil
		}
	}
	return specErr(fmt.Errorf("%s: %q is not one of %s", field, v, strings.Join(allowed, ", ")))
}

// SpecError is a mistake in the input of a run (an unknown name or a bad
// value in the Spec, or a bad record in the trace it names) rather than a
// failure of the simulation; the CLI exits with code 2 for it.
type SpecError struct{ Err error }

func (e *SpecError) Error() string     { return e.Err.Error() }
func (e *SpecError) Unwrap() error     { return e.Err }
func (e *SpecError) ConfigError() bool { return true }

func specErr(err error) error {
	if err == nil {
		return nil
	}
	return &SpecError{err}
}
