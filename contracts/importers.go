package contracts

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gocarina/gocsv"
)

// parsePrice reads a finite price; comma is true for a decimal comma.
func parsePrice(s string, comma bool) (float64, error) {
	s = strings.TrimSpace(s)
	if comma {
		s = strings.Replace(s, ",", ".", 1)
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, ErrPrice
	}
	return v, nil
}

// lineReader is a gocsv.CSVReader over encoding/csv that remembers the line
// each record starts on.
type lineReader struct {
	r      *csv.Reader
	lines  []int
	header []string // the first record
}

func (l *lineReader) Read() ([]string, error) {
	rec, err := l.r.Read()
	if err == nil {
		line, _ := l.r.FieldPos(0)
		l.lines = append(l.lines, line)
		if l.header == nil {
			l.header = slices.Clone(rec)
		}
	}
	return rec, err
}

func (l *lineReader) ReadAll() ([][]string, error) {
	var out [][]string
	for {
		rec, err := l.Read()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		out = append(out, rec)
	}
}

type genericRow struct {
	Time  string `csv:"time"`
	Price string `csv:"price"`
}

// ReadCSV reads the generic format: a header "time,price", then one row per
// hour. time is an hour index (0, 1, 2, …; Start is then the Unix epoch, so
// use AtOffset) or an RFC 3339 timestamp with a zone (Z or ±hh:mm); price
// is per MWh (unit "$/MWh" unless ReadOptions.Unit says otherwise).
func ReadCSV(r io.Reader, name string, opt ReadOptions) (*Series, error) {
	lr := &lineReader{r: csv.NewReader(r)}
	lr.r.TrimLeadingSpace = true
	var rows []genericRow
	if err := gocsv.UnmarshalCSV(lr, &rows); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if len(lr.lines) == 0 {
		return nil, fmt.Errorf("%s: no header", name)
	}
	// gocsv leaves a missing column empty: check the header names both
	for _, c := range []string{"time", "price"} {
		if !slices.Contains(lr.header, c) {
			return nil, fmt.Errorf("%s:%d: no column %q in header %q (want time,price)", name, lr.lines[0], c, strings.Join(lr.header, ","))
		}
	}
	pts := make([]point, 0, len(rows))
	index := -1 // unknown yet; 1 = hour indices, 0 = timestamps
	clock := "UTC"
	for k, row := range rows {
		line := lr.lines[k+1]
		t, isIndex, err := parseGenericTime(row.Time)
		if err == nil && index >= 0 && (index == 1) != isIndex {
			err = fmt.Errorf("%w: mixes hour indices and timestamps", ErrTime)
		}
		if err != nil {
			return nil, &ParseError{File: name, Line: line, Column: 1, Name: "time", Value: row.Time, Err: err}
		}
		if isIndex {
			index, clock = 1, "hour index (Start is the Unix epoch; use AtOffset)"
		} else {
			index = 0
		}
		p, err := parsePrice(row.Price, false)
		if err != nil {
			return nil, &ParseError{File: name, Line: line, Column: 2, Name: "price", Value: row.Price, Err: err}
		}
		pts = append(pts, point{t, p, line})
	}
	return assemble(pts, name, "$/MWh", clock, opt)
}

// parseGenericTime parses an hour index or a zoned RFC 3339 timestamp.
func parseGenericTime(s string) (t time.Time, isIndex bool, err error) {
	s = strings.TrimSpace(s)
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		if n < 0 || n > 1e7 {
			return t, true, fmt.Errorf("%w: hour index out of range [0, 1e7]", ErrTime)
		}
		return time.Unix(n*3600, 0).UTC(), true, nil
	}
	for _, layout := range []string{time.RFC3339, "2006-01-02T15:04Z07:00", "2006-01-02 15:04:05Z07:00", "2006-01-02 15:04Z07:00"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UTC(), false, nil
		}
	}
	for _, layout := range []string{"2006-01-02T15:04:05", "2006-01-02T15:04", "2006-01-02 15:04:05", "2006-01-02 15:04"} {
		if _, err := time.Parse(layout, s); err == nil {
			return t, false, ErrZone
		}
	}
	return t, false, fmt.Errorf("%w (want an hour index or RFC 3339 with a zone, e.g. 2024-01-01T05:00:00Z)", ErrTime)
}

// table is a CSV file read with encoding/csv, with header lookup and
// positioned errors.
type table struct {
	name   string
	r      *csv.Reader
	header []string
	col    map[string]int
}

