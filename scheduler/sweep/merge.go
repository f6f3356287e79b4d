package sweep

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"drsim/results"
	"drsim/results/plot"
)

// Files Merge writes into its output directory.
const (
	TableCSV      = "table.csv"
	TableMarkdown = "table.md"
	PlotName      = "saving_vs_slowdown" // .png and .svg
)

// CellResult is a finished cell read back from an output directory.
type CellResult struct {
	Cell
	Summary results.Summary
}

// Collect reads the sweep held by dirs (one sweep's output directories, for
// instance one per shard): its Meta, which must be the same in every
// directory, and every cell it lists, in sorted ID order. A cell missing
// from all dirs is an error; a cell found in several must have identical
// files.
func Collect(dirs []string) (*Meta, []CellResult, error) {
	if len(dirs) == 0 {
		return nil, nil, fmt.Errorf("merge: no sweep directories")
	}
	var metaBytes []byte
	for _, d := range dirs {
		b, err := os.ReadFile(filepath.Join(d, MetaFile))
		if err != nil {
			return nil, nil, fmt.Errorf("merge: %s is not a sweep output directory: %w", d, err)
		}
		if metaBytes != nil && !bytes.Equal(b, metaBytes) {
			return nil, nil, fmt.Errorf("merge: %s and %s hold different sweeps", dirs[0], d)
		}
		metaBytes = b
	}
	var meta Meta
	if err := json.Unmarshal(metaBytes, &meta); err != nil || meta.Format != metaFormat {
		return nil, nil, fmt.Errorf("merge: %s: not a %s file", filepath.Join(dirs[0], MetaFile), metaFormat)
	}
	var out []CellResult
	var missing []string
	for _, id := range meta.Cells {
		c, found, err := readCell(dirs, id)
		if err != nil {
			return nil, nil, err
		}
		if !found {
			missing = append(missing, id)
			continue
		}
		out = append(out, c)
	}
	if len(missing) > 0 {
		return nil, nil, fmt.Errorf("merge: %d of %d cells are missing (first: %s); run the missing shards, or rerun drsim sweep on the same directory to finish them",
			len(missing), len(meta.Cells), missing[0])
	}
	return &meta, out, nil
}

// readCell finds cell id in dirs and checks that copies agree.
func readCell(dirs []string, id string) (CellResult, bool, error) {
	var first, firstCell []byte
	var where string
	for _, d := range dirs {
		dir := filepath.Join(d, "cells", id)
		s, err := os.ReadFile(filepath.Join(dir, "summary.json"))
		if os.IsNotExist(err) {
			continue
		}
		if err != nil {
			return CellResult{}, false, err
		}
		c, err := os.ReadFile(filepath.Join(dir, "cell.json"))
		if err != nil {
			return CellResult{}, false, err
		}
		if first != nil && (!bytes.Equal(s, first) || !bytes.Equal(c, firstCell)) {
			return CellResult{}, false, fmt.Errorf("merge: cell %s differs between %s and %s", id, where, dir)
		}
		first, firstCell, where = s, c, dir
	}
	if first == nil {
		return CellResult{}, false, nil
	}
	var r CellResult
	if err := json.Unmarshal(firstCell, &r.Cell); err != nil || r.ID != id {
		return r, false, fmt.Errorf("merge: %s: bad cell.json", filepath.Join(where, "cell.json"))
	}
	if err := json.Unmarshal(first, &r.Summary); err != nil {
		return r, false, fmt.Errorf("merge: %s: %v", filepath.Join(where, "summary.json"), err)
	}
	return r, true, nil
}

// A Row is one cell of the merged table.
type Row struct {
	CellResult
	Dims     []any   // values of the varying dimensions
	HasRef   bool    // a baseline is configured and found
	IsRef    bool    // this cell is its group's baseline
	Saving   float64 // energy saving vs the baseline (%)
	Increase float64 // mean turnaround increase vs the baseline (%)
}

