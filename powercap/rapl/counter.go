package rapl

// Delta is the energy (µJ) consumed between two readings prev and cur of a
// counter that counts 0, 1, …, max, 0, …: (cur − prev) mod (max+1). It is
// right when at most one wrap happened between the readings.
func Delta(prev, cur, max uint64) uint64 {
	if cur >= prev {
		return cur - prev
	}
	return (max - prev) + cur + 1 // no overflow even for max = 2^64−1
}

// A Counter accumulates the energy of a wrapping counter from successive
// readings. Read it at least once per wrap period (max+1 µJ at the highest
// power), or wraps are lost.
type Counter struct {
	max, last, total uint64
	reads            int
}

// NewCounter starts a counter whose largest value is max (the zone's
// max_energy_range_uj) at the reading first.
func NewCounter(max, first uint64) *Counter { return &Counter{max: max, last: first, reads: 1} }

// Add takes the next reading and returns the energy since the previous one.
func (c *Counter) Add(reading uint64) uint64 {
	d := Delta(c.last, reading, c.max)
	c.last, c.total = reading, c.total+d
	c.reads++
	return d
}

// Total is the energy accumulated since the first reading (µJ).
func (c *Counter) Total() uint64 { return c.total }

// Reads is the number of readings taken, including the first.
func (c *Counter) Reads() int { return c.reads }
