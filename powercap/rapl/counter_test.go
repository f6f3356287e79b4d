package rapl

import (
	"fmt"
	"math"
	"testing"
)

func TestDelta(t *testing.T) {
	tests := []struct{ prev, cur, max, want uint64 }{ // hand-computed, exact
		{0, 0, 999, 0},
		{100, 350, 999, 250},
		{900, 100, 999, 200}, // 100 to the wrap, 100 after it
		{999, 0, 999, 1},     // one step across the wrap
		{0, 999, 999, 999},
		{math.MaxUint64 - 1, 3, math.MaxUint64, 5}, // no overflow at the top
		{262_143_328_850, 0, 262_143_328_850, 1},   // a real max_energy_range_uj
	}
	for _, tt := range tests {
		if got := Delta(tt.prev, tt.cur, tt.max); got != tt.want {
			t.Errorf("Delta(%d, %d, %d) = %d, want %d", tt.prev, tt.cur, tt.max, got, tt.want)
		}
	}
}

func TestCounterWraps(t *testing.T) {
	// A 1000 µJ counter read after every 300 µJ, from 800: 3000 µJ in all,
	// across three wraps.
	c := NewCounter(999, 800)
	e := uint64(800)
	for range 10 {
		e = (e + 300) % 1000
		if d := c.Add(e); d != 300 {
			t.Fatalf("Add(%d) = %d, want 300", e, d)
		}
	}
	if c.Total() != 3000 || c.Reads() != 11 {
		t.Errorf("Total, Reads = %d, %d; want 3000, 11", c.Total(), c.Reads())
	}
	// Read only at the end, the same run loses the three wraps: why Measure polls.
	late := NewCounter(999, 800)
	late.Add(e)
	if late.Total() != 0 {
		t.Errorf("one late reading = %d, want 0 (3000 mod 1000)", late.Total())
	}
}

func ExampleCounter() {
	c := NewCounter(999_999, 999_000) // a 1 J counter, 1 mJ from wrapping
	for _, reading := range []uint64{999_500, 200_000, 700_000} {
		fmt.Println(c.Add(reading))
	}
	fmt.Println("total µJ:", c.Total())
	// Output:
	// 500
	// 200500
	// 500000
	// total µJ: 701000
}
