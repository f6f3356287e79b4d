package scheduler

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// refProfile is the plain array profile as conservative backfilling used
// it before blockProfile (scheduler/conservative.go at commit 2f9072d),
// kept verbatim as the reference the fast structures must match.
type refProfile struct {
	t    []float64
	free []int
	room []float64
}

func (p *refProfile) reset(now float64, free int, room float64) {
	p.t = append(p.t[:0], now)
	p.free = append(p.free[:0], free)
	p.room = append(p.room[:0], room)
}

func (p *refProfile) release(at float64, procs int, w float64) {
	n := len(p.t)
	if p.t[n-1] == at {
		p.free[n-1] += procs
		p.room[n-1] += w
		return
	}
	p.t = append(p.t, at)
	p.free = append(p.free, p.free[n-1]+procs)
	p.room = append(p.room, p.room[n-1]+w)
}

func (p *refProfile) fits(k, procs int, w float64) bool {
	return p.free[k] >= procs && powerOK(w, p.room[k])
}

func (p *refProfile) earliest(procs int, w, dur float64) float64 {
	for k := 0; k < len(p.t); {
		if !p.fits(k, procs, w) {
			k++
			continue
		}
		start, end := p.t[k], p.t[k]+dur
		m := k + 1
		for m < len(p.t) && p.t[m] < end && p.fits(m, procs, w) {
			m++
		}
		if m == len(p.t) || p.t[m] >= end {
			return start
		}
		k = m + 1
	}
	return math.Inf(1)
}

func (p *refProfile) reserve(from, to float64, procs int, w float64) {
	i := p.split(from)
	j := p.split(to)
	for k := i; k < j; k++ {
		p.free[k] -= procs
		p.room[k] -= w
	}
}

func (p *refProfile) split(t float64) int {
	k, found := slices.BinarySearch(p.t, t)
	if found {
		return k
	}
	p.t = slices.Insert(p.t, k, t)
	p.free = slices.Insert(p.free, k, p.free[k-1])
	p.room = slices.Insert(p.room, k, p.room[k-1])
	return k
}

func (p *refProfile) advance(now float64) {
	k, found := slices.BinarySearch(p.t, now)
	if !found {
		k--
	}
	if k <= 0 {
		p.t[0] = now
		return
	}
	p.t = append(p.t[:0], p.t[k:]...)
	p.free = append(p.free[:0], p.free[k:]...)
	p.room = append(p.room[:0], p.room[k:]...)
	p.t[0] = now
}

// windowMin is the fewest free processors over [from, to) (from's step
// included even when to == from).
func (p *refProfile) windowMin(from, to float64) int {
	low := math.MaxInt
	for k := range p.t {
		next := math.Inf(1)
		if k+1 < len(p.t) {
			next = p.t[k+1]
		}
		if next > from && (p.t[k] < to || p.t[k] <= from) {
			low = min(low, p.free[k])
		}
	}
	return low
}

// randTime returns a time after t: often an integer gap (so that times
// coincide), sometimes a fraction, sometimes none.
func randTime(r *rand.Rand, t float64) float64 {
	switch r.IntN(4) {
	case 0:
		return t
	case 1:
		return t + r.Float64()*50
	}
	return t + float64(r.IntN(30))
}

// randDur returns a reservation length: zero, short, or long enough to
// cross many steps.
func randDur(r *rand.Rand) float64 {
	switch r.IntN(6) {
	case 0:
		return 0
	case 1:
		return r.Float64() * 10
	case 2:
		return float64(r.IntN(2000))
	}
	return float64(1 + r.IntN(100))
}

// buildPair builds the same random processor-only profile in both
// structures and returns the machine size. The block profile is built
// either by releases or, as Conservative.rebuild does, by build from a
// running list whose estimated ends may lie before now (released at now).
func buildPair(r *rand.Rand, ref *refProfile, bp *blockProfile) (now float64, total int) {
	now = float64(r.IntN(100))
	free := r.IntN(8)
	ref.reset(now, free, math.Inf(1))
	total = free
	at := now - float64(r.IntN(3))*10
	nrel := r.IntN(6)
	if r.IntN(3) == 0 {
		nrel = r.IntN(400) // several blocks
	}
	var runs runList
	fromRuns := r.IntN(2) == 0
	if !fromRuns {
		bp.reset(now, free)
	}
	for i := range nrel {
		at = randTime(r, at)
		procs := r.IntN(6)
		ref.release(max(now, at), procs, float64(procs))
		if fromRuns {
			runs.insert(runEntry{estEnd: at, seq: uint64(i), procs: int32(procs)})
		} else {
			bp.release(max(now, at), procs)
		}
		total += procs
	}
	if fromRuns {
		bp.build(now, free, &runs)
	}
	return now, total
}

