package scheduler

import (
	"fmt"
	"math"
)

// lastCandidateAtRef is lastCandidateAt as it was before session 18 (one
// loop over the entries, testing at each whether the frontier is built
// and whether it ends a group): the reference for lastCandidateScan.
func (c *Conservative) lastCandidateAtRef(v *View, i, cand int, at float64) int {
	const gMask, bMask = 1<<groupShift - 1, 1<<blockShift - 1
	w := &v.e.wq
	built := false
	// most is the frontier's first point, the most processors any window
	// from at has: a job or range above it is ruled out without frontMin.
	// Until the frontier is built it only rules out tombstones.
	most := math.MaxInt32 - 1
	// fm is frontMin's answer for the window end fe (NaN: none yet).
	fe, fm := math.NaN(), 0
	for ; cand >= i; cand-- {
		if built && cand&gMask == gMask {
			if cand&bMask == bMask && cand-bMask >= i {
				b := cand >> blockShift
				if bp := int(w.block.procs[b]); bp > most || bp > frontMin(c.front, at+w.block.est[b]) {
					cand -= bMask // and the loop's cand--
					continue
				}
			}
			if cand-gMask >= i {
				g := cand >> groupShift
				if gp := int(w.group.procs[g]); gp > most || gp > frontMin(c.front, at+w.group.est[g]) {
					cand -= gMask
					continue
				}
			}
		}
		// A tombstone's processors are math.MaxInt32, above most: one
		// test skips it and a job too large for the frontier.
		p := int(w.procs[cand])
		if p > most {
			continue
		}
		if !built {
			end := at + w.est[cand]
			if cand == c.roomPos && c.bp.roomKept(at, p, end) {
				return cand // its window is as it was when it had room
			}
			if c.bp.fitsFrom(at, p, end) {
				c.roomPos = cand
				c.bp.keepRoom(at, p, end)
				return cand
			}
			c.front = c.bp.frontierFrom(at, c.front[:0])
			built, most = true, c.front[0].min
			if p > most {
				continue
			}
		}
		// Runs of identical jobs ask frontMin the same end over and over.
		if end := at + w.est[cand]; end != fe {
			fe, fm = end, frontMin(c.front, end)
		}
		if p <= fm {
			c.roomPos = cand
			c.bp.keepRoom(at, p, fe)
			return cand
		}
	}
	return cand
}

// CheckLastCandidate makes every lastCandidateAt compare its answer with
// lastCandidateAtRef's on the same profile and queue (the room the first
// kept is only a cache: the answers are the same with it or without).
// It returns the number of calls checked, the first failure ("" if none)
// and a function that removes the check.
func CheckLastCandidate() (calls *int, failure *string, restore func()) {
	calls, failure = new(int), new(string)
	lastCandCheck = func(c *Conservative, v *View, i, cand int, at float64, got int) {
		*calls++
		if *failure != "" {
			return
		}
		if want := c.lastCandidateAtRef(v, i, cand, at); got != want {
			*failure = fmt.Sprintf("pass at %v: lastCandidateAt(%d, %d, %v) = %d, reference %d", v.Now, i, cand, at, got, want)
		}
	}
	return calls, failure, func() { lastCandCheck = nil }
}
