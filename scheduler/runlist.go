package scheduler

import "slices"

// runList holds the running jobs in order of estimated end, ties in start
// order. Each entry carries what a shadow-time computation reads (end,
// processors, power), so walking the list never touches the job slab. The
// entries live in sorted blocks of at most 2·runBlock: an insert or remove
// moves at most one block's entries, not half the list, and finding a key
// is a binary search over block ends, then within one block. Each block
// also keeps the sum of its entries' processors, so that a shadow-time walk
// on a processor-only machine steps over whole blocks.
type runList struct {
	blocks [][]runEntry
	procs  []int        // per block: Σ procs of its entries
	spare  [][]runEntry // emptied blocks, for reuse
	n      int
	epoch  uint64  // counts inserts and removes: equal epochs, same entries (DR.Adjust)
	log    *runLog // nil until a consumer follows the changes (runLog)

	// Cursor of the last at(i), so that a walk in index order is O(1)
	// per step; -1 when the list changed since.
	ci, cb, co int
}

// runEntry is one running job.
type runEntry struct {
	estEnd float64
	seq    uint64  // start order
	power  float64 // W the cluster draws less when the job ends
	procs  int32
	slot   int32
}

const runBlock = 32

func (a *runEntry) cmp(estEnd float64, seq uint64) int {
	switch {
	case a.estEnd < estEnd:
		return -1
	case a.estEnd > estEnd:
		return 1
	case a.seq < seq:
		return -1
	case a.seq > seq:
		return 1
	}
	return 0
}

func (l *runList) Len() int { return l.n }

