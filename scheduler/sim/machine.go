package sim

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"text/tabwriter"

	"drsim/cluster/machine"
	"drsim/powercap"
	"drsim/scheduler"
	"drsim/workloads"
)

// useMachine applies the spec's machine file (Spec.Machine) to cfg: the
// machine's processors, its partitions with their idle and GPU power, and
// the job→partition rule (Spec.PartitionMap, names from the trace). It
// returns the machine and the peak power that fractional DR limits refer
// to: every processor busy at the most power-hungry application's top
// level (maxW per processor), with the partitions' idle draws above idleW
// and, on GPU nodes, the larger of that and a GPU job's top pair level
// (gpuTopW); only the limited partition's with Spec.DRPartition.
// The machine is nil without a machine file.
func useMachine(cfg *scheduler.Config, d Spec, tr *workloads.Trace, idleW, maxW float64) (*machine.Machine, float64, error) {
	if d.Machine == "" {
		switch {
		case d.PartitionMap != "":
			return nil, 0, fmt.Errorf("partition-map: %q needs a machine file (--machine)", d.PartitionMap)
		case d.DRPartition != "":
			return nil, 0, fmt.Errorf("dr-partition: %q needs a machine file (--machine)", d.DRPartition)
		}
		return nil, 0, nil
	}
	m, err := machine.Load(d.Machine) // a machine TOML or a slurm.conf, told apart by content
	if err != nil {
		return nil, 0, err
	}
	noteMachine(m)
	switch {
	case d.Procs > 0:
		return nil, 0, fmt.Errorf("procs: %d given with a machine file (%s), which sets the size", d.Procs, d.Machine)
	case d.Malleable > 0:
		return nil, 0, fmt.Errorf("malleable: malleable jobs do not work with a machine file yet")
	case d.DRPartition != "" && m.Partition(d.DRPartition) < 0:
		return nil, 0, fmt.Errorf("dr-partition: no partition %q in %s", d.DRPartition, m.File)
	case d.DRPartition != "" && d.PowerCap == "uniform":
		return nil, 0, fmt.Errorf("dr-partition: the uniform cap shares the limit over the whole machine; use --powercap dr")
	}
	r, err := machine.NewRouter(m, d.PartitionMap, tr.Names.Partitions)
	if err != nil {
		return nil, 0, err
	}
	cfg.Procs, cfg.PartOf, cfg.LimitPart = m.Procs, r.Partition, d.DRPartition
	peak := 0.0
	if d.DRPartition == "" { // nodes in no partition idle
		peak = float64(m.Procs) * maxW
	}
	for i, p := range m.Partitions {
		t := m.NodeTypeOf(i)
		part := scheduler.Part{Name: p.Name, Lo: p.Lo, Procs: p.Procs, Cores: t.Cores, GPUs: t.GPUs,
			Exclusive: p.Exclusive, MaxTime: p.MaxTime, GPUBusyW: t.GPUBusyW - t.GPUIdleW}
		if t.IdleW > 0 {
			part.IdleW = t.IdleW / float64(t.Cores)
		}
		cfg.Parts = append(cfg.Parts, part)
		if d.DRPartition != "" && p.Name != d.DRPartition {
			continue
		}
		if d.DRPartition != "" {
			peak += float64(p.Procs) * maxW
		}
		if t.IdleW > 0 {
			peak += float64(p.Procs) * (part.IdleW - idleW)
		}
		if t.GPUs > 0 { // gpu.go: GPU jobs draw their pair levels, CPU jobs leave the GPUs idle
			peak += float64(p.Procs) * max(0, gpuTopW(t.Cores, t.GPUs, t.GPUIdleW, idleW)-maxW)
		}
	}
	return m, peak, nil
}

// notedMachines holds the notes already printed: a compare or sweep
// loads the machine once per cell, and each note is said once a process.
var notedMachines sync.Map

// noteMachine prints the machine's notes (what a slurm.conf left to
// defaults) on UnknownKeysOut, each once.
func noteMachine(m *machine.Machine) {
	for _, n := range m.Notes {
		if _, done := notedMachines.LoadOrStore(n, true); !done && UnknownKeysOut != nil {
			fmt.Fprintf(UnknownKeysOut, "drsim: note: %s\n", n)
		}
	}
}

// machineProcs is the machine file's size, for the trace reader's
// machine-size check; 0 without a machine file or when it does not load
// (Run reports that error).
func machineProcs(d Spec) int {
	if d.Machine == "" {
		return 0
	}
	m, err := machine.Load(d.Machine)
	if err != nil {
		return 0
	}
	return m.Procs
}

// limitPeakW is the peak power Run takes fractional limits of: the
// processor-only peak of procs, or the machine file's (useMachine).
func limitPeakW(d Spec, tr *workloads.Trace, pw *power, procs int) (float64, error) {
	if d.Machine == "" {
		return pw.peakW(procs), nil
	}
	var cfg scheduler.Config
	_, peak, err := useMachine(&cfg, d, tr, pw.idleW, pw.peakW(1))
	return peak, err
}

// WritePartitions writes a table of the partitions' jobs, mean waits and
// utilisations over the run's makespan; nothing without partitions.
func WritePartitions(w io.Writer, res *Result) error {
	if len(res.Parts) == 0 {
		return nil
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "partition\tprocessors\tjobs\tmean wait s\tutilisation %")
	span := res.Summary.Makespan
	for _, p := range res.Parts {
		wait, util := 0.0, 0.0
		if p.Jobs > 0 {
			wait = p.Wait / float64(p.Jobs)
		}
		if span > 0 {
			util = 100 * p.Work / (float64(p.Procs) * span)
		}
		fmt.Fprintf(tw, "%s\t%d\t%d\t%.0f\t%.2f\n", p.Name, p.Procs, p.Jobs, wait, util)
	}
	return tw.Flush()
}

// partitionApps applies the partitions' apps lists: a partition's jobs
// map to applications with the run's --app-map rule over its listed
// applications only. A name the run has no profile for is an error at
// the list's line.
func partitionApps(cfg *scheduler.Config, d Spec, m *machine.Machine, pw *power) error {
	if m == nil || !slices.ContainsFunc(m.Partitions, func(p machine.Partition) bool { return p.Apps != nil }) {
		return nil
	}
	maps := make([]func(*workloads.Job) int, len(m.Partitions))
	for i, p := range m.Partitions {
		if p.Apps == nil {
			continue
		}
		var sub []powercap.Profile
		var idx []int
		for _, name := range p.Apps {
			k := slices.IndexFunc(pw.profiles, func(pr powercap.Profile) bool { return strings.EqualFold(pr.Name, name) })
			if k < 0 {
				return &machine.Error{File: m.File, Line: p.AppsLine, Where: fmt.Sprintf("partition %q", p.Name), Key: "apps",
					Msg: fmt.Sprintf("no application %q in this run's models (known: %s)", name, strings.Join(pw.names, ", "))}
			}
			sub, idx = append(sub, pw.profiles[k]), append(idx, k)
		}
		am, err := powercap.NewAppMap(d.AppMap, sub, d.Seed)
		if err != nil {
			return &machine.Error{File: m.File, Line: p.AppsLine, Where: fmt.Sprintf("partition %q", p.Name), Key: "apps", Msg: err.Error()}
		}
		maps[i] = func(w *workloads.Job) int { return idx[am.App(w)] }
	}
	all, partOf := cfg.AppOf, cfg.PartOf
	cfg.AppOf = func(w *workloads.Job) int {
		if p := partOf(w); p >= 0 && maps[p] != nil {
			return maps[p](w)
		}
		return all(w)
	}
	return nil
}
