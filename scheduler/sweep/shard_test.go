package sweep

import (
	"fmt"
	"slices"
	"testing"
)

func TestParseShard(t *testing.T) {
	env := func(kv ...string) func(string) string {
		return func(k string) string {
			for i := 0; i < len(kv); i += 2 {
				if kv[i] == k {
					return kv[i+1]
				}
			}
			return ""
		}
	}
	tests := []struct {
		in     string
		getenv func(string) string
		want   Shard
		err    bool
	}{
		{"", env(), Shard{}, false},
		{"0/1", env(), Shard{0, 1}, false},
		{"3/8", env(), Shard{3, 8}, false},
		{"8/8", env(), Shard{}, true},
		{"-1/8", env(), Shard{}, true},
		{"3/0", env(), Shard{}, true},
		{"3", env(), Shard{}, true},
		{"auto", env("SLURM_ARRAY_TASK_ID", "5", "SLURM_ARRAY_TASK_COUNT", "8"), Shard{5, 8}, false},
		{"auto", env("SLURM_ARRAY_TASK_ID", "12", "SLURM_ARRAY_TASK_MIN", "10", "SLURM_ARRAY_TASK_MAX", "17"), Shard{2, 8}, false},
		{"auto", env("SLURM_ARRAY_TASK_ID", "7", "SLURM_ARRAY_TASK_MIN", "0", "SLURM_ARRAY_TASK_MAX", "7"), Shard{7, 8}, false},
		{"auto", env(), Shard{}, true},
		{"auto", env("SLURM_ARRAY_TASK_ID", "x", "SLURM_ARRAY_TASK_COUNT", "8"), Shard{}, true},
		{"auto", env("SLURM_ARRAY_TASK_ID", "9", "SLURM_ARRAY_TASK_COUNT", "8"), Shard{}, true},
	}
	for _, tt := range tests {
		got, err := ParseShard(tt.in, tt.getenv)
		if (err != nil) != tt.err || got != tt.want {
			t.Errorf("ParseShard(%q) = %v, %v; want %v, error %v", tt.in, got, err, tt.want, tt.err)
		}
	}
}

// The shards of a sweep partition its cells: round-robin over sorted IDs.
func TestShardSelectPartitions(t *testing.T) {
	var cells []Cell
	for i := range 23 {
		cells = append(cells, Cell{ID: fmt.Sprintf("%016x", (i*7919)%23)})
	}
	ids := sortedIDs(cells)
	for _, n := range []int{1, 2, 3, 8, 30} {
		var all []string
		for i := range n {
			sel := Shard{i, n}.Select(cells)
			for _, c := range sel {
				k, _ := slices.BinarySearch(ids, c.ID)
				if k%n != i {
					t.Errorf("n=%d shard %d got cell at sorted position %d", n, i, k)
				}
				all = append(all, c.ID)
			}
		}
		slices.Sort(all)
		if !slices.Equal(all, ids) {
			t.Errorf("n=%d: shards cover %d cells, want each of %d exactly once", n, len(all), len(ids))
		}
	}
}