// block returns the index of the first block whose last entry is not
// before (estEnd, seq), or len(blocks) if there is none.
func (l *runList) block(estEnd float64, seq uint64) int {
	lo, hi := 0, len(l.blocks)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		b := l.blocks[m]
		if b[len(b)-1].cmp(estEnd, seq) < 0 {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo
}

// offset returns the position of (estEnd, seq) in block b, or where it
// would go.
func offset(b []runEntry, estEnd float64, seq uint64) (int, bool) {
	lo, hi := 0, len(b)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if b[m].cmp(estEnd, seq) < 0 {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo, lo < len(b) && b[lo].cmp(estEnd, seq) == 0
}

func (l *runList) insert(x runEntry) {
	l.ci = -1
	l.epoch++
	if l.log != nil {
		l.log.note(&x, true, false, 1)
	}
	l.n++
	if len(l.blocks) == 0 {
		l.blocks = append(l.blocks, append(l.newBlock(), x))
		l.procs = append(l.procs, int(x.procs))
		return
	}
	bi := l.block(x.estEnd, x.seq)
	if bi == len(l.blocks) {
		bi--
	}
	b := l.blocks[bi]
	o, _ := offset(b, x.estEnd, x.seq)
	b = slices.Insert(b, o, x)
	l.procs[bi] += int(x.procs)
	if len(b) < 2*runBlock {
		l.blocks[bi] = b
		return
	}
	// Split a full block in two halves.
	nb := append(l.newBlock(), b[runBlock:]...)
	moved := sumProcs(nb)
	l.blocks[bi] = b[:runBlock]
	l.blocks = slices.Insert(l.blocks, bi+1, nb)
	l.procs[bi] -= moved
	l.procs = slices.Insert(l.procs, bi+1, moved)
}

func sumProcs(b []runEntry) int {
	n := 0
	for i := range b {
		n += int(b[i].procs)
	}
	return n
}

// set replaces entry o of block bi by x, which has the same key.
func (l *runList) set(bi, o int, x runEntry) {
	if l.log != nil {
		// Logged as a remove and an insert of the same run; the governor
		// counts them only when the processors change (runLog.note).
		vis := 0
		if x.procs != l.blocks[bi][o].procs {
			vis = 1
		}
		l.log.note(&l.blocks[bi][o], false, true, vis)
		l.log.note(&x, true, true, vis)
	}
	l.procs[bi] += int(x.procs) - int(l.blocks[bi][o].procs)
	l.blocks[bi][o] = x
}

func (l *runList) newBlock() []runEntry {
	if n := len(l.spare); n > 0 {
		b := l.spare[n-1]
		l.spare = l.spare[:n-1]
		return b[:0]
	}
	return make([]runEntry, 0, 2*runBlock)
}

// remove deletes the entry of (estEnd, seq) and reports whether it was
// there.
func (l *runList) remove(estEnd float64, seq uint64) bool {
	bi, o, ok := l.find(estEnd, seq)
	if !ok {
		return false
	}
	l.removeAt(bi, o)
	return true
}

// removeAt deletes entry o of block bi.
func (l *runList) removeAt(bi, o int) {
	l.ci = -1
	l.epoch++
	l.n--
	if l.log != nil {
		l.log.note(&l.blocks[bi][o], false, false, 1)
	}
	l.procs[bi] -= int(l.blocks[bi][o].procs)
	b := slices.Delete(l.blocks[bi], o, o+1)
	l.blocks[bi] = b
	switch {
	case len(b) == 0:
		l.spare = append(l.spare, b)
		l.blocks = slices.Delete(l.blocks, bi, bi+1)
		l.procs = slices.Delete(l.procs, bi, bi+1)
	case len(b) < runBlock/4 && bi+1 < len(l.blocks) && len(b)+len(l.blocks[bi+1]) < 2*runBlock:
		// Merge a small block into its successor's place so that blocks
		// stay about half full and the block search stays short.
		l.blocks[bi] = append(b, l.blocks[bi+1]...)
		l.spare = append(l.spare, l.blocks[bi+1])
		l.blocks = slices.Delete(l.blocks, bi+1, bi+2)
		l.procs[bi] += l.procs[bi+1]
		l.procs = slices.Delete(l.procs, bi+1, bi+2)
	}
}

// move replaces the entry of (estEnd, seq) by x, whose key may differ:
// remove then insert, logged and counted as those two are, but an entry
// that stays within its block shifts only the entries between its old and
// new places (a re-timed job, whose end moves by a little, mostly does).
// It reports whether the entry was there.
func (l *runList) move(estEnd float64, seq uint64, x runEntry) bool {
	bi, o, ok := l.find(estEnd, seq)
	if !ok {
		return false
	}
	b := l.blocks[bi]
	last := len(b) - 1
	if o == last {
		last-- // the block's last entry once the old one is out
	}
	// insert puts x in the first block whose last entry is not before it
	// (or the last block): block bi if its last entry but the old one is
	// not before x and the previous block's last entry is.
	if last < 0 || (b[last].cmp(x.estEnd, x.seq) < 0 && bi+1 < len(l.blocks)) ||
		(bi > 0 && l.blocks[bi-1][len(l.blocks[bi-1])-1].cmp(x.estEnd, x.seq) >= 0) {
		l.removeAt(bi, o)
		l.insert(x)
		return true
	}
	l.ci = -1
	l.epoch += 2
	if l.log != nil {
		l.log.note(&b[o], false, false, 1)
		l.log.note(&x, true, false, 1)
	}
	l.procs[bi] += int(x.procs) - int(b[o].procs)
	if o > 0 && b[o-1].cmp(x.estEnd, x.seq) > 0 {
		// Earlier: shift the entries from x's place to o one on.
		n, _ := offset(b[:o], x.estEnd, x.seq)
		copy(b[n+1:o+1], b[n:o])
		b[n] = x
		return true
	}
	// Later (or in place): shift the entries after o up to x's place back.
	n, _ := offset(b[o+1:], x.estEnd, x.seq)
	copy(b[o:o+n], b[o+1:o+1+n])
	b[o+n] = x
	return true
}

// find locates the entry of (estEnd, seq).
func (l *runList) find(estEnd float64, seq uint64) (bi, o int, ok bool) {
	bi = l.block(estEnd, seq)
	if bi == len(l.blocks) {
		return 0, 0, false
	}
	o, ok = offset(l.blocks[bi], estEnd, seq)
	return bi, o, ok
}

// at returns the i-th entry (0 ≤ i < Len). Walking i = 0, 1, 2, … costs
// O(1) per step.
func (l *runList) at(i int) *runEntry {
	switch {
	case l.ci >= 0 && i == l.ci:
	case l.ci >= 0 && i == l.ci+1:
		l.ci, l.co = i, l.co+1
		if l.co == len(l.blocks[l.cb]) {
			l.cb, l.co = l.cb+1, 0
		}
	default:
		l.ci, l.cb, l.co = i, 0, i
		for l.co >= len(l.blocks[l.cb]) {
			l.co -= len(l.blocks[l.cb])
			l.cb++
		}
	}
	return &l.blocks[l.cb][l.co]
}

// appendSlots appends the slots in list order to dst.
func (l *runList) appendSlots(dst []int32) []int32 {
	for _, b := range l.blocks {
		for i := range b {
			dst = append(dst, b[i].slot)
		}
	}
	return dst
}

// runLog records the running list's changes for the consumers that
// follow them instead of re-reading the list: the governors
// (Control.RunChanges) and conservative's incremental passes
// (consreuse.go). Every change is one entry: an insert, a remove, or an
// in-place update (set) as a remove of the old entry and an insert of the
// new one, both marked InPlace. Each consumer reads through its own
// cursor, so that one's reads do not reset the other's; the log keeps the
// entries from the earliest cursor that holds them on, and nothing while
// nobody follows.
//
// The governors' cursor keeps at most runLogMax changes between reads
// (counting an in-place update only when it changes the processors, the
// only ones a governor acts on); past that it only notes that it lost
// some, and holds no entries until the next read. Conservative's cursor
// has no cap: it is reset at every pass.
type runLog struct {
	ch   []RunChange
	base uint64    // changes dropped from the front of ch
	gov  logCursor // Control.RunChanges
	cons logCursor // conservative's passes (consreuse.go)
}

// logCursor is one consumer's place in a runLog.
type logCursor struct {
	on   bool   // following
	lost bool   // past the cap (governors only): holds no entries
	at   uint64 // the next change to read, counted from the log's start
	n    int    // changes counted toward the cap since at
}

const runLogMax = 1 << 14

// RunChange is one change of the running list: the entry of a run
// (estimated end, start sequence number, slot, processors) inserted or
// removed. An in-place update of a run's entry is a remove of the old
// entry followed at once by an insert of the new one, both InPlace.
type RunChange struct {
	EstEnd  float64
	Seq     uint64
	Slot    int32
	Procs   int32
	Insert  bool
	InPlace bool
}

// end returns the position after the last change.
func (g *runLog) end() uint64 { return g.base + uint64(len(g.ch)) }

// holds reports whether cursor c needs the entries from c.at on.
func (c *logCursor) holds() bool { return c.on && !c.lost }

// note logs a change; vis is what it counts toward the governors' cap.
func (g *runLog) note(x *runEntry, ins, inPlace bool, vis int) {
	if g.gov.holds() {
		if g.gov.n += vis; g.gov.n > runLogMax {
			g.gov.lost = true
		}
	}
	gov, cons := g.gov.holds(), g.cons.on
	if !gov && !cons {
		g.base, g.ch = g.end(), g.ch[:0]
		return
	}
	if len(g.ch) == cap(g.ch) {
		// Drop what no cursor holds before growing.
		lo := g.end()
		if gov {
			lo = g.gov.at
		}
		if cons {
			lo = min(lo, g.cons.at)
		}
		if d := int(lo - g.base); d > 0 {
			g.ch = g.ch[:copy(g.ch, g.ch[d:])]
			g.base = lo
		}
	}
	g.ch = append(g.ch, RunChange{EstEnd: x.estEnd, Seq: x.seq, Slot: x.slot, Procs: x.procs, Insert: ins, InPlace: inPlace})
}

// since returns the changes from cursor c on.
func (g *runLog) since(c *logCursor) []RunChange { return g.ch[c.at-g.base:] }

// restart moves cursor c to the end, following (on) or not, and empties
// the log if no cursor holds any entry. Entries are not moved, so a
// slice since returned stays valid until the list next changes.
func (g *runLog) restart(c *logCursor, on bool) {
	c.on, c.lost, c.at, c.n = on, false, g.end(), 0
	if (!g.gov.holds() || g.gov.at == g.end()) && (!g.cons.on || g.cons.at == g.end()) {
		g.base, g.ch = g.end(), g.ch[:0]
	}
}

// govChanges returns the changes since its previous call and whether
// they are all known (Control.RunChanges), and follows on from there.
func (l *runList) govChanges() (ch []RunChange, ok bool) {
	if l.log == nil {
		l.log = &runLog{}
	}
	g := l.log
	if g.gov.holds() {
		ch, ok = g.since(&g.gov), true
	}
	g.restart(&g.gov, true)
	return ch, ok
}

// consFollow starts (on) or stops conservative's record of the list's
// changes from now on (consreuse.go).
func (l *runList) consFollow(on bool) {
	if l.log == nil {
		if !on {
			return
		}
		l.log = &runLog{}
	}
	l.log.restart(&l.log.cons, on)
}

// consChanges returns the changes since consFollow(true) (none if not
// following).
func (l *runList) consChanges() []RunChange {
	if l.log == nil || !l.log.cons.on {
		return nil
	}
	return l.log.since(&l.log.cons)
}
