package powercap

import (
	"fmt"
	"io"
	"text/tabwriter"
)

// PredictJoint returns one model quantity of a job on GPU nodes at CPU cap c
// and GPU cap g (W), from Profile.JointAt (the measured grid, or the
// separable fallback): "runtime" in s, "power" in W per node (one CPU
// package plus gpus GPUs) times nodes, "energy" = power·runtime in J.
// nodes and gpus <= 0 count as 1.
func PredictJoint(p *Profile, c, g float64, quantity string, nodes, gpus int) (float64, error) {
	v, err := p.JointAt(c, g)
	if err != nil {
		return 0, err
	}
	w := (v.CPUPower + float64(max(gpus, 1))*v.GPUPower) * float64(max(nodes, 1))
	switch quantity {
	case "runtime":
		return v.Runtime, nil
	case "power", "energy":
		if w != w { // NaN: a runtime-only sweep
			return 0, fmt.Errorf("powercap: app %q has no joint power model (the data had no energy)", p.Name)
		}
		if quantity == "power" {
			return w, nil
		}
		return w * v.Runtime, nil
	}
	return 0, fmt.Errorf("powercap: unknown quantity %q (known: energy, power, runtime)", quantity)
}

// writeGPUList prints one line per GPU model of each profile with one:
// device, knob, measured range, R² (and LOO RMSE) of the power and runtime
// fits. A joint line gives the grid and the table's runtime R², or says the
// joint model is the separable fallback.
func writeGPUList(w io.Writer, profiles []Profile) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "gpu app\tdevice\tknob\trange\tpower R²\tpower LOO W\truntime R²\truntime LOO\tpoints")
	for i := range profiles {
		p := &profiles[i]
		if !p.HasGPU() {
			continue
		}
		for _, k := range []Knob{GPUFreq, GPUCap, Cap} {
			m := p.Model(k)
			if m == nil {
				continue
			}
			pr, pl := "-", "-"
			if m.Power != nil {
				pr, pl = fmt.Sprintf("%.4f", m.Power.R2), fmt.Sprintf("%.3g", m.Power.LOORMSE)
			}
			xf := "%.3g–%.3g GHz"
			if k.IsCap() {
				xf = "%.0f–%.0f W"
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t"+xf+"\t%s\t%s\t%.4f\t%.3g\t%d\n", p.Name, p.Device, k, m.XMin, m.XMax, pr, pl, m.Runtime.R2, m.Runtime.LOORMSE, m.Runtime.N)
		}
		switch j := p.Joint; {
		case j != nil:
			pr, pl := "-", "-"
			if q := j.Fit.GPUPower; q != nil {
				pr, pl = fmt.Sprintf("%.4f", q.Table.R2), fmt.Sprintf("%.3g", q.Table.LOORMSE)
			}
			fmt.Fprintf(tw, "%s\t%s\tjoint\t%.0f–%.0f W × %.0f–%.0f W\t%s\t%s\t%.4f\t%.3g\t%d\n", p.Name, p.Device,
				j.CPUCaps[0], j.CPUCaps[len(j.CPUCaps)-1], j.GPUCaps[0], j.GPUCaps[len(j.GPUCaps)-1], pr, pl, j.Fit.Runtime.Table.R2, j.Fit.Runtime.Table.LOORMSE, j.N)
		case p.Cap != nil && p.GPUCap != nil:
			fmt.Fprintf(tw, "%s\t%s\tjoint\tseparable fallback (cap × gpucap)\t-\t-\t-\t-\t-\n", p.Name, p.Device)
		}
	}
	return tw.Flush()
}
