package sweep

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// A Shard is the part i of n of a sweep: the cells whose position in the
// sorted list of cell IDs is i modulo n. The zero Shard is the whole sweep.
type Shard struct {
	Index, Count int // 0 <= Index < Count; Count 0 = no sharding
}

// String returns "i/n", or "all" for the zero Shard.
func (s Shard) String() string {
	if s.Count == 0 {
		return "all"
	}
	return fmt.Sprintf("%d/%d", s.Index, s.Count)
}

// Select returns the cells of shard s, in the order of cells.
func (s Shard) Select(cells []Cell) []Cell {
	if s.Count <= 1 {
		return cells
	}
	ids := sortedIDs(cells)
	var out []Cell
	for _, c := range cells {
		i, _ := slices.BinarySearch(ids, c.ID)
		if i%s.Count == s.Index {
			out = append(out, c)
		}
	}
	return out
}

// ParseShard reads "i/n" (0-based i) or "auto", which takes the shard from
// a Slurm job array through getenv: SLURM_ARRAY_TASK_ID minus
// SLURM_ARRAY_TASK_MIN (default 0) of SLURM_ARRAY_TASK_COUNT, or of
// SLURM_ARRAY_TASK_MAX − MIN + 1 when the count is unset. "" is the whole
// sweep.
func ParseShard(s string, getenv func(string) string) (Shard, error) {
	switch s {
	case "":
		return Shard{}, nil
	case "auto":
		return shardFromSlurm(getenv)
	}
	a, b, ok := strings.Cut(s, "/")
	i, err1 := strconv.Atoi(a)
	n, err2 := strconv.Atoi(b)
	if !ok || err1 != nil || err2 != nil || n < 1 || i < 0 || i >= n {
		return Shard{}, fmt.Errorf("shard %q: want i/n with 0 <= i < n, e.g. 3/8, or auto", s)
	}
	return Shard{i, n}, nil
}

func shardFromSlurm(getenv func(string) string) (Shard, error) {
	num := func(name string, def int) (int, error) {
		v := getenv(name)
		if v == "" {
			if def >= 0 {
				return def, nil
			}
			return 0, fmt.Errorf("shard auto: %s is not set (not a Slurm job array task?)", name)
		}
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			return 0, fmt.Errorf("shard auto: %s=%q is not a non-negative integer", name, v)
		}
		return n, nil
	}
	id, err := num("SLURM_ARRAY_TASK_ID", -1)
	if err != nil {
		return Shard{}, err
	}
	lo, err := num("SLURM_ARRAY_TASK_MIN", 0)
	if err != nil {
		return Shard{}, err
	}
	count, err := num("SLURM_ARRAY_TASK_COUNT", 0)
	if err != nil {
		return Shard{}, err
	}
	if count == 0 {
		hi, err := num("SLURM_ARRAY_TASK_MAX", -1)
		if err != nil {
			return Shard{}, err
		}
		count = hi - lo + 1
	}
	if i := id - lo; i < 0 || i >= count {
		return Shard{}, fmt.Errorf("shard auto: task %d is outside the array of %d tasks from %d (arrays with a step, e.g. 0-15:2, are not supported)", id, count, lo)
	}
	return Shard{id - lo, count}, nil
}
