package cluster

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
)

// NodeVar is one node's measured or drawn variability (issue 17): Slow is
// its time factor (a job's compute on it takes Slow × the nominal time; 1
// is nominal, 1.1 is 10 % slower) and Power its power factor (it draws
// Power × the nominal per-processor power when busy; 1 is nominal).
//
// Sources: Cornebize et al. 2019 (seed 004, §6.3, lines 269–276) find
// that per-host compute rates differ and that a few slow hosts set the
// pace of HPL; Heinrich's taurus measurements (seed 000, §8.2) find nodes
// of one type differing in power by up to 18 % with one BIOS setting.
//
// IdleW is the node's own idle power (W, whole node; 0: its type's), from
// the optional idle_w column: Heinrich measured idle power per node and
// saw it drift (seed 000, §8.2.1, line 1501). The engine takes it as an
// offset of the node's whole power line (scheduler.IdleOffset).
type NodeVar struct{ Slow, Power, IdleW float64 }

// DrawNodeVar returns nodes seeded draws: each node's relative speed is
// 1 + sd·z, z standard normal, truncated to [1−3sd, 1+3sd] (and to at
// least 0.1), and its time factor is 1/speed; then round(frac × nodes)
// nodes, chosen by a seeded shuffle, are slowed by the time factor
// slowdown (1.1: 10 % longer). Power factors are 1. The same arguments
// give the same nodes.
func DrawNodeVar(nodes int, sd, frac, slowdown float64, seed uint64) []NodeVar {
	out := make([]NodeVar, nodes)
	r := rand.New(rand.NewPCG(seed, 0x9e3779b97f4a7c15))
	for i := range out {
		s := 1.0
		if sd > 0 {
			z := max(-3, min(3, r.NormFloat64()))
			s = max(0.1, 1+sd*z)
		}
		out[i] = NodeVar{Slow: 1 / s, Power: 1}
	}
	if k := int(math.Round(frac * float64(nodes))); k > 0 && slowdown != 1 {
		perm := r.Perm(nodes)
		for _, n := range perm[:k] {
			out[n].Slow *= slowdown
		}
	}
	return out
}

// VarError is a bad record in a node variability CSV.
type VarError struct {
	File        string
	Line        int
	Field, What string
}

func (e *VarError) Error() string {
	return fmt.Sprintf("%s:%d: %s: %s", e.File, e.Line, e.Field, e.What)
}

// ReadNodeVar reads a node variability CSV with the header
// node,speed,power or node,speed,power,idle_w: node is a 0-based node
// index (or a name in names, when given), speed the node's relative
// compute rate (1 nominal; its time factor is 1/speed, so per-node dgemm
// or HPL rates divided by their nominal value go straight in), power its
// busy power factor (1 nominal; a node's busy power divided by its
// type's) and idle_w, when the column is there, the node's measured idle
// power in W for the whole node (an empty cell: its type's). Nodes not
// listed are nominal. Errors name file:line:field.
func ReadNodeVar(r io.Reader, file string, nodes int, names []string) ([]NodeVar, error) {
	out := make([]NodeVar, nodes)
	for i := range out {
		out[i] = NodeVar{Slow: 1, Power: 1}
	}
	cols := 3
	seen := make([]bool, nodes)
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = -1
	cr.Comment = '#'
	header := true
	for {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		line, _ := cr.FieldPos(0)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", file, err)
		}
		if header {
			header = false
			if len(rec) < 3 || len(rec) > 4 || strings.TrimSpace(rec[0]) != "node" || strings.TrimSpace(rec[1]) != "speed" || strings.TrimSpace(rec[2]) != "power" ||
				len(rec) == 4 && strings.TrimSpace(rec[3]) != "idle_w" {
				return nil, &VarError{file, line, "header", fmt.Sprintf("%q is not node,speed,power or node,speed,power,idle_w", strings.Join(rec, ","))}
			}
			cols = len(rec)
			continue
		}
		if len(rec) != cols {
			return nil, &VarError{file, line, "record", fmt.Sprintf("%d fields; need %d (the header's)", len(rec), cols)}
		}
		n, err := nodeIndex(strings.TrimSpace(rec[0]), nodes, names)
		if err != nil {
			return nil, &VarError{file, line, "node", err.Error()}
		}
		if seen[n] {
			return nil, &VarError{file, line, "node", fmt.Sprintf("node %q listed twice", rec[0])}
		}
		seen[n] = true
		var v [2]float64
		for k, f := range []string{"speed", "power"} {
			x, err := strconv.ParseFloat(strings.TrimSpace(rec[k+1]), 64)
			if err != nil || !(x > 0) || math.IsInf(x, 0) || x > 10 {
				return nil, &VarError{file, line, f, fmt.Sprintf("%q is not a factor in (0, 10]", rec[k+1])}
			}
			v[k] = x
		}
		out[n] = NodeVar{Slow: 1 / v[0], Power: v[1]}
		if cols == 4 && strings.TrimSpace(rec[3]) != "" {
			x, err := strconv.ParseFloat(strings.TrimSpace(rec[3]), 64)
			if err != nil || !(x > 0) || x > 1e5 {
				return nil, &VarError{file, line, "idle_w", fmt.Sprintf("%q is not a node idle power in W in (0, 100000]", rec[3])}
			}
			out[n].IdleW = x
		}
	}
	if header {
		return nil, &VarError{file, 1, "header", "empty file; need node,speed,power[,idle_w]"}
	}
	return out, nil
}

func nodeIndex(s string, nodes int, names []string) (int, error) {
	for i, n := range names {
		if n == s {
			return i, nil
		}
	}
	i, err := strconv.Atoi(s)
	if err != nil {
		return 0, fmt.Errorf("%q is neither a node index nor a node name of the machine", s)
	}
	if i < 0 || i >= nodes {
		return 0, fmt.Errorf("node index %d out of range [0, %d)", i, nodes)
	}
	return i, nil
}
