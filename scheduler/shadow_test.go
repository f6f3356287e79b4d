package scheduler

import (
	"math"
	"math/rand/v2"
	"testing"
)

// refShadowWalk is shadowWalk entry by entry, with no block passed whole:
// the walk before blocks were stepped under a power limit.
func refShadowWalk(l *runList, now float64, avail int, room float64, need int, needW float64) (float64, int, float64) {
	shadow := now
	short := avail < need || !powerOK(needW, room)
	for i := 0; i < l.Len(); i++ {
		r := l.at(i)
		end := max(r.estEnd, now)
		if !short && end > shadow {
			break
		}
		avail += int(r.procs)
		room += r.power
		if short {
			shadow = end
			short = avail < need || !powerOK(needW, room)
		}
	}
	if avail < need || !powerOK(needW, room) {
		return math.Inf(1), 0, 0
	}
	return shadow, avail - need, room - needW
}

// shadowWalk, passing blocks whole, gives the entry-by-entry walk's
// shadow time, processors and watts bit for bit, with and without a power
// limit, on running lists of many blocks whose powers make float sums
// depend on their order.
func TestShadowWalkMatchesEntryWalk(t *testing.T) {
	rng := rand.New(rand.NewPCG(18, 16))
	passed := 0
	for it := 0; it < 3000; it++ {
		var l runList
		n := 1 + rng.IntN(600)
		total := 0
		for s := range n {
			x := runEntry{estEnd: float64(rng.IntN(5000)), seq: uint64(s + 1), slot: int32(s), procs: int32(1 + rng.IntN(16)),
				power: rng.Float64() * 300 * math.Pow(10, float64(rng.IntN(7)-3))}
			total += int(x.procs)
			l.insert(x)
		}
		now := float64(rng.IntN(2000))
		avail := rng.IntN(64)
		need := rng.IntN(total + avail + 8)
		room, procsOnly := math.Inf(1), rng.IntN(4) == 0
		if !procsOnly {
			room = rng.Float64()*2000 - 1000
		}
		needW := rng.Float64() * 3000 * float64(rng.IntN(3))
		s, x, w := shadowWalk(&l, now, avail, room, procsOnly, need, needW)
		rs, rx, rw := refShadowWalk(&l, now, avail, room, need, needW)
		if math.Float64bits(s) != math.Float64bits(rs) || x != rx || math.Float64bits(w) != math.Float64bits(rw) {
			t.Fatalf("iteration %d (%d entries in %d blocks, now %v, %d free, room %v, need %d procs %v W): (%v, %d, %v), entry by entry (%v, %d, %v)",
				it, n, len(l.blocks), now, avail, room, need, needW, s, x, w, rs, rx, rw)
		}
		if !math.IsInf(s, 1) {
			passed++
		}
	}
	if passed < 1000 {
		t.Fatalf("only %d of 3000 walks found a shadow time; the cases do not exercise the walk", passed)
	}
}