func sameSteps(t *testing.T, seed, op int, ref *refProfile, bp *blockProfile, ts []float64, fs []int) ([]float64, []int) {
	t.Helper()
	ts, fs = bp.steps(ts[:0], fs[:0])
	if !slices.Equal(ts, ref.t) || !slices.Equal(fs, ref.free) {
		t.Fatalf("seed %d op %d: steps differ\nblock: %v %v\nref:   %v %v", seed, op, ts, fs, ref.t, ref.free)
	}
	// The running minimum from now answers every window from now as the
	// reference's scan does, at, between, just before and after steps.
	// (A few steps per operation: the windows cost a scan each.)
	front := bp.frontier(nil)
	now := ref.t[0]
	for i := range 4 {
		k := (op + 7 + i*len(ref.t)/4) % len(ref.t)
		at := ref.t[k]
		for _, end := range []float64{at, at + 0.5, math.Nextafter(at, math.Inf(-1)), at + 1e9} {
			want := ref.windowMin(now, end)
			if got := frontMin(front, end); got != want {
				t.Fatalf("seed %d op %d: frontMin(to %v, step %d) = %d, want %d\nsteps %v %v\nfront %v", seed, op, end, k, got, want, ref.t, ref.free, front)
			}
			for _, procs := range []int{want, want + 1} {
				if got := bp.fitsFirst(procs, end); got != (procs <= want) {
					t.Fatalf("seed %d op %d: fitsFirst(%d, to %v) = %v, window min %d", seed, op, procs, end, got, want)
				}
			}
		}
	}
	// From a later time (a deferred arrival pass reads the profile from
	// its own now): the step in force there counts, whatever its start.
	for i := range 3 {
		k := (op + 3 + i*len(ref.t)/3) % len(ref.t)
		for _, at := range []float64{ref.t[k], ref.t[k] + 0.25, math.Nextafter(ref.t[k], math.Inf(-1))} {
			if at < now {
				continue
			}
			front = bp.frontierFrom(at, front[:0])
			ends := []float64{at, at + 0.5, at + 1e9}
			if k+1 < len(ref.t) {
				ends = append(ends, ref.t[k+1], math.Nextafter(ref.t[k+1], math.Inf(1)))
			}
			for _, end := range ends {
				want := ref.windowMin(at, end)
				if got := frontMin(front, end); got != want {
					t.Fatalf("seed %d op %d: frontierFrom(%v): min to %v = %d, want %d\nsteps %v %v\nfront %v", seed, op, at, end, got, want, ref.t, ref.free, front)
				}
				for _, procs := range []int{want, want + 1} {
					if got := bp.fitsFrom(at, procs, end); got != (procs <= want) {
						t.Fatalf("seed %d op %d: fitsFrom(%v, %d, to %v) = %v, window min %d", seed, op, at, procs, end, got, want)
					}
				}
			}
		}
	}
	for pos := range bp.blk { // lo and hi bound every value
		b, n := bp.base(pos), int(bp.blk[pos].n)
		for _, v := range bp.f[b : b+n] {
			if v < bp.blk[pos].lo || v > bp.blk[pos].hi {
				t.Fatalf("seed %d op %d: block %d value %d outside [%d, %d]", seed, op, pos, v, bp.blk[pos].lo, bp.blk[pos].hi)
			}
		}
		if bp.blk[pos].first != bp.t[b] {
			t.Fatalf("seed %d op %d: block %d first %v, step %v", seed, op, pos, bp.blk[pos].first, bp.t[b])
		}
	}
	return ts, fs
}

