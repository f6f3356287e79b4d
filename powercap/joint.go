package powercap

import (
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"text/tabwriter"

	"gonum.org/v1/gonum/mat"
)

// Joint-model forms.
const (
	JointTable     = "table"     // bilinear interpolation over a measured (CPU cap, GPU cap) grid
	JointSeparable = "separable" // fallback: product of the single-knob cap and GPU-cap models
)

// JointModel gives runtime and power of a job that uses both a CPU and GPUs
// as functions of the (CPU cap c, GPU cap g) pair. Form "table" holds the
// means of the measured repeats at every node of a full grid, row-major
// (index i·len(GPUCaps)+j for CPUCaps[i], GPUCaps[j]), and interpolates
// bilinearly between nodes; outside the grid it holds the nearest edge.
// CPUPower (W per CPU package) and GPUPower (W per GPU) are empty when the
// data had no energy. Fit records the quality of the table and, for
// comparison, of the biquadratic regression on the same points (joint.go
// documents both); the table was chosen because its leave-one-node-out
// error is the lower one on every measured grid (docs/gpu.md).
type JointModel struct {
	Form     string    `json:"form"`
	CPUCaps  []float64 `json:"cpu_caps_w"`
	GPUCaps  []float64 `json:"gpu_caps_w"`
	Runtime  []float64 `json:"runtime_s"`
	CPUPower []float64 `json:"cpu_power_w"`
	GPUPower []float64 `json:"gpu_power_w"`
	N        int       `json:"n"` // measurements averaged into the table
	Fit      JointFit  `json:"fit"`
}

// JointFit is the quality of a JointModel per quantity.
type JointFit struct {
	Runtime  JointQuality  `json:"runtime"`
	CPUPower *JointQuality `json:"cpu_power"` // nil when there is no CPU power
	GPUPower *JointQuality `json:"gpu_power"` // nil when there is no GPU power
}

// JointQuality compares the table with the biquadratic regression
// y = Σ_{a,b ≤ 2} k_ab·c^a·g^b (9 coefficients, least squares) on the same
// points. R² and RMSE are over the measured points (for the table the
// residuals are the scatter of the repeats around their node's mean);
// LOO-RMSE leaves out one grid node (all its repeats) at a time: the
// regression is refitted without it, and the table predicts it from its
// row and column neighbours (the mean of the linear interpolations along
// the CPU-cap and the GPU-cap axis, extrapolating linearly at an edge).
// Quad is zero on grids of 9 nodes or fewer (the regression would
// interpolate them), its LOO-RMSE zero when a refit is singular.
type JointQuality struct {
	Table Stats `json:"table"`
	Quad  Stats `json:"biquadratic"`
}

// Stats is one fit's R², RMSE and leave-one-out RMSE.
type Stats struct {
	R2      float64 `json:"r2"`
	RMSE    float64 `json:"rmse"`
	LOORMSE float64 `json:"loo_rmse"`
}

func (j *JointModel) validate() error {
	nc, ng := len(j.CPUCaps), len(j.GPUCaps)
	if j.Form != JointTable {
		return fmt.Errorf("form %q, want %q (the separable fallback is computed, not stored)", j.Form, JointTable)
	}
	if nc < 2 || ng < 2 {
		return fmt.Errorf("grid %d×%d: want at least 2 CPU caps and 2 GPU caps", nc, ng)
	}
	for _, a := range []struct {
		what string
		v    []float64
	}{{"cpu_caps_w", j.CPUCaps}, {"gpu_caps_w", j.GPUCaps}} {
		if _, err := ascending(a.v, a.what); err != nil {
			return err
		}
	}
	for _, a := range []struct {
		what     string
		v        []float64
		optional bool
	}{{"runtime_s", j.Runtime, false}, {"cpu_power_w", j.CPUPower, true}, {"gpu_power_w", j.GPUPower, true}} {
		if a.optional && len(a.v) == 0 {
			continue
		}
		if len(a.v) != nc*ng {
			return fmt.Errorf("%s has %d values, want %d×%d = %d", a.what, len(a.v), nc, ng, nc*ng)
		}
		for i, v := range a.v {
			if !(v > 0) || math.IsInf(v, 0) {
				return fmt.Errorf("%s[%d] = %v is not positive and finite", a.what, i, v)
			}
		}
	}
	return nil
}

