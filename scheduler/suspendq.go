package scheduler

import (
	"cmp"
	"slices"
)

// Suspend timers (nodepower.go) outside the event heap.
//
// A node's suspend timer is armed at an instant's time now, for now +
// SuspendAfter, one constant: timers come due in the order they are
// armed. They wait in a FIFO (suspendQueue.fifo), and the heap holds at
// most two of their events: a marker for the FIFO's front run (the timers
// due at one time; key (T, KindSuspend, 0)) and the event of the next
// timer of the run being applied (key (T, KindSuspend, node+1), the key
// order of a node's own event). When the marker is popped the run leaves
// the FIFO, sorted by node, as the due run; each popped timer event pushes
// the next one's. So the events the engine pops and applies, and their
// order among all other events, are those of one heap event per timer,
// without a heap of one entry per idle node: on machines of thousands of
// nodes, most of the heap was timers made stale by the node's reuse, and
// popping them was most of a run (CEA-Curie, one node per processor: 10.4
// s of which 7 s popping).
//
// Stale timers (the node was used since: its generation moved on; or the
// workload is done) are dropped as soon as they are seen, never pushed:
// a timer once stale stays stale, and a stale event is never applied nor
// counted. A timer due with or before the run being applied, which needs
// t + SuspendAfter to round to t, goes into the heap as its own event
// (same key), where the heap orders it among the run's.

// suspTimer is one node's armed suspend timer: the node powers off at t
// unless it has been used since it was armed (its generation is no
// longer gen).
type suspTimer struct {
	t    float64
	node int32
	gen  uint32
}

// event is the timer's heap event: the key of a node's own suspend event
// but for Seq, node+1 (0 is the run marker's).
func (tm suspTimer) event() Event {
	return Event{T: tm.t, Kind: KindSuspend, Seq: uint64(tm.node) + 1, Job: tm.node, Gen: tm.gen}
}

// suspendQueue holds the armed timers. Invariants: fifo[fhead:] is in
// time order, every one of its timers due after dueT while the due run is
// not done; the heap holds a marker at fifo[fhead].t iff fifo[fhead:] is
// not empty, and the event of due[dhead] iff due[dhead:] is not empty.
type suspendQueue struct {
	fifo  []suspTimer
	fhead int
	due   []suspTimer // the run being applied, at dueT, sorted by node
	dhead int
	dueT  float64
	merge bool // suspMerge is due: due[dhead:]'s next event is not in the heap

	nMerged, nSorted int // suspends suspMerge applied, runs sorted (tests)
}

// suspendPerNode, set by tests only, pushes every timer as its own event:
// the heap of one event per timer that the queue stands for (the tests'
// reference).
var suspendPerNode = false

// suspendHook, if set (tests only), sees every suspend event applied: its
// time and node.
var suspendHook func(t float64, node int32)

// markerJob marks the run marker's event (Job; a timer's is its node).
const markerJob = -1

// armSuspend arms node k's suspend timer at t + SuspendAfter.
func (e *Engine) armSuspend(k int32, t float64) {
	sq := &e.np.susp
	tm := suspTimer{t: t + e.cfg.SuspendAfter, node: k, gen: e.np.nodes.Gen(k)}
	if sq.dhead < len(sq.due) && tm.t <= sq.dueT || suspendPerNode {
		// Due with the run being applied (t + SuspendAfter rounds to t):
		// the heap orders it among the run's timers.
		e.q.Push(tm.event())
		return
	}
	if e.cfg.Check && sq.fhead < len(sq.fifo) && tm.t < sq.fifo[len(sq.fifo)-1].t {
		e.violate("suspend timer of node %d armed for %v, before one armed earlier for %v", k, tm.t, sq.fifo[len(sq.fifo)-1].t)
	}
	if sq.fhead == len(sq.fifo) {
		sq.fifo, sq.fhead = sq.fifo[:0], 0
		e.q.Push(Event{T: tm.t, Kind: KindSuspend, Job: markerJob})
	} else if sq.fhead > 1024 && 2*sq.fhead > len(sq.fifo) {
		n := copy(sq.fifo, sq.fifo[sq.fhead:])
		sq.fifo, sq.fhead = sq.fifo[:n], 0
	}
	sq.fifo = append(sq.fifo, tm)
}

