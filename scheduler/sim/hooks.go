package sim

import "drsim/scheduler"

// fanPower returns an observer calling a then b, skipping nil ones (nil
// when both are).
func fanPower(a, b scheduler.PowerObserver) scheduler.PowerObserver {
	switch {
	case a == nil:
		return b
	case b == nil:
		return a
	}
	return powerPair{a, b}
}

type powerPair [2]scheduler.PowerObserver

func (p powerPair) Power(t, watts, limit float64, busy, running int) error {
	if err := p[0].Power(t, watts, limit, busy, running); err != nil {
		return err
	}
	return p[1].Power(t, watts, limit, busy, running)
}

// PowerDevices forwards the power state with the busy GPUs' power, to
// observers that take it, and without it to the others.
func (p powerPair) PowerDevices(t, watts, limit, gpuW float64, busy, running int) error {
	for _, o := range p {
		var err error
		if d, ok := o.(scheduler.DevicePowerObserver); ok {
			err = d.PowerDevices(t, watts, limit, gpuW, busy, running)
		} else {
			err = o.Power(t, watts, limit, busy, running)
		}
		if err != nil {
			return err
		}
	}
	return nil
}
