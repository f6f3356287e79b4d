package scheduler

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestSearchMemoBound checks the memo by hand: an answer bounds only
// searches of at least its processors and estimate that start before
// it, the latest such answer wins, one that needs a certificate takes
// only answers that have one, a dominated answer is not kept, and clear
// forgets everything.
func TestSearchMemoBound(t *testing.T) {
	var m searchMemo
	m.put(4, 100, 50, 0, 3, 0, true)
	m.put(2, 200, 80, 3, 5, 0, false)
	m.put(4, 100, 40, 5, 6, 0, true) // dominated by the first: not kept
	if m.n != 2 {
		t.Fatalf("%d answers kept, want 2", m.n)
	}
	cases := []struct {
		procs   int
		dur, lb float64
		cert    bool
		at      float64 // 0: none
	}{
		{4, 100, 0, true, 50},
		{3, 100, 0, true, 0},   // fewer processors than the answer's
		{4, 99, 0, true, 0},    // a shorter estimate
		{4, 100, 50, true, 0},  // the answer is not after lb
		{4, 200, 0, true, 50},  // the later answer has no certificate
		{4, 200, 0, false, 80}, // without certificates the later one wins
		{2, 300, 79, false, 80},
	}
	for k, tc := range cases {
		e, ok := m.bound(tc.procs, tc.dur, tc.lb, tc.cert)
		if ok != (tc.at != 0) || ok && e.at != tc.at {
			t.Fatalf("case %d: bound = %v %v, want at %v", k, e, ok, tc.at)
		}
	}
	m.put(1, 50, 90, 6, 9, 0, true) // dominates both
	if m.n != 1 || m.e[0].at != 90 {
		t.Fatalf("after a dominating answer: %v", m.e[:m.n])
	}
	m.clear()
	if _, ok := m.bound(100, 1000, 0, false); ok {
		t.Fatal("an answer survived clear")
	}
	for k := range memoSize + 5 { // the oldest go once full
		m.put(1+k, float64(1000-k), float64(k+1), k, k, 0, false)
	}
	if m.n != memoSize || m.e[0].procs != 6 || m.e[memoSize-1].procs != memoSize+5 {
		t.Fatalf("full memo holds %d answers from %d to %d", m.n, m.e[0].procs, m.e[m.n-1].procs)
	}
}

// TestBlockProfileCertificates checks the certificates the block
// profile's searches record (with the memo copying earlier searches'
// certificates) against the reference profile at the time of each
// search, on random profiles with reservations, reservations taken back
// and advances: the parts are in time order, each part's deficit holds
// at every step it overlaps, and every step start from the one in force
// at the search's lower bound to the answer checks a step (its own, or
// one starting before its window's end) that overlaps a part. Answers
// are compared with the reference as in TestBlockProfileMatchesReference.
func TestBlockProfileCertificates(t *testing.T) {
	var ref refProfile
	var bp blockProfile
	bp.rec = true
	type madeRes struct {
		from, to float64
		procs    int
	}
	var made []madeRes
	copied := 0
	for seed := range 3000 {
		r := rand.New(rand.NewPCG(uint64(seed), 7))
		now, total := buildPair(r, &ref, &bp)
		bp.clearCert()
		bp.ruled.clear()
		made = made[:0]
		for op := range r.IntN(200) {
			switch {
			case len(made) > 0 && r.IntN(20) == 0:
				k := r.IntN(len(made))
				m := made[k]
				made[k] = made[len(made)-1]
				made = made[:len(made)-1]
				if from := math.Max(m.from, now); m.to > from {
					ref.reserve(from, m.to, -m.procs, 0)
					bp.reserve(from, m.to, -m.procs)
				}
				continue
			case r.IntN(25) == 0:
				now = randTime(r, now)
				ref.advance(now)
				bp.advance(now)
				continue
			}
			// Small jobs and classes that repeat, so that answers bound
			// later searches.
			procs, dur := r.IntN(total+2), float64(1+r.IntN(4))*25
			if r.IntN(3) == 0 {
				procs, dur = r.IntN(3), randDur(r)
			}
			want := ref.earliest(procs, 0, dur)
			lb := now
			if !math.IsInf(want, 1) && r.IntN(4) == 0 {
				lb = now + r.Float64()*(want-now)
			}
			cf := len(bp.segs)
			if _, ok := bp.ruled.bound(procs, dur, lb, true); ok {
				copied++
			}
			got, _ := bp.earliest(procs, dur, lb)
			if got != want {
				t.Fatalf("seed %d op %d: earliest(%d, %v, lb %v) = %v, want %v", seed, op, procs, dur, lb, got, want)
			}
			if math.IsInf(want, 1) {
				continue
			}
			checkCertificate(t, seed, op, &ref, bp.flatCert(nil, cf, len(bp.segs)), procs, dur, lb, want)
			ref.reserve(want, want+dur, procs, 0)
			bp.reserve(want, want+dur, procs)
			made = append(made, madeRes{want, want + dur, procs})
		}
	}
	if copied < 1000 {
		t.Fatalf("only %d searches started from a remembered answer", copied)
	}
}

