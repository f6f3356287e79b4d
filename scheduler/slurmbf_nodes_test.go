package scheduler

import (
	"testing"

	"drsim/workloads"
)

// Reservations of whole nodes against reservations of processor counts,
// by hand. One partition of 4 nodes × 4 cores (16), bf_interval 5,
// bf_job_part_count_reserve 1, resolution 1, no batch delay; jobs in
// priority (submit) order, runs equal to limits:
//
//	A at 0: 10 cores, 50 s   starts at 0 on cores 0-9: nodes 0, 1 and 2 (2 of its 4)
//	B at 1:  9 cores, 60 s   blocked (6 free): the head
//	C at 2:  6 cores, 60 s
//	D at 3:  4 cores, 180 s
//
// Backfill at 5 reserves B from A's end at 50. By count the plan is 6 free
// over [5,50) and 16-9 = 7 over [50,110): C (6 cores over [5,65)) fits and
// starts at 5; D (4) then finds nothing free and starts when C ends at 65.
// By node (Slurm's node_space), B's reservation holds whole nodes 0, 1, 2
// (first fit at 50, 12 cores ≥ 9) over [50,110); C's interval [5,65)
// overlaps it, leaving it node 3's 4 cores: C cannot start, and D (4 cores
// on node 3) starts at 5. B starts at 50 either way; C, by node, at B's end
// (110). On an exclusive partition (jobs rounded to whole nodes: A and B
// 3 nodes, C 2, D 1) the node plan gives the same schedule.
func TestSlurmBackfillNodeReservations(t *testing.T) {
	jobs := []workloads.Job{j(1, 0, 50, 10, 50), j(2, 1, 60, 9, 60), j(3, 2, 60, 6, 60), j(4, 3, 180, 4, 180)}
	ps := SlurmSched{BfInterval: 5, BfMaxJobTest: 100, BfWindow: 1000, BfResolution: 1, BfPartCountResv: 1, SchedInterval: 60}
	for _, tc := range []struct {
		cores     int
		exclusive bool
		want      string
	}{
		{4, false, "1:0-50 2:50-110 3:110-170 4:5-185"}, // cores of nodes, reservations of nodes: slurmbf_nodes.go
		{4, true, "1:0-50 2:50-110 3:110-170 4:5-185"},  // whole nodes (A, B 3 nodes, C 2, D 1): the same
		{1, false, "1:0-50 2:50-110 3:5-65 4:65-245"},   // one core per node: counts
	} {
		cfg := Config{Procs: 16, Policy: "slurm-backfill", SlurmSched: &ps, Check: true,
			Parts: []Part{{Name: "cpu", Procs: 16, Cores: tc.cores, Exclusive: tc.exclusive}}, PartOf: func(*workloads.Job) int { return 0 }}
		if got := simulate(t, cfg, jobs...).starts(); got != tc.want {
			t.Errorf("%d cores per node, exclusive %v: %s, want %s", tc.cores, tc.exclusive, got, tc.want)
		}
	}
}
