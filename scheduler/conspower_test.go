package scheduler

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// A reservation of negative power (a job whose lowest level draws less
// than the idle power its processors are counted at) gives headroom back,
// so a search answer remembered before it no longer bounds later
// searches: place must clear the memo (powerMemo) there. Hand-made case
// on 10 processors and 150 W of headroom, 100 W of it taken over
// [0, 1000) by an earlier reservation:
//   - A (1 processor, 100 W, 100 s) fits from 1000 only (50 W free before);
//   - B (1 processor, −60 W, 5000 s) starts at 0 and frees 60 W there;
//   - C, as A, now fits at 0 (110 W free). A memo that kept A's answer
//     would start C's search at 1000.
func TestPowerMemoClearedByNegativePower(t *testing.T) {
	for _, full := range []bool{false, true} {
		c := &Conservative{full: full}
		c.p.reset(0, 10, 150)
		c.p.reserve(0, 1000, 1, 100)
		place := func(procs int, w, est float64) float64 {
			return c.place(0, &QueuedJob{Procs: procs, Est: est, Power: w})
		}
		if a := place(1, 100, 100); a != 1000 {
			t.Fatalf("full=%v: A starts at %v, want 1000", full, a)
		}
		if b := place(1, -60, 5000); b != 0 {
			t.Fatalf("full=%v: B starts at %v, want 0", full, b)
		}
		if got := place(1, 100, 100); got != 0 {
			t.Fatalf("full=%v: C starts at %v, want 0 (the headroom B gave back)", full, got)
		}
		// After the reset the memo serves dominated searches again: D
		// (2 processors, 100 W, 100 s) cannot start before C's answer, 0,
		// and does not fit there (C left 10 W over [0, 100)); it starts
		// at 100, where 110 W are free until A's start at 1000.
		if d := place(2, 100, 100); d != 100 {
			t.Fatalf("full=%v: D starts at %v, want 100", full, d)
		}
	}
}

// roomNeed's answer r makes powerOK(w, x) the comparison x ≥ r: checked
// at r and at the floats next to it, at random headrooms, and at the
// special values, for powers of every scale and sign.
func TestRoomNeed(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 8))
	ws := []float64{0, 1e-9, -1e-9, 1e-300, -1e-300, 5e-324, 1, 250, 1e6, 1.7e308, -1.7e308, 2e-9, 0.5e-9}
	for range 20000 {
		ws = append(ws, (rng.Float64()-0.3)*math.Pow(10, float64(rng.IntN(24)-8)))
	}
	specials := []float64{math.Inf(1), math.Inf(-1), math.NaN(), 0, math.Copysign(0, -1), math.MaxFloat64, -math.MaxFloat64}
	ws = append(ws, math.Inf(1), math.Inf(-1), math.NaN())
	for _, w := range ws {
		r := roomNeed(w)
		xs := append([]float64{r, math.Nextafter(r, math.Inf(1)), math.Nextafter(r, math.Inf(-1)),
			math.Nextafter(math.Nextafter(r, math.Inf(-1)), math.Inf(-1)), w, w * (1 + rng.Float64()*1e-11)}, specials...)
		for range 20 {
			xs = append(xs, r+(rng.Float64()-0.5)*math.Abs(r)*1e-10, (rng.Float64()-0.5)*1e7)
		}
		for _, x := range xs {
			if got, want := x >= r, powerOK(w, x); got != want {
				t.Fatalf("w=%v: need %v: %v ≥ need is %v, powerOK %v", w, r, x, got, want)
			}
		}
	}
}

// earliestFrom (the comparison with roomNeed's answer, and the reserve
// hint it leaves) against the frozen reference profile (refProfile,
// profile_test.go: powerOK at every step, split-based reservations), on random profiles built by release and
// reservations of random, some negative, powers.
func TestPowerProfileEarliest(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 2))
	for trial := range 300 {
		var a profile
		var b refProfile
		room := 100 + rng.Float64()*1000
		a.reset(0, 64, room)
		b.reset(0, 64, room)
		at := 0.0
		for range rng.IntN(40) {
			at += float64(rng.IntN(50))
			p, w := rng.IntN(8), rng.Float64()*200
			a.release(at, p, w)
			b.release(at, p, w)
		}
		for op := range 200 {
			procs := 1 + rng.IntN(32)
			w := (rng.Float64() - 0.1) * room / 2
			switch op % 4 {
			case 3:
				w = []float64{math.Inf(1), math.Inf(-1), math.NaN(), 0}[rng.IntN(4)]
			case 1:
				// The most a step's headroom fits: its headroom is (all but
				// always) that power's least one, the comparison's edge.
				x := a.room[rng.IntN(len(a.room))]
				w = x*(1+1e-12) + 1e-9
			case 2:
				w = room * float64(rng.IntN(3)) / 4
			}
			dur := float64(1 + rng.IntN(300))
			ta := a.earliestFrom(procs, w, dur, a.t[0])
			tb := b.earliest(procs, w, dur)
			if ta != tb {
				t.Fatalf("trial %d op %d: earliestFrom %v, the reference %v", trial, op, ta, tb)
			}
			if !math.IsInf(ta, 1) {
				a.reserve(ta, ta+dur, procs, w)
				b.reserve(tb, tb+dur, procs, w)
			}
			bits := func(x float64) uint64 { return math.Float64bits(x) }
			if !slices.Equal(a.t, b.t) || !slices.Equal(a.free, b.free) ||
				!slices.Equal(mapSlice(a.room, bits), mapSlice(b.room, bits)) {
				t.Fatalf("trial %d op %d: the profiles differ after the reservation", trial, op)
			}
		}
	}
}

func mapSlice[T, U any](xs []T, f func(T) U) []U {
	out := make([]U, len(xs))
	for i, x := range xs {
		out[i] = f(x)
	}
	return out
}

// powerMemo.lower, without branches, against the loop it replaced, on
// random memos with ties, infinite starts and powers of every sign.
func TestPowerMemoLower(t *testing.T) {
	ref := func(m *powerMemo, procs int, w, dur float64) float64 {
		lb := math.Inf(-1)
		for i := range m.n {
			e := &m.e[i]
			if e.procs <= procs && e.w <= w && e.dur <= dur && e.at > lb {
				lb = e.at
			}
		}
		return lb
	}
	rng := rand.New(rand.NewPCG(4, 4))
	pick := func(xs ...float64) float64 { return xs[rng.IntN(len(xs))] }
	for trial := range 20000 {
		var m powerMemo
		for range rng.IntN(2 * powerMemoSize) {
			m.put(rng.IntN(8), pick(0, 50, 100, -20, math.Inf(1), math.Inf(-1), math.NaN()), pick(0, 10, 60, 3600),
				pick(0, 5, 17, 1e9, math.Inf(1), float64(rng.IntN(100))))
		}
		procs, w, dur := rng.IntN(9), pick(0, 50, 100, -20, 75, math.Inf(1), math.NaN()), pick(0, 10, 60, 100, 3600)
		if got, want := m.lower(procs, w, dur), ref(&m, procs, w, dur); math.Float64bits(got) != math.Float64bits(want) {
			t.Fatalf("trial %d: lower(%d, %v, %v) = %v, want %v (memo %+v)", trial, procs, w, dur, got, want, m.e[:m.n])
		}
	}
}
