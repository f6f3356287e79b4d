package cluster

import (
	"math/bits"
	"math/rand/v2"
	"slices"
	"strconv"
	"testing"
)

// refScattered is the plain definition of the scattered draw: list the
// free processors in ascending order and take the first n of a partial
// Fisher–Yates shuffle with the same generator.
type refScattered struct {
	free []bool
	rng  *rand.Rand
}

func (r *refScattered) alloc(n int) []int32 {
	var ids []int32
	for p, f := range r.free {
		if f {
			ids = append(ids, int32(p))
		}
	}
	for i := 0; i < n; i++ {
		j := i + r.rng.IntN(len(ids)-i)
		ids[i], ids[j] = ids[j], ids[i]
	}
	pick := slices.Clone(ids[:n])
	for _, p := range pick {
		r.free[p] = false
	}
	slices.Sort(pick)
	return pick
}

func (r *refScattered) release(rs []Range) {
	for _, rg := range rs {
		for p := rg.Lo; p < rg.Hi; p++ {
			r.free[p] = true
		}
	}
}

// checkScattered compares s's state with the reference's free set: the
// bitmap (nothing past the machine), the count, the scratch state left
// clear, the tree equal to a rebuilt one unless stale, and kth on a
// rebuilt copy (s itself is left as it is, stale or not).
func checkScattered(t *testing.T, s *Scattered, free []bool, where string) {
	t.Helper()
	n := 0
	for p, f := range free {
		if f {
			n++
		}
		if got := s.words[p>>6]>>(p&63)&1 != 0; got != f {
			t.Fatalf("%s: processor %d free %v, want %v", where, p, got, f)
		}
	}
	if r := len(free) % 64; r != 0 && s.words[len(s.words)-1]>>r != 0 {
		t.Fatalf("%s: bits past the machine set: %#x", where, s.words[len(s.words)-1])
	}
	if s.Free() != n {
		t.Fatalf("%s: Free() = %d, want %d", where, s.Free(), n)
	}
	for w, m := range s.mark {
		if m != 0 {
			t.Fatalf("%s: mark[%d] = %#x left set", where, w, m)
		}
	}
	for p, v := range s.swapped {
		if v != -1 {
			t.Fatalf("%s: swapped[%d] = %d left set", where, p, v)
		}
	}
	c := *s
	c.tree = slices.Clone(s.tree)
	c.stale = true
	c.fresh()
	if !s.stale && !slices.Equal(s.tree, c.tree) {
		t.Fatalf("%s: tree not stale but not the bitmap's:\n got %v\nwant %v", where, s.tree, c.tree)
	}
	for i, v := range c.tree {
		if i > len(s.words) && v != noWord {
			t.Fatalf("%s: padding node %d = %d", where, i, v)
		}
	}
	k := int32(0)
	for p, f := range free {
		if !f {
			continue
		}
		// Every rank on small machines, a sample on large ones.
		if len(free) <= 2000 || k%97 == 0 {
			if got := c.kth(k); got != int32(p) {
				t.Fatalf("%s: kth(%d) = %d, want %d", where, k, got, p)
			}
		}
		k++
	}
}

