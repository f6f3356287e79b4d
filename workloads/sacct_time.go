package workloads

import (
	"errors"
	"math"
	"time"
	_ "time/tzdata" // --trace-tz zones work on a machine without a zone database
)

// Times and durations as sacct prints them, parsed without allocating.

var (
	errTimeSyntax = wrapf(ErrSyntax, "want YYYY-MM-DDTHH:MM:SS, Unknown or None")
	errTimeRange  = wrapf(ErrRange, "no such date or time of day")
	errDurSyntax  = wrapf(ErrSyntax, "want [D-]HH:MM:SS, MM:SS, minutes, UNLIMITED or Partition_Limit")
	errDurRange   = wrapf(ErrRange, "minutes or seconds above 59, or hours above 23 after days")
	errDSTGap     = errors.New("out of range: local time skipped by a daylight-saving change in the --trace-tz zone")
)

// parseSacctTime parses "YYYY-MM-DDTHH:MM:SS" (a space instead of 'T' is
// accepted) as local seconds since 1970-01-01T00:00:00 in the same wall
// clock; known is false for "Unknown", "None" and "".
func parseSacctTime(b []byte) (local int64, known bool, err error) {
	if len(b) != 19 {
		if len(b) == 0 || string(b) == "Unknown" || string(b) == "None" {
			return 0, false, nil
		}
		return 0, false, errTimeSyntax
	}
	if b[4] != '-' || b[7] != '-' || (b[10] != 'T' && b[10] != ' ') || b[13] != ':' || b[16] != ':' {
		return 0, false, errTimeSyntax
	}
	var v [6]int64
	for k, p := range [6][2]int{{0, 4}, {5, 7}, {8, 10}, {11, 13}, {14, 16}, {17, 19}} {
		for _, c := range b[p[0]:p[1]] {
			if c < '0' || c > '9' {
				return 0, false, errTimeSyntax
			}
			v[k] = v[k]*10 + int64(c-'0')
		}
	}
	y, mo, d, h, mi, s := v[0], v[1], v[2], v[3], v[4], v[5]
	if y < 1900 || mo < 1 || mo > 12 || d < 1 || d > daysIn(y, mo) || h > 23 || mi > 59 || s > 59 {
		return 0, false, errTimeRange
	}
	return daysFromCivil(y, mo, d)*86400 + h*3600 + mi*60 + s, true, nil
}

func daysIn(y, m int64) int64 {
	switch m {
	case 2:
		if y%4 == 0 && (y%100 != 0 || y%400 == 0) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}

// daysFromCivil is the number of days from 1970-01-01 to y-m-d in the
// proleptic Gregorian calendar (H. Hinnant's days_from_civil).
func daysFromCivil(y, m, d int64) int64 {
	if m <= 2 {
		y--
	}
	era := y / 400 // y >= 0 here
	yoe := y - era*400
	mp := (m + 9) % 12
	doy := (153*mp+2)/5 + d - 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	return era*146097 + doe - 719468
}

// zoneCache turns local wall-clock seconds into Unix seconds in one zone,
// remembering the last stretch of local times with one unambiguous offset
// so that almost every call is two comparisons and a subtraction.
type zoneCache struct {
	loc    *time.Location // nil: UTC
	lo, hi int64          // local seconds [lo, hi) map to Unix seconds local - off
	off    int64
}

func newZoneCache(loc *time.Location) zoneCache {
	if loc == nil || loc == time.UTC {
		return zoneCache{lo: math.MinInt64, hi: math.MaxInt64}
	}
	return zoneCache{loc: loc}
}

// name is the zone's name for the header's TimeZoneString.
func (z *zoneCache) name() string {
	if z.loc == nil {
		return "UTC"
	}
	return z.loc.String()
}

// unix resolves local seconds: an ambiguous time (the hour repeated when
// clocks go back) is its first occurrence; a time skipped when clocks go
// forward is errDSTGap.
func (z *zoneCache) unix(local int64) (int64, error) {
	if local >= z.lo && local < z.hi {
		return local - z.off, nil
	}
	offAt := func(u int64) int64 {
		_, o := time.Unix(u, 0).In(z.loc).Zone()
		return int64(o)
	}
	// The offsets a day either side cover any one transition; a candidate
	// is valid when the zone really has that offset at that instant.
	best, found := int64(0), false
	for _, o := range [2]int64{offAt(local - 86400), offAt(local + 86400)} {
		if u := local - o; offAt(u) == o && (!found || u < best) {
			best, found = u, true
		}
	}
	if !found {
		return 0, errDSTGap
	}
	start, end := time.Unix(best, 0).In(z.loc).ZoneBounds()
	off := local - best
	z.off, z.lo, z.hi = off, math.MinInt64, math.MaxInt64
	if !start.IsZero() {
		// Local times just after a backward change occur twice; the first
		// occurrence is in the previous period, so the stretch starts after.
		z.lo = start.Unix() + max(off, offAt(start.Unix()-1))
	}
	if !end.IsZero() {
		z.hi = end.Unix() + off
	}
	if local < z.lo || local >= z.hi { // fold at the start of the period: do not cache
		z.lo, z.hi = 0, 0
	}
	return best, nil
}

// parseDuration parses a Slurm time string to seconds: "D-HH:MM:SS",
// "D-HH:MM", "D-HH", "HH:MM:SS", "MM:SS" or "MM" (a bare number is minutes,
// as for sbatch --time). unlimited is true for "UNLIMITED",
// "Partition_Limit" and "" (no limit given).
func parseDuration(b []byte) (secs int64, unlimited bool, err error) {
	switch string(b) {
	case "", "UNLIMITED", "Partition_Limit", "INFINITE":
		return 0, true, nil
	}
	var days int64 = -1
	for i, c := range b {
		if c == '-' {
			d, ok := parseDigits(b[:i])
			if !ok || d < 0 || i == 0 || b[0] == '+' {
				return 0, false, errDurSyntax
			}
			days, b = d, b[i+1:]
			break
		}
	}
	var part [3]int64
	n := 0
	for len(b) > 0 || n == 0 {
		if n == 3 {
			return 0, false, errDurSyntax
		}
		i := 0
		for i < len(b) && b[i] != ':' {
			i++
		}
		if i == 0 || i > 12 {
			return 0, false, errDurSyntax
		}
		for _, c := range b[:i] {
			if c < '0' || c > '9' {
				return 0, false, errDurSyntax
			}
			part[n] = part[n]*10 + int64(c-'0')
		}
		n++
		if i == len(b) {
			break
		}
		b = b[i+1:]
		if len(b) == 0 {
			return 0, false, errDurSyntax // trailing ':'
		}
	}
	var h, m, s int64
	switch {
	case days >= 0 && n == 1:
		h = part[0]
	case days >= 0 && n == 2:
		h, m = part[0], part[1]
	case n == 3:
		h, m, s = part[0], part[1], part[2]
	case n == 2:
		m, s = part[0], part[1]
	default:
		m = part[0]
	}
	if s > 59 || (n > 1 && m > 59) || (days >= 0 && h > 23) {
		return 0, false, errDurRange
	}
	if days > 1e9 || h > 1e12 {
		return 0, false, errDurRange
	}
	return max(days, 0)*86400 + h*3600 + m*60 + s, false, nil
}
