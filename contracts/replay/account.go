package replay

import (
	"fmt"
	"math"
	"time"

	"github.com/shopspring/decimal"

	"drsim/contracts"
	"drsim/scheduler/sim"
)

// Money is an exact amount of currency rounded to cents; it prints and
// marshals as a decimal string with two places ("12.50").
type Money struct{ d decimal.Decimal }

// Decimal returns the amount.
func (m Money) Decimal() decimal.Decimal     { return m.d }
func (m Money) String() string               { return m.d.StringFixed(2) }
func (m Money) MarshalJSON() ([]byte, error) { return []byte(`"` + m.d.StringFixed(2) + `"`), nil }
func (m Money) MarshalText() ([]byte, error) { return []byte(m.d.StringFixed(2)), nil }
func (m Money) add(x Money) Money            { return Money{m.d.Add(x.d)} }
func (m Money) sub(x Money) Money            { return Money{m.d.Sub(x.d)} }
func cents(x float64) Money                  { return Money{contracts.Cents(x)} }
func sumMoney(xs []Money) (s Money) {
	for _, x := range xs {
		s = s.add(x)
	}
	return s
}

// Slot is one slot's accounts. Per-type slices are indexed by type; money
// is each accepted job's amount rounded to cents, summed exactly.
type Slot struct {
	Index     int
	Start     float64   // trace time (s) of the slot start
	PriceTime time.Time // price-series time of the slot start
	Price     float64   // per MWh, scaled

	Jobs        []float64 // counted jobs per type (the menus' weights m_i, all apps)
	Offered     []int     // jobs submitted in the slot, per type
	Accepted    []int     // of which accepted a contract (Δt > 0)
	DeltaE      []float64 // model saving of the accepted contracts, J
	Reward      []Money   // paid to the users
	Revenue     []Money   // φ·γ·Δe, the model's energy revenue
	UserUtility []Money   // Σ r − θ·c(Δt)

	EnergyBase, EnergyDR float64 // cluster energy in the slot, J (idle included)
	CostBase, CostDR     Money   // energy × PUE × price
}

// Operator is the model's operator utility of the slot: revenue − rewards.
func (s *Slot) Operator() Money { return sumMoney(s.Revenue).sub(sumMoney(s.Reward)) }

// Saving is the realised energy cost saving of the slot.
func (s *Slot) Saving() Money { return s.CostBase.sub(s.CostDR) }

// Totals are the sums over the slots of one contract run.
type Totals struct {
	EnergyBaseKWh float64 `json:"energy_base_kwh"`
	EnergyDRKWh   float64 `json:"energy_dr_kwh"`
	ContractKWh   float64 `json:"contract_saving_kwh"` // Σ model Δe of the contracts
	CostBase      Money   `json:"energy_cost_base"`
	CostDR        Money   `json:"energy_cost_dr"`
	Saving        Money   `json:"cost_saving"`
	Reward        Money   `json:"rewards"`
	Revenue       Money   `json:"model_revenue"` // Σ φ·γ·Δe of the contracts
	UserUtility   Money   `json:"user_utility"`
	Accepted      int     `json:"-"`
}

// Profit is the operator's realised profit: cost saving − rewards.
func (t Totals) Profit() Money { return t.Saving.sub(t.Reward) }

// ledger builds the slots' accounts of a contract run.
func (r *replayer) ledger(o *outcome) ([]Slot, Totals) {
	n := len(r.cfg.Theta)
	slots := make([]Slot, o.slots)
	for k := range slots {
		s := &slots[k]
		*s = Slot{Index: k, Start: r.clock.t0 + float64(k)*r.S, PriceTime: r.ptimes[k], Price: r.prices[k] * o.scale,
			Jobs: make([]float64, n), Offered: make([]int, n), Accepted: make([]int, n), DeltaE: make([]float64, n),
			Reward: make([]Money, n), Revenue: make([]Money, n), UserUtility: make([]Money, n),
			EnergyBase: o.eBase[k], EnergyDR: o.eDR[k]}
		s.CostBase = cents(contracts.Revenue(s.Price, r.cfg.PUE, s.EnergyBase))
		s.CostDR = cents(contracts.Revenue(s.Price, r.cfg.PUE, s.EnergyDR))
		if c := r.cen.count[k]; c != nil {
			for x, m := range c {
				s.Jobs[x%n] += m
			}
		}
		if a := r.cen.arrivals[k]; a != nil {
			for x, m := range a {
				s.Offered[x%n] += m
			}
		}
	}
	ps := make([]contracts.Payment, len(o.contracts))
	for i, c := range o.contracts {
		ps[i] = contracts.Payment{Label: fmt.Sprintf("job %d slot %d", r.tr.Jobs[c.Job].ID, c.Slot),
			Reward: c.Reward, Saved: c.DeltaE, Price: c.Price, PUE: r.cfg.PUE}
	}
	set := contracts.Settle(ps)
	var t Totals
	for i, c := range o.contracts {
		s := &slots[c.Slot]
		s.Accepted[c.Type]++
		s.DeltaE[c.Type] += c.DeltaE
		s.Reward[c.Type] = s.Reward[c.Type].add(Money{set.Lines[i].Reward})
		s.Revenue[c.Type] = s.Revenue[c.Type].add(Money{set.Lines[i].Revenue})
		s.UserUtility[c.Type] = s.UserUtility[c.Type].add(cents(c.Utility))
		t.ContractKWh += c.DeltaE / 3.6e6
	}
	for k := range slots {
		s := &slots[k]
		t.EnergyBaseKWh += s.EnergyBase / 3.6e6
		t.EnergyDRKWh += s.EnergyDR / 3.6e6
		t.CostBase = t.CostBase.add(s.CostBase)
		t.CostDR = t.CostDR.add(s.CostDR)
		t.Saving = t.Saving.add(s.Saving())
		t.Reward = t.Reward.add(sumMoney(s.Reward))
		t.Revenue = t.Revenue.add(sumMoney(s.Revenue))
		t.UserUtility = t.UserUtility.add(sumMoney(s.UserUtility))
	}
	t.Accepted = len(o.contracts)
	return slots, t
}

