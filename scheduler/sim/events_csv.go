package sim

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"
	_ "time/tzdata" // trace time zones resolve the same on every machine

	"github.com/gocarina/gocsv"

	"drsim/workloads"
)

// eventRow is one line of a DR events file, read as text so that errors
// can name the value.
type eventRow struct {
	Start     string `csv:"start"`
	End       string `csv:"end"`
	LimitW    string `csv:"limit_w"`
	LimitFrac string `csv:"limit_frac"`
}

// EventError is a mistake in a DR events file, at File:Line:Col (1-based;
// Col is the byte column of the field).
type EventError struct {
	File       string
	Line, Col  int
	Column     string // CSV column name
	Value, Msg string
}

func (e *EventError) Error() string {
	return fmt.Sprintf("%s:%d:%d: column %s=%q: %s", e.File, e.Line, e.Col, e.Column, e.Value, e.Msg)
}

// posReader is a gocsv.CSVReader that remembers where every field began.
type posReader struct {
	r   *csv.Reader
	hdr []string   // the first record
	pos [][][2]int // per record, per field: line, column
}

func (p *posReader) Read() ([]string, error) {
	rec, err := p.r.Read()
	if err != nil {
		return rec, err
	}
	ps := make([][2]int, len(rec))
	for i := range rec {
		ps[i][0], ps[i][1] = p.r.FieldPos(i)
	}
	if p.pos == nil {
		p.hdr = slices.Clone(rec)
	}
	p.pos = append(p.pos, ps)
	return rec, nil
}

func (p *posReader) ReadAll() ([][]string, error) {
	var out [][]string
	for {
		rec, err := p.Read()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		out = append(out, rec)
	}
}

// ReadEvents reads a DR events file: a header naming start, end and exactly
// one of limit_w (W) or limit_frac (fraction of peakW), then one event per
// line. Times are trace seconds, or ISO timestamps ("2002-07-28T14:00:00Z",
// "2002-07-28 14:00" in the trace's zone when no offset is given) resolved
// through the trace's UnixStartTime and TimeZoneString (see Events for the
// fallbacks). Inverted or empty events, overlapping events, limits ≤ 0 and
// events outside the span (Span) are *EventError naming file:line:column.
func ReadEvents(path string, tr *workloads.Trace, peakW float64, d Spec) ([]Event, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("dr-events: %v", err)
	}
	defer f.Close()
	return DecodeEvents(f, path, tr, peakW, d)
}

