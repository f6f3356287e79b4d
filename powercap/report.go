package powercap

import (
	"fmt"
	"io"
	"text/tabwriter"
)

// Predict returns one model quantity at setting x of knob k: "runtime" in s
// (the model's own t(x), i.e. a job whose runtime at Xmax is t(Xmax)),
// "power" in W and "energy" in J = p(x)·t(x), both per processor and
// multiplied by nodes (nodes <= 0 counts as 1). Outside the measured range
// the model is held at its nearest end, as in the Tables.
func Predict(p *Profile, k Knob, x float64, quantity string, nodes int) (float64, error) {
	n := float64(max(nodes, 1))
	switch quantity {
	case "runtime":
		return p.Runtime(k, x)
	case "power":
		v, err := p.Power(k, x)
		return v * n, err
	case "energy":
		v, err := p.Energy(k, x)
		return v * n, err
	}
	return 0, fmt.Errorf("powercap: unknown quantity %q (known: energy, power, runtime)", quantity)
}

// WriteAppList prints one line per profile: its measured frequency and cap
// ranges and its energy-optimal setting (minimum p·t per processor) over the
// P-states ps and the caps of g, with that energy. Profiles with GPU models
// follow in a second table (writeGPUList).
func WriteAppList(w io.Writer, profiles []Profile, ps PStates, g CapGrid) error {
	fs, err := ps.List()
	if err != nil {
		return err
	}
	caps, err := g.List()
	if err != nil {
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "app\tfreq range GHz\tbest GHz\tenergy J\tcap range W\tbest W\tenergy J\tsource")
	gpu := false
	for i := range profiles {
		p := &profiles[i]
		if p.HasGPU() { // listed by writeGPUList (gpu_report.go)
			gpu = true
			continue
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", p.Name, optimum(p, Freq, fs, "%.2f"), optimum(p, Cap, caps, "%.0f"), p.Source)
	}
	if err := tw.Flush(); err != nil || !gpu {
		return err
	}
	fmt.Fprintln(w)
	return writeGPUList(w, profiles)
}

func optimum(p *Profile, k Knob, xs []float64, xfmt string) string {
	rng := "-"
	if m := p.Model(k); m != nil {
		rng = fmt.Sprintf(xfmt+"–"+xfmt, m.XMin, m.XMax)
	} else if p.Bound == nil {
		return "-\t-\t-"
	} else {
		rng = "fallback"
	}
	x, e, err := p.Optimal(k, xs)
	if err != nil {
		return rng + "\t-\t-"
	}
	return fmt.Sprintf("%s\t"+xfmt+"\t%.4g", rng, x, e)
}
