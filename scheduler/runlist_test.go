package scheduler

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// The blocked running list behaves exactly like one sorted slice under a
// random mix of inserts, removes (with many equal ends), in-place updates
// and walks in index order or at random indices.
func TestRunListMatchesSortedSlice(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var l runList
	var ref []runEntry
	seq := uint64(0)
	less := func(a, b runEntry) int { return a.cmp(b.estEnd, b.seq) }
	for step := 0; step < 200000; step++ {
		switch op := rng.IntN(10); {
		case op < 5 || len(ref) == 0:
			seq++
			x := runEntry{estEnd: float64(rng.IntN(500)), seq: seq, procs: int32(rng.IntN(64) + 1), slot: int32(seq), power: rng.Float64()}
			l.insert(x)
			i, _ := slices.BinarySearchFunc(ref, x, less)
			ref = slices.Insert(ref, i, x)
		case op < 9:
			i := rng.IntN(len(ref))
			// Remove from the front more often, as finishing jobs do.
			if rng.IntN(2) == 0 {
				i = rng.IntN(min(len(ref), 8))
			}
			if !l.remove(ref[i].estEnd, ref[i].seq) {
				t.Fatalf("step %d: entry %d not found", step, i)
			}
			ref = slices.Delete(ref, i, i+1)
		default:
			if l.remove(1e9, 1) {
				t.Fatal("removed an entry that was never inserted")
			}
			i := rng.IntN(len(ref))
			bi, o, ok := l.find(ref[i].estEnd, ref[i].seq)
			if !ok {
				t.Fatalf("step %d: find missed entry %d", step, i)
			}
			ref[i].procs++
			x := l.blocks[bi][o]
			x.procs++
			l.set(bi, o, x)
		}
		if l.Len() != len(ref) {
			t.Fatalf("step %d: Len %d, want %d", step, l.Len(), len(ref))
		}
		if step%97 == 0 {
			for i := range ref {
				if *l.at(i) != ref[i] {
					t.Fatalf("step %d: at(%d) = %+v, want %+v", step, i, *l.at(i), ref[i])
				}
			}
			if len(ref) > 0 {
				i := rng.IntN(len(ref))
				if *l.at(i) != ref[i] {
					t.Fatalf("step %d: random at(%d) wrong", step, i)
				}
			}
			got := l.appendSlots(nil)
			for i := range ref {
				if got[i] != ref[i].slot {
					t.Fatalf("step %d: appendSlots[%d] = %d, want %d", step, i, got[i], ref[i].slot)
				}
			}
			if len(l.procs) != len(l.blocks) {
				t.Fatalf("step %d: %d block sums for %d blocks", step, len(l.procs), len(l.blocks))
			}
			for bi, b := range l.blocks {
				if len(b) == 0 || len(b) >= 2*runBlock {
					t.Fatalf("step %d: block %d holds %d entries", step, bi, len(b))
				}
				if l.procs[bi] != sumProcs(b) {
					t.Fatalf("step %d: block %d sum %d, entries hold %d", step, bi, l.procs[bi], sumProcs(b))
				}
			}
		}
	}
}

// The change log, hand-checked: inserts and removes in order, an in-place
// update that changes processors as a remove and an insert (one that does
// not, nothing), a remove of a missing key nothing; past runLogMax changes
// it keeps none and says it lost some.
func TestRunListLog(t *testing.T) {
	l := runList{log: &runLog{}}
	l.insert(runEntry{estEnd: 10, seq: 1, procs: 4, slot: 7})
	l.insert(runEntry{estEnd: 5, seq: 2, procs: 2, slot: 3})
	l.remove(10, 1)
	l.remove(10, 1) // gone already
	bi, o, _ := l.find(5, 2)
	l.set(bi, o, runEntry{estEnd: 5, seq: 2, procs: 2, slot: 3, power: 9})
	l.set(bi, o, runEntry{estEnd: 5, seq: 2, procs: 1, slot: 3})
	want := []RunChange{{Seq: 1, Slot: 7, Procs: 4, Insert: true}, {Seq: 2, Slot: 3, Procs: 2, Insert: true},
		{Seq: 1, Slot: 7, Procs: 4}, {Seq: 2, Slot: 3, Procs: 2}, {Seq: 2, Slot: 3, Procs: 1, Insert: true}}
	if !slices.Equal(l.log.ch, want) || l.log.lost {
		t.Fatalf("log %+v lost %v, want %+v", l.log.ch, l.log.lost, want)
	}
	l.log.ch = l.log.ch[:0]
	for i := range runLogMax + 1 {
		l.insert(runEntry{estEnd: float64(i), seq: uint64(10 + i), procs: 1})
	}
	if len(l.log.ch) != 0 || !l.log.lost {
		t.Fatalf("after %d changes: %d kept, lost %v", runLogMax+1, len(l.log.ch), l.log.lost)
	}
}
