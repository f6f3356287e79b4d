package scheduler

// searchMemo remembers, while the profile only loses processors (within
// a pass: reservations, no take-backs), the answers of the block
// profile's searches that ruled out every start from the first step: a
// search for procs processors over dur that found at rules out every
// start before at for any later search of at least procs processors over
// at least dur (each of those starts' shorter window already met a step
// with fewer than procs free, and steps only lose processors). So a
// later such search starts from at, and, when certificates are recorded,
// takes the earlier one's (each part's deficit raised by the extra
// processors: the steps were that much further short; its segments are
// copied, the parts shared: certstore.go), which covers the starts it
// skips.
//
// Anything that gives processors back (reset, release, advance, a
// negative reservation) or rewrites the certificates (truncation,
// compaction) clears it. It holds at most memoSize answers, none dominated by another.
type searchMemo struct {
	n int
	e [memoSize]memoEntry // the answers, oldest first
}

const memoSize = 64

// memoMinCost is the fewest candidate starts (its own and those of the
// answers it started from) for which a search is remembered.
const memoMinCost = 16

// memoEntry is one remembered search: procs processors over dur, found
// at, its certificate (ruling out every start before at) segs[cf:ct] if
// hasCert, and the candidate starts it and the answers it started from
// tried (cost).
type memoEntry struct {
	procs        int
	dur, at      float64
	cf, ct, cost int
	hasCert      bool
}

// clear forgets every answer.
func (m *searchMemo) clear() { m.n = 0 }

// dominates reports whether a bounds every search b bounds, as late.
func (a *memoEntry) dominates(b *memoEntry) bool {
	return a.procs <= b.procs && a.dur <= b.dur && a.at >= b.at && (a.hasCert || !b.hasCert)
}

// put remembers an answer, unless one remembered dominates it; it drops
// those it dominates, and once full replaces the oldest.
func (m *searchMemo) put(procs int, dur, at float64, cf, ct, cost int, hasCert bool) {
	e := memoEntry{procs: procs, dur: dur, at: at, cf: cf, ct: ct, cost: cost, hasCert: hasCert}
	w := 0
	for i := range m.n {
		if m.e[i].dominates(&e) {
			return
		}
		if e.dominates(&m.e[i]) {
			continue
		}
		if w != i {
			m.e[w] = m.e[i]
		}
		w++
	}
	if w == memoSize { // full: the oldest goes
		copy(m.e[:], m.e[1:])
		w--
	}
	m.e[w] = e
	m.n = w + 1
}

// bound returns the remembered answer with the latest start after lb
// among those of at most procs processors over at most dur (with a
// certificate if needCert), if any.
func (m *searchMemo) bound(procs int, dur, lb float64, needCert bool) (memoEntry, bool) {
	best, late := -1, lb
	for i := range m.n {
		if a := &m.e[i]; a.procs > procs || a.dur > dur || !(a.at > late) || needCert && !a.hasCert {
			continue
		}
		best, late = i, m.e[i].at
	}
	if best < 0 {
		return memoEntry{}, false
	}
	return m.e[best], true
}
