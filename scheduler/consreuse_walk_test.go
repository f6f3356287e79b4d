package scheduler

import (
	"math/rand/v2"
	"testing"
)

// TestSufCut compares sufCut with the suffix-bound test it stands for
// (free >= suf[(j-1)>>groupShift]) at every end position j, on random
// nondecreasing suffix bounds.
func TestSufCut(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for range 2000 {
		suf := make([]int32, rng.IntN(12))
		v := int32(rng.IntN(5))
		for g := range suf {
			v += int32(rng.IntN(3))
			suf[g] = v
		}
		free := rng.IntN(int(v) + 3)
		cut := sufCut(suf, free)
		for j := 1; j <= len(suf)<<groupShift; j++ {
			if want := free >= int(suf[(j-1)>>groupShift]); (j <= cut) != want {
				t.Fatalf("suf %v, free %d: sufCut %d, but position end %d passes: %v", suf, free, cut, j, want)
			}
		}
	}
}
