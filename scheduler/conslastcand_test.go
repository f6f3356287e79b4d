package scheduler_test

import (
	"testing"

	"drsim/scheduler"
)

// TestConservativeLastCandidateMatchesRef compares every answer of
// lastCandidateAt (two loops, the frontier's scanning a group's entries
// in an inner loop) with the former one-loop scan on the same profile
// and queue (scheduler.CheckLastCandidate), on random workloads in both
// overrun rules, both queue orders and both pass modes, and on the first
// 20,000 jobs of RICC and CTC-SP2.
func TestConservativeLastCandidateMatchesRef(t *testing.T) {
	calls, failure, restore := scheduler.CheckLastCandidate()
	defer restore()
	checkedConservativeRuns(t, 41, calls, failure, "calls")
}