// at interpolates the row-major table v bilinearly at (c, g), holding the
// nearest edge outside the grid.
func (j *JointModel) at(v []float64, c, g float64) float64 {
	i, u := cell(j.CPUCaps, c)
	k, w := cell(j.GPUCaps, g)
	ng := len(j.GPUCaps)
	v00, v01 := v[i*ng+k], v[i*ng+k+1]
	v10, v11 := v[(i+1)*ng+k], v[(i+1)*ng+k+1]
	return (1-u)*((1-w)*v00+w*v01) + u*((1-w)*v10+w*v11)
}

// cell returns the index i of the interval [xs[i], xs[i+1]] holding x
// (clamped into the range) and x's fractional position in it.
func cell(xs []float64, x float64) (int, float64) {
	x = math.Min(math.Max(x, xs[0]), xs[len(xs)-1])
	i, _ := slices.BinarySearch(xs, x)
	i = min(max(i-1, 0), len(xs)-2)
	return i, (x - xs[i]) / (xs[i+1] - xs[i])
}

// JointPoint is the model's prediction at one (CPU cap, GPU cap) pair.
type JointPoint struct {
	Runtime  float64 // s
	CPUPower float64 // W per CPU package, never above the CPU cap
	GPUPower float64 // W per GPU, never above the GPU cap
}

// Joint evaluates the app at CPU cap c and GPU cap g (W). With a measured
// grid (Profile.Joint) it interpolates the table; otherwise it falls back
// to the separable model built from the single-knob sweeps:
//
//	t(c, g)     = t_cap(c) · t_gpucap(g) / t_gpucap(g_max)
//	p_cpu(c, g) = p_cap(c),   p_gpu(c, g) = p_gpucap(g)
//
// where t_cap, p_cap come from the CPU-cap sweep (taken at the highest GPU
// cap) and t_gpucap, p_gpucap from the GPU-cap sweep (taken at a high CPU
// cap): the slowdowns multiply and each device's power depends on its own
// cap only. Its error, measured on the apps that have a grid, is in
// docs/gpu.md (SeparableError). It needs both a cap and a gpucap model;
// missing power curves give NaN powers. Powers are clamped to their cap.
func (p *Profile) JointAt(c, g float64) (JointPoint, error) {
	if j := p.Joint; j != nil {
		out := JointPoint{Runtime: j.at(j.Runtime, c, g), CPUPower: math.NaN(), GPUPower: math.NaN()}
		if len(j.CPUPower) > 0 {
			out.CPUPower = math.Min(j.at(j.CPUPower, c, g), c)
		}
		if len(j.GPUPower) > 0 {
			out.GPUPower = math.Min(j.at(j.GPUPower, c, g), g)
		}
		return out, nil
	}
	if p.Cap == nil || p.GPUCap == nil {
		return JointPoint{}, fmt.Errorf("powercap: app %q has no joint model: it needs a measured grid, or both a cap and a gpucap model for the separable fallback", p.Name)
	}
	tc := p.Cap.Runtime.At(p.Cap.clamp(c))
	tg := p.GPUCap.Runtime.At(p.GPUCap.clamp(g)) / p.GPUCap.Runtime.At(p.GPUCap.XMax)
	out := JointPoint{Runtime: tc * tg, CPUPower: math.NaN(), GPUPower: math.NaN()}
	if p.Cap.Power != nil {
		out.CPUPower = math.Min(p.Cap.Power.At(p.Cap.clamp(c)), c)
	}
	if p.GPUCap.Power != nil {
		out.GPUPower = math.Min(p.GPUCap.Power.At(p.GPUCap.clamp(g)), g)
	}
	return out, nil
}

// HasGPU reports whether p has any GPU model.
func (p *Profile) HasGPU() bool { return p.GPUFreq != nil || p.GPUCap != nil || p.Joint != nil }

// PairLevel is one (CPU cap, GPU cap) operating point of a job on a GPU
// node: the option the demand-response governor's multiple-choice knapsack
// picks per job. Power is per node: one CPU package plus GPUs GPUs.
type PairLevel struct {
	CPUCap, GPUCap float64 // W
	Power          float64 // W per node = CPUPower + GPUs·GPUPower
	Scale          float64 // t(c, g) / t(c_max, g_max)
}

