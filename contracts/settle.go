package contracts

import (
	"github.com/shopspring/decimal"
)

// Cents rounds an amount of money to cents (half away from zero) as an exact
// decimal. It goes through the shortest decimal representation of x, so
// Cents(0.125) is 0.13 and Cents(2550) is 2550.00.
func Cents(x float64) decimal.Decimal {
	return decimal.NewFromFloat(x).Round(2)
}

// money formats an amount as a decimal string rounded to cents.
func money(x float64) string { return Cents(x).StringFixed(2) }

// Payment is one accepted contract to settle: the reward promised and the
// IT energy the contract saved during its slot, at the slot's price.
type Payment struct {
	Label  string  // e.g. "job 812 slot 17"; carried to the Line
	Reward float64 // r, currency, paid to the user
	Saved  float64 // Δe, J of IT energy saved
	Price  float64 // φ, currency per MWh
	PUE    float64 // γ; zero means 1
}

// Line is one settled Payment in exact cents.
type Line struct {
	Label   string
	Reward  decimal.Decimal // rounded to cents
	Revenue decimal.Decimal // φ·γ·Δe/3.6e9 rounded to cents
	Net     decimal.Decimal // Revenue − Reward (exact, of the rounded parts)
}

// Settlement is the money of a run. Every total is the exact decimal sum of
// its rounded lines, so the parts always add up to the whole.
type Settlement struct {
	Lines   []Line
	Reward  decimal.Decimal // Σ Line.Reward
	Revenue decimal.Decimal // Σ Line.Revenue
	Net     decimal.Decimal // Σ Line.Net = Revenue − Reward
}

// Revenue is the operator's energy revenue φ·γ·Δe, Δe in J converted to MWh.
func Revenue(price, pue, joules float64) float64 {
	if pue == 0 {
		pue = 1
	}
	return price * pue * joules / JoulesPerMWh
}

// Settle converts payments to cents: each reward and revenue is rounded to
// cents first, then the decimals are summed.
func Settle(ps []Payment) Settlement {
	s := Settlement{Lines: make([]Line, len(ps))}
	for i, p := range ps {
		l := Line{Label: p.Label, Reward: Cents(p.Reward), Revenue: Cents(Revenue(p.Price, p.PUE, p.Saved))}
		l.Net = l.Revenue.Sub(l.Reward)
		s.Lines[i] = l
		s.Reward = s.Reward.Add(l.Reward)
		s.Revenue = s.Revenue.Add(l.Revenue)
		s.Net = s.Net.Add(l.Net)
	}
	return s
}
