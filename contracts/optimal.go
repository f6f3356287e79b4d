package contracts

import (
	"fmt"
	"math"

	"drsim/powercap"
)

// JoulesPerMWh converts energy in J to MWh, the unit prices are quoted in.
const JoulesPerMWh = 3.6e9

// Type is one job type of a slot: its private flexibility θ (lower is more
// flexible), how many such jobs there are (or their probability), the
// processors each uses, and its application's Levels.
type Type struct {
	Theta  float64          // θ_i, dimensionless multiplier of c(Δt); strictly increasing across types
	M      float64          // m_i ≥ 0: count or probability of the type
	Procs  int              // n_i ≥ 1: processors of one such job
	Levels []powercap.Level // ascending in X; the last is Xmax (fmax)
}

// SlotOptions are the economic parameters of one slot.
type SlotOptions struct {
	Price float64 // φ, currency per MWh (e.g. $/MWh); may be ≤ 0, then every bundle is Δt = 0
	PUE   float64 // γ ≥ 1; zero means 1
	Slot  float64 // ts, seconds a contracted job runs at f'_i; zero means 3600
	Cost  Cost    // the inconvenience shape c; required (no default scale)
}

// Bundle is one contract: the reward paid and the runtime increase asked.
type Bundle struct {
	Reward float64 // r_i, currency (float here; Settle rounds to cents)
	Dt     float64 // Δt_i, runtime increase in percent
	Level  int     // index of f'_i in the type's Levels; −1 for a hand-written bundle
	X      float64 // f'_i, the setting (GHz) the job runs at; 0 when Level is −1
	DeltaE float64 // Δe_i = n_i·(p(fmax) − p(f'_i))·ts, J of IT energy saved by one job
}

// Menu is the operator's optimal offer for one slot, verified.
type Menu struct {
	Bundles []Bundle  // bundle i is meant for type i
	Theta   []float64 // the types it was built for
	Weight  []float64 // w_i = m_i·θ_i + M_{i−1}·(θ_i − θ_{i−1}): the virtual cost weights
	Virtual []float64 // ψ̄_i, the ironed virtual types: w_i/m_i pooled by Iron
	Pool    []int     // Pool[i] = index of the first type sharing type i's Δt (bunching)
	Utility float64   // Σ m_i·(φ·γ·Δe_i/3.6e9 − r_i), currency
	Report  *Report   // Verify's verdict (always OK for a returned Menu)
}

func (o SlotOptions) pue() float64 {
	if o.PUE == 0 {
		return 1
	}
	return o.PUE
}

func (o SlotOptions) slot() float64 {
	if o.Slot == 0 {
		return 3600
	}
	return o.Slot
}

func (o SlotOptions) check() error {
	switch {
	case o.Cost == nil:
		return fmt.Errorf("contracts: SlotOptions.Cost is nil")
	case math.IsNaN(o.Price) || math.IsInf(o.Price, 0):
		return fmt.Errorf("contracts: SlotOptions.Price = %v is not finite", o.Price)
	case o.PUE != 0 && !(o.PUE >= 1 && o.PUE < 100):
		return fmt.Errorf("contracts: SlotOptions.PUE = %v must be in [1, 100) (0 means 1)", o.PUE)
	case o.Slot != 0 && !(o.Slot > 0 && o.Slot < math.Inf(1)):
		return fmt.Errorf("contracts: SlotOptions.Slot = %v s must be positive (0 means 3600)", o.Slot)
	}
	return nil
}

// candidate is one level of one type: its Δt, c(Δt) and the operator's
// energy gain m_i·φ·γ·Δe_i.
type candidate struct {
	level      int
	dt, c, de  float64
	gain, cost float64 // gain in currency; cost = c(Δt)
}

// checkTypes validates types and returns θ and the virtual cost weights.
func checkTypes(types []Type) (theta, w []float64, err error) {
	theta = make([]float64, len(types))
	for i, t := range types {
		theta[i] = t.Theta
	}
	if err := CheckTheta(theta); err != nil {
		return nil, nil, err
	}
	m := make([]float64, len(types))
	total := 0.0
	for i, t := range types {
		if !(t.M >= 0) || math.IsInf(t.M, 0) {
			return nil, nil, fmt.Errorf("contracts: type %d: m = %v must be finite and ≥ 0", i+1, t.M)
		}
		if t.Procs < 1 {
			return nil, nil, fmt.Errorf("contracts: type %d: %d processors (need ≥ 1)", i+1, t.Procs)
		}
		if err := checkLevels(t.Levels); err != nil {
			return nil, nil, fmt.Errorf("contracts: type %d: %v", i+1, err)
		}
		m[i] = t.M
		total += t.M
	}
	if !(total > 0) {
		return nil, nil, fmt.Errorf("contracts: all type weights m_i are zero")
	}
	return theta, Weights(theta, m), nil
}

func checkLevels(ls []powercap.Level) error {
	if len(ls) == 0 {
		return fmt.Errorf("no frequency levels")
	}
	for k, l := range ls {
		if !(l.Scale > 0) || math.IsInf(l.Scale, 0) || math.IsNaN(l.Power) || math.IsInf(l.Power, 0) {
			return fmt.Errorf("level %d (X=%v): scale %v, power %v: need finite power and scale > 0", k, l.X, l.Scale, l.Power)
		}
		if k > 0 && !(l.X > ls[k-1].X) {
			return fmt.Errorf("levels not ascending in X at level %d (%v after %v)", k, l.X, ls[k-1].X)
		}
	}
	return nil
}

