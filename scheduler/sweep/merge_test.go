package sweep

import (
	"bytes"
	"strings"
	"testing"

	"drsim/results"
	"drsim/scheduler/sim"
)

func fakeCell(t *testing.T, s sim.Spec, kwh, turn float64) CellResult {
	t.Helper()
	s = Resolve(s)
	id, err := CellID(s)
	if err != nil {
		t.Fatal(err)
	}
	return CellResult{Cell: Cell{ID: id, Spec: s}, Summary: results.Summary{Jobs: 10, EnergyKWh: kwh, MeanTurn: turn}}
}

// Hand-computed: powersave saves (100−80)/100 = 20 % of the energy and
// costs (1100−1000)/1000 = 10 % turnaround against the performance cell of
// its seed; seed 2's pair gives 50 % and 100 %.
func TestRowsAgainstBaseline(t *testing.T) {
	cells := []CellResult{
		fakeCell(t, sim.Spec{DVFS: "powersave", Seed: 1}, 80, 1100),
		fakeCell(t, sim.Spec{DVFS: "performance", Seed: 1}, 100, 1000),
		fakeCell(t, sim.Spec{DVFS: "powersave", Seed: 2}, 25, 400),
		fakeCell(t, sim.Spec{DVFS: "performance", Seed: 2}, 50, 200),
	}
	meta := &Meta{Dims: []string{"seed", "dvfs", "policy"}, Baseline: []Setting{{"dvfs", "performance"}}}
	dims, rows, err := Rows(meta, cells)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(dims, ",") != "seed,dvfs" { // policy does not vary
		t.Errorf("dims %v", dims)
	}
	want := []struct {
		seed      uint64
		dvfs      string
		ref       bool
		save, inc float64
	}{{1, "performance", true, 0, 0}, {1, "powersave", false, 20, 10}, {2, "performance", true, 0, 0}, {2, "powersave", false, 50, 100}}
	for i, w := range want {
		r := rows[i]
		if r.Spec.Seed != w.seed || r.Spec.DVFS != w.dvfs || !r.HasRef || r.IsRef != w.ref || r.Saving != w.save || r.Increase != w.inc {
			t.Errorf("row %d = seed %d %s ref %v/%v saving %v increase %v; want %+v", i, r.Spec.Seed, r.Spec.DVFS, r.HasRef, r.IsRef, r.Saving, r.Increase, w)
		}
	}
	csv, md := Tables(dims, rows)
	var b bytes.Buffer
	csv.WriteCSV(&b)
	if line := strings.Split(b.String(), "\n")[2]; !strings.HasPrefix(line, "1,powersave,10,80,20,1100,10,") {
		t.Errorf("CSV row 2 = %q", line)
	}
	b.Reset()
	md.WriteMarkdown(&b)
	if !strings.Contains(b.String(), "| 2 | powersave | 10 | 25.00 | 50.00 | 400 | 100.00 |") {
		t.Errorf("markdown:\n%s", b.String())
	}
	pts := TradeOffs(meta, dims, rows)
	if len(pts) != 2 || pts[0].Policy != "powersave" || pts[0].Label != "seed=1" || pts[1].Saving != 50 {
		t.Errorf("trade-offs %+v", pts)
	}
}

// Without a baseline the saving columns stay empty and there is no plot.
func TestRowsNoBaseline(t *testing.T) {
	cells := []CellResult{fakeCell(t, sim.Spec{Seed: 1}, 80, 1100), fakeCell(t, sim.Spec{Seed: 2}, 100, 1000)}
	dims, rows, err := Rows(&Meta{Dims: []string{"seed"}}, cells)
	if err != nil || rows[0].HasRef {
		t.Fatal(err, rows)
	}
	csv, _ := Tables(dims, rows)
	if csv.Rows[0][3] != "" || len(TradeOffs(&Meta{}, dims, rows)) != 0 {
		t.Errorf("row %v", csv.Rows[0])
	}
}