// Rows returns the varying dimensions (the keys of meta.Dims whose value
// differs between cells, in sim.Spec order) and one row per cell, sorted by
// the dimensions' values (numbers numerically), then by cell ID.
func Rows(meta *Meta, cells []CellResult) ([]string, []Row, error) {
	var dims []string
	for _, k := range meta.Dims {
		if _, ok := fieldFor(k); !ok {
			return nil, nil, fmt.Errorf("merge: %s: unknown dimension %q", MetaFile, k)
		}
		for _, c := range cells[min(1, len(cells)):] {
			if get(c.Spec, k) != get(cells[0].Spec, k) {
				dims = append(dims, k)
				break
			}
		}
	}
	byID := map[string]*CellResult{}
	for i := range cells {
		byID[cells[i].ID] = &cells[i]
	}
	rows := make([]Row, len(cells))
	for i, c := range cells {
		r := Row{CellResult: c}
		for _, k := range dims {
			r.Dims = append(r.Dims, get(c.Spec, k))
		}
		if len(meta.Baseline) > 0 {
			bs, err := WithSettings(c.Spec, meta.Baseline)
			if err != nil {
				return nil, nil, err
			}
			id, err := CellID(bs)
			if err != nil {
				return nil, nil, err
			}
			if ref := byID[id]; ref != nil {
				r.HasRef, r.IsRef = true, id == c.ID
				r.Saving = pct(ref.Summary.EnergyKWh-c.Summary.EnergyKWh, ref.Summary.EnergyKWh)
				r.Increase = pct(c.Summary.MeanTurn-ref.Summary.MeanTurn, ref.Summary.MeanTurn)
			}
		}
		rows[i] = r
	}
	slices.SortStableFunc(rows, func(a, b Row) int {
		for i := range a.Dims {
			if c := compareValues(a.Dims[i], b.Dims[i]); c != 0 {
				return c
			}
		}
		return strings.Compare(a.ID, b.ID)
	})
	return dims, rows, nil
}

func pct(num, den float64) float64 {
	if den == 0 {
		return 0
	}
	return 100 * num / den
}

func compareValues(a, b any) int {
	switch x := a.(type) {
	case string:
		return strings.Compare(x, b.(string))
	case int:
		return cmp.Compare(x, b.(int))
	case uint64:
		return cmp.Compare(x, b.(uint64))
	case float64:
		return cmp.Compare(x, b.(float64))
	case bool:
		if x == b.(bool) {
			return 0
		} else if !x {
			return -1
		}
		return 1
	}
	return 0
}

// Tables returns the merged table twice: with full-precision numbers and
// machine-readable headers (for CSV), and rounded with units (for Markdown).
// Saving columns are empty for cells without a baseline.
func Tables(dims []string, rows []Row) (csv, md *results.Table) {
	csv = &results.Table{Header: append(slices.Clone(dims), "jobs", "energy_kwh", "saving_pct", "mean_turnaround_s", "turnaround_increase_pct",
		"mean_wait_s", "mean_bounded_slowdown", "dr_power_std_w", "max_excess_w", "evictions", "cell")}
	md = &results.Table{Header: append(slices.Clone(dims), "jobs", "energy (kWh)", "saving vs baseline (%)", "mean turnaround (s)",
		"increase vs baseline (%)", "mean wait (s)", "mean bounded slowdown", "DR power std (W)", "max excess (W)", "evictions", "cell")}
	full := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	for _, r := range rows {
		s := r.Summary
		var dv []string
		for _, d := range r.Dims {
			dv = append(dv, dimText(d))
		}
		save, inc, saveMD, incMD := "", "", "", ""
		if r.HasRef {
			save, inc = full(r.Saving), full(r.Increase)
			saveMD, incMD = fmt.Sprintf("%.2f", r.Saving), fmt.Sprintf("%.2f", r.Increase)
		}
		csv.Add(append(slices.Clone(dv), strconv.Itoa(s.Jobs), full(s.EnergyKWh), save, full(s.MeanTurn), inc,
			full(s.MeanWait), full(s.MeanBSld), full(s.DRStdW), full(s.MaxExcessW), strconv.Itoa(s.Evictions), r.ID)...)
		md.Add(append(dv, strconv.Itoa(s.Jobs), fmt.Sprintf("%.2f", s.EnergyKWh), saveMD, fmt.Sprintf("%.0f", s.MeanTurn), incMD,
			fmt.Sprintf("%.0f", s.MeanWait), fmt.Sprintf("%.2f", s.MeanBSld), fmt.Sprintf("%.1f", s.DRStdW),
			fmt.Sprintf("%.1f", s.MaxExcessW), strconv.Itoa(s.Evictions), r.ID)...)
	}
	return csv, md
}