// candidates lists the levels of type t that do not speed it up past Xmax
// (Δt ≥ 0), from Xmax downwards so that ties prefer the smaller stretch.
func candidates(t Type, o SlotOptions) []candidate {
	top := t.Levels[len(t.Levels)-1]
	out := make([]candidate, 0, len(t.Levels))
	for k := len(t.Levels) - 1; k >= 0; k-- {
		l := t.Levels[k]
		dt := 100 * (l.Scale - top.Scale) / top.Scale
		if dt < 0 {
			continue
		}
		de := float64(t.Procs) * (top.Power - l.Power) * o.slot()
		out = append(out, candidate{level: k, dt: dt, c: o.Cost.C(dt), de: de,
			gain: t.M * o.Price * o.pue() * de / JoulesPerMWh})
	}
	return out
}

// Optimal returns the operator's utility-maximising menu for one slot, exact
// over the types' discrete level grids, and verified by Verify. See doc.go
// for the model and the derivation.
func Optimal(types []Type, opts SlotOptions) (*Menu, error) {
	if err := opts.check(); err != nil {
		return nil, err
	}
	theta, w, err := checkTypes(types)
	if err != nil {
		return nil, err
	}
	cands := make([][]candidate, len(types))
	for i, t := range types {
		cands[i] = candidates(t, opts)
	}
	pick, _ := solveChain(cands, w)
	return buildMenu(types, theta, w, cands, pick, opts)
}

// solveChain maximises Σ_i gain_i(k_i) − w_i·c_i(k_i) over one candidate
// k_i per type with Δt non-increasing in i, by dynamic programming from the
// last type: best[i][k] is the optimum of types i..n when type i takes k.
// O(n·L²). Ties keep the earlier candidate (the smaller Δt).
func solveChain(cands [][]candidate, w []float64) (pick []int, value float64) {
	n := len(cands)
	best := make([][]float64, n)
	next := make([][]int, n)
	for i := n - 1; i >= 0; i-- {
		best[i] = make([]float64, len(cands[i]))
		next[i] = make([]int, len(cands[i]))
		for k, ck := range cands[i] {
			v, arg := 0.0, -1
			if i+1 < n {
				v = math.Inf(-1)
				for k2, c2 := range cands[i+1] {
					if c2.dt <= ck.dt+DtTol && best[i+1][k2] > v {
						v, arg = best[i+1][k2], k2
					}
				}
			}
			best[i][k] = ck.gain - w[i]*ck.c + v
			next[i][k] = arg
		}
	}
	pick = make([]int, n)
	value = math.Inf(-1)
	for k, v := range best[0] {
		if v > value {
			value, pick[0] = v, k
		}
	}
	for i := 1; i < n; i++ {
		pick[i] = next[i-1][pick[i-1]]
	}
	return pick, value
}

// buildMenu turns chosen candidates into bundles with the binding rewards,
// the operator utility, the ironed virtual types, and verifies the result.
func buildMenu(types []Type, theta, w []float64, cands [][]candidate, pick []int, o SlotOptions) (*Menu, error) {
	n := len(types)
	m := &Menu{Bundles: make([]Bundle, n), Theta: theta, Weight: w, Pool: make([]int, n)}
	c := make([]float64, n)
	for i, k := range pick {
		ck := cands[i][k]
		c[i] = ck.c
		m.Bundles[i] = Bundle{Dt: ck.dt, Level: ck.level, X: types[i].Levels[ck.level].X, DeltaE: ck.de}
		if i > 0 && ck.dt == m.Bundles[i-1].Dt {
			m.Pool[i] = m.Pool[i-1]
		} else {
			m.Pool[i] = i
		}
	}
	r := MinRewards(theta, c)
	for i := range m.Bundles {
		m.Bundles[i].Reward = r[i]
		m.Utility += cands[i][pick[i]].gain - types[i].M*r[i]
	}
	ms := make([]float64, n)
	for i, t := range types {
		ms[i] = t.M
	}
	m.Virtual = Iron(w, ms)
	rep, err := Verify(m.Bundles, theta, o.Cost)
	if err != nil {
		return nil, err
	}
	m.Report = rep
	if err := rep.Err(); err != nil {
		return nil, fmt.Errorf("contracts: internal error: optimal menu failed verification: %w", err)
	}
	return m, nil
}

// Iron returns the ironed virtual types ψ̄: the virtual types ψ_i = w_i/m_i
// pooled by adjacent violators (weights m_i) until non-decreasing, i.e. the
// slopes of the convex minorant of the cumulative virtual cost. A type with
// m_i = 0 and w_i > 0 has ψ_i = +Inf and pools with the types after it; if
// it is last its ψ̄ stays +Inf (it gets Δt = 0).
func Iron(w, m []float64) []float64 {
	type block struct {
		w, m     float64
		from, to int
	}
	var st []block
	for i := range w {
		b := block{w[i], m[i], i, i}
		// merge while the top's ratio ≥ b's, compared without dividing
		for len(st) > 0 && st[len(st)-1].w*b.m >= b.w*st[len(st)-1].m {
			top := st[len(st)-1]
			st = st[:len(st)-1]
			b = block{top.w + b.w, top.m + b.m, top.from, b.to}
		}
		st = append(st, b)
	}
	out := make([]float64, len(w))
	for _, b := range st {
		v := b.w / b.m // +Inf when m = 0 < w; NaN when both are 0
		for i := b.from; i <= b.to; i++ {
			out[i] = v
		}
	}
	return out
}
