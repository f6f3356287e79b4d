package replay

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/gocarina/gocsv"

	"drsim/results"
)

// SlotRow is one row of slots.csv: one per slot and type, then the slot's
// "all" row with the totals and the energy costs (blank on type rows).
type SlotRow struct {
	Slot          int     `csv:"slot"`
	PriceTime     string  `csv:"price_time"`
	TraceTime     float64 `csv:"trace_time_s"`
	Price         float64 `csv:"price"`
	Type          string  `csv:"type"`
	Theta         string  `csv:"theta"`
	Jobs          float64 `csv:"jobs"`
	Offered       int     `csv:"offered"`
	Contracts     int     `csv:"contracts"`
	DeltaEKWh     float64 `csv:"delta_e_kwh"`
	Rewards       Money   `csv:"rewards"`
	UserUtility   Money   `csv:"user_utility"`
	Operator      Money   `csv:"operator_utility"`
	EnergyBaseKWh string  `csv:"energy_base_kwh"`
	EnergyDRKWh   string  `csv:"energy_dr_kwh"`
	CostBase      string  `csv:"cost_base"`
	CostDR        string  `csv:"cost_dr"`
	Saving        string  `csv:"cost_saving"`
}

// Rows returns the long-format rows of slots.csv.
func (res *Result) Rows() []SlotRow {
	n := len(res.Theta)
	rows := make([]SlotRow, 0, len(res.Slots)*(n+1))
	for k := range res.Slots {
		s := &res.Slots[k]
		head := SlotRow{Slot: s.Index, PriceTime: s.PriceTime.Format(time.RFC3339), TraceTime: s.Start, Price: s.Price}
		all := head
		all.Type = "all"
		for i := range n {
			r := head
			r.Type, r.Theta = strconv.Itoa(i+1), strconv.FormatFloat(res.Theta[i], 'g', -1, 64)
			r.Jobs, r.Offered, r.Contracts, r.DeltaEKWh = s.Jobs[i], s.Offered[i], s.Accepted[i], s.DeltaE[i]/3.6e6
			r.Rewards, r.UserUtility, r.Operator = s.Reward[i], s.UserUtility[i], s.Revenue[i].sub(s.Reward[i])
			rows = append(rows, r)
			all.Jobs, all.Offered, all.Contracts, all.DeltaEKWh = all.Jobs+r.Jobs, all.Offered+r.Offered, all.Contracts+r.Contracts, all.DeltaEKWh+r.DeltaEKWh
			all.Rewards, all.UserUtility = all.Rewards.add(r.Rewards), all.UserUtility.add(r.UserUtility)
		}
		all.Operator = s.Operator()
		all.EnergyBaseKWh, all.EnergyDRKWh = kwh(s.EnergyBase), kwh(s.EnergyDR)
		all.CostBase, all.CostDR, all.Saving = s.CostBase.String(), s.CostDR.String(), s.Saving().String()
		rows = append(rows, all)
	}
	return rows
}

func kwh(j float64) string { return strconv.FormatFloat(j/3.6e6, 'f', 3, 64) }

// WriteSlotsCSV writes slots.csv (gocsv).
func (res *Result) WriteSlotsCSV(w io.Writer) error {
	return gocsv.Marshal(res.Rows(), w)
}

// WriteSlotsText writes one line per slot: jobs and contracts per type as
// a/b/c, then the totals.
func (res *Result) WriteSlotsText(w io.Writer) error {
	t := results.Table{Header: []string{"slot", "price time", "price", "jobs", "contracts", "Δe kWh",
		"rewards", "user util", "operator util", "cost base", "cost DR", "saving"}}
	for k := range res.Slots {
		s := &res.Slots[k]
		de := 0.0
		for _, x := range s.DeltaE {
			de += x
		}
		t.Add(strconv.Itoa(s.Index), s.PriceTime.Format("2006-01-02 15:04Z07:00"), strconv.FormatFloat(s.Price, 'f', 2, 64),
			joinF(s.Jobs), joinI(s.Accepted), kwh(de), sumMoney(s.Reward).String(), sumMoney(s.UserUtility).String(),
			s.Operator().String(), s.CostBase.String(), s.CostDR.String(), s.Saving().String())
	}
	return t.WriteText(w)
}

func joinF(x []float64) string {
	s := make([]string, len(x))
	for i, v := range x {
		s[i] = strconv.FormatFloat(v, 'g', -1, 64)
	}
	return strings.Join(s, "/")
}

func joinI(x []int) string {
	s := make([]string, len(x))
	for i, v := range x {
		s[i] = strconv.Itoa(v)
	}
	return strings.Join(s, "/")
}