// PairTable is the list of PairLevels of one app: every (CPU cap, GPU cap)
// pair of the two grids, CPU cap major, both ascending; the last entry is
// (c_max, g_max) with Scale 1.
type PairTable struct {
	App    string
	GPUs   int // GPUs per node
	Levels []PairLevel
}

// PairTable evaluates Joint at every pair of cpuCaps × gpuCaps (both
// strictly ascending, W) for a node with gpus GPUs (>= 1). Both powers must
// be known: a model without energy data cannot give a node power.
func (p *Profile) PairTable(cpuCaps, gpuCaps []float64, gpus int) (PairTable, error) {
	if gpus < 1 {
		return PairTable{}, fmt.Errorf("powercap: %d GPUs per node, want >= 1", gpus)
	}
	for _, a := range []struct {
		what string
		v    []float64
	}{{"CPU cap", cpuCaps}, {"GPU cap", gpuCaps}} {
		if len(a.v) == 0 {
			return PairTable{}, fmt.Errorf("powercap: no %s to tabulate", a.what)
		}
		if _, err := ascending(a.v, a.what); err != nil {
			return PairTable{}, err
		}
	}
	top, err := p.JointAt(cpuCaps[len(cpuCaps)-1], gpuCaps[len(gpuCaps)-1])
	if err != nil {
		return PairTable{}, err
	}
	t := PairTable{App: p.Name, GPUs: gpus, Levels: make([]PairLevel, 0, len(cpuCaps)*len(gpuCaps))}
	for _, c := range cpuCaps {
		for _, g := range gpuCaps {
			v, _ := p.JointAt(c, g)
			w := v.CPUPower + float64(gpus)*v.GPUPower
			if !(w > 0) || math.IsInf(w, 0) || !(v.Runtime > 0) {
				return PairTable{}, fmt.Errorf("powercap: app %q at CPU cap %v W, GPU cap %v W: node power %.4g W, runtime %.4g s (the model needs CPU and GPU power)", p.Name, c, g, w, v.Runtime)
			}
			t.Levels = append(t.Levels, PairLevel{CPUCap: c, GPUCap: g, Power: w, Scale: v.Runtime / top.Runtime})
		}
	}
	return t, nil
}

// Options appends to dst one MCKP Option per pair level for a job on nodes
// nodes whose remaining runtime at (c_max, g_max) is rem seconds: Weight =
// nodes·Power (W), Cost = nodes·Power·Scale·rem, the energy (J) to finish
// at that pair. One job's options are one class of MCKP.Solve.
func (t *PairTable) Options(dst []Option, nodes int, rem float64) []Option {
	n := float64(nodes)
	for _, l := range t.Levels {
		dst = append(dst, Option{Weight: n * l.Power, Cost: n * l.Power * l.Scale * rem})
	}
	return dst
}