// checkCertificate checks one search's certificate on the reference
// profile (see TestBlockProfileCertificates).
func checkCertificate(t *testing.T, seed, op int, ref *refProfile, cert []certIv, procs int, dur, lb, at float64) {
	t.Helper()
	end := func(i int) float64 {
		if i+1 < len(ref.t) {
			return ref.t[i+1]
		}
		return math.Inf(1)
	}
	for k, iv := range cert {
		if !(iv.x < iv.y) || iv.def < 1 || k > 0 && !(cert[k-1].y <= iv.x) {
			t.Fatalf("seed %d op %d: part %d %v of %v out of order or empty", seed, op, k, iv, cert)
		}
		for i := range ref.t {
			if ref.t[i] < iv.y && end(i) > iv.x && procs-ref.free[i] < int(iv.def) {
				t.Fatalf("seed %d op %d: part %v claims a deficit of %d, step at %v has %d free of %d",
					seed, op, iv, iv.def, ref.t[i], ref.free[i], procs)
			}
		}
	}
	first := 0
	for first+1 < len(ref.t) && ref.t[first+1] <= lb {
		first++
	}
	for i := first; i < len(ref.t) && ref.t[i] < at; i++ {
		ruled := false
		for j := i; j < len(ref.t) && (j == i || ref.t[j] < ref.t[i]+dur) && !ruled; j++ {
			for _, iv := range cert {
				if ref.t[j] < iv.y && end(j) > iv.x {
					ruled = true
					break
				}
			}
		}
		if !ruled {
			t.Fatalf("seed %d op %d: the start at %v (before %v, procs %d, dur %v, lb %v) touches no part of %v",
				seed, op, ref.t[i], at, procs, dur, lb, cert)
		}
	}
}

// TestNextFitRecMatchesSkip compares nextFitRec with nextFit followed by
// certSkip (the reference) on random profiles with reservations, from
// random steps and for random sizes: the same step, the same parts, and
// the same block bounds left.
func TestNextFitRecMatchesSkip(t *testing.T) {
	var ref refProfile
	var a, b blockProfile
	parts := 0
	for seed := range 2000 {
		r1 := rand.New(rand.NewPCG(uint64(seed), 8))
		r2 := rand.New(rand.NewPCG(uint64(seed), 8))
		now, total := buildPair(r1, &ref, &a)
		buildPair(r2, &ref, &b)
		for op := range r1.IntN(60) {
			// Narrow reservations dig dips inside blocks, so that a
			// block's largest value is not always its last.
			for range 3 {
				from := now + float64(r1.IntN(2000))
				to, procs := from+randDur(r1), 1+r1.IntN(1+total/3)
				if to > from && a.fitsFrom(from, procs, to) {
					a.reserve(from, to, procs)
					b.reserve(from, to, procs)
				}
			}
			pos := r1.IntN(len(a.blk))
			k := r1.IntN(int(a.blk[pos].n))
			want := r1.IntN(total + 3)
			a.cert, b.cert = a.cert[:0], b.cert[:0]
			gp, gk := a.nextFitRec(pos, k, want)
			wp, wk := b.nextFit(pos, k, want)
			if wp != pos || wk != k {
				b.certSkip(pos, k, wp, wk, want)
			}
			if gp != wp || gk != wk || !slices.Equal(a.cert, b.cert) || !slices.Equal(a.blk, b.blk) {
				t.Fatalf("seed %d op %d: from (%d, %d) for %d: nextFitRec (%d, %d) %v, nextFit and certSkip (%d, %d) %v",
					seed, op, pos, k, want, gp, gk, a.cert, wp, wk, b.cert)
			}
			parts += len(a.cert)
		}
	}
	if parts < 10000 {
		t.Fatalf("only %d parts recorded", parts)
	}
}

// certSkip, the reference for nextFitRec (recording searches called it
// after nextFit until nextFitRec replaced both), records that the steps
// from (pa, ka) up to (pb, kb) (pb < 0: to the end) all had fewer than
// procs free processors: one part per block, with the block's bound for
// a block skipped whole and the steps' largest value otherwise.
func (p *blockProfile) certSkip(pa, ka, pb, kb, procs int) {
	for pos, k := pa, ka; pos < len(p.blk) && (pb < 0 || pos <= pb); pos, k = pos+1, 0 {
		n, b, a := int(p.blk[pos].n), p.base(pos), p.blk[pos].add
		end := n
		if pos == pb {
			end = kb
		}
		if k >= end {
			break
		}
		y := math.Inf(1)
		switch {
		case end < n:
			y = p.t[b+end]
		case pos+1 < len(p.blk):
			y = p.blk[pos+1].first
		}
		hi := p.blk[pos].hi + a
		if k > 0 || end < n {
			hi = math.MinInt
			for _, v := range p.f[b+k : b+end] {
				hi = max(hi, v)
			}
			hi += a // the range is not empty
		}
		p.cert = append(p.cert, certIv{x: p.t[b+k], y: y, def: int32(procs - hi), pass: p.certPass})
	}
}
