package contracts

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Series is an hourly electricity price series.
type Series struct {
	Start  time.Time     // the first hour (its beginning)
	Step   time.Duration // one hour for every importer
	Price  []float64     // per MWh in Unit; NaN marks a missing hour (ReadOptions.AllowGaps)
	Unit   string        // e.g. "$/MWh", "EUR/MWh"
	Clock  string        // "UTC", or how to read Start when it is a local wall-clock label
	Cyclic bool          // At wraps around past the end (the illustrative day)
	Source string        // file name, or "illustrative"
	Notes  []string      // what the importer dropped, filled or noticed
}

// End returns the end of the last hour.
func (s *Series) End() time.Time { return s.Start.Add(time.Duration(len(s.Price)) * s.Step) }

// At returns the price of the hour containing t.
func (s *Series) At(t time.Time) (float64, error) {
	n := len(s.Price)
	if n == 0 || s.Step <= 0 {
		return 0, fmt.Errorf("contracts: price series %s is empty", s.Source)
	}
	d := t.Sub(s.Start)
	k := int(d / s.Step)
	if d < 0 && d%s.Step != 0 {
		k-- // floor for times before Start
	}
	if s.Cyclic {
		k = ((k % n) + n) % n
	} else if d < 0 || k >= n {
		return 0, fmt.Errorf("contracts: price series %s covers %s to %s; %s is outside it",
			s.Source, s.Start.Format(time.RFC3339), s.End().Format(time.RFC3339), t.Format(time.RFC3339))
	}
	p := s.Price[k]
	if math.IsNaN(p) {
		return 0, fmt.Errorf("contracts: price series %s has no price for the hour starting %s",
			s.Source, s.Start.Add(time.Duration(k)*s.Step).Format(time.RFC3339))
	}
	return p, nil
}

// AtOffset returns the price at Start + d: for a simulation whose clock
// starts with the series (and for hour-index files).
func (s *Series) AtOffset(d time.Duration) (float64, error) { return s.At(s.Start.Add(d)) }

// Stats summarises a price series (NaN hours count as Missing only).
type Stats struct {
	Hours, Missing, Negative int
	Mean, Min, Max           float64
}

// Stats summarises the hours in [from, to); zero times mean the whole series.
func (s *Series) Stats(from, to time.Time) Stats {
	st := Stats{Min: math.Inf(1), Max: math.Inf(-1)}
	sum := 0.0
	for k, p := range s.Price {
		t := s.Start.Add(time.Duration(k) * s.Step)
		if (!from.IsZero() && t.Before(from)) || (!to.IsZero() && !t.Before(to)) {
			continue
		}
		if math.IsNaN(p) {
			st.Missing++
			continue
		}
		st.Hours++
		sum += p
		st.Min, st.Max = math.Min(st.Min, p), math.Max(st.Max, p)
		if p < 0 {
			st.Negative++
		}
	}
	if st.Hours > 0 {
		st.Mean = sum / float64(st.Hours)
	}
	return st
}

// ReadOptions choose how a price file is read. The zero value reads any
// supported format, one node, no gaps.
type ReadOptions struct {
	Format    string // a key of Formats; "" detects it from the header
	Node      string // PJM pnode id or name, or Elspot PriceArea; "" when the file has one
	AllowGaps bool   // fill missing hours with NaN (At fails on them) instead of failing
	Unit      string // overrides the unit the importer infers; "" keeps it
}

// A Reader imports one price file format; name is used in errors.
type Reader func(r io.Reader, name string, opt ReadOptions) (*Series, error)

// FormatRegistry maps a format name to its reader.
type FormatRegistry map[string]Reader

// Formats is the table of contents of the price importers.
var Formats = FormatRegistry{"csv": ReadCSV, "pjm": ReadPJM, "epf": ReadEPF, "elspot": ReadElspot}

// ReadPrices reads a price file in opt.Format, or in the format its header
// announces when opt.Format is "".
func ReadPrices(r io.Reader, name string, opt ReadOptions) (*Series, error) {
	format := opt.Format
	if format == "" {
		br := bufio.NewReader(r)
		head, err := br.Peek(br.Size())
		if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, bufio.ErrBufferFull) {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		if format, err = Detect(head); err != nil {
			return nil, fmt.Errorf("%s:1: %w", name, err)
		}
		r = br
	}
	read, ok := Formats[format]
	if !ok {
		known := make([]string, 0, len(Formats))
		for k := range Formats {
			known = append(known, k)
		}
		slices.Sort(known)
		return nil, fmt.Errorf("contracts: unknown price format %q (known: %s)", format, strings.Join(known, ", "))
	}
	return read(r, name, opt)
}

