package cluster

import "math"

// Meter integrates piecewise-constant cluster power exactly: power changes
// only at events, so energy is Σ P·Δt over the intervals between them, with
// no sampling. Busy power (the running jobs' draw) and idle power are kept
// apart so that total = Σ job energy + idle energy can be checked.
type Meter struct {
	IdleW float64 // power of one idle processor (W)

	last      float64 // time of the last Advance
	started   bool
	busyW     float64 // Σ running jobs' power (W)
	idleProcs int

	// Limit is the power limit in force (W); +Inf outside DR events.
	Limit float64

	BusyJ, IdleJ float64 // energy so far (J)
	PeakW        float64
	sumPdt       float64 // ∫ P dt
	sumP2dt      float64 // ∫ P² dt
	span         float64

	// Inside DR events (finite limit) only.
	DRTime, DRsumPdt, DRsumP2dt float64
	MaxExcessW                  float64 // worst power above the limit (W)
	ExcessJ                     float64 // energy above the limit (J)
}

// NewMeter returns a meter for procs idle processors at time t0.
func NewMeter(procs int, idleW, t0 float64) *Meter {
	return &Meter{IdleW: idleW, idleProcs: procs, last: t0, started: true, Limit: math.Inf(1)}
}

// Power returns the cluster's current power draw (W).
func (m *Meter) Power() float64 { return m.busyW + float64(m.idleProcs)*m.IdleW }

// BusyW returns the running jobs' current power (W).
func (m *Meter) BusyW() float64 { return m.busyW }

// Advance integrates power from the last call up to t.
func (m *Meter) Advance(t float64) {
	dt := t - m.last
	if dt <= 0 {
		return
	}
	p := m.Power()
	m.BusyJ += m.busyW * dt
	m.IdleJ += float64(m.idleProcs) * m.IdleW * dt
	m.sumPdt += p * dt
	m.sumP2dt += p * p * dt
	m.span += dt
	if !math.IsInf(m.Limit, 1) {
		m.DRTime += dt
		m.DRsumPdt += p * dt
		m.DRsumP2dt += p * p * dt
		if ex := p - m.Limit; ex > 0 {
			m.ExcessJ += ex * dt
		}
	}
	m.last = t
}

// Change records, at the current time, that busyDelta watts of job power
// and procDelta busy processors were added (negative to remove). Call
// Advance first.
func (m *Meter) Change(busyDelta float64, procDelta int) {
	m.busyW += busyDelta
	m.idleProcs -= procDelta
	if m.busyW < 0 && m.busyW > -1e-6 { // cancellation noise
		m.busyW = 0
	}
}

// SetLimit changes the power limit in force at the current time.
func (m *Meter) SetLimit(w float64) { m.Limit = w }

// Observe updates the peak and the worst excess with the current power.
// Power is piecewise constant between instants, so the engine observes it
// once at the end of every instant: states that exist only part-way
// through an instant (after a finish but before the governor reacts) last
// no time and draw no energy.
func (m *Meter) Observe() {
	p := m.Power()
	if p > m.PeakW {
		m.PeakW = p
	}
	if ex := p - m.Limit; ex > m.MaxExcessW {
		m.MaxExcessW = ex
	}
}

// Energy returns the total energy so far (J).
func (m *Meter) Energy() float64 { return m.BusyJ + m.IdleJ }

// MeanStd returns the time-weighted mean and standard deviation of power
// over everything integrated so far.
func (m *Meter) MeanStd() (mean, std float64) { return meanStd(m.sumPdt, m.sumP2dt, m.span) }

// DRMeanStd is MeanStd restricted to time under a finite limit.
func (m *Meter) DRMeanStd() (mean, std float64) { return meanStd(m.DRsumPdt, m.DRsumP2dt, m.DRTime) }

func meanStd(s1, s2, t float64) (float64, float64) {
	if t <= 0 {
		return 0, 0
	}
	mean := s1 / t
	v := s2/t - mean*mean
	if v < 0 {
		v = 0
	}
	return mean, math.Sqrt(v)
}
