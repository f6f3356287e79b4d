package workloads

import (
	"bytes"
	"encoding/binary"
	"math"
	"math/bits"
	"strconv"
)

// This file holds the allocation-free line parser: whitespace splitting and
// number parsing. Only failures allocate (the ParseError).

// numFields is the number of fields in an SWF job record.
const numFields = 18

// intField marks the SWF fields stored as int64 in Job (1-based index).
var intField = [numFields + 1]bool{1: true, 5: true, 8: true, 11: true, 12: true,
	13: true, 14: true, 15: true, 16: true, 17: true}

// maxAbs bounds every value: anything whose magnitude does not fit in an
// int64 is ErrRange, in float fields too.
const maxAbs = 9.223372036854775807e18

// pow10 holds the powers of ten that float64 represents exactly.
var pow10 = [...]float64{1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10,
	1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22}

// numErr classifies a number-parsing failure without allocating.
type numErr uint8

const (
	numOK numErr = iota
	numSyntax
	numNotFinite
	numRange
	numNotInt
)

func (k numErr) err() error {
	switch k {
	case numSyntax:
		return ErrSyntax
	case numNotFinite:
		return wrapf(ErrSyntax, "NaN and Inf are not allowed")
	case numRange:
		return wrapf(ErrRange, "magnitude exceeds int64")
	case numNotInt:
		return wrapf(ErrSyntax, "integer field has a fractional part")
	}
	return nil
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\n' || c == '\t' || c == '\r' || c == '\v' || c == '\f'
}

// split records up to len(tok) whitespace-separated tokens of line as
// [start, end) offsets and returns the total number of tokens.
func split(line []byte, tok *[numFields + 1][2]int32) int {
	n := 0
	for i := 0; i < len(line); {
		for i < len(line) && isSpace(line[i]) {
			i++
		}
		if i == len(line) {
			break
		}
		start := i
		for i < len(line) && !isSpace(line[i]) {
			i++
		}
		if n < len(tok) {
			tok[n] = [2]int32{int32(start), int32(i)}
		}
		n++
	}
	return n
}

// parseDigits parses an optionally signed run of at most 18 decimal digits,
// the fast path for almost every SWF value. ok is false for anything else.
func parseDigits(b []byte) (v int64, ok bool) {
	neg := false
	if len(b) > 0 && (b[0] == '-' || b[0] == '+') {
		neg = b[0] == '-'
		b = b[1:]
	}
	if len(b) == 0 || len(b) > 18 {
		return 0, false
	}
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		v = v*10 + int64(c-'0')
	}
	if neg {
		v = -v
	}
	return v, true
}

// parseSimpleDecimal parses [sign]digits.digits with at most 15 significant
// digits exactly (mantissa and power of ten are both exact float64 values,
// so one division rounds correctly, as strconv.ParseFloat would).
func parseSimpleDecimal(b []byte) (float64, bool) {
	neg := false
	if len(b) > 0 && (b[0] == '-' || b[0] == '+') {
		neg = b[0] == '-'
		b = b[1:]
	}
	var mant uint64
	digits, frac, dot := 0, 0, false
	for _, c := range b {
		switch {
		case c >= '0' && c <= '9':
			mant = mant*10 + uint64(c-'0')
			if digits++; digits > 15 {
				return 0, false
			}
			if dot {
				frac++
			}
		case c == '.' && !dot:
			dot = true
		default:
			return 0, false
		}
	}
	if digits == 0 {
		return 0, false
	}
	f := float64(mant) / pow10[frac]
	if neg {
		f = -f
	}
	return f, true
}

// parseFloat parses one token as a finite float64 of magnitude below 2^63.
func parseFloat(b []byte) (float64, numErr) {
	if v, ok := parseDigits(b); ok {
		return float64(v), numOK
	}
	if f, ok := parseSimpleDecimal(b); ok {
		return f, numOK
	}
	f, err := strconv.ParseFloat(string(b), 64)
	switch {
	case err != nil && isRangeErr(err):
		return 0, numRange
	case err != nil:
		return 0, numSyntax
	case math.IsNaN(f) || math.IsInf(f, 0):
		return 0, numNotFinite
	case math.Abs(f) >= maxAbs:
		return 0, numRange
	}
	return f, numOK
}

func isRangeErr(err error) bool {
	ne, ok := err.(*strconv.NumError)
	return ok && ne.Err == strconv.ErrRange
}

