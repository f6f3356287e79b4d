package nodepower

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// Sample is one measurement: a node at a P-state with some of its cores
// busy running an application, drawing Watts.
type Sample struct {
	Node   string
	GHz    float64
	Active int // busy cores; 0 is an idle measurement
	Total  int // cores of the node
	App    string
	Watts  float64
	Line   int // 1-based line in its file
}

// Columns are the CSV header names Read needs, in any order.
var Columns = []string{"node", "pstate_ghz", "active_cores", "total_cores", "app", "watts"}

// Read reads the long CSV (a header naming Columns, in any order, extra
// columns ignored) from r. Errors are one line: file:line:column (name)="value": reason.
func Read(r io.Reader, file string) ([]Sample, error) {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = -1
	cr.ReuseRecord = true
	head, err := cr.Read()
	if errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("%s:1: empty file; want a header %s", file, strings.Join(Columns, ","))
	}
	if err != nil {
		return nil, csvErr(file, err)
	}
	col := make([]int, len(Columns))
	for i, want := range Columns {
		col[i] = -1
		for j, h := range head {
			if strings.EqualFold(strings.TrimSpace(strings.TrimPrefix(h, "\ufeff")), want) {
				col[i] = j
				break
			}
		}
		if col[i] < 0 {
			return nil, fmt.Errorf("%s:1: missing column %q (want %s)", file, want, strings.Join(Columns, ","))
		}
	}
	var out []Sample
	for {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, csvErr(file, err)
		}
		line, _ := cr.FieldPos(0)
		s := Sample{Line: line}
		field := func(i int) (string, error) {
			if col[i] >= len(rec) {
				return "", fmt.Errorf("%s:%d: %d fields, no column %d (%s)", file, line, len(rec), col[i]+1, Columns[i])
			}
			return strings.TrimSpace(rec[col[i]]), nil
		}
		bad := func(i int, v, why string) error {
			return fmt.Errorf("%s:%d:%d (%s)=%q: %s", file, line, col[i]+1, Columns[i], v, why)
		}
		var v [6]string
		for i := range v {
			if v[i], err = field(i); err != nil {
				return nil, err
			}
		}
		s.Node, s.App = v[0], v[4]
		if s.Node == "" {
			return nil, bad(0, v[0], "empty node name")
		}
		if s.App == "" {
			return nil, bad(4, v[4], "empty application name")
		}
		if s.GHz, err = strconv.ParseFloat(v[1], 64); err != nil || math.IsNaN(s.GHz) || s.GHz <= 0 || math.IsInf(s.GHz, 0) {
			return nil, bad(1, v[1], "want a frequency in GHz > 0")
		}
		if s.GHz > 10 {
			return nil, bad(1, v[1], fmt.Sprintf("%g GHz is not a CPU frequency; MHz? (did you mean %g GHz?)", s.GHz, s.GHz/1000))
		}
		if s.Active, err = strconv.Atoi(v[2]); err != nil || s.Active < 0 {
			return nil, bad(2, v[2], "want a whole number of busy cores >= 0")
		}
		if s.Total, err = strconv.Atoi(v[3]); err != nil || s.Total < 1 {
			return nil, bad(3, v[3], "want a whole number of cores >= 1")
		}
		if s.Active > s.Total {
			return nil, bad(2, v[2], fmt.Sprintf("more busy cores than the node's %d", s.Total))
		}
		if s.Watts, err = strconv.ParseFloat(v[5], 64); err != nil || math.IsNaN(s.Watts) || math.IsInf(s.Watts, 0) || s.Watts <= 0 {
			return nil, bad(5, v[5], "want a node power in W > 0")
		}
		if s.Watts > 20000 {
			return nil, bad(5, v[5], "above 20 kW for one node; mW?")
		}
		out = append(out, s)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s:2: no measurements after the header", file)
	}
	return out, nil
}

func csvErr(file string, err error) error {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		return fmt.Errorf("%s:%d:%d: %v", file, pe.Line, pe.Column, pe.Err)
	}
	return fmt.Errorf("%s: %v", file, err)
}
