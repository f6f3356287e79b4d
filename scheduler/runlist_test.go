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
// update as a remove and an insert marked InPlace (counted toward the
// governors' cap only when it changes processors), a remove of a missing
// key nothing; the two cursors read independently, each from where it
// last restarted, and the entries one still holds survive the other's
// reads and the log's compaction; past runLogMax counted changes the
// governors' cursor keeps none and says it lost some, while
// conservative's keeps them all.
func TestRunListLog(t *testing.T) {
	l := runList{}
	l.insert(runEntry{estEnd: 1, seq: 99, procs: 1, slot: 9}) // nobody follows
	if l.log != nil {
		t.Fatal("log made with nobody following")
	}
	gov := func() ([]RunChange, bool) {
		ch, ok := l.govChanges()
		return slices.Clone(ch), ok
	}
	if _, ok := gov(); ok {
		t.Fatal("first governor read ok")
	}
	l.insert(runEntry{estEnd: 10, seq: 1, procs: 4, slot: 7})
	l.consFollow(true)
	l.insert(runEntry{estEnd: 5, seq: 2, procs: 2, slot: 3})
	l.remove(10, 1)
	l.remove(10, 1) // gone already
	bi, o, _ := l.find(5, 2)
	l.set(bi, o, runEntry{estEnd: 5, seq: 2, procs: 2, slot: 3, power: 9})
	l.set(bi, o, runEntry{estEnd: 5, seq: 2, procs: 1, slot: 3})
	ins := RunChange{EstEnd: 10, Seq: 1, Slot: 7, Procs: 4, Insert: true}
	rest := []RunChange{{EstEnd: 5, Seq: 2, Slot: 3, Procs: 2, Insert: true}, {EstEnd: 10, Seq: 1, Slot: 7, Procs: 4},
		{EstEnd: 5, Seq: 2, Slot: 3, Procs: 2, InPlace: true}, {EstEnd: 5, Seq: 2, Slot: 3, Procs: 2, Insert: true, InPlace: true},
		{EstEnd: 5, Seq: 2, Slot: 3, Procs: 2, InPlace: true}, {EstEnd: 5, Seq: 2, Slot: 3, Procs: 1, Insert: true, InPlace: true}}
	if l.log.gov.n != 5 {
		t.Fatalf("governor counted %d changes, want 5", l.log.gov.n)
	}
	if ch, ok := gov(); !ok || !slices.Equal(ch, append([]RunChange{ins}, rest...)) {
		t.Fatalf("governor read %+v ok %v", ch, ok)
	}
	if ch := l.consChanges(); !slices.Equal(ch, rest) {
		t.Fatalf("conservative read %+v, want %+v", ch, rest)
	}
	if ch, ok := gov(); !ok || len(ch) != 0 {
		t.Fatalf("governor read again %+v ok %v", ch, ok)
	}
	// Conservative lags: its entries survive compaction and the
	// governor's reads; after its restart both see only what follows.
	for i := range 3 * runBlock {
		l.insert(runEntry{estEnd: 100 + float64(i), seq: uint64(100 + i), procs: 1})
		if i%7 == 0 {
			gov()
		}
	}
	if ch := l.consChanges(); len(ch) != len(rest)+3*runBlock || !slices.Equal(ch[:len(rest)], rest) || ch[len(ch)-1].Seq != 99+3*runBlock {
		t.Fatalf("conservative read %d changes after the governor's reads", len(ch))
	}
	l.consFollow(true)
	gov()
	if len(l.log.ch) != 0 {
		t.Fatalf("%d changes kept with every cursor at the end", len(l.log.ch))
	}
	l.remove(100, 100)
	want := []RunChange{{EstEnd: 100, Seq: 100, Procs: 1}}
	if ch := l.consChanges(); !slices.Equal(ch, want) {
		t.Fatalf("conservative read %+v, want %+v", ch, want)
	}
	l.consFollow(false)
	if ch, ok := gov(); !ok || !slices.Equal(ch, want) {
		t.Fatalf("governor read %+v ok %v, want %+v", ch, ok, want)
	}
	// The governors' cap: runLogMax counted changes are kept, one more
	// and they are lost; an in-place update without a processor change
	// does not count. Conservative, following, keeps them all.
	l.consFollow(true)
	bi, o, _ = l.find(5, 2)
	l.set(bi, o, runEntry{estEnd: 5, seq: 2, procs: 1, slot: 3, power: 1})
	for i := range runLogMax {
		l.insert(runEntry{estEnd: 1000 + float64(i), seq: uint64(1000 + i), procs: 1})
	}
	if l.log.gov.lost || l.log.gov.n != runLogMax {
		t.Fatalf("after %d counted changes: lost %v, counted %d", runLogMax, l.log.gov.lost, l.log.gov.n)
	}
	l.remove(1000, 1000)
	if !l.log.gov.lost {
		t.Fatalf("after %d counted changes: not lost", runLogMax+1)
	}
	if ch := l.consChanges(); len(ch) != runLogMax+3 {
		t.Fatalf("conservative read %d changes, want %d", len(ch), runLogMax+3)
	}
	if _, ok := gov(); ok {
		t.Fatal("governor read ok after the cap")
	}
	l.consFollow(false)
	if len(l.log.ch) != 0 {
		t.Fatalf("%d changes kept with every cursor at the end", len(l.log.ch))
	}
	l.insert(runEntry{estEnd: 1, seq: 5000, procs: 3, slot: 2})
	want = []RunChange{{EstEnd: 1, Seq: 5000, Slot: 2, Procs: 3, Insert: true}}
	if ch, ok := gov(); !ok || !slices.Equal(ch, want) {
		t.Fatalf("governor read %+v ok %v, want %+v", ch, ok, want)
	}
}