// calibrateJoint fits the table model of one app from grid points (both
// caps set): every (CPU cap, GPU cap) pair of the distinct caps must have
// at least one measurement.
func calibrateJoint(pts []Point) (*JointModel, error) {
	first := pts[0]
	fail := func(err error) error {
		return &FileError{File: first.File, Line: first.Line, Field: fmt.Sprintf("app %q joint", first.App), Err: err}
	}
	var cs, gs []float64
	for _, p := range pts {
		if !(p.Cap > 0) || !(p.GPUCap > 0) {
			return nil, &FileError{File: p.File, Line: p.Line, Field: fmt.Sprintf("app %q", p.App), Err: errors.New("a joint model needs both a CPU cap and a GPU cap (use --format ecp-dual)")}
		}
		for _, c := range []struct {
			v float64
			k Knob
		}{{p.Cap, Cap}, {p.GPUCap, GPUCap}} {
			if err := checkX(p, c.k, c.v); err != nil {
				return nil, err
			}
		}
		cs, gs = append(cs, p.Cap), append(gs, p.GPUCap)
	}
	slices.Sort(cs)
	slices.Sort(gs)
	cs, gs = slices.Compact(cs), slices.Compact(gs)
	if len(cs) < 3 || len(gs) < 3 {
		return nil, fail(fmt.Errorf("grid %d CPU caps × %d GPU caps: want at least 3 of each: %w", len(cs), len(gs), ErrTooFewPoints))
	}
	j := &JointModel{Form: JointTable, CPUCaps: cs, GPUCaps: gs, N: len(pts)}
	node := func(p Point) int {
		i, _ := slices.BinarySearch(cs, p.Cap)
		k, _ := slices.BinarySearch(gs, p.GPUCap)
		return i*len(gs) + k
	}
	quantities := []struct {
		what string
		get  func(Point) float64
		dst  *[]float64
	}{
		{"runtime", func(p Point) float64 { return p.Runtime }, &j.Runtime},
		{"CPU power", func(p Point) float64 { return p.Power }, &j.CPUPower},
		{"GPU power", func(p Point) float64 { return p.GPUPower }, &j.GPUPower},
	}
	for qi, qu := range quantities {
		var idx []int
		var y []float64
		for _, p := range pts {
			if v := qu.get(p); !math.IsNaN(v) {
				idx, y = append(idx, node(p)), append(y, v)
			}
		}
		if len(y) == 0 && qi > 0 {
			continue // no energy in the data: runtime only
		}
		means, miss := nodeMeans(idx, y, len(cs)*len(gs))
		if miss >= 0 { // a missing pair, or one whose every run's energy was dropped
			return nil, fail(fmt.Errorf("the grid is incomplete: no %s at CPU cap %v W, GPU cap %v W", qu.what, cs[miss/len(gs)], gs[miss%len(gs)]))
		}
		*qu.dst = means
		q, err := jointQuality(cs, gs, idx, y, means)
		if err != nil {
			return nil, fail(err)
		}
		switch qi {
		case 0:
			j.Fit.Runtime = q
		case 1:
			j.Fit.CPUPower = &q
		case 2:
			j.Fit.GPUPower = &q
		}
	}
	return j, nil
}

// nodeMeans averages y by node; miss is the first node with no value, or −1.
func nodeMeans(idx []int, y []float64, n int) (means []float64, miss int) {
	sum, cnt := make([]float64, n), make([]int, n)
	for i, v := range y {
		sum[idx[i]] += v
		cnt[idx[i]]++
	}
	for k := range sum {
		if cnt[k] == 0 {
			return nil, k
		}
		sum[k] /= float64(cnt[k])
	}
	return sum, -1
}

// jointQuality computes the Stats of the table and of the biquadratic
// regression for the points (node idx[i], value y[i]).
func jointQuality(cs, gs []float64, idx []int, y, means []float64) (JointQuality, error) {
	ng := len(gs)
	my := mean(y)
	var sst float64
	for _, v := range y {
		sst += (v - my) * (v - my)
	}
	stats := func(pred, loo func(i int) float64) Stats {
		var ss, sl float64
		for i, v := range y {
			r, l := v-pred(i), v-loo(i)
			ss += r * r
			sl += l * l
		}
		n := float64(len(y))
		s := Stats{R2: 1, RMSE: math.Sqrt(ss / n), LOORMSE: math.Sqrt(sl / n)}
		if sst > 0 {
			s.R2 = 1 - ss/sst
		}
		return s
	}
	// Table: fitted value = node mean; LOO from the row and column neighbours.
	tloo := make([]float64, len(means))
	for k := range means {
		i, j := k/ng, k%ng
		row := func(a int) float64 { return means[i*ng+a] }
		col := func(a int) float64 { return means[a*ng+j] }
		tloo[k] = (leaveOut(gs, j, row) + leaveOut(cs, i, col)) / 2
	}
	var q JointQuality
	q.Table = stats(func(i int) float64 { return means[idx[i]] }, func(i int) float64 { return tloo[idx[i]] })
	// Biquadratic regression in centred, scaled caps.
	cc, cw := centre(cs)
	gc, gw := centre(gs)
	design := func(keep func(i int) bool) (*mat.Dense, []float64) {
		var rows, ys []float64
		for i, v := range y {
			if keep(i) {
				u, w := (cs[idx[i]/ng]-cc)/cw, (gs[idx[i]%ng]-gc)/gw
				rows = append(rows, biquad(u, w)...)
				ys = append(ys, v)
			}
		}
		return mat.NewDense(len(ys), 9, rows), ys
	}
	eval := func(b []float64, k int) float64 {
		f := biquad((cs[k/ng]-cc)/cw, (gs[k%ng]-gc)/gw)
		var s float64
		for t := range f {
			s += b[t] * f[t]
		}
		return s
	}
	if len(means) <= 9 { // the regression would interpolate: no comparison
		return q, nil
	}
	a, ys := design(func(int) bool { return true })
	b, err := lsq(a, ys)
	if err != nil {
		return q, err
	}
	qloo := make([]float64, len(means))
	for k := range means {
		a, ys := design(func(i int) bool { return idx[i] != k })
		bk, err := lsq(a, ys)
		if err != nil {
			qloo = nil // too few nodes without k: no LOO estimate (0)
			break
		}
		qloo[k] = eval(bk, k)
	}
	q.Quad = stats(func(i int) float64 { return eval(b, idx[i]) }, func(i int) float64 {
		if qloo == nil {
			return math.NaN()
		}
		return qloo[idx[i]]
	})
	if qloo == nil {
		q.Quad.LOORMSE = 0
	}
	return q, nil
}

