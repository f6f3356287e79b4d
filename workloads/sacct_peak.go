package workloads

import (
	"cmp"
	"slices"
)

// Allocation changes pack into one uint64 each, so that a million jobs
// take 16 MB and sort as integers: (t + 2^32) << 24 | start << 23 | procs,
// for Unix seconds t in [-2^32, 2^39 - 2^32) and procs below 2^23. At one
// instant ends (start bit 0) sort before starts, so a job that ends when
// another starts does not count twice. Changes outside those ranges go to
// wide, sorted the slow way.
const (
	peakTimeOff  = 1 << 32
	peakTimeMax  = 1<<39 - peakTimeOff
	peakStartBit = 1 << 23
)

func (sc *sacctState) addPeak(start, run, procs int64) {
	end := start + run
	if start >= -peakTimeOff && end < peakTimeMax && end > start && procs < peakStartBit {
		sc.peak = append(sc.peak, uint64(start+peakTimeOff)<<24|peakStartBit|uint64(procs), uint64(end+peakTimeOff)<<24|uint64(procs))
		return
	}
	sc.wide = append(sc.wide, peakEvent{start, procs}, peakEvent{end, -procs})
}

// peakAlloc is the largest sum of processors allocated at one instant.
func (sc *sacctState) peakAlloc() int64 {
	var cur, peak int64
	if len(sc.wide) == 0 {
		slices.Sort(sc.peak)
		for _, k := range sc.peak {
			if d := int64(k & (peakStartBit - 1)); k&peakStartBit != 0 {
				cur += d
			} else {
				cur -= d
			}
			peak = max(peak, cur)
		}
		return peak
	}
	ev := sc.wide
	for _, k := range sc.peak {
		e := peakEvent{int64(k>>24) - peakTimeOff, int64(k & (peakStartBit - 1))}
		if k&peakStartBit == 0 {
			e.d = -e.d
		}
		ev = append(ev, e)
	}
	slices.SortFunc(ev, func(a, b peakEvent) int {
		if c := cmp.Compare(a.t, b.t); c != 0 {
			return c
		}
		return cmp.Compare(a.d, b.d) // ends (negative) before starts
	})
	for _, e := range ev {
		cur += e.d
		peak = max(peak, cur)
	}
	return peak
}
