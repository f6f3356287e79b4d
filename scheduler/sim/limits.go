package sim

import (
	"drsim/scheduler"
	"drsim/workloads"
)

// Limits resolves the spec's demand-response options into a power-limit
// schedule. peakW is the cluster's peak power, the base of fractional
// limits.
func Limits(d Spec, tr *workloads.Trace, peakW float64) ([]scheduler.LimitStep, error) {
	return nil, nil
}