// TradeOffs returns one plot point per cell that has a baseline and is not
// one: grouped (coloured) by the varying ones of policy and dvfs, labelled
// by the other varying dimensions that are not baseline keys.
func TradeOffs(meta *Meta, dims []string, rows []Row) []plot.TradeOff {
	isBase := func(k string) bool {
		return slices.ContainsFunc(meta.Baseline, func(s Setting) bool { return s.Key == k })
	}
	var pts []plot.TradeOff
	for _, r := range rows {
		if !r.HasRef || r.IsRef {
			continue
		}
		var group, label []string
		for i, k := range dims {
			v := dimText(r.Dims[i])
			switch {
			case k == "policy" || k == "dvfs":
				group = append(group, v)
			case !isBase(k):
				label = append(label, k+"="+v)
			}
		}
		if len(group) == 0 {
			group = []string{r.Spec.Policy + " / " + r.Spec.DVFS}
		}
		pts = append(pts, plot.TradeOff{Label: strings.Join(label, " "), Policy: strings.Join(group, " / "), Saving: r.Saving, Increase: r.Increase})
	}
	return pts
}

// MergeOptions control Merge. The zero value refuses a non-empty output
// directory.
type MergeOptions struct {
	Force bool // overwrite files in a non-empty output directory
}

// Merge reads the sweep in dirs (see Collect) and writes into out:
// TableCSV, TableMarkdown and, when some cell has a baseline to compare
// with, PlotName.png and PlotName.svg. The files depend only on the cells,
// so they are byte-identical whatever the sharding or worker count.
func Merge(dirs []string, out string, opt MergeOptions) error {
	meta, cells, err := Collect(dirs)
	if err != nil {
		return err
	}
	dims, rows, err := Rows(meta, cells)
	if err != nil {
		return err
	}
	csvT, mdT := Tables(dims, rows)
	files := map[string]func(*bytes.Buffer) error{
		TableCSV:      func(b *bytes.Buffer) error { return csvT.WriteCSV(b) },
		TableMarkdown: func(b *bytes.Buffer) error { return mdT.WriteMarkdown(b) },
	}
	if pts := TradeOffs(meta, dims, rows); len(pts) > 0 {
		for ext, f := range map[string]plot.Format{".png": plot.PNG, ".svg": plot.SVG} {
			opt := plot.Options{Format: f, DPI: 150, Title: fmt.Sprintf("Energy saving vs slowdown (%d cells)", len(pts)),
				XLabel: "Mean turnaround increase vs baseline (%)", YLabel: "Energy saving vs baseline (%)"}
			files[PlotName+ext] = func(b *bytes.Buffer) error { return plot.SavingVsSlowdown(b, pts, opt) }
		}
	}
	if err := results.PrepareOutDir(out, opt.Force); err != nil {
		return err
	}
	for _, name := range sortedKeys(files) {
		var b bytes.Buffer
		if err := files[name](&b); err != nil {
			return err
		}
		if err := results.WriteFileAtomic(filepath.Join(out, name), b.Bytes(), true); err != nil {
			return err
		}
	}
	return nil
}

// dimText formats a dimension value; the empty string (a default) is
// written "default".
func dimText(v any) string {
	if v == "" {
		return "default"
	}
	return fmt.Sprint(v)
}
