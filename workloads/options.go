package workloads

import "fmt"

// ParseProcsField maps "req" or "alloc" (the CLI and config spelling).
func ParseProcsField(s string) (ProcsField, error) {
	switch s {
	case "req", "":
		return ProcsReq, nil
	case "alloc":
		return ProcsAlloc, nil
	}
	return 0, fmt.Errorf("workloads: procs field %q: want req or alloc", s)
}

// ParseEstimateField maps "req" or "run" (the CLI and config spelling).
func ParseEstimateField(s string) (EstimateField, error) {
	switch s {
	case "req", "":
		return EstimateReq, nil
	case "run":
		return EstimateRun, nil
	}
	return 0, fmt.Errorf("workloads: estimate %q: want req or run", s)
}