// MenuRow is one bundle of one slot's menu, a row of menus.csv.
type MenuRow struct {
	Slot      int     `csv:"slot"`
	App       string  `csv:"app"`
	Price     float64 `csv:"price"`
	Type      int     `csv:"type"`
	Theta     float64 `csv:"theta"`
	M         float64 `csv:"m"`
	Procs     int     `csv:"procs"`
	Level     int     `csv:"level"`
	X         float64 `csv:"x"`
	Dt        float64 `csv:"dt_percent"`
	Reward    Money   `csv:"reward"`
	DeltaEKWh float64 `csv:"delta_e_kwh"`
	Virtual   float64 `csv:"virtual_type"`
	Pool      int     `csv:"pool"`
	OK        bool    `csv:"verified"`
}

// WriteMenusCSV writes every menu, one row per bundle.
func (res *Result) WriteMenusCSV(w io.Writer) error {
	var rows []MenuRow
	for _, sm := range res.Menus {
		m := sm.Menu
		for i, b := range m.Bundles {
			rows = append(rows, MenuRow{Slot: sm.Slot, App: res.Apps[sm.App], Price: sm.Price, Type: i + 1,
				Theta: m.Theta[i], M: sm.Types[i].M, Procs: sm.Types[i].Procs, Level: b.Level, X: b.X, Dt: b.Dt,
				Reward: cents(b.Reward), DeltaEKWh: b.DeltaE / 3.6e6, Virtual: m.Virtual[i], Pool: m.Pool[i] + 1, OK: m.Report.OK()})
		}
	}
	return gocsv.Marshal(rows, w)
}

// WriteSensitivityCSV writes the sensitivity rows.
func (res *Result) WriteSensitivityCSV(w io.Writer) error {
	return gocsv.Marshal(res.Sensitivity, w)
}

// WriteJSON writes the summary and sensitivity as one JSON object.
func (res *Result) WriteJSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(struct {
		Summary     *Summary         `json:"summary"`
		Sensitivity []SensitivityRow `json:"sensitivity,omitempty"`
	}{&res.Summary, res.Sensitivity})
}

// WriteText writes the run summary for people, and the sensitivity table.
func (res *Result) WriteText(w io.Writer) error {
	s := &res.Summary
	t := results.Table{Header: []string{"contract simulation", ""}}
	price := s.Prices + " (" + s.Unit + ")"
	if s.Illustrative {
		price = "ILLUSTRATIVE day (not real market data), " + s.Unit
	}
	pct := func(a, b float64) string { return fmt.Sprintf("%.4g → %.4g (%+.2f%%)", a, b, 100*(b-a)/a) }
	t.Rows = [][]string{
		{"prices", price},
		{"price mapping", s.Mapping},
		{"price notes", strings.Join(s.PriceNotes, "; ")},
		{"first slot at price time", s.FirstSlot.Format(time.RFC3339)},
		{"slot, PUE, cost", fmt.Sprintf("%s, %g, %s", s.Slot, s.PUE, s.Cost)},
		{"types θ", joinF(s.Theta) + " (rule " + s.Rule + ", count " + s.Count + ")"},
		{"jobs by type", joinI(s.JobsByType)},
		{"contracts by type", joinI(s.AcceptedByType)},
		{"slots, menus (all verified)", fmt.Sprintf("%d, %d", s.Slots, s.Menus)},
		{"energy kWh base → DR", pct(s.EnergyBaseKWh, s.EnergyDRKWh)},
		{"energy saved kWh (contract model)", fmt.Sprintf("%.3f (%.3f)", s.EnergySaved, s.ContractKWh)},
		{"energy cost base, DR", s.CostBase.String() + ", " + s.CostDR.String()},
		{"cost saving", s.Saving.String()},
		{"rewards paid", s.Reward.String()},
		{"operator profit (saving − rewards)", s.Profit.String()},
		{"model revenue, model net", s.Revenue.String() + ", " + s.ModelNet.String()},
		{"user utility", s.UserUtility.String()},
		{"mean turnaround s", pct(s.MeanTurnBase, s.MeanTurnDR)},
		{"mean wait s", pct(s.MeanWaitBase, s.MeanWaitDR)},
		{"mean bounded slowdown", pct(s.MeanBSldBase, s.MeanBSldDR)},
		{"contract jobs' runtime stretch", fmt.Sprintf("%.4f", s.MeanStretch)},
	}
	if err := t.WriteText(w); err != nil {
		return err
	}
	if len(res.Sensitivity) == 0 {
		return nil
	}
	st := results.Table{Header: []string{"price scale", "mean price", "contracts", "energy saved kWh", "cost saving", "rewards", "profit", "mean turnaround s"}}
	for _, r := range res.Sensitivity {
		st.Add(strconv.FormatFloat(r.Scale, 'g', -1, 64), strconv.FormatFloat(r.MeanPrice, 'f', 2, 64), strconv.Itoa(r.Accepted),
			strconv.FormatFloat(r.Saved, 'f', 3, 64), r.Saving.String(), r.Reward.String(), r.Profit.String(),
			strconv.FormatFloat(r.MeanTurn, 'f', 1, 64))
	}
	if _, err := io.WriteString(w, "\nsensitivity to the price level:\n"); err != nil {
		return err
	}
	return st.WriteText(w)
}