// Summary is the run summary.
type Summary struct {
	Prices       string    `json:"prices"`
	Unit         string    `json:"price_unit"`
	Illustrative bool      `json:"illustrative_prices"`
	PriceNotes   []string  `json:"price_notes"`
	Mapping      string    `json:"price_mapping"`
	FirstSlot    time.Time `json:"first_slot_price_time"`
	Slot         string    `json:"slot"`
	PUE          float64   `json:"pue"`
	Cost         string    `json:"cost"`
	Rule         string    `json:"type_rule"`
	Count        string    `json:"count"`
	Theta        []float64 `json:"theta"`

	Slots          int   `json:"slots"`
	Menus          int   `json:"menus"`
	Jobs           int   `json:"jobs"`
	Accepted       int   `json:"contracts"`
	JobsByType     []int `json:"jobs_by_type"`
	AcceptedByType []int `json:"contracts_by_type"`

	Totals
	Profit       Money   `json:"operator_profit"`
	ModelNet     Money   `json:"model_operator_utility"`
	EnergySaved  float64 `json:"energy_saved_kwh"`
	MeanTurnBase float64 `json:"mean_turnaround_base_s"`
	MeanTurnDR   float64 `json:"mean_turnaround_dr_s"`
	MeanWaitBase float64 `json:"mean_wait_base_s"`
	MeanWaitDR   float64 `json:"mean_wait_dr_s"`
	MeanBSldBase float64 `json:"mean_bsld_base"`
	MeanBSldDR   float64 `json:"mean_bsld_dr"`
	MeanStretch  float64 `json:"contract_runtime_stretch"` // mean contract-run / baseline runtime of accepted jobs
}

// Result is a contract simulation.
type Result struct {
	Theta       []float64
	Apps        []string
	Slots       []Slot
	Menus       []SlotMenu
	Contracts   []Contract
	Summary     Summary
	Sensitivity []SensitivityRow
	Baseline    *sim.Result // the run without contracts
	Contract    *sim.Result // the run with them
}

// fill puts the main (scale 1) run into res.
func (r *replayer) fill(res *Result, o *outcome) {
	slots, t := r.ledger(o)
	res.Slots, res.Menus, res.Contracts, res.Contract = slots, o.menus, o.contracts, o.run
	s := &res.Summary
	p := r.cfg.Prices
	*s = Summary{Prices: p.Source, Unit: p.Unit, Illustrative: p.Source == "illustrative", PriceNotes: p.Notes,
		Mapping: r.clock.describe(), FirstSlot: r.ptimes[0], Slot: r.cfg.Slot.String(), PUE: r.cfg.PUE,
		Cost: r.cfg.Cost.Name(), Rule: r.cfg.Rule, Count: r.cfg.Count, Theta: r.cfg.Theta,
		Slots: o.slots, Menus: len(o.menus), Jobs: len(r.jobs), Accepted: t.Accepted,
		JobsByType: make([]int, len(r.cfg.Theta)), AcceptedByType: make([]int, len(r.cfg.Theta)),
		Totals: t, Profit: t.Profit(), ModelNet: t.Revenue.sub(t.Reward), EnergySaved: t.EnergyBaseKWh - t.EnergyDRKWh}
	for _, j := range r.jobs {
		s.JobsByType[j.typ]++
	}
	stretch := 0.0
	for _, c := range o.contracts {
		s.AcceptedByType[c.Type]++
		stretch += c.SlowRun / c.BaseRun
	}
	if len(o.contracts) > 0 {
		s.MeanStretch = stretch / float64(len(o.contracts))
	}
	b, d := r.base.Summary, o.run.Summary
	s.MeanTurnBase, s.MeanTurnDR = b.MeanTurn, d.MeanTurn
	s.MeanWaitBase, s.MeanWaitDR = b.MeanWait, d.MeanWait
	s.MeanBSldBase, s.MeanBSldDR = b.MeanBSld, d.MeanBSld
}

// SensitivityRow is one price scale's outcome.
type SensitivityRow struct {
	Scale     float64 `json:"scale" csv:"scale"`
	MeanPrice float64 `json:"mean_price" csv:"mean_price"`
	Accepted  int     `json:"contracts" csv:"contracts"`
	Saved     float64 `json:"energy_saved_kwh" csv:"energy_saved_kwh"`
	Saving    Money   `json:"cost_saving" csv:"cost_saving"`
	Reward    Money   `json:"rewards" csv:"rewards"`
	Profit    Money   `json:"operator_profit" csv:"operator_profit"`
	MeanTurn  float64 `json:"mean_turnaround_s" csv:"mean_turnaround_s"`
}

func (r *replayer) sensitivityRow(scale float64, o *outcome) SensitivityRow {
	slots, t := r.ledger(o)
	mean := 0.0
	for _, s := range slots {
		mean += s.Price
	}
	mean /= math.Max(1, float64(len(slots)))
	return SensitivityRow{Scale: scale, MeanPrice: mean, Accepted: t.Accepted, Saved: t.EnergyBaseKWh - t.EnergyDRKWh,
		Saving: t.Saving, Reward: t.Reward, Profit: t.Profit(), MeanTurn: o.run.Summary.MeanTurn}
}
