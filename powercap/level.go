package powercap

// Knob names what a Level's X is: a CPU frequency in GHz or a package power
// cap in W.
type Knob uint8

const (
	Freq    Knob = iota // X is a CPU frequency (GHz)
	Cap                 // X is a RAPL package power cap (W)
	GPUFreq             // X is a GPU core clock (GHz); gpu.go
	GPUCap              // X is a GPU board power cap (W); gpu.go
	Joint               // X is a (CPU cap, GPU cap) pair: JointModel, calibration only; joint.go
)

func (k Knob) String() string {
	switch k {
	case Cap:
		return "cap"
	case GPUFreq:
		return "gpufreq"
	case GPUCap:
		return "gpucap"
	case Joint:
		return "joint"
	}
	return "freq"
}

// IsCap reports whether X is a power cap in W (Cap or GPUCap): the power
// at a cap never exceeds it, and runtime is fitted as a·exp(b·P) + c.
func (k Knob) IsCap() bool { return k == Cap || k == GPUCap }

// IsGPU reports whether the knob acts on a GPU (GPUFreq or GPUCap).
func (k Knob) IsGPU() bool { return k == GPUFreq || k == GPUCap }

// Level is one discrete operating point of an application: the setting X,
// the average power per busy processor at X, and the runtime scale
// t(X)/t(Xmax) (1 at Xmax, usually > 1 below it). The simulator only ever
// sees Levels: the regression forms stay inside this package.
type Level struct {
	X     float64 // GHz (Freq, GPUFreq) or W (Cap, GPUCap)
	Power float64 // W per processor (per GPU for GPU knobs)
	Scale float64 // t(X) / t(Xmax)
}

// Table is the ordered list of Levels of one application for one knob,
// ascending in X; the last entry is Xmax (Scale 1) and the first Xmin.
type Table struct {
	App    string
	Knob   Knob
	Levels []Level

	// Clamped counts the Levels whose fitted power exceeded the cap X and
	// was clamped to X (CapTable only): a job's power never exceeds its cap.
	Clamped int

	// Outside counts the Levels whose X lies outside the range the model was
	// fitted on; models are not extrapolated, so those Levels repeat the
	// values at the nearest end of the range.
	Outside int
}

// Max returns the highest setting (the performance governor's choice).
func (t *Table) Max() Level { return t.Levels[len(t.Levels)-1] }

// Min returns the lowest setting (the powersave governor's choice).
func (t *Table) Min() Level { return t.Levels[0] }
