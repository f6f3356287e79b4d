package results

import (
	"sync"

	"drsim/cluster"
)

// worker consumes batches on a goroutine of its own. The producer fills a
// batch, hands it over with send and gets an empty one back; batches are
// recycled, so a steady stream allocates nothing. After the consumer's
// first error it skips the remaining batches; send and close report it.
type worker[B any] struct {
	full, free chan *B
	done       chan struct{}
	cur        *B

	mu  sync.Mutex
	err error
}

const asyncBatches = 4

func newWorker[B any](mk func() *B, consume func(*B) error, reset func(*B)) *worker[B] {
	w := &worker[B]{full: make(chan *B, asyncBatches), free: make(chan *B, asyncBatches+1), done: make(chan struct{})}
	for range asyncBatches + 1 {
		w.free <- mk()
	}
	w.cur = <-w.free
	go func() {
		defer close(w.done)
		failed := false
		for b := range w.full {
			if !failed {
				if err := consume(b); err != nil {
					w.mu.Lock()
					w.err = err
					w.mu.Unlock()
					failed = true
				}
			}
			reset(b)
			w.free <- b
		}
	}()
	return w
}

// send hands the current batch over and takes an empty one.
func (w *worker[B]) send() error {
	w.full <- w.cur
	w.cur = <-w.free
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.err
}

// close hands over the current batch if it is not empty, waits for the
// consumer and returns its first error. Later calls return the same error.
func (w *worker[B]) close(empty bool) error {
	if w.cur == nil {
		return w.err
	}
	if !empty {
		w.full <- w.cur
	}
	w.cur = nil
	close(w.full)
	<-w.done
	return w.err
}

// Async runs a recorder on a goroutine of its own, so that formatting and
// writing jobs.csv overlap the simulation on a multi-core machine. Record
// copies each record (and its Alloc ranges) into a batch; the inner recorder
// sees every record, in the same order, exactly as it would have
// synchronously. Close flushes the last batch and waits. An error of the
// inner recorder stops it; Record reports it on a later call and Close
// returns it.
type Async struct{ w *worker[recBatch] }

// recBatch is a run of records whose Alloc ranges live in one arena.
type recBatch struct {
	recs  []Record
	ends  []int // end of each record's Alloc in arena
	arena []cluster.Range
}

// A batch is handed over at asyncRecords records, or earlier once its
// arena holds asyncRanges ranges: scattered placement on a large machine
// gives jobs thousands of single-processor ranges, and full-size batches
// of those held 370 MB on CEA-Curie.
const (
	asyncRecords = 1024
	asyncRanges  = 1 << 16
)

// NewAsync starts the goroutine that feeds inner.
func NewAsync(inner Recorder) *Async {
	mk := func() *recBatch {
		return &recBatch{recs: make([]Record, 0, asyncRecords), ends: make([]int, 0, asyncRecords)}
	}
	consume := func(b *recBatch) error {
		start := 0
		for i := range b.recs {
			r := &b.recs[i]
			r.Alloc = b.arena[start:b.ends[i]]
			start = b.ends[i]
			if err := inner.Record(r); err != nil {
				return err
			}
		}
		return nil
	}
	reset := func(b *recBatch) { b.recs, b.ends, b.arena = b.recs[:0], b.ends[:0], b.arena[:0] }
	return &Async{newWorker(mk, consume, reset)}
}

// Record queues a copy of r.
func (a *Async) Record(r *Record) error {
	b := a.w.cur
	b.arena = append(b.arena, r.Alloc...)
	b.ends = append(b.ends, len(b.arena))
	b.recs = append(b.recs, *r)
	b.recs[len(b.recs)-1].Alloc = nil
	if len(b.recs) < asyncRecords && len(b.arena) < asyncRanges {
		return nil
	}
	return a.w.send()
}

// Close hands over the last records, waits until the inner recorder has
// seen them all and returns its first error. Later calls return the same
// error.
func (a *Async) Close() error {
	return a.w.close(a.w.cur == nil || len(a.w.cur.recs) == 0)
}

// AsyncPower runs a power writer on a goroutine of its own, like Async
// does for records: rows are copied into batches and reach the writer in
// order.
type AsyncPower struct{ w *worker[[]powerRow] }

type powerRow struct {
	t, watts, limit, gpuW float64
	busy, running         int
	devices               bool
}

// DevicePowerWriter is a PowerWriter that also takes the busy GPUs' power
// (PowerCSV, scheduler.DevicePowerObserver).
type DevicePowerWriter interface {
	PowerDevices(t, watts, limit, gpuW float64, busy, running int) error
}

// PowerWriter is what AsyncPower feeds: PowerCSV, or anything with the
// same method (scheduler.PowerObserver).
type PowerWriter interface {
	Power(t, watts, limit float64, busy, running int) error
}

// NewAsyncPower starts the goroutine that feeds inner.
func NewAsyncPower(inner PowerWriter) *AsyncPower {
	mk := func() *[]powerRow { b := make([]powerRow, 0, asyncRecords); return &b }
	dev, _ := inner.(DevicePowerWriter)
	consume := func(b *[]powerRow) error {
		for _, r := range *b {
			var err error
			if r.devices && dev != nil {
				err = dev.PowerDevices(r.t, r.watts, r.limit, r.gpuW, r.busy, r.running)
			} else {
				err = inner.Power(r.t, r.watts, r.limit, r.busy, r.running)
			}
			if err != nil {
				return err
			}
		}
		return nil
	}
	return &AsyncPower{newWorker(mk, consume, func(b *[]powerRow) { *b = (*b)[:0] })}
}

// Power queues one row.
func (a *AsyncPower) Power(t, watts, limit float64, busy, running int) error {
	b := a.w.cur
	*b = append(*b, powerRow{t: t, watts: watts, limit: limit, busy: busy, running: running})
	if len(*b) < asyncRecords {
		return nil
	}
	return a.w.send()
}

// PowerDevices queues one row with the busy GPUs' power.
func (a *AsyncPower) PowerDevices(t, watts, limit, gpuW float64, busy, running int) error {
	b := a.w.cur
	*b = append(*b, powerRow{t: t, watts: watts, limit: limit, gpuW: gpuW, busy: busy, running: running, devices: true})
	if len(*b) < asyncRecords {
		return nil
	}
	return a.w.send()
}

// Close hands over the last rows, waits and returns the writer's first
// error.
func (a *AsyncPower) Close() error {
	return a.w.close(a.w.cur == nil || len(*a.w.cur) == 0)
}