// DecodeEvents is ReadEvents on a reader; name is used in errors.
func DecodeEvents(r io.Reader, name string, tr *workloads.Trace, peakW float64, d Spec) ([]Event, error) {
	cr := csv.NewReader(r)
	cr.TrimLeadingSpace = true
	pr := &posReader{r: cr}
	var rows []eventRow
	if err := gocsv.UnmarshalCSV(pr, &rows); err != nil && !errors.Is(err, gocsv.ErrEmptyCSVFile) {
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	if len(pr.pos) == 0 {
		return nil, fmt.Errorf("%s: empty file (need a header start,end,limit_w or start,end,limit_frac)", name)
	}
	col, err := eventHeader(name, pr)
	if err != nil {
		return nil, err
	}
	loc, err := traceZone(tr)
	if err != nil {
		return nil, err
	}
	t0, t1 := Span(d, tr)
	frac := col["limit_frac"] >= 0
	type located struct {
		Event
		line int
	}
	var evs []located
	for i, row := range rows {
		ps := pr.pos[i+1]
		fail := func(c, v, format string, a ...any) error {
			k := col[c]
			return &EventError{File: name, Line: ps[k][0], Col: ps[k][1], Column: c, Value: v, Msg: fmt.Sprintf(format, a...)}
		}
		var e Event
		if e.Start, err = traceTime(row.Start, tr.Header.UnixStartTime, loc); err != nil {
			return nil, fail("start", row.Start, "%v", err)
		}
		if e.End, err = traceTime(row.End, tr.Header.UnixStartTime, loc); err != nil {
			return nil, fail("end", row.End, "%v", err)
		}
		lc, lv := "limit_w", row.LimitW
		if frac {
			lc, lv = "limit_frac", row.LimitFrac
		}
		x, err := strconv.ParseFloat(strings.TrimSpace(lv), 64)
		switch {
		case err != nil:
			return nil, fail(lc, lv, "not a number")
		case !(x > 0) || math.IsInf(x, 0):
			return nil, fail(lc, lv, "limit must be > 0")
		}
		e.LimitW = x
		if frac {
			e.LimitW = x * peakW
		}
		switch {
		case e.End <= e.Start:
			return nil, fail("end", row.End, "event ends at %v s, not after its start %v s", e.End, e.Start)
		case e.End <= t0 || e.Start >= t1:
			return nil, fail("start", row.Start, "event [%v, %v) s lies outside the simulated span [%v, %v) s", e.Start, e.End, t0, t1)
		}
		e.Start = math.Max(e.Start, t0)
		evs = append(evs, located{e, i + 1})
	}
	slices.SortStableFunc(evs, func(a, b located) int {
		return cmpF(a.Start, b.Start)
	})
	out := make([]Event, len(evs))
	for i, e := range evs {
		if i > 0 && e.Start < evs[i-1].End {
			ps := pr.pos[e.line]
			return nil, &EventError{File: name, Line: ps[col["start"]][0], Col: ps[col["start"]][1], Column: "start", Value: rows[e.line-1].Start,
				Msg: fmt.Sprintf("event [%v, %v) s overlaps the event on line %d, which ends at %v s", e.Start, e.End, pr.pos[evs[i-1].line][0][0], evs[i-1].End)}
		}
		out[i] = e.Event
	}
	return out, nil
}

// eventHeader checks the header and returns each known column's index (-1
// when absent).
func eventHeader(name string, pr *posReader) (map[string]int, error) {
	col := map[string]int{"start": -1, "end": -1, "limit_w": -1, "limit_frac": -1}
	for i, h := range pr.hdr {
		h = strings.TrimSpace(h)
		k, ok := col[h]
		if !ok {
			return nil, fmt.Errorf("%s:%d:%d: unknown column %q (want start, end and limit_w or limit_frac)", name, pr.pos[0][i][0], pr.pos[0][i][1], h)
		}
		if k >= 0 {
			return nil, fmt.Errorf("%s:%d:%d: column %q repeated", name, pr.pos[0][i][0], pr.pos[0][i][1], h)
		}
		col[h] = i
	}
	line := pr.pos[0][0][0]
	switch {
	case col["start"] < 0 || col["end"] < 0:
		return nil, fmt.Errorf("%s:%d: header needs columns start and end", name, line)
	case (col["limit_w"] < 0) == (col["limit_frac"] < 0):
		return nil, fmt.Errorf("%s:%d: header needs exactly one of limit_w and limit_frac", name, line)
	}
	return col, nil
}

// isoLayouts are the accepted timestamp forms; those without an offset are
// read in the trace's zone.
var isoLayouts = []string{time.RFC3339Nano, "2006-01-02T15:04:05", "2006-01-02 15:04:05", "2006-01-02T15:04", "2006-01-02 15:04", "2006-01-02"}

// traceTime reads seconds of trace time or an ISO timestamp.
func traceTime(s string, epoch int64, loc *time.Location) (float64, error) {
	s = strings.TrimSpace(s)
	if x, err := strconv.ParseFloat(s, 64); err == nil {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return 0, fmt.Errorf("not a finite time")
		}
		return x, nil
	}
	for _, l := range isoLayouts {
		if t, err := time.ParseInLocation(l, s, loc); err == nil {
			return float64(t.Unix()-epoch) + float64(t.Nanosecond())/1e9, nil
		}
	}
	return 0, fmt.Errorf("not seconds or an ISO timestamp (e.g. 2002-07-28T14:00:00Z)")
}

func cmpF(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
