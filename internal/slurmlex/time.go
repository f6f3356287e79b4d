package slurmlex

import (
	"errors"
	"strconv"
	"strings"
)

// ErrTime is returned for a value that is not a Slurm time.
var ErrTime = errors.New("want minutes or [days-]hours:minutes[:seconds]")

// Minutes parses Slurm's time_str2mins formats (min, min:sec,
// hr:min:sec, days-hr, days-hr:min, days-hr:min:sec; seconds round up to
// a minute, as Slurm stores minutes) and returns seconds. It does not
// accept UNLIMITED or INFINITE: callers whose key allows them check
// first.
func Minutes(s string) (float64, error) {
	days, rest := 0, s
	hasDays := false
	if d, r, ok := strings.Cut(s, "-"); ok {
		n, err := strconv.Atoi(d)
		if err != nil || n < 0 {
			return 0, ErrTime
		}
		days, rest, hasDays = n, r, true
	}
	parts := strings.Split(rest, ":")
	nums := make([]int, len(parts))
	for i, p := range parts {
		n, err := strconv.Atoi(p)
		if err != nil || n < 0 || n > 1<<30 {
			return 0, ErrTime
		}
		nums[i] = n
	}
	var h, m, sec int
	switch {
	case hasDays && len(nums) == 1:
		h = nums[0]
	case hasDays && len(nums) == 2:
		h, m = nums[0], nums[1]
	case len(nums) == 3:
		h, m, sec = nums[0], nums[1], nums[2]
	case !hasDays && len(nums) == 1:
		m = nums[0]
	case !hasDays && len(nums) == 2:
		m, sec = nums[0], nums[1]
	default:
		return 0, ErrTime
	}
	if days > 1<<20 {
		return 0, ErrTime
	}
	mins := days*1440 + h*60 + m
	if sec > 0 {
		mins += (sec + 59) / 60
	}
	return float64(mins) * 60, nil
}