// parseInt parses one token as an int64; a float spelling of an integer
// ("123.0", "1e3") is accepted, a fractional value ("123.5") is not.
func parseInt(b []byte) (int64, numErr) {
	if v, ok := parseDigits(b); ok {
		return v, numOK
	}
	// "123." and "123.000" are integers: parse them exactly, not through
	// a float64 that rounds past 2^53.
	if dot := bytes.IndexByte(b, '.'); dot > 0 && len(bytes.TrimRight(b[dot+1:], "0")) == 0 {
		b = b[:dot]
	}
	if v, err := strconv.ParseInt(string(b), 10, 64); err == nil {
		return v, numOK // 19-digit integers
	} else if isRangeErr(err) {
		return 0, numRange
	}
	f, k := parseFloat(b)
	if k != numOK {
		return 0, k
	}
	if f != math.Trunc(f) {
		return 0, numNotInt
	}
	return int64(f), numOK
}

// space marks the bytes that separate SWF fields.
var space = [256]bool{' ': true, '\t': true, '\n': true, '\r': true, '\v': true, '\f': true}

// scanDigits reads the decimal digits of line from i on into m (m·10 +
// digit each) and returns the index after them.
func scanDigits(line []byte, i int, m uint64) (int, uint64) {
	for i < len(line) {
		d := line[i] - '0'
		if d > 9 {
			break
		}
		m = m*10 + uint64(d)
		i++
	}
	return i, m
}

// parseRecord parses one job line (already known not to be blank or a
// comment) into j in a single pass: each token is split and, when it is a
// plain integer or a short decimal, converted on the way. Other spellings
// (exponents, long mantissas, junk) go to parseInt/parseFloat. It returns
// the token count n (the caller checks it first), and the first bad field
// with its error kind. It allocates nothing.
func parseRecord(line []byte, tok *[numFields + 1][2]int32, j *Job) (field int, k numErr, n int) {
	var ints [numFields + 1]int64
	var flts [numFields + 1]float64
	line = line[:len(line):len(line)]
	for i := 0; ; n++ {
		// Skip the column padding 8 bytes at a time (SWAR: XOR with spaces
		// leaves zero bytes for ' '; the lowest non-zero byte is the first
		// other byte), then any TABs, CRs and the like one byte at a time.
		for i+8 <= len(line) {
			x := binary.LittleEndian.Uint64(line[i:]) ^ 0x2020202020202020
			if x != 0 {
				i += bits.TrailingZeros64(x) >> 3
				break
			}
			i += 8
		}
		for i < len(line) && space[line[i]] {
			i++
		}
		if i >= len(line) {
			break
		}
		start := i
		c := line[i]
		neg := c == '-'
		if neg || c == '+' {
			i++
		}
		// Digits, then an optional '.' and more digits, in two tight
		// loops; m overflows past 19 digits, which nd rules out below.
		d0 := i
		var m uint64
		i, m = scanDigits(line, i, 0)
		nd, frac := i-d0, -1 // digits; digits after the '.', -1 without a '.'
		if i < len(line) && line[i] == '.' {
			f0 := i + 1
			i, m = scanDigits(line, f0, m)
			frac = i - f0
			nd += frac
		}
		simple := i == len(line) || space[line[i]]
		for i < len(line) && !space[line[i]] {
			i++
		}
		if n > numFields {
			continue // only counting
		}
		tok[n] = [2]int32{int32(start), int32(i)}
		if n == numFields || k != numOK {
			continue
		}
		f := n + 1
		var kf numErr
		switch {
		case simple && nd > 0 && nd <= 18 && frac <= 0: // integer
			v := int64(m)
			if neg {
				v = -v
			}
			ints[f], flts[f] = v, float64(v)
		case simple && nd > 0 && nd <= 15 && !intField[f]: // short decimal, exact
			flts[f] = float64(m) / pow10[frac]
			if neg {
				flts[f] = -flts[f]
			}
		case intField[f]:
			ints[f], kf = parseInt(line[start:i])
		default:
			flts[f], kf = parseFloat(line[start:i])
		}
		if kf != numOK {
			field, k = f, kf
		}
	}
	if n != numFields || k != numOK {
		return field, k, n
	}
	*j = Job{
		ID: ints[1], Submit: flts[2], Wait: flts[3], Run: flts[4], AllocProcs: ints[5],
		AvgCPU: flts[6], UsedMem: flts[7], ReqProcs: ints[8], ReqTime: flts[9],
		ReqMem: flts[10], Status: ints[11], User: ints[12], Group: ints[13], Exe: ints[14],
		Queue: ints[15], Partition: ints[16], Preceding: ints[17], Think: flts[18],
	}
	return 0, numOK, n
}