// biquad returns the 9 terms u^a·w^b, a, b ∈ {0, 1, 2}.
func biquad(u, w float64) []float64 {
	return []float64{1, u, u * u, w, u * w, u * u * w, w * w, u * w * w, u * u * w * w}
}

// leaveOut predicts v(x[k]) from the other points of one grid line: linear
// interpolation between the neighbours k−1 and k+1, or linear
// extrapolation from the two nearest at an end (the line has >= 3 points).
func leaveOut(x []float64, k int, v func(int) float64) float64 {
	a, b := k-1, k+1
	switch {
	case k == 0:
		a, b = 1, 2
	case k == len(x)-1:
		a, b = k-2, k-1
	}
	return v(a) + (v(b)-v(a))*(x[k]-x[a])/(x[b]-x[a])
}

// writeJointReport prints the grid, the quality of the table and of the
// biquadratic regression per quantity, and the table of node means.
func (c *Calibration) writeJointReport(w io.Writer) error {
	j := c.Profile.Joint
	fmt.Fprintf(w, "app %s  knob joint  points %d  grid %d CPU caps %.4g–%.4g W × %d GPU caps %.4g–%.4g W\n", c.Profile.Name, len(c.Points),
		len(j.CPUCaps), j.CPUCaps[0], j.CPUCaps[len(j.CPUCaps)-1], len(j.GPUCaps), j.GPUCaps[0], j.GPUCaps[len(j.GPUCaps)-1])
	for _, q := range []struct {
		name, unit string
		q          *JointQuality
	}{{"runtime", "s", &j.Fit.Runtime}, {"cpu W", "W", j.Fit.CPUPower}, {"gpu W", "W", j.Fit.GPUPower}} {
		if q.q == nil {
			fmt.Fprintf(w, "  %-7s  (no energy in the data)\n", q.name)
			continue
		}
		fmt.Fprintf(w, "  %-7s  table        R²=%.5f  RMSE=%.4g %s  LOO-RMSE=%.4g %s\n", q.name, q.q.Table.R2, q.q.Table.RMSE, q.unit, q.q.Table.LOORMSE, q.unit)
		fmt.Fprintf(w, "  %-7s  biquadratic  R²=%.5f  RMSE=%.4g %s  LOO-RMSE=%.4g %s\n", "", q.q.Quad.R2, q.q.Quad.RMSE, q.unit, q.q.Quad.LOORMSE, q.unit)
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "\tCPU cap W\tGPU cap W\truntime s\tCPU W\tGPU W\t\n")
	ng := len(j.GPUCaps)
	val := func(v []float64, k int) string {
		if len(v) == 0 {
			return "-"
		}
		return fmt.Sprintf("%.4g", v[k])
	}
	for k := range j.Runtime {
		fmt.Fprintf(tw, "\t%.4g\t%.4g\t%s\t%s\t%s\t\n", j.CPUCaps[k/ng], j.GPUCaps[k%ng], val(j.Runtime, k), val(j.CPUPower, k), val(j.GPUPower, k))
	}
	return tw.Flush()
}
