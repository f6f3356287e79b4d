package governor

import "drsim/scheduler"

// DVFS is the table of contents of the frequency governors (--dvfs).
var DVFS = scheduler.GovernorRegistry{
	"performance": func(scheduler.GovernorConfig) scheduler.Governor { return scheduler.Performance{} },
	"powersave":   func(scheduler.GovernorConfig) scheduler.Governor { return scheduler.Powersave{} },
	"dr":          func(scheduler.GovernorConfig) scheduler.Governor { return &DR{} },
}

// Caps is the table of contents of the power-cap governors (--powercap,
// --gpucap). dr with malleable jobs (GovernorConfig.Malleable) is
// DR-Scale.
var Caps = scheduler.GovernorRegistry{
	"performance": func(scheduler.GovernorConfig) scheduler.Governor { return scheduler.Performance{} },
	"powersave":   func(scheduler.GovernorConfig) scheduler.Governor { return scheduler.Powersave{} },
	"dr":          newDR,
	"uniform":     func(scheduler.GovernorConfig) scheduler.Governor { return &Uniform{} },
}

// newDR is DR, or DR-Scale when some jobs are malleable.
func newDR(cfg scheduler.GovernorConfig) scheduler.Governor {
	if cfg.Malleable == nil {
		return &DR{}
	}
	return &DRScale{Malleable: cfg.Malleable, Factor: cfg.Factor, ResizeCost: cfg.ResizeCost}
}