// TestBlockProfileMatchesReference drives the block profile and the
// reference with the same random builds, searches, reservations (single
// and batched), reservations taken back and advances, and requires identical answers and identical
// steps (times and values) after every operation. The reused blockProfile
// also exercises block recycling.
func TestBlockProfileMatchesReference(t *testing.T) {
	type madeRes struct {
		from, to float64
		procs    int
	}
	var made []madeRes
	var ref refProfile
	var bp blockProfile
	var ts []float64
	var fs []int
	for seed := range 4000 {
		r := rand.New(rand.NewPCG(uint64(seed), 0))
		now, total := buildPair(r, &ref, &bp)
		ts, fs = sameSteps(t, seed, -1, &ref, &bp, ts, fs)
		made = made[:0]
		for op := range r.IntN(300) {
			if len(made) > 0 && r.IntN(10) == 0 {
				// A reservation taken back (as reuse does): its values
				// rise, and the blocks' bounds must still hold them.
				k := r.IntN(len(made))
				m := made[k]
				made = slices.Delete(made, k, k+1)
				if from := math.Max(m.from, now); m.to > from {
					ref.reserve(from, m.to, -m.procs, 0)
					bp.reserve(from, m.to, -m.procs)
					ts, fs = sameSteps(t, seed, op, &ref, &bp, ts, fs)
				}
				continue
			}
			if r.IntN(15) == 0 { // advance the clock
				now = randTime(r, now)
				ref.advance(now)
				bp.advance(now)
				ts, fs = sameSteps(t, seed, op, &ref, &bp, ts, fs)
				continue
			}
			procs, dur := r.IntN(total+3), randDur(r)
			if r.IntN(4) == 0 {
				procs = r.IntN(3)
			}
			if r.IntN(12) == 0 {
				// A reservation that no search found: from any time, so
				// the end the last search saw is stale and must be found.
				// (No more processors than are free: the profile never
				// goes negative.)
				from := randTime(r, now)
				procs = r.IntN(max(0, ref.windowMin(from, from+dur)) + 1)
				ref.reserve(from, from+dur, procs, 0)
				bp.reserve(from, from+dur, procs)
				made = append(made, madeRes{from, from + dur, procs})
				ts, fs = sameSteps(t, seed, op, &ref, &bp, ts, fs)
				continue
			}
			want := ref.earliest(procs, 0, dur)
			lb := now
			if !math.IsInf(want, 1) && r.IntN(2) == 0 {
				lb = now + r.Float64()*(want-now) // any lb ≤ the answer is valid
				if r.IntN(2) == 0 {
					lb = want
				}
			}
			got, low := bp.earliest(procs, dur, lb)
			if got != want {
				t.Fatalf("seed %d op %d: earliest(%d, %v, lb %v) = %v, want %v", seed, op, procs, dur, lb, got, want)
			}
			if math.IsInf(want, 1) {
				continue
			}
			if m := ref.windowMin(want, want+dur); low > m || low < procs {
				t.Fatalf("seed %d op %d: window low %d, want in [%d, %d]", seed, op, low, procs, m)
			}
			if r.IntN(5) == 0 {
				continue // search only
			}
			k := 1 // a batch of k identical jobs, as Conservative.flush makes
			if procs > 0 && r.IntN(3) == 0 {
				k = 1 + r.IntN(low/procs)
			}
			for range k {
				ref.reserve(want, want+dur, procs, 0)
			}
			bp.reserve(want, want+dur, k*procs)
			made = append(made, madeRes{want, want + dur, k * procs})
			ts, fs = sameSteps(t, seed, op, &ref, &bp, ts, fs)
		}
	}
}

// TestEarliestFromMatchesReference checks the power-aware profile's
// search from a lower bound against the reference's scan from the first
// step, with finite and infinite headroom, on random profiles.
func TestEarliestFromMatchesReference(t *testing.T) {
	for seed := range 3000 {
		r := rand.New(rand.NewPCG(uint64(seed), 1))
		var ref refProfile
		var p profile
		now := float64(r.IntN(100))
		room := math.Inf(1)
		if r.IntN(4) > 0 {
			room = float64(r.IntN(1000))
		}
		free := r.IntN(8)
		ref.reset(now, free, room)
		p.reset(now, free, room)
		at := now
		for range r.IntN(60) {
			at = randTime(r, at)
			procs, w := r.IntN(6), r.Float64()*300
			ref.release(at, procs, w)
			p.release(at, procs, w)
		}
		for op := range r.IntN(100) {
			procs, w, dur := r.IntN(20), r.Float64()*1500, randDur(r)
			if r.IntN(5) == 0 {
				w = 0
			}
			want := ref.earliest(procs, w, dur)
			lb := now
			if !math.IsInf(want, 1) && r.IntN(2) == 0 {
				lb = now + r.Float64()*(want-now)
			}
			if got := p.earliestFrom(procs, w, dur, lb); got != want {
				t.Fatalf("seed %d op %d: earliestFrom(%d, %v, %v, lb %v) = %v, want %v", seed, op, procs, w, dur, lb, got, want)
			}
			if !math.IsInf(want, 1) {
				ref.reserve(want, want+dur, procs, w)
				p.reserve(want, want+dur, procs, w)
			}
			if !slices.Equal(p.t, ref.t) || !slices.Equal(p.free, ref.free) || !slices.Equal(p.room, ref.room) {
				t.Fatalf("seed %d op %d: steps differ", seed, op)
			}
		}
	}
}

