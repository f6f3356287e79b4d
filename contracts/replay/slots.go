package replay

import (
	"math"

	"drsim/contracts"
	"drsim/powercap"
	"drsim/results"
)

// powerSeries records a run's cluster power, a step function of time.
type powerSeries struct{ t, w []float64 }

func (p *powerSeries) Power(t, watts, _ float64, _, _ int) error {
	if n := len(p.t); n > 0 && p.t[n-1] == t {
		p.w[n-1] = watts
		return nil
	}
	p.t, p.w = append(p.t, t), append(p.w, watts)
	return nil
}

// last returns the time of the last change (0 when empty).
func (p *powerSeries) last() float64 {
	if len(p.t) == 0 {
		return 0
	}
	return p.t[len(p.t)-1]
}

// slotEnergy integrates the power over n slots of S seconds from t0, up to
// end (the power after the last change is held). Before the first change
// the power is 0 (the run has not started).
func (p *powerSeries) slotEnergy(t0, S float64, n int, end float64) []float64 {
	e := make([]float64, n)
	for i := range p.t {
		a, b := p.t[i], end
		if i+1 < len(p.t) {
			b = p.t[i+1]
		}
		b = min(b, end)
		for a < b {
			k := int(math.Floor((a - t0) / S))
			if k >= n {
				break
			}
			hi := min(b, t0+float64(k+1)*S)
			if k >= 0 {
				e[k] += p.w[i] * (hi - a)
			}
			a = hi
		}
	}
	return e
}

// spans records each job's start and end by trace position.
type spans struct{ start, end []float64 }

func newSpans(n int) *spans {
	s := &spans{start: make([]float64, n), end: make([]float64, n)}
	for i := range s.start {
		s.start[i], s.end[i] = math.NaN(), math.NaN()
	}
	return s
}

func (s *spans) Record(r *results.Record) error {
	if r.Seq >= 0 && int(r.Seq) < len(s.start) {
		s.start[r.Seq], s.end[r.Seq] = r.Start, r.End
	}
	return nil
}

// job is what the simulation knows of one trace job.
type job struct {
	typ, app, slot, procs int
}

// census holds, per slot, application and type, the counted jobs and their
// processors, and the slots' arrivals.
type census struct {
	apps, types  int
	count, procs map[int][]float64 // slot → [app*types+type]
	arrivals     map[int][]int     // slot → [app*types+type]
}

func newCensus(apps, types int) *census {
	return &census{apps: apps, types: types, count: map[int][]float64{}, procs: map[int][]float64{}, arrivals: map[int][]int{}}
}

func (c *census) add(k, app, typ, procs int) {
	if c.count[k] == nil {
		c.count[k] = make([]float64, c.apps*c.types)
		c.procs[k] = make([]float64, c.apps*c.types)
	}
	c.count[k][app*c.types+typ]++
	c.procs[k][app*c.types+typ] += float64(procs)
}

func (c *census) arrive(k, app, typ int) {
	if c.arrivals[k] == nil {
		c.arrivals[k] = make([]int, c.apps*c.types)
	}
	c.arrivals[k][app*c.types+typ]++
}

// types returns the contract types of slot k and app, and whether any job
// of the app arrives in the slot (a menu is only needed then).
func (c *census) typesOf(k, app int, theta []float64, t powercap.Table) ([]contracts.Type, bool) {
	arr := c.arrivals[k]
	any := false
	for i := range theta {
		any = any || (arr != nil && arr[app*c.types+i] > 0)
	}
	if !any {
		return nil, false
	}
	ts := make([]contracts.Type, len(theta))
	for i, th := range theta {
		m, p := c.count[k][app*c.types+i], c.procs[k][app*c.types+i]
		procs := 1
		if m > 0 {
			procs = max(1, int(math.Round(p/m)))
		}
		ts[i] = contracts.Type{Theta: th, M: m, Procs: procs, Levels: t.Levels}
	}
	return ts, true
}
