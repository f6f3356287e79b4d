package sim

import (
	"fmt"
	"math"

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