func newTable(r io.Reader, name string, comma rune) (*table, error) {
	t := &table{name: name, r: csv.NewReader(r), col: map[string]int{}}
	t.r.Comma = comma
	h, err := t.r.Read()
	if err != nil {
		return nil, fmt.Errorf("%s:1: reading header: %w", name, err)
	}
	t.header = h
	for i, c := range h {
		t.col[strings.TrimSpace(strings.TrimPrefix(c, "\ufeff"))] = i
	}
	return t, nil
}

// need returns the index of the first of names present in the header.
func (t *table) need(names ...string) (int, error) {
	for _, n := range names {
		if i, ok := t.col[n]; ok {
			return i, nil
		}
	}
	return 0, fmt.Errorf("%s:1: no column %s in header %q", t.name, strings.Join(names, " or "), strings.Join(t.header, ","))
}

// next returns the next record and its line, or io.EOF.
func (t *table) next() ([]string, int, error) {
	rec, err := t.r.Read()
	if err != nil {
		if errors.Is(err, io.EOF) {
			return nil, 0, io.EOF
		}
		return nil, 0, fmt.Errorf("%s: %w", t.name, err)
	}
	line, _ := t.r.FieldPos(0)
	return rec, line, nil
}

func (t *table) errAt(line, col int, rec []string, err error) error {
	return &ParseError{File: t.name, Line: line, Column: col + 1, Name: strings.TrimSpace(t.header[col]), Value: rec[col], Err: err}
}

func (t *table) parseTime(rec []string, line, col int, layout string) (time.Time, error) {
	v, err := time.Parse(layout, strings.TrimSpace(rec[col]))
	if err != nil {
		return v, t.errAt(line, col, rec, fmt.Errorf("%w (want %s)", ErrTime, layout))
	}
	return v, nil
}

// nodes collects points per node in first-seen order, then picks one.
type nodes struct {
	order []string
	label map[string]string // node key → "id NAME"
	pts   map[string][]point
}

func (n *nodes) add(key, label string, p point) {
	if n.pts == nil {
		n.pts, n.label = map[string][]point{}, map[string]string{}
	}
	if _, ok := n.pts[key]; !ok {
		n.order = append(n.order, key)
		n.label[key] = label
	}
	n.pts[key] = append(n.pts[key], p)
}

// pick returns the points of the node matching want (id or name, case
// insensitive), or of the only node; else an error listing them.
func (n *nodes) pick(file, what, flag, want string) ([]point, string, error) {
	labels := make([]string, len(n.order))
	for i, k := range n.order {
		labels[i] = oneLineName(n.label[k])
	}
	if want == "" {
		switch len(n.order) {
		case 0:
			return nil, "", fmt.Errorf("%s: no price rows", file)
		case 1:
			return n.pts[n.order[0]], n.label[n.order[0]], nil
		}
		return nil, "", fmt.Errorf("%s: %d %ss present; choose one with %s: %s", file, len(labels), what, flag, strings.Join(labels, ", "))
	}
	for _, k := range n.order {
		id, name, _ := strings.Cut(n.label[k], " ")
		if strings.EqualFold(want, id) || strings.EqualFold(want, name) || strings.EqualFold(want, n.label[k]) {
			return n.pts[k], n.label[k], nil
		}
	}
	return nil, "", fmt.Errorf("%s: no %s %q (present: %s)", file, what, want, strings.Join(labels, ", "))
}

