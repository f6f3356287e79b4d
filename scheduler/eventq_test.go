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
