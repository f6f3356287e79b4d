package results

import (
	"errors"
	"fmt"
	"testing"

	"drsim/cluster"
)

type collect struct {
	ids    []int64
	allocs []string
	failAt int
}

var errFull = errors.New("disk full")

func (c *collect) Record(r *Record) error {
	if c.failAt > 0 && len(c.ids) == c.failAt {
		return errFull
	}
	c.ids = append(c.ids, r.ID)
	c.allocs = append(c.allocs, string(cluster.AppendIntervalSet(nil, r.Alloc)))
	return nil
}

// Async hands every record over in order, with its own copy of the Alloc
// ranges (the engine reuses its slice), and reports the inner recorder's
// first error.
func TestAsyncOrderAndCopies(t *testing.T) {
	var c collect
	a := NewAsync(&c)
	buf := make([]cluster.Range, 0, 2)
	const n = 5*asyncRecords + 17
	for i := range n {
		buf = append(buf[:0], cluster.Range{Lo: int32(i), Hi: int32(i + 4)})
		if i%3 == 0 {
			buf = append(buf, cluster.Range{Lo: int32(i + 10), Hi: int32(i + 11)})
		}
		if err := a.Record(&Record{ID: int64(i), Alloc: buf}); err != nil {
			t.Fatal(err)
		}
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	if len(c.ids) != n {
		t.Fatalf("%d records, want %d", len(c.ids), n)
	}
	for i := range n {
		want := fmt.Sprintf("%d-%d", i, i+3)
		if i%3 == 0 {
			want += fmt.Sprintf(" %d", i+10)
		}
		if c.ids[i] != int64(i) || c.allocs[i] != want {
			t.Fatalf("record %d: id %d alloc %q", i, c.ids[i], c.allocs[i])
		}
	}

	bad := &collect{failAt: 10}
	a = NewAsync(bad)
	var err error
	for i := 0; i < 20*asyncRecords && err == nil; i++ {
		err = a.Record(&Record{ID: int64(i)})
	}
	if !errors.Is(err, errFull) {
		t.Fatalf("Record kept accepting after the writer failed: %v", err)
	}
	if err := a.Close(); !errors.Is(err, errFull) {
		t.Fatalf("Close = %v, want the writer's error", err)
	}
	if err := a.Close(); !errors.Is(err, errFull) {
		t.Fatalf("second Close = %v", err)
	}
}

type powerRows struct{ rows []powerRow }

func (p *powerRows) Power(t, w, l float64, b, r int) error {
	p.rows = append(p.rows, powerRow{t: t, watts: w, limit: l, busy: b, running: r})
	return nil
}

func TestAsyncPowerOrder(t *testing.T) {
	var p powerRows
	a := NewAsyncPower(&p)
	const n = 3*asyncRecords + 5
	for i := range n {
		if err := a.Power(float64(i), 2*float64(i), 7, i, i%5); err != nil {
			t.Fatal(err)
		}
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	if len(p.rows) != n {
		t.Fatalf("%d rows, want %d", len(p.rows), n)
	}
	for i, r := range p.rows {
		if r != (powerRow{t: float64(i), watts: 2 * float64(i), limit: 7, busy: i, running: i % 5}) {
			t.Fatalf("row %d = %+v", i, r)
		}
	}
}
