package scheduler

// Kind is an event's class. At equal times, lower kinds are applied first:
// job finishes, then power-limit (DR) changes, then node power events
// (boots, then suspends; nodepower.go). Submits come from the job source
// and are applied after all of them (see Engine.Run).
type Kind uint8

const (
	KindFinish   Kind = iota // a running job's work is done
	KindLimit                // the power limit changes
	KindBoot                 // nodes finish booting (Job −1), or a job's nodes are all up (Job = slot)
	KindSuspend              // a node idle for Config.SuspendAfter powers off (Job = node)
	KindPriority             // multifactor priorities are recomputed (priority.go; Job −1)
	KindWake                 // a policy asked to run (View.WakeAt; Job −1)
)

// Event is a value in the event queue: 32 bytes, no pointers. It is
// ordered by (T, Kind, Seq), so same-time events resolve identically on
// every run. For finishes and job boots Seq is the job's start order; for
// limit changes it is the change's index; for node boots 0; for suspends
// the node.
type Event struct {
	T    float64
	Seq  uint64
	Job  int32  // slot of the job (finish, boot), index of the limit step, or node (suspend)
	Gen  uint32 // the job's (node's) generation when pushed; stale once it is re-timed or evicted (reused)
	Kind Kind
}

func (a *Event) less(b *Event) bool {
	if a.T != b.T {
		return a.T < b.T
	}
	if a.Kind != b.Kind {
		return a.Kind < b.Kind
	}
	return a.Seq < b.Seq
}

// eventQueue is a binary min-heap of Event values. Unlike container/heap it
// neither boxes values nor calls through interfaces: Push and Pop do not
// allocate once the slice has grown.
type eventQueue struct{ h []Event }

func (q *eventQueue) Len() int     { return len(q.h) }
func (q *eventQueue) Peek() *Event { return &q.h[0] }

// Push and Pop move a hole instead of swapping: each level writes one
// event, not two, and compares the moving event exactly as the swaps
// did, so the heap's array is the same after every call
// (TestEventQueueMatchesSwapHeap).
func (q *eventQueue) Push(e Event) {
	q.h = append(q.h, e)
	h := q.h
	i := len(h) - 1
	for i > 0 {
		p := (i - 1) / 2
		if !e.less(&h[p]) {
			break
		}
		h[i] = h[p]
		i = p
	}
	h[i] = e
}

func (q *eventQueue) Pop() Event {
	h := q.h
	top := h[0]
	n := len(h) - 1
	x := h[n]
	h = h[:n]
	q.h = h
	if n == 0 {
		return top
	}
	// Bottom-up: move the hole down the path of lesser children to a
	// leaf, one compare a level, then back up while the child moved up is
	// not less than x. The path's events never decrease, so those less
	// than x are a prefix of it: x ends where the top-down sift would
	// have put it, and the array is the same.
	i := 0
	for {
		l := 2*i + 1
		if l >= n {
			break
		}
		m := l
		if r := l + 1; r < n && h[r].less(&h[l]) {
			m = r
		}
		h[i] = h[m]
		i = m
	}
	for i > 0 {
		p := (i - 1) / 2
		if h[p].less(&x) {
			break
		}
		h[i] = h[p]
		i = p
	}
	h[i] = x
	return top
}