// suspPopped follows the pop of a KindSuspend event ev (applied or not):
// a run marker makes the FIFO's front run the due run; the due run's
// current timer makes way for the next. Either pushes the next live
// timer's event, if any, but for a live timer popped under PassInstant:
// the instant loop applies it, and suspMerge then applies the timers due
// before every event in the heap and pushes the next.
func (e *Engine) suspPopped(ev *Event) {
	sq := &e.np.susp
	switch {
	case ev.Job == markerJob:
		// The front run: every timer due at ev.T (all armed: see the
		// package notes), in node order.
		f := sq.fifo[sq.fhead:]
		n := 0
		for n < len(f) && f[n].t == ev.T {
			n++
		}
		if n == 0 {
			// A marker left when the workload was done (pushTimer emptied
			// the FIFO under it): the FIFO's front, if any, has its own.
			return
		}
		sq.due, sq.dhead, sq.dueT = append(sq.due[:0], f[:n]...), 0, ev.T
		sq.fhead += n
		if sortTimers(sq.due) {
			sq.nSorted++
		}
		if sq.fhead < len(sq.fifo) {
			e.q.Push(Event{T: sq.fifo[sq.fhead].t, Kind: KindSuspend, Job: markerJob})
		}
	case sq.dhead < len(sq.due) && ev.T == sq.dueT && ev.Job == sq.due[sq.dhead].node && ev.Gen == sq.due[sq.dhead].gen:
		sq.dhead++
		if e.cfg.Pass != PassEvent && !e.staleNode(ev) {
			sq.merge = true
			return
		}
	default:
		return // a timer pushed as its own event
	}
	e.pushTimer()
}

// pushTimer pushes the event of the due run's next live timer, if any.
func (e *Engine) pushTimer() {
	sq := &e.np.susp
	if e.workDone() {
		// Every node event is stale from now on.
		sq.fifo, sq.fhead, sq.due, sq.dhead = sq.fifo[:0], 0, sq.due[:0], 0
		return
	}
	for ; sq.dhead < len(sq.due); sq.dhead++ {
		if tm := sq.due[sq.dhead]; e.np.nodes.Gen(tm.node) == tm.gen {
			e.q.Push(tm.event())
			return
		}
	}
}

// suspMerge follows a timer applied under PassInstant (suspPopped): the
// due run's later timers whose events would be popped before every event
// in the heap are applied as the instant loop would apply them (under
// PassInstant nothing runs between two events, and a suspend pushes no
// event nor makes another node's timer stale), and the next one's event
// is pushed.
func (e *Engine) suspMerge() {
	sq := &e.np.susp
	sq.merge = false
	if e.workDone() {
		sq.fifo, sq.fhead, sq.due, sq.dhead = sq.fifo[:0], 0, sq.due[:0], 0
		return
	}
	for ; sq.dhead < len(sq.due); sq.dhead++ {
		tm := sq.due[sq.dhead]
		if e.np.nodes.Gen(tm.node) != tm.gen {
			continue // stale: never applied
		}
		if ev := tm.event(); e.q.Len() > 0 && !ev.less(e.q.Peek()) {
			e.q.Push(ev)
			return
		}
		e.stats.Events++
		sq.nMerged++
		e.suspendNode(tm.node)
	}
}

// sortTimers sorts a run's timers by node, stably (a node armed twice in
// the run keeps its timers in arming order; they are the same event or
// one is stale, so either order applies the same), and reports whether
// they were out of order. Runs often come in node order already
// (startNodePower's, one job's release).
func sortTimers(ts []suspTimer) (moved bool) {
	if slices.IsSortedFunc(ts, cmpTimer) {
		return false
	}
	slices.SortStableFunc(ts, cmpTimer)
	return true
}

func cmpTimer(a, b suspTimer) int { return cmp.Compare(a.node, b.node) }
