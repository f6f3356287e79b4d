package results

import "sync"

// Async runs a recorder on a goroutine of its own, so that formatting and
// writing jobs.csv overlap the simulation on a multi-core machine. Record
// copies each record (and its Alloc text) into a batch and hands full
// batches over; the inner recorder sees every record, in the same order,
// exactly as it would have synchronously. Close flushes the last batch and
// waits. An error of the inner recorder stops it; Record reports it on a
// later call and Close returns it.
type Async struct {
	inner Recorder
	cur   *recBatch
	full  chan *recBatch
	free  chan *recBatch
	done  chan struct{}

	mu  sync.Mutex
	err error
}

// recBatch is a run of records whose Alloc texts live in one arena.
type recBatch struct {
	recs  []Record
	ends  []int // end of each record's Alloc in arena
	arena []byte
}

const (
	asyncBatch   = 1024
	asyncBatches = 4
)

// NewAsync starts the goroutine that feeds inner.
func NewAsync(inner Recorder) *Async {
	a := &Async{inner: inner, full: make(chan *recBatch, asyncBatches), free: make(chan *recBatch, asyncBatches+1), done: make(chan struct{})}
	for range asyncBatches + 1 {
		a.free <- &recBatch{recs: make([]Record, 0, asyncBatch), ends: make([]int, 0, asyncBatch)}
	}
	a.cur = <-a.free
	go a.work()
	return a
}

func (a *Async) work() {
	defer close(a.done)
	failed := false
	for b := range a.full {
		start := 0
		for i := range b.recs {
			r := &b.recs[i]
			r.Alloc = b.arena[start:b.ends[i]]
			start = b.ends[i]
			if failed {
				continue
			}
			if err := a.inner.Record(r); err != nil {
				a.mu.Lock()
				a.err = err
				a.mu.Unlock()
				failed = true
			}
		}
		b.recs, b.ends, b.arena = b.recs[:0], b.ends[:0], b.arena[:0]
		a.free <- b
	}
}

// Record queues a copy of r.
func (a *Async) Record(r *Record) error {
	b := a.cur
	b.arena = append(b.arena, r.Alloc...)
	b.ends = append(b.ends, len(b.arena))
	b.recs = append(b.recs, *r)
	b.recs[len(b.recs)-1].Alloc = nil
	if len(b.recs) < asyncBatch {
		return nil
	}
	a.full <- b
	a.cur = <-a.free
	a.mu.Lock()
	err := a.err
	a.mu.Unlock()
	return err
}

// Close hands over the last records, waits until the inner recorder has
// seen them all and returns its first error. Later calls return the same
// error.
func (a *Async) Close() error {
	if a.cur == nil {
		return a.err
	}
	if len(a.cur.recs) > 0 {
		a.full <- a.cur
	}
	a.cur = nil
	close(a.full)
	<-a.done
	return a.err
}