// Scattered (virtual list over a bitmap with a tree of word counts for
// small jobs, the list itself for large ones) draws exactly the
// processors of the plain definition, through thousands of allocations
// and releases of every size: machines of 1 to 20,000 processors, many
// not a multiple of 64; draws of the whole machine (every word full),
// releases of jobs and of arbitrary runs of processors (whole words
// free again, some already free), and appends after another job's
// ranges.
func TestScatteredMatchesReference(t *testing.T) {
	for _, procs := range []int{1, 2, 7, 63, 64, 65, 127, 128, 130, 1000, 4097, 5000, 20000, 93312} {
		a, _ := NewScattered(PlacementConfig{Procs: procs, Seed: 3})
		s := a.(*Scattered)
		ref := &refScattered{free: make([]bool, procs), rng: rand.New(rand.NewPCG(3, 0x5ca7))}
		for i := range ref.free {
			ref.free[i] = true
		}
		rng := rand.New(rand.NewPCG(uint64(procs), 9))
		steps := 3000
		if procs >= 5000 {
			steps = 600
		}
		if procs > 65536 { // takes of sortMax picks update the tree
			steps = 250
		}
		var held [][]Range
		for step := 0; step < steps; step++ {
			where := func(what string) string {
				return "procs " + strconv.Itoa(procs) + " step " + strconv.Itoa(step) + " " + what
			}
			switch op := rng.IntN(10); {
			case len(held) > 0 && (s.Free() == 0 || op < 3):
				// A held job back.
				k := rng.IntN(len(held))
				s.Release(held[k])
				ref.release(held[k])
				held = slices.Delete(held, k, k+1)
				checkScattered(t, s, ref.free, where("release"))
				continue
			case op == 3 && len(held) > 0:
				// A run of processors back, held or not: it frees
				// whole words, and other jobs' processors (their
				// later release finds them free).
				lo := int32(rng.IntN(procs))
				hi := lo + 1 + int32(rng.IntN(min(procs-int(lo), 1+rng.IntN(300))))
				rs := []Range{{lo, hi}}
				if rng.IntN(2) == 0 && hi+2 < int32(procs) {
					rs = append(rs, Range{hi + 1, hi + 2})
				}
				s.Release(rs)
				ref.release(rs)
				checkScattered(t, s, ref.free, where("release run"))
				continue
			}
			var n int
			switch rng.IntN(8) {
			case 0:
				n = s.Free() // the whole of what is free
			case 1:
				n = 1
			case 2:
				// About the thresholds: sortMax, and a sixteenth of
				// the free processors plus two per word.
				n = sortMax - 1 + rng.IntN(3)
				if rng.IntN(2) == 0 {
					n = (s.Free()+2*len(s.words))/16 - 1 + rng.IntN(3)
				}
				n = max(1, min(n, s.Free()))
			default:
				n = 1 + rng.IntN(max(1, s.Free()/(1+rng.IntN(40))))
			}
			if rng.IntN(20) == 0 {
				// Refused, and nothing drawn.
				for _, n := range []int{0, -1, s.Free() + 1} {
					if got, ok := s.Alloc(n, nil); ok || len(got) != 0 {
						t.Fatalf("%s: Alloc(%d) with %d free = %v, %v", where("refuse"), n, s.Free(), got, ok)
					}
				}
				checkScattered(t, s, ref.free, where("refuse"))
			}
			if s.Free() == 0 {
				n = 1
			}
			var dst []Range
			if rng.IntN(4) == 0 {
				// Another job's ranges first, the last ending where a
				// pick may start: they stay apart.
				dst = []Range{{0, 0}, {int32(procs), int32(procs)}}
				dst[1].Lo = int32(rng.IntN(procs + 1))
				dst[1].Hi = dst[1].Lo
			}
			prefix := slices.Clone(dst)
			got, ok := s.Alloc(n, dst)
			if n > len(ref.free) || n > countFree(ref.free) {
				if ok {
					t.Fatalf("%s: Alloc(%d) granted with %d free", where("alloc"), n, countFree(ref.free))
				}
				continue
			}
			if !ok {
				t.Fatalf("%s: Alloc(%d) refused with %d free", where("alloc"), n, s.Free())
			}
			if !slices.Equal(got[:len(prefix)], prefix) {
				t.Fatalf("%s: the ranges before changed: %v, were %v", where("alloc"), got[:len(prefix)], prefix)
			}
			got = got[len(prefix):]
			want := ref.alloc(n)
			var flat []int32
			for i, r := range got {
				if r.Lo >= r.Hi || i > 0 && r.Lo <= got[i-1].Hi {
					t.Fatalf("%s: ranges not ascending and coalesced: %v", where("alloc"), got)
				}
				for p := r.Lo; p < r.Hi; p++ {
					flat = append(flat, p)
				}
			}
			if !slices.Equal(flat, want) {
				t.Fatalf("%s: drew %v, want %v", where("alloc"), flat, want)
			}
			held = append(held, slices.Clone(got))
			checkScattered(t, s, ref.free, where("alloc"))
		}
	}
}

func countFree(free []bool) int {
	n := 0
	for _, f := range free {
		if f {
			n++
		}
	}
	return n
}

// select64 agrees with clearing the lowest set bits one by one, on
// random words of every density and every rank.
func TestSelect64(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	words := []uint64{1, 1 << 63, ^uint64(0), 0x8000000000000001, 0xff00, 0x00ff00ff00ff00ff}
	for i := 0; i < 20000; i++ {
		x := rng.Uint64()
		for d := rng.IntN(4); d > 0; d-- { // sparser
			x &= rng.Uint64()
		}
		if x != 0 {
			words = append(words, x)
		}
	}
	for _, x := range words {
		y := x
		for k := 0; k < bits.OnesCount64(x); k++ {
			if got, want := select64(x, int32(k)), bits.TrailingZeros64(y); got != want {
				t.Fatalf("select64(%#x, %d) = %d, want %d", x, k, got, want)
			}
			y &= y - 1
		}
	}
}
