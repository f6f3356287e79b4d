package sim

import (
	"fmt"
	"math"

	"drsim/cluster/machine"
	"drsim/scheduler"
)

// useNodePower sets the engine's node power states (Spec.SuspendAfter,
// ResumeTime, BootW, OffW; scheduler/nodepower.go) after the power model:
// BootW 0 means a node's idle draw, ProcsPerNode × IdleW. Malleable jobs
// are refused with power saving (a job growing onto an off node would not
// wait for its boot).
func useNodePower(cfg *scheduler.Config, d Spec) error {
	for _, f := range []struct {
		key string
		v   float64
	}{{"suspend_after", d.SuspendAfter}, {"resume_time", d.ResumeTime}, {"boot_w", d.BootW}, {"off_w", d.OffW}} {
		if !(f.v >= 0) || math.IsInf(f.v, 1) {
			return fmt.Errorf("%s: %v is not a finite value ≥ 0", f.key, f.v)
		}
	}
	if d.SuspendAfter == 0 {
		return nil
	}
	if d.Malleable > 0 {
		return fmt.Errorf("suspend_after: node power saving does not support malleable jobs (malleable %v)", d.Malleable)
	}
	cfg.SuspendAfter, cfg.ResumeTime, cfg.BootW, cfg.OffW = d.SuspendAfter, d.ResumeTime, d.BootW, d.OffW
	if cfg.BootW == 0 {
		cfg.BootW = float64(max(cfg.ProcsPerNode, 1)) * cfg.IdleW
	}
	return nil
}

// useNodeStatic gives the partitions of a machine file whose node type
// has static_w their load-proportional node power (scheduler/nodeload.go):
// an idle processor of a node with work draws static_w / cores. It applies
// in shared-core partitions only (whole-node ones never have a partly busy
// node); the uniform cap, which shares the limit with the nominal idle
// power, refuses it.
func useNodeStatic(cfg *scheduler.Config, d Spec, m *machine.Machine) error {
	if m == nil {
		return nil
	}
	for i, p := range m.Partitions {
		t := m.NodeTypeOf(i)
		if t.StaticW == 0 || p.Exclusive || t.StaticW == t.IdleW {
			continue
		}
		if d.PowerCap == "uniform" {
			return fmt.Errorf("powercap: the uniform cap shares the limit with the nominal idle power; node type %q has static_w (%s); use --powercap dr", t.Name, m.File)
		}
		cfg.Parts[i].StaticW = t.StaticW / float64(t.Cores)
	}
	return nil
}
