package powercap

import "math"

// localK is how many up moves and how many down moves improve weighs
// against each other in one step.
const localK = 4

// localSteps bounds the paired moves improve makes in one Solve.
const localSteps = 16

// improve lowers the incumbent (s.best, s.inc) for the early heavy-first
// search by paired moves on the undominated options: one class a level up
// (heavier, cheaper), another a level down (lighter, dearer), or one class
// up alone, where the capacity left allows it. Each step weighs the localK
// up moves of highest efficiency (cost saved per weight added) against the
// localK down moves of lowest (cost added per weight freed), makes the pair
// that saves most, and keeps it only when the class-order sums say it is
// feasible and strictly cheaper: s.best stays the cost of a feasible
// choice, as the search requires. A class whose incumbent option is not
// undominated (a hint's) does not move.
//
// Only the early search runs from it; Solve gives the searches after a
// fallback the incumbent as it was (s.best, and s.inc from s.inc0), so
// their answer is today's either way, and an early answer stands only when
// it met no near tie, when every exact search finds it, from any
// incumbent.
func (s *MCKP) improve(classes [][]Option) {
	if !(s.best < math.Inf(1)) {
		return
	}
	m := len(classes)
	s.lsPos = mckpResize(s.lsPos, m)
	free := s.capacity
	for j, opts := range classes {
		k := s.inc[j]
		free -= opts[k].Weight
		u := s.undom[s.undomStart[j]:s.undomStart[j+1]]
		w := opts[k].Weight
		lo, hi := 0, len(u)
		for lo < hi {
			if h := int(uint(lo+hi) >> 1); opts[u[h]].Weight >= w {
				hi = h
			} else {
				lo = h + 1
			}
		}
		s.lsPos[j] = -1
		if lo < len(u) && u[lo] == k {
			s.lsPos[j] = int32(lo)
		}
	}
	var upJ, dnJ [localK]int32
	var upE, dnE [localK]float64
	for range localSteps {
		nu, nd := 0, 0
		for j, opts := range classes {
			p := s.lsPos[j]
			if p < 0 {
				continue
			}
			a, b := s.undomStart[j], s.undomStart[j+1]
			cur := opts[s.undom[a+p]]
			if a+p+1 < b { // up: heavier, cheaper
				o := opts[s.undom[a+p+1]]
				e := (cur.Cost - o.Cost) / (o.Weight - cur.Weight)
				if nu < localK || e > upE[nu-1] {
					i := min(nu, localK-1)
					for ; i > 0 && e > upE[i-1]; i-- {
						upE[i], upJ[i] = upE[i-1], upJ[i-1]
					}
					upE[i], upJ[i] = e, int32(j)
					nu = min(nu+1, localK)
				}
			}
			if p > 0 { // down: lighter, dearer
				o := opts[s.undom[a+p-1]]
				e := (o.Cost - cur.Cost) / (cur.Weight - o.Weight)
				if nd < localK || e < dnE[nd-1] {
					i := min(nd, localK-1)
					for ; i > 0 && e < dnE[i-1]; i-- {
						dnE[i], dnJ[i] = dnE[i-1], dnJ[i-1]
					}
					dnE[i], dnJ[i] = e, int32(j)
					nd = min(nd+1, localK)
				}
			}
		}
		bu, bd, bestGain := int32(-1), int32(-1), 0.0
		for x := range nu {
			ja := upJ[x]
			optsA := classes[ja]
			pa := s.undomStart[ja] + s.lsPos[ja]
			ca, na := optsA[s.undom[pa]], optsA[s.undom[pa+1]]
			need, gain := na.Weight-ca.Weight, ca.Cost-na.Cost
			if need <= free && gain > bestGain {
				bu, bd, bestGain = ja, -1, gain
			}
			for y := range nd {
				jb := dnJ[y]
				if jb == ja {
					continue
				}
				optsB := classes[jb]
				pb := s.undomStart[jb] + s.lsPos[jb]
				cb, nb := optsB[s.undom[pb]], optsB[s.undom[pb-1]]
				if g := gain - (nb.Cost - cb.Cost); need-(cb.Weight-nb.Weight) <= free && g > bestGain {
					bu, bd, bestGain = ja, jb, g
				}
			}
		}
		if bu < 0 {
			return
		}
		// Make the move and check it on the class-order sums.
		s.lsPos[bu]++
		s.inc[bu] = s.undom[s.undomStart[bu]+s.lsPos[bu]]
		if bd >= 0 {
			s.lsPos[bd]--
			s.inc[bd] = s.undom[s.undomStart[bd]+s.lsPos[bd]]
		}
		var w, c float64
		for j := m - 1; j >= 0; j-- {
			w += classes[j][s.inc[j]].Weight
			c += classes[j][s.inc[j]].Cost
		}
		if !(w <= s.capacity && c < s.best) {
			// Rounding: undo and stop.
			s.lsPos[bu]--
			s.inc[bu] = s.undom[s.undomStart[bu]+s.lsPos[bu]]
			if bd >= 0 {
				s.lsPos[bd]++
				s.inc[bd] = s.undom[s.undomStart[bd]+s.lsPos[bd]]
			}
			return
		}
		s.best = c
		free = s.capacity - w
	}
}
