package scheduler

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// The heap pops events in exactly the order a stable sort by (T, Kind, Seq) gives.
func TestEventQueueMatchesSort(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var q eventQueue
	var all []Event
	for i := 0; i < 5000; i++ {
		e := Event{T: float64(rng.IntN(50)), Kind: Kind(rng.IntN(2)), Seq: uint64(i), Job: int32(i)}
		q.Push(e)
		all = append(all, e)
		if rng.IntN(3) == 0 { // interleave pops
			got := q.Pop()
			slices.SortStableFunc(all, cmpEvent)
			if got != all[0] {
				t.Fatalf("Pop() = %+v, want %+v", got, all[0])
			}
			all = all[1:]
		}
	}
	slices.SortStableFunc(all, cmpEvent)
	for _, want := range all {
		if got := q.Pop(); got != want {
			t.Fatalf("Pop() = %+v, want %+v", got, want)
		}
	}
	if q.Len() != 0 {
		t.Fatalf("Len() = %d after draining", q.Len())
	}
}

func cmpEvent(a, b Event) int {
	switch {
	case a.less(&b):
		return -1
	case b.less(&a):
		return 1
	}
	return 0
}

var sinkEvent Event

func BenchmarkQueue(b *testing.B) {
	for _, n := range []int{1 << 10, 1 << 16} {
		b.Run(itoa(n), func(b *testing.B) {
			var q eventQueue
			rng := rand.New(rand.NewPCG(1, 2))
			for i := 0; i < n; i++ {
				q.Push(Event{T: rng.Float64() * 1e6, Seq: uint64(i)})
			}
			b.ReportAllocs()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				e := q.Pop()
				e.T += rng.Float64() * 1e3
				q.Push(e)
				sinkEvent = e
			}
		})
	}
}

func itoa(n int) string {
	s := ""
	for ; n > 0; n /= 10 {
		s = string(rune('0'+n%10)) + s
	}
	return s
}

// swapHeap is the event queue as it was before Push and Pop moved a hole:
// the oracle of TestEventQueueMatchesSwapHeap.
type swapHeap struct{ h []Event }

func (q *swapHeap) push(e Event) {
	q.h = append(q.h, e)
	for i := len(q.h) - 1; i > 0; {
		p := (i - 1) / 2
		if !q.h[i].less(&q.h[p]) {
			break
		}
		q.h[i], q.h[p] = q.h[p], q.h[i]
		i = p
	}
}

func (q *swapHeap) pop() Event {
	h := q.h
	top := h[0]
	n := len(h) - 1
	h[0] = h[n]
	h = h[:n]
	for i := 0; ; {
		l := 2*i + 1
		if l >= n {
			break
		}
		m := l
		if r := l + 1; r < n && h[r].less(&h[l]) {
			m = r
		}
		if !h[m].less(&h[i]) {
			break
		}
		h[i], h[m] = h[m], h[i]
		i = m
	}
	q.h = h
	return top
}

// The queue's array is the swapping heap's after every push and pop, with
// many events of equal key (T, Kind, Seq) told apart by Job, so that the
// order among ties, which the key leaves to the heap, is the same too.
func TestEventQueueMatchesSwapHeap(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	var q eventQueue
	var ref swapHeap
	for step := 0; step < 200000; step++ {
		if rng.IntN(5) < 3 || len(ref.h) == 0 {
			e := Event{T: float64(rng.IntN(20)), Kind: Kind(rng.IntN(3)), Seq: uint64(rng.IntN(4)), Job: int32(step)}
			q.Push(e)
			ref.push(e)
		} else if got, want := q.Pop(), ref.pop(); got != want {
			t.Fatalf("step %d: Pop() = %+v, swapping heap %+v", step, got, want)
		}
		if !slices.Equal(q.h, ref.h) {
			t.Fatalf("step %d: heap %v, swapping heap %v", step, q.h, ref.h)
		}
		if rng.IntN(1000) == 0 { // drain now and then, through sizes 0 and 1
			for len(ref.h) > 0 {
				if got, want := q.Pop(), ref.pop(); got != want {
					t.Fatalf("step %d, draining: Pop() = %+v, swapping heap %+v", step, got, want)
				}
			}
		}
	}
}