// Detect names the format of a price file from its first line.
func Detect(head []byte) (string, error) {
	line, _, _ := bytes.Cut(head, []byte("\n"))
	h := strings.TrimSpace(strings.TrimPrefix(string(line), "\ufeff"))
	fields := strings.Split(h, ",")
	first := strings.TrimSpace(fields[0])
	switch {
	case strings.Contains(h, "datetime_beginning_utc"):
		return "pjm", nil
	case strings.HasPrefix(h, "HourUTC;"):
		return "elspot", nil
	case first == "time":
		return "csv", nil
	case len(fields) >= 2 && (first == "" || first == "Date"):
		return "epf", nil
	}
	return "", fmt.Errorf("contracts: unrecognised price file header %q (want time,price; a PJM Data Miner 2 export; an epftoolbox file; or an Energi Data Service Elspot export)", h)
}

// ParseError is an error in a price file at file:line:column, column being
// the 1-based CSV field (0 when the error is about the whole row).
type ParseError struct {
	File         string
	Line, Column int
	Name, Value  string // the column's header and the offending text
	Err          error
}

func (e *ParseError) Error() string {
	if e.Column == 0 {
		return fmt.Sprintf("%s:%d: %v", e.File, e.Line, e.Err)
	}
	return fmt.Sprintf("%s:%d:%d: %s=%q: %v", e.File, e.Line, e.Column, oneLineName(e.Name), e.Value, e.Err)
}

// oneLineName keeps a column name from the file printable on one line: a
// header cell may hold anything, line breaks included.
func oneLineName(s string) string {
	if strings.ContainsFunc(s, func(r rune) bool { return r < ' ' || r == 0x7f }) {
		q := strconv.Quote(s)
		return q[1 : len(q)-1]
	}
	return s
}

func (e *ParseError) Unwrap() error { return e.Err }

// Sentinel causes of ParseErrors.
var (
	ErrTime      = errors.New("bad timestamp")
	ErrZone      = errors.New("timestamp has no time zone (write Z or ±hh:mm)")
	ErrPrice     = errors.New("bad price")
	ErrDuplicate = errors.New("duplicate hour")
	ErrGrid      = errors.New("timestamp is not on the hourly grid")
	ErrGap       = errors.New("missing hours")
)

// point is one parsed row before the series is assembled.
type point struct {
	t    time.Time
	p    float64
	line int
}

// assemble sorts points, rejects duplicates and off-grid hours, reports or
// fills gaps, and notes negative prices.
func assemble(pts []point, file, unit, clock string, opt ReadOptions) (*Series, error) {
	if len(pts) == 0 {
		return nil, fmt.Errorf("%s: no price rows", file)
	}
	slices.SortStableFunc(pts, func(a, b point) int { return a.t.Compare(b.t) })
	s := &Series{Start: pts[0].t, Step: time.Hour, Unit: unit, Clock: clock, Source: file}
	if opt.Unit != "" {
		s.Unit = opt.Unit
	}
	missing, firstGap, neg := 0, -1, 0
	for k, pt := range pts {
		if pt.t.Sub(s.Start)%time.Hour != 0 {
			return nil, &ParseError{File: file, Line: pt.line, Err: fmt.Errorf("%w: %s is not a whole number of hours after %s", ErrGrid, pt.t.Format(time.RFC3339), s.Start.Format(time.RFC3339))}
		}
		if k > 0 {
			prev := pts[k-1]
			if pt.t.Equal(prev.t) {
				a, b := min(prev.line, pt.line), max(prev.line, pt.line)
				return nil, &ParseError{File: file, Line: b, Err: fmt.Errorf("%w %s (also at line %d)", ErrDuplicate, pt.t.Format("2006-01-02 15:04"), a)}
			}
			if gap := int(pt.t.Sub(prev.t)/time.Hour) - 1; gap > 0 {
				if firstGap < 0 {
					firstGap = k
				}
				missing += gap
				for range gap {
					s.Price = append(s.Price, math.NaN())
				}
			}
		}
		s.Price = append(s.Price, pt.p)
		if pt.p < 0 {
			neg++
		}
	}
	if missing > 0 {
		a, b := pts[firstGap-1], pts[firstGap]
		msg := fmt.Sprintf("%d missing hour(s); first gap: %s (line %d) is followed by %s (line %d)",
			missing, a.t.Format("2006-01-02 15:04"), a.line, b.t.Format("2006-01-02 15:04"), b.line)
		if !opt.AllowGaps {
			return nil, fmt.Errorf("%s: %w: %s", file, ErrGap, msg)
		}
		s.Notes = append(s.Notes, msg+" (filled with NaN)")
	}
	if neg > 0 {
		s.Notes = append(s.Notes, fmt.Sprintf("%d hour(s) with a negative price (kept)", neg))
	}
	return s, nil
}
