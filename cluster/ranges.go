package cluster

import "strconv"

// Range is the half-open run of processor indices [Lo, Hi).
type Range struct{ Lo, Hi int32 }

// Len returns the number of processors in r.
func (r Range) Len() int32 { return r.Hi - r.Lo }

// AppendIntervalSet appends rs in Batsim's interval-set text form, e.g.
// "0-3 8 10-11" (inclusive bounds, space separated) to dst.
func AppendIntervalSet(dst []byte, rs []Range) []byte {
	for i, r := range rs {
		if i > 0 {
			dst = append(dst, ' ')
		}
		dst = strconv.AppendInt(dst, int64(r.Lo), 10)
		if r.Hi-1 > r.Lo {
			dst = append(dst, '-')
			dst = strconv.AppendInt(dst, int64(r.Hi-1), 10)
		}
	}
	return dst
}

// Count returns the number of processors in rs.
func Count(rs []Range) int {
	n := 0
	for _, r := range rs {
		n += int(r.Len())
	}
	return n
}

// appendProc appends processor p to dst, extending the last range when p
// follows it; ranges before start (another job's) are never extended.
// Processors must come in ascending order.
func appendProc(dst []Range, start int, p int32) []Range {
	if k := len(dst); k > start && dst[k-1].Hi == p {
		dst[k-1].Hi++
		return dst
	}
	return append(dst, Range{p, p + 1})
}
