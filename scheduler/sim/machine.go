package sim

import (
	"fmt"

	"drsim/cluster/machine"
	"drsim/scheduler"
	"drsim/workloads"
)

// useMachine applies the spec's machine file (Spec.Machine) to cfg: the
// machine's processors, its partitions with their idle and GPU power, and
// the job→partition rule (Spec.PartitionMap, names from the trace). It
// returns the power the partitions add to the processor-only peak
// (idle draws above idleW, every GPU busy), or nil without a machine file.
func useMachine(cfg *scheduler.Config, d Spec, tr *workloads.Trace, idleW float64) (*machine.Machine, float64, error) {
	if d.Machine == "" {
		if d.PartitionMap != "" {
			return nil, 0, fmt.Errorf("partition-map: %q needs a machine file (--machine)", d.PartitionMap)
		}
		return nil, 0, nil
	}
	m, err := machine.Load(d.Machine)
	if err != nil {
		return nil, 0, err
	}
	switch {
	case d.Procs > 0:
		return nil, 0, fmt.Errorf("procs: %d given with a machine file (%s), which sets the size", d.Procs, d.Machine)
	case d.Malleable > 0:
		return nil, 0, fmt.Errorf("malleable: malleable jobs do not work with a machine file yet")
	}
	r, err := machine.NewRouter(m, d.PartitionMap, tr.Names.Partitions)
	if err != nil {
		return nil, 0, err
	}
	cfg.Procs, cfg.PartOf = m.Procs, r.Partition
	extra := 0.0
	for i, p := range m.Partitions {
		t := m.NodeTypeOf(i)
		part := scheduler.Part{Name: p.Name, Lo: p.Lo, Procs: p.Procs, Cores: t.Cores, GPUs: t.GPUs,
			Exclusive: p.Exclusive, MaxTime: p.MaxTime, GPUBusyW: t.GPUBusyW - t.GPUIdleW}
		if t.IdleW > 0 {
			part.IdleW = t.IdleW / float64(t.Cores)
			extra += float64(p.Procs) * (part.IdleW - idleW)
		}
		extra += float64(len(p.Nodes)*t.GPUs) * part.GPUBusyW
		cfg.Parts = append(cfg.Parts, part)
	}
	return m, extra, nil
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