// ReadPJM reads a PJM Data Miner 2 da_hrl_lmps or rt_hrl_lmps export: keyed
// on datetime_beginning_utc, current rows only (row_is_current = True),
// price total_lmp_da or total_lmp_rt in $/MWh. ReadOptions.Node picks a
// pnode by id or name when the file holds several.
func ReadPJM(r io.Reader, name string, opt ReadOptions) (*Series, error) {
	t, err := newTable(r, name, ',')
	if err != nil {
		return nil, err
	}
	cols := make([]int, 5)
	for i, names := range [][]string{{"datetime_beginning_utc"}, {"total_lmp_da", "total_lmp_rt"}, {"row_is_current"}, {"pnode_id"}, {"pnode_name"}} {
		if cols[i], err = t.need(names...); err != nil {
			return nil, err
		}
	}
	tc, pc, cc, ic, nc := cols[0], cols[1], cols[2], cols[3], cols[4]
	var ns nodes
	dropped := 0
	for {
		rec, line, err := t.next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		switch strings.ToLower(strings.TrimSpace(rec[cc])) {
		case "true":
		case "false":
			dropped++
			continue
		default:
			return nil, t.errAt(line, cc, rec, errors.New("want True or False"))
		}
		ts, err := t.parseTime(rec, line, tc, "1/2/2006 3:04:05 PM")
		if err != nil {
			return nil, err
		}
		p, err := parsePrice(rec[pc], false)
		if err != nil {
			return nil, t.errAt(line, pc, rec, err)
		}
		id := strings.TrimSpace(rec[ic])
		ns.add(id, id+" "+strings.TrimSpace(rec[nc]), point{ts, p, line})
	}
	pts, label, err := ns.pick(name, "pnode", "--price-node", opt.Node)
	if err != nil {
		return nil, err
	}
	s, err := assemble(pts, name, "$/MWh", "UTC", opt)
	if err != nil {
		return nil, err
	}
	s.Notes = append([]string{"pnode " + label + ", " + t.header[pc]}, s.Notes...)
	if dropped > 0 {
		s.Notes = append(s.Notes, fmt.Sprintf("%d superseded row(s) (row_is_current=False) dropped", dropped))
	}
	return s, nil
}

// ReadEPF reads an epftoolbox benchmark file (e.g. PJM.csv, DE.csv): first
// column the local hour-beginning time, DST-normalised to 24 h a day, second
// the price. Start is a wall-clock label (stored as UTC). Unit: $/MWh for the
// PJM (COMED) file, EUR/MWh for the EPEX (DE, FR, BE) and Nord Pool ones.
func ReadEPF(r io.Reader, name string, opt ReadOptions) (*Series, error) {
	t, err := newTable(r, name, ',')
	if err != nil {
		return nil, err
	}
	if len(t.header) < 2 {
		return nil, fmt.Errorf("%s:1: epftoolbox header %q has fewer than 2 columns", name, strings.Join(t.header, ","))
	}
	unit := "EUR/MWh"
	if strings.Contains(t.header[1], "COMED") || strings.Contains(t.header[1], "PJM") {
		unit = "$/MWh"
	}
	var pts []point
	for {
		rec, line, err := t.next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		ts, err := t.parseTime(rec, line, 0, "2006-01-02 15:04:05")
		if err != nil {
			return nil, err
		}
		p, err := parsePrice(rec[1], false)
		if err != nil {
			return nil, t.errAt(line, 1, rec, err)
		}
		pts = append(pts, point{ts, p, line})
	}
	s, err := assemble(pts, name, unit, "local wall clock, DST-normalised to 24 h/day (labels stored as UTC)", opt)
	if err != nil {
		return nil, err
	}
	s.Notes = append([]string{"price column " + strings.TrimSpace(t.header[1])}, s.Notes...)
	return s, nil
}

// ReadElspot reads an Energi Data Service "Elspotprices" export: semicolons,
// decimal commas, newest row first, keyed on HourUTC, price SpotPriceEUR in
// EUR/MWh. ReadOptions.Node picks a PriceArea when the file holds several.
func ReadElspot(r io.Reader, name string, opt ReadOptions) (*Series, error) {
	t, err := newTable(r, name, ';')
	if err != nil {
		return nil, err
	}
	cols := make([]int, 3)
	for i, n := range []string{"HourUTC", "SpotPriceEUR", "PriceArea"} {
		if cols[i], err = t.need(n); err != nil {
			return nil, err
		}
	}
	var ns nodes
	for {
		rec, line, err := t.next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		ts, err := t.parseTime(rec, line, cols[0], "2006-01-02 15:04")
		if err != nil {
			return nil, err
		}
		p, err := parsePrice(rec[cols[1]], true)
		if err != nil {
			return nil, t.errAt(line, cols[1], rec, err)
		}
		area := strings.TrimSpace(rec[cols[2]])
		ns.add(area, area, point{ts, p, line})
	}
	pts, area, err := ns.pick(name, "price area", "--price-node", opt.Node)
	if err != nil {
		return nil, err
	}
	s, err := assemble(pts, name, "EUR/MWh", "UTC", opt)
	if err != nil {
		return nil, err
	}
	s.Notes = append([]string{"price area " + area + ", SpotPriceEUR"}, s.Notes...)
	return s, nil
}
