package scheduler

// GPU power per device (Config.GPUShare). A job on GPU nodes whose
// application is a GPU profile runs at (CPU cap, GPU cap) pair levels: its
// Level.Power (W per processor) is its nodes' whole draw above idle, CPU
// package and GPUs together, so every governor (dr's multiple-choice
// knapsack included) chooses among pairs exactly as among CPU levels.
// GPUShare[app][lv] is the part of Levels[lv].Power drawn by the GPUs; the
// engine integrates it per job for the energy split (Record.GPUEnergy) and
// for the machine (GPUEnergy), and with Check verifies that the jobs' GPU
// energies sum to the machine's. A job whose GPUs are not modelled (an
// application without a GPUShare row) keeps the constant draw
// Part.GPUBusyW per GPU, which counts as its GPU energy.
//
// Without GPUShare nothing here runs: gpuPow stays 0 for every job.

// gpuModelled reports whether app's levels carry GPU power.
func (e *Engine) gpuModelled(app int) bool {
	return e.hasPower && app < len(e.cfg.GPUShare) && e.cfg.GPUShare[app] != nil
}

// gpuAdmit is called once a job's application is known: a modelled job's
// GPUs draw through its levels, not the constant GPUBusyW.
func (e *Engine) gpuAdmit(j *job) {
	if e.gpuModelled(j.app) {
		j.extraW -= j.gpuW
		j.gpuW = 0
		j.gpuMod = true
	}
}

// gpuSet sets running job j's GPU draw for its level (running: also the
// machine's).
func (e *Engine) gpuSet(j *job, running bool) {
	if !e.gpuOn {
		return
	}
	p := j.gpuW
	if j.gpuMod {
		p += float64(j.procs) * e.cfg.GPUShare[j.app][j.level]
	}
	if running {
		e.gpuNow += p - j.gpuPow
		if int(j.part) == e.scope {
			e.gpuLim += p - j.gpuPow
		}
	}
	j.gpuPow = p
}

// gpuStop takes a stopping job's GPU draw off the machine's.
func (e *Engine) gpuStop(j *job) {
	if !e.gpuOn {
		return
	}
	e.gpuNow -= j.gpuPow
	if int(j.part) == e.scope {
		e.gpuLim -= j.gpuPow
	}
	j.gpuPow = 0
}

// DevicePowerObserver is a PowerObserver that also takes the busy GPUs'
// power (of the limited partition with Config.LimitPart, as watts): the
// engine calls PowerDevices instead of Power when per-device accounting is
// on.
type DevicePowerObserver interface {
	PowerDevices(t, watts, limit, gpuW float64, busy, running int) error
}

// observeDevices reports the power state with the busy GPUs' power; it
// reports false when the observer takes no device power.
func (e *Engine) observeDevices(cur [4]float64, busy, running int) (bool, error) {
	d, ok := e.cfg.Power.(DevicePowerObserver)
	if !ok {
		return false, nil
	}
	g := e.gpuNow
	if e.lim != e.meter {
		g = e.gpuLim
	}
	if cur == e.lastPow && g == e.lastGPU {
		return true, nil
	}
	e.lastPow, e.lastGPU = cur, g
	return true, d.PowerDevices(e.now, cur[0], cur[1], g, busy, running)
}

// GPUEnergy returns the energy drawn by busy GPUs over the run (J): the
// machine's integral of Σ running jobs' GPU draw.
func (e *Engine) GPUEnergy() float64 { return e.gpuJ }

// GPUOn reports whether per-device energy is accounted (Config.GPUShare
// set or some partition has GPUs).
func (e *Engine) GPUOn() bool { return e.gpuOn }
