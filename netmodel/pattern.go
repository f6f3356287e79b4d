package netmodel

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Pattern is a job's dominant communication pattern.
type Pattern uint8

// The patterns. Collective algorithms are chosen by process count and size
// (see CommTime).
const (
	NoComm       Pattern = iota // no communication: CommRatio is 1
	PointToPoint                // each rank exchanges with its ring neighbour
	Allreduce                   // recursive doubling (small) or ring (large)
	Broadcast                   // binomial tree (small) or scatter + ring allgather (large)
	AllToAll                    // pairwise exchange, bounded by link load
	Halo3D                      // six-neighbour exchange on a 3-D process grid
)

var patternNames = [...]string{"none", "p2p", "allreduce", "broadcast", "alltoall", "halo3d"}

func (p Pattern) String() string {
	if int(p) < len(patternNames) {
		return patternNames[p]
	}
	return fmt.Sprintf("Pattern(%d)", p)
}

// ParsePattern accepts the names printed by String.
func ParsePattern(s string) (Pattern, error) {
	for i, n := range patternNames {
		if strings.EqualFold(s, n) {
			return Pattern(i), nil
		}
	}
	return 0, fmt.Errorf("netmodel: unknown pattern %q (known: %s)", s, strings.Join(patternNames[:], ", "))
}

// ParseSize parses a message size: a non-negative number with an optional
// unit B, KB/MB/GB (powers of 1000) or KiB/MiB/GiB (powers of 1024), e.g.
// 8B, 64KiB, 1MiB, 1MB, 4096.
func ParseSize(s string) (float64, error) {
	units := []struct {
		suffix string
		mul    float64
	}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9}, {"B", 1}}
	num, mul := strings.TrimSpace(s), 1.0
	for _, u := range units {
		if strings.HasSuffix(num, u.suffix) {
			num, mul = strings.TrimSpace(strings.TrimSuffix(num, u.suffix)), u.mul
			break
		}
	}
	v, err := strconv.ParseFloat(num, 64)
	if err != nil || v < 0 || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, fmt.Errorf("netmodel: bad size %q (want e.g. 8B, 64KiB, 1MiB, 1MB)", s)
	}
	return v * mul, nil
}