// TestClassCache checks the same-class start table: a stored start comes
// back for its exact class only, a new round forgets it, and a wrapped
// round counter does not revive entries of an old round.
func TestClassCache(t *testing.T) {
	var cc classCache
	cc.next()
	if _, ok := cc.get(4, 3600); ok {
		t.Fatal("empty table answered")
	}
	cc.put(4, 3600, 120)
	if at, ok := cc.get(4, 3600); !ok || at != 120 {
		t.Fatalf("get(4, 3600) = %v, %v; want 120, true", at, ok)
	}
	for _, k := range []struct {
		procs int
		est   float64
	}{{5, 3600}, {4, 3601}, {4, math.Nextafter(3600, 0)}} {
		if _, ok := cc.get(k.procs, k.est); ok {
			t.Fatalf("get(%d, %v) answered for class (4, 3600)", k.procs, k.est)
		}
	}
	cc.put(4, 3600, math.Inf(1))
	if at, ok := cc.get(4, 3600); !ok || !math.IsInf(at, 1) {
		t.Fatalf("deferred class: got %v, %v", at, ok)
	}
	cc.next()
	if _, ok := cc.get(4, 3600); ok {
		t.Fatal("entry survived a new round")
	}
	cc.round = math.MaxUint32
	cc.put(4, 3600, 7)
	cc.e[classSlot(8, 60)] = classEntry{round: 1, procs: 8, est: 60, at: 9} // left from round 1
	cc.next()                                                               // wraps to round 1
	if _, ok := cc.get(8, 60); ok {
		t.Fatal("wrapped round revived an entry of an old round 1")
	}
	if _, ok := cc.get(4, 3600); ok {
		t.Fatal("entry survived the wrap")
	}
}

// TestRoomKeptMatchesFitsFrom checks the block profile's memory of a
// window with room (keepRoom, roomKept; Conservative's candidate check)
// on random profiles under random reservations (at searched starts, at
// any time, taken back) and clock advances: whenever roomKept reports
// the window as it was, fitsFrom still finds room in it. (It fails if a
// reservation does not lower resFrom.)
func TestRoomKeptMatchesFitsFrom(t *testing.T) {
	var ref refProfile
	var bp blockProfile
	kept, checks := 0, 0
	for seed := range 3000 {
		r := rand.New(rand.NewPCG(uint64(seed), 5))
		now, total := buildPair(r, &ref, &bp)
		type win struct {
			at, end float64
			procs   int
		}
		var room win
		var made []win
		for op := range r.IntN(200) {
			if room.end > room.at && bp.roomKept(room.at, room.procs, room.end) {
				kept++
				if !bp.fitsFrom(room.at, room.procs, room.end) {
					t.Fatalf("seed %d op %d: roomKept(%v, %d, %v) but fitsFrom finds no room", seed, op, room.at, room.procs, room.end)
				}
			}
			checks++
			switch k := r.IntN(20); {
			case k == 0: // advance the clock
				now = randTime(r, now)
				ref.advance(now)
				bp.advance(now)
			case k < 4: // a window with room, from now or later
				at := randTime(r, now)
				end := at + randDur(r) + 1
				if procs := ref.windowMin(at, end); procs >= 0 {
					procs = r.IntN(procs + 1)
					if !bp.fitsFrom(at, procs, end) {
						t.Fatalf("seed %d op %d: fitsFrom(%v, %d, %v) false, reference has %d free", seed, op, at, procs, end, ref.windowMin(at, end))
					}
					bp.keepRoom(at, procs, end)
					room = win{at, end, procs}
				}
			case k < 6 && len(made) > 0: // a reservation taken back
				j := r.IntN(len(made))
				m := made[j]
				made = slices.Delete(made, j, j+1)
				if from := math.Max(m.at, now); m.end > from {
					ref.reserve(from, m.end, -m.procs, 0)
					bp.reserve(from, m.end, -m.procs)
				}
			case k < 10: // a reservation from any time
				from := randTime(r, now)
				dur := randDur(r)
				procs := r.IntN(max(0, ref.windowMin(from, from+dur)) + 1)
				ref.reserve(from, from+dur, procs, 0)
				bp.reserve(from, from+dur, procs)
				made = append(made, win{from, from + dur, procs})
			default: // a reservation at a searched start
				procs, dur := r.IntN(total+3), randDur(r)
				at, _ := bp.earliest(procs, dur, now)
				if math.IsInf(at, 1) {
					continue
				}
				ref.reserve(at, at+dur, procs, 0)
				bp.reserve(at, at+dur, procs)
				made = append(made, win{at, at + dur, procs})
			}
		}
	}
	if kept < checks/20 {
		t.Fatalf("roomKept held at %d of %d checks: the test checks too little", kept, checks)
	}
	t.Logf("roomKept held at %d of %d checks", kept, checks)
}
