package netmodel

// The solve memo. A component's solve is a function of its members alone:
// the variables are the members in id order, each member's links and loads
// are fixed for its life, a link is shared iff two members use it (every
// job on a link of the component is a member), and a link's load is the sum
// of its members' loads. So two solves of components with the same members
// — the same ids, each with the same link set — give the same rates, bit
// for bit, and the same pieces. Such repeats are common in a replay: a job
// ends and leaves its component as it was before it started, or a job
// starts on the slot and placement of one that just ended. The memo keeps
// recent solves (direct-mapped by a hash of the members) and recompute
// takes their rates instead of solving again.
//
// A member is named by its id and the number of its link set (netJob.set):
// a placement's entry in AddJob's route cache numbers its links when it is
// filled, and the jobs placed from it share that number; every other add
// gets a fresh number. Numbers are never reused, so equal names mean equal
// links and loads, and an entry matches only when every member's name does
// (the hash only picks the slot).

// memoKey names a member: its id and its link set's number.
type memoKey struct {
	set uint64
	id  int32
}

// memoEntry is one remembered solve: the members in solve order, their
// rates, and, when the solve tracked how its jobs connect (a remove's), the
// union-find it built and its number of classes (uf empty otherwise).
type memoEntry struct {
	keys    []memoKey
	rates   []float64
	uf      []int32
	classes int
}

const memoSize = 1 << 13 // remembered solves, a power of two

// memoSlot returns the memo entry that comp's solve uses and whether it
// holds that solve (with its union-find too when track is set).
func (n *Network) memoSlot(comp []int64, track bool) (*memoEntry, bool) {
	h := uint64(14695981039346656037)
	for _, c := range comp {
		j := &n.jobs[int32(c)]
		h = (h ^ uint64(uint32(j.id))) * 1099511628211
		h = (h ^ j.set) * 1099511628211
	}
	e := &n.memo[h&(memoSize-1)]
	if len(e.keys) != len(comp) || (track && len(e.uf) == 0) {
		return e, false
	}
	keys := e.keys[:len(comp)]
	for f, c := range comp {
		j := &n.jobs[int32(c)]
		if keys[f] != (memoKey{j.set, j.id}) {
			return e, false
		}
	}
	return e, true
}

// remember stores the solve of comp (rates, and n.uf and n.classes when
// tracked) in e.
func (n *Network) remember(e *memoEntry, comp []int64, rates []float64, track bool) {
	e.keys = e.keys[:0]
	for _, c := range comp {
		j := &n.jobs[int32(c)]
		e.keys = append(e.keys, memoKey{j.set, j.id})
	}
	e.rates = append(e.rates[:0], rates...)
	e.uf, e.classes = e.uf[:0], 0
	if track {
		e.uf, e.classes = append(e.uf, n.uf...), n.classes
	}
}

// recall is the remembered solve in e: the rates into rates, and with
// track the union-find into n.uf and n.classes.
func (n *Network) recall(e *memoEntry, rates []float64, track bool) {
	copy(rates, e.rates)
	if track {
		n.uf, n.classes = append(n.uf[:0], e.uf...), e.classes
		n.recalled[1]++
		return
	}
	n.recalled[0]++
}

// newSet returns a link-set number no job or route entry carries yet.
func (n *Network) newSet() uint64 {
	n.sets++
	return n.sets
}
