package powercap

import "math"

// localK is how many up moves and how many down moves improve weighs
// against each other in one step.
const localK = 8

// localSteps bounds the paired moves improve makes in one Solve.
const localSteps = 32

// improve lowers the incumbent (s.best, s.inc) for the early heavy-first
// search by paired moves on the undominated options: one class a level up
// (heavier, cheaper), another a level down (lighter, dearer), or one class
// up alone, where the capacity left allows it. One pass over the classes
// lists the localK up moves of highest efficiency (cost saved per weight
// added) and the localK down moves of lowest (cost added per weight freed);
// each step makes the pair of them that saves most, and the two classes
// moved come back to the lists with their next moves (a heuristic: the
// lists are not refilled from the other classes). The moves are kept only
// when the class-order sums say the result fits and is strictly cheaper,
// so s.best stays the cost of a feasible choice, as the search requires;
// otherwise s.inc is restored from s.inc0. A class whose incumbent option
// is not undominated (a hint's) does not move.
//
// Only the early search runs from it; Solve gives the searches after a
// fallback the incumbent as it was (s.best, and s.inc from s.inc0), so
// their answer is the one without improve, and an early answer stands
// only when it met no near tie, when every exact search finds it, from
// any incumbent.
func (s *MCKP) improve(classes [][]Option) {
	if !(s.best < math.Inf(1)) {
		return
	}
	m := len(classes)
	s.lsPos = mckpResize(s.lsPos, m)
	// One pass: each class's position, and the localK best up and down
	// moves of all classes.
	var up, dn localList
	free := s.capacity
	for j, opts := range classes {
		k := s.inc[j]
		cur := opts[k]
		free -= cur.Weight
		u := s.undom[s.undomStart[j]:s.undomStart[j+1]]
		if len(u) < 2 {
			s.lsPos[j] = -1 // no move
			continue
		}
		lo := localPos(u, opts, k, cur.Weight)
		s.lsPos[j] = -1
		if lo == len(u) || u[lo] != k {
			continue
		}
		s.lsPos[j] = int32(lo)
		// add's rank and test spelt out: most moves do not rank.
		if lo+1 < len(u) {
			o := opts[u[lo+1]]
			if e := (cur.Cost - o.Cost) / (o.Weight - cur.Weight); up.n < localK || e > up.m[localK-1].e {
				up.put(localStep{e: e, dw: o.Weight - cur.Weight, dc: o.Cost - cur.Cost, j: int32(j)})
			}
		}
		if lo > 0 {
			o := opts[u[lo-1]]
			if e := -((o.Cost - cur.Cost) / (cur.Weight - o.Weight)); dn.n < localK || e > dn.m[localK-1].e {
				dn.put(localStep{e: e, dw: o.Weight - cur.Weight, dc: o.Cost - cur.Cost, j: int32(j)})
			}
		}
	}
	moved := false
	for range localSteps {
		bx, by, bestGain := -1, -1, 0.0
		for x := range up.n {
			a := &up.m[x]
			if a.dw <= free && -a.dc > bestGain {
				bx, by, bestGain = x, -1, -a.dc
			}
			for y := range dn.n {
				b := &dn.m[y]
				if g := -a.dc - b.dc; b.j != a.j && a.dw+b.dw <= free && g > bestGain {
					bx, by, bestGain = x, y, g
				}
			}
		}
		if bx < 0 {
			break
		}
		moved = true
		// Make the move; the classes moved leave the lists and come back
		// with their next moves.
		ja := up.m[bx].j
		free -= s.localMove(classes, ja, 1, &up, &dn)
		if by >= 0 {
			free -= s.localMove(classes, dn.m[by].j, -1, &up, &dn)
		}
	}
	if !moved {
		return
	}
	// Keep the moves only if the class-order sums say they fit and save.
	var w, c float64
	for j := m - 1; j >= 0; j-- {
		w += classes[j][s.inc[j]].Weight
		c += classes[j][s.inc[j]].Cost
	}
	if w <= s.capacity && c < s.best {
		s.best = c
		return
	}
	copy(s.inc, s.inc0)
}

// localPos returns the position in u (undominated options, weight strictly
// ascending) of the first option at least as heavy as weight, the weight
// of option k: k's position when u holds it. The incumbent is most often
// the class's last (cheapest) undominated option, where the binary search
// would end too, so that is tried first.
func localPos(u []int32, opts []Option, k int32, weight float64) int {
	lo, hi := len(u)-1, len(u)
	if u[lo] == k {
		return lo
	}
	lo = 0
	for lo < hi {
		if h := int(uint(lo+hi) >> 1); opts[u[h]].Weight >= weight {
			hi = h
		} else {
			lo = h + 1
		}
	}
	return lo
}

// localMove moves class j's incumbent option one undominated position up
// (d = 1) or down (d = -1), puts its next moves in the lists in place of
// its former ones, and returns the weight it added.
func (s *MCKP) localMove(classes [][]Option, j, d int32, up, dn *localList) float64 {
	up.remove(j)
	dn.remove(j)
	opts := classes[j]
	u := s.undom[s.undomStart[j]:s.undomStart[j+1]]
	old := opts[s.inc[j]].Weight
	p := int(s.lsPos[j] + d)
	s.lsPos[j] = int32(p)
	s.inc[j] = u[p]
	up.add(j, opts, u, p, 1)
	dn.add(j, opts, u, p, -1)
	return opts[u[p]].Weight - old
}

// localStep is one class's move by a position: the weight it adds (dw,
// negative down) and the cost it adds (dc), and its rank e (up: cost saved
// per weight added; down: minus cost added per weight freed).
type localStep struct {
	e, dw, dc float64
	j         int32
}

// localList keeps the n ≤ localK moves of highest rank, highest first.
type localList struct {
	m [localK]localStep
	n int
}

// add puts class j's move from position p of its undominated options u
// a position up (d = 1) or down (d = -1) in the list, if there is one and
// it ranks among the best.
func (l *localList) add(j int32, opts []Option, u []int32, p, d int) {
	if p+d < 0 || p+d >= len(u) {
		return
	}
	cur, o := opts[u[p]], opts[u[p+d]]
	st := localStep{dw: o.Weight - cur.Weight, dc: o.Cost - cur.Cost, j: j}
	st.e = -st.dc / st.dw // up: saved per added; down: -(added per freed)
	if d < 0 {
		st.e = -st.e
	}
	if l.n == localK && !(st.e > l.m[l.n-1].e) {
		return
	}
	l.put(st)
}

// put inserts st by rank, dropping the last when the list is full; st
// ranks above the last or the list is not full.
func (l *localList) put(st localStep) {
	i := min(l.n, localK-1)
	for ; i > 0 && st.e > l.m[i-1].e; i-- {
		l.m[i] = l.m[i-1]
	}
	l.m[i] = st
	l.n = min(l.n+1, localK)
}

// remove drops class j's move from the list, if there.
func (l *localList) remove(j int32) {
	for i := range l.n {
		if l.m[i].j == j {
			copy(l.m[i:l.n], l.m[i+1:l.n])
			l.n--
			return
		}
	}
}
