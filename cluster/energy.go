package cluster

import "math"

// Meter integrates piecewise-constant cluster power exactly: power changes
// only at events, so energy is Σ P·Δt over the intervals between them, with
// no sampling. Busy power (the running jobs' draw), idle power, the draw of
// powered-off nodes and that of booting nodes (transitions) are kept apart
// so that total = Σ job energy + idle + off + transition energy can be
// checked. Processors of off or booting nodes draw no idle power.
type Meter struct {
	IdleW float64 // power of one idle processor (W)
	OffW  float64 // power of one powered-off node (W)
	BootW float64 // power of one booting node (W)

	last      float64 // time of the last Advance
	started   bool
	busyW     float64 // Σ running jobs' power (W)
	idleProcs int
	idleAdj   float64 // idle draw beyond idleProcs × IdleW (processors whose idle power differs); 0 on one-type machines
	offNodes  int
	bootNodes int

	// Limit is the power limit in force (W); +Inf outside DR events.
	Limit float64

	BusyJ, IdleJ float64 // energy so far (J)
	OffJ, TransJ float64 // energy of off and of booting nodes so far (J)
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
func (m *Meter) Power() float64 {
	p := m.busyW + float64(m.idleProcs)*m.IdleW
	if m.idleAdj != 0 {
		p += m.idleAdj
	}
	if m.offNodes != 0 || m.bootNodes != 0 {
		p += float64(m.offNodes)*m.OffW + float64(m.bootNodes)*m.BootW
	}
	return p
}

// NonJobW returns the power not drawn by running jobs: idle processors,
// off nodes and booting nodes (W).
func (m *Meter) NonJobW() float64 {
	return float64(m.idleProcs)*m.IdleW + m.idleAdj + float64(m.offNodes)*m.OffW + float64(m.bootNodes)*m.BootW
}

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
	if m.idleAdj != 0 {
		m.IdleJ += m.idleAdj * dt
	}
	if m.offNodes != 0 || m.bootNodes != 0 {
		m.OffJ += float64(m.offNodes) * m.OffW * dt
		m.TransJ += float64(m.bootNodes) * m.BootW * dt
	}
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

// ChangeIdle records, at the current time, that idle processors draw dw
// watts more than idleProcs × IdleW (negative: less): processors whose
// node type idles at another power, counted when they become idle (+) or
// busy (−). Call Advance first.
func (m *Meter) ChangeIdle(dw float64) {
	m.idleAdj += dw
	if math.Abs(m.idleAdj) < 1e-9 { // cancellation noise
		m.idleAdj = 0
	}
}

// NodeChange records, at the current time, that offDelta nodes were
// powered off, bootDelta nodes started booting and idleDelta processors
// started drawing idle power (negative to remove): a node powering off is
// (1, 0, −size), one starting to boot (−1, 1, 0), one coming up (0, −1,
// size). Call Advance first.
func (m *Meter) NodeChange(offDelta, bootDelta, idleDelta int) {
	m.offNodes += offDelta
	m.bootNodes += bootDelta
	m.idleProcs += idleDelta
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

// Energy returns the total energy so far (J), as the sum of its parts.
func (m *Meter) Energy() float64 { return m.BusyJ + m.IdleJ + m.OffJ + m.TransJ }

// TotalJ returns ∫P dt so far (J), integrated from the total power rather
// than summed from the parts: the two must agree (an invariant check).
func (m *Meter) TotalJ() float64 { return m.sumPdt }

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