// move is remove then insert: under random inserts, removes and moves
// (most by a little, as re-timed jobs' ends move, some far), a list that
// moves and one that removes and inserts hold the same entries in the same
// order, count the same epochs and log the same changes; the moving list's
// block sums stay right (its blocks may be cut differently).
func TestRunListMoveMatchesRemoveInsert(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	var a, b runList
	a.consFollow(true)
	b.consFollow(true)
	var ref []runEntry
	seq := uint64(0)
	less := func(x, y runEntry) int { return x.cmp(y.estEnd, y.seq) }
	moved, inBlock := 0, 0
	for step := 0; step < 300000; step++ {
		switch op := rng.IntN(10); {
		case (op < 3 && len(ref) < 600) || len(ref) < 2:
			seq++
			x := runEntry{estEnd: float64(rng.IntN(100000)), seq: seq, procs: int32(rng.IntN(64) + 1), slot: int32(seq)}
			a.insert(x)
			b.insert(x)
			i, _ := slices.BinarySearchFunc(ref, x, less)
			ref = slices.Insert(ref, i, x)
		case op < 5:
			i := rng.IntN(len(ref))
			a.remove(ref[i].estEnd, ref[i].seq)
			b.remove(ref[i].estEnd, ref[i].seq)
			ref = slices.Delete(ref, i, i+1)
		default:
			i := rng.IntN(len(ref))
			old := ref[i]
			x := old
			switch rng.IntN(4) {
			case 0:
				x.estEnd = float64(rng.IntN(100000))
			default:
				x.estEnd += float64(rng.IntN(401) - 200) // a little, either way, or not at all
			}
			x.procs = int32(rng.IntN(64) + 1)
			bi, _, _ := a.find(old.estEnd, old.seq)
			if !a.move(old.estEnd, old.seq, x) {
				t.Fatalf("step %d: move missed entry %d", step, i)
			}
			if bj, _, _ := a.find(x.estEnd, x.seq); bj == bi {
				inBlock++
			}
			moved++
			b.remove(old.estEnd, old.seq)
			b.insert(x)
			ref = slices.Delete(ref, i, i+1)
			j, _ := slices.BinarySearchFunc(ref, x, less)
			ref = slices.Insert(ref, j, x)
		}
		if a.move(1e9, 1, runEntry{}) {
			t.Fatal("moved an entry that was never inserted")
		}
		if a.Len() != len(ref) || a.epoch != b.epoch {
			t.Fatalf("step %d: Len %d epoch %d, want %d and %d", step, a.Len(), a.epoch, len(ref), b.epoch)
		}
		if step%53 == 0 {
			for i := range ref {
				if *a.at(i) != ref[i] {
					t.Fatalf("step %d: at(%d) = %+v, want %+v", step, i, *a.at(i), ref[i])
				}
			}
			for bi, blk := range a.blocks {
				if len(blk) == 0 || len(blk) >= 2*runBlock || a.procs[bi] != sumProcs(blk) {
					t.Fatalf("step %d: block %d holds %d entries, sum %d of %d", step, bi, len(blk), a.procs[bi], sumProcs(blk))
				}
			}
			if !slices.Equal(a.consChanges(), b.consChanges()) {
				t.Fatalf("step %d: the logs differ", step)
			}
			a.consFollow(true)
			b.consFollow(true)
		}
	}
	if inBlock < moved/2 || inBlock == moved {
		t.Fatalf("%d of %d moves stayed in their block: the test misses a path", inBlock, moved)
	}
}
