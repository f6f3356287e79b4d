package powercap

import (
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/interp"
)

// ETSModel predicts a malleable job's energy-to-solution (J) from the number
// of nodes it runs on.
type ETSModel interface {
	Name() string
	Predict(nodes float64) float64
}

// ETSScore is one candidate predictor's fit: its training RMSE and its
// leave-one-out cross-validated RMSE (J); +Inf when there are too few
// points to fit it (or to leave one out).
type ETSScore struct {
	Name              string
	TrainRMSE, CVRMSE float64
}

// etsMinLine is the fewest points a linear part may have: two points are
// interpolated, not fitted, and would make any breakpoint look perfect.
const etsMinLine = 3

// The five energy-to-solution predictors, in the order that breaks ties.
var etsKinds = [...]string{"linear", "spline", "linear+spline", "spline+linear", "linear+spline+linear"}

// FitETS fits the five energy-to-solution predictors to measurements
// (nodes[i], energy[i]) and returns the one with the least leave-one-out
// RMSE (ties, within 1e-9 of the largest |energy|, go to the earlier one in
// the order linear, spline, linear+spline, spline+linear,
// linear+spline+linear) with every predictor's scores in that order.
//
// Repeated node counts are averaged first. "linear" is the least-squares
// line; "spline" the Fritsch–Butland monotone cubic interpolant (gonum
// interp), extended linearly beyond the data with its end slopes. The
// piecewise predictors split the node range at measured node counts: each
// linear part is the least-squares line of its points (at least two), and
// the spline interpolates the points strictly inside its part plus the
// adjacent line's value at each breakpoint, so the predictor is continuous.
// Breakpoints are chosen on the training points only, but not by their
// training RMSE: the spline interpolates, so that RMSE measures the linear
// parts alone and is smallest for the shortest ones (zero for any line
// through two points). Instead they minimise the mean squared
// leave-one-out residual of the linear parts (closed form, e/(1−h)), which
// stays flat while a line follows its points and rises once it bends with
// them; each linear part has at least three points; ties (within the
// tolerance above) go to the longest linear parts, then the lowest
// breakpoints. Cross-validation refits the breakpoints without the
// left-out point. A linear part joins the spline with the line's value and
// slope (C¹).
//
// Errors: lengths differ, NaN or infinite values, fewer than three
// distinct node counts.
func FitETS(nodes, energy []float64) (best ETSModel, scores []ETSScore, err error) {
	x, y, err := etsPoints(nodes, energy)
	if err != nil {
		return nil, nil, err
	}
	tol := 1e-9 * slices.Max(etsAbs(y))
	scores = make([]ETSScore, len(etsKinds))
	bestCV := math.Inf(1)
	for k, name := range etsKinds {
		m, sse, ok := fitETSKind(k, x, y, tol)
		scores[k] = ETSScore{Name: name, TrainRMSE: math.Inf(1), CVRMSE: math.Inf(1)}
		if !ok {
			continue
		}
		scores[k].TrainRMSE = math.Sqrt(sse / float64(len(x)))
		scores[k].CVRMSE = etsLOO(k, x, y, tol)
		if best == nil || scores[k].CVRMSE < bestCV-tol {
			best, bestCV = m, scores[k].CVRMSE
		}
	}
	return best, scores, nil
}

// etsPoints validates the data and returns distinct node counts ascending
// with their mean energies.
func etsPoints(nodes, energy []float64) (x, y []float64, err error) {
	if len(nodes) != len(energy) {
		return nil, nil, fmt.Errorf("powercap: ets: %d node counts but %d energies", len(nodes), len(energy))
	}
	idx := make([]int, len(nodes))
	for i := range nodes {
		if !isFiniteF(nodes[i]) || !isFiniteF(energy[i]) {
			return nil, nil, fmt.Errorf("powercap: ets: point %d: nodes=%g energy=%g is not finite", i, nodes[i], energy[i])
		}
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int { return etsCmp(nodes[a], nodes[b]) })
	for i := 0; i < len(idx); {
		j, sum := i, 0.0
		for ; j < len(idx) && nodes[idx[j]] == nodes[idx[i]]; j++ {
			sum += energy[idx[j]]
		}
		x = append(x, nodes[idx[i]])
		y = append(y, sum/float64(j-i))
		i = j
	}
	if len(x) < 3 {
		return nil, nil, fmt.Errorf("powercap: ets: %d distinct node counts, need at least 3", len(x))
	}
	return x, y, nil
}

func etsCmp(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func etsAbs(y []float64) []float64 {
	a := make([]float64, len(y))
	for i, v := range y {
		a[i] = math.Abs(v)
	}
	return a
}

// etsLOO is the leave-one-out RMSE of predictor kind k, +Inf if it cannot
// be fitted without some point.
func etsLOO(k int, x, y []float64, tol float64) float64 {
	n := len(x)
	xs, ys := make([]float64, 0, n-1), make([]float64, 0, n-1)
	var sse float64
	for i := range n {
		xs = append(append(xs[:0], x[:i]...), x[i+1:]...)
		ys = append(append(ys[:0], y[:i]...), y[i+1:]...)
		m, _, ok := fitETSKind(k, xs, ys, tol)
		if !ok {
			return math.Inf(1)
		}
		d := m.Predict(x[i]) - y[i]
		sse += d * d
	}
	return math.Sqrt(sse / float64(n))
}

// fitETSKind fits predictor kind k to sorted distinct points and returns
// it with its training sum of squared errors; ok=false if there are too
// few points for it.
func fitETSKind(k int, x, y []float64, tol float64) (m *etsModel, sse float64, ok bool) {
	n := len(x)
	switch etsKinds[k] {
	case "linear":
		m = &etsModel{name: etsKinds[k], left: etsFitLine(x, y), lo: math.Inf(1)}
		return m, m.sse(x, y), n >= 2
	case "spline":
		m = &etsModel{name: etsKinds[k], lo: math.Inf(-1), hi: math.Inf(1)}
		m.fitSpline(x, y, nil, nil)
		return m, 0, n >= 2
	}
	// Breakpoint indices: b1 ends the left line (points 0..b1), b2 starts
	// the right line (points b2..n-1); -1 / n when there is none.
	hasL, hasR := etsKinds[k] != "spline+linear", etsKinds[k] != "linear+spline"
	b1s, b2s := []int{-1}, []int{n}
	if hasL {
		b1s = etsSeq(etsMinLine-1, n-2)
	}
	if hasR {
		b2s = etsSeq(1, n-etsMinLine)
	}
	bestCrit, bestLin := math.Inf(1), -1
	for _, b1 := range b1s {
		for _, b2 := range b2s {
			if b1 >= b2 {
				continue
			}
			crit, lin := etsLinePRESS(x, y, b1, b2)
			if crit < bestCrit-tol*tol || (crit <= bestCrit+tol*tol && lin > bestLin) {
				m, bestCrit, bestLin = etsPiecewise(etsKinds[k], x, y, b1, b2), crit, lin
			}
		}
	}
	if m == nil {
		return nil, 0, false
	}
	return m, m.sse(x, y), true
}

// etsLinePRESS returns the mean squared leave-one-out residual of the
// linear parts (points 0..b1 and b2..n-1), in closed form e/(1−h), and
// their number of points.
func etsLinePRESS(x, y []float64, b1, b2 int) (crit float64, lin int) {
	var sum float64
	if b1 >= 0 {
		sum += etsPRESS(x[:b1+1], y[:b1+1])
		lin += b1 + 1
	}
	if b2 < len(x) {
		sum += etsPRESS(x[b2:], y[b2:])
		lin += len(x) - b2
	}
	return sum / float64(lin), lin
}

// etsPRESS is the sum of squared leave-one-out residuals of the
// least-squares line through (x, y), len(x) ≥ 3 distinct.
func etsPRESS(x, y []float64) float64 {
	l := etsFitLine(x, y)
	var mx, sxx float64
	for _, v := range x {
		mx += v
	}
	mx /= float64(len(x))
	for _, v := range x {
		sxx += (v - mx) * (v - mx)
	}
	var s float64
	for i, v := range x {
		h := 1/float64(len(x)) + (v-mx)*(v-mx)/sxx
		e := (y[i] - l.at(v)) / (1 - h)
		s += e * e
	}
	return s
}

func etsSeq(a, b int) []int {
	var s []int
	for i := a; i <= b; i++ {
		s = append(s, i)
	}
	return s
}

// etsPiecewise builds the predictor with a left line on points 0..b1 (none if
// b1 < 0), a right line on points b2..n-1 (none if b2 ≥ n), and the spline
// between, through the lines' values at the breakpoints.
func etsPiecewise(name string, x, y []float64, b1, b2 int) *etsModel {
	n := len(x)
	m := &etsModel{name: name, lo: math.Inf(-1), hi: math.Inf(1)}
	var sx, sy []float64
	var d0, d1 *float64
	if b1 >= 0 {
		m.left, m.lo = etsFitLine(x[:b1+1], y[:b1+1]), x[b1]
		sx, sy = append(sx, x[b1]), append(sy, m.left.at(x[b1]))
		d0 = &m.left.b
	}
	first, last := b1+1, b2-1
	sx, sy = append(sx, x[first:last+1]...), append(sy, y[first:last+1]...)
	if b2 < n {
		m.right, m.hi = etsFitLine(x[b2:], y[b2:]), x[b2]
		sx, sy = append(sx, x[b2]), append(sy, m.right.at(x[b2]))
		d1 = &m.right.b
	}
	m.fitSpline(sx, sy, d0, d1)
	return m
}

type etsLine struct{ a, b float64 } // y = a + b·x

func (l *etsLine) at(x float64) float64 { return l.a + l.b*x }

// etsFitLine is the least-squares line through (x, y), len(x) ≥ 2 distinct.
func etsFitLine(x, y []float64) *etsLine {
	var mx, my float64
	for i := range x {
		mx += x[i]
		my += y[i]
	}
	mx /= float64(len(x))
	my /= float64(len(x))
	var sxy, sxx float64
	for i := range x {
		sxy += (x[i] - mx) * (y[i] - my)
		sxx += (x[i] - mx) * (x[i] - mx)
	}
	b := sxy / sxx
	return &etsLine{a: my - b*mx, b: b}
}

// etsModel is one fitted predictor: optional lines left of lo and right of
// hi, and a spline in between (extended linearly beyond its knots).
type etsModel struct {
	name        string
	left, right *etsLine
	lo, hi      float64
	spline      interp.PiecewiseCubic
	sx0, sx1    float64 // the spline's knot range
	sy0, sy1    float64
	d0, d1      float64 // its end slopes
}

func (m *etsModel) Name() string { return m.name }

// Predict returns the predicted energy-to-solution (J) at nodes.
func (m *etsModel) Predict(nodes float64) float64 {
	switch {
	case m.left != nil && nodes <= m.lo:
		return m.left.at(nodes)
	case m.right != nil && nodes >= m.hi:
		return m.right.at(nodes)
	case nodes < m.sx0:
		return m.sy0 + m.d0*(nodes-m.sx0)
	case nodes > m.sx1:
		return m.sy1 + m.d1*(nodes-m.sx1)
	}
	return m.spline.Predict(nodes)
}

// fitSpline fits the Fritsch–Butland interpolant to (x, y); where d0 or
// d1 is given (the slope of the adjacent line), that end's derivative is
// replaced by it, so the predictor is smooth (C¹) at the breakpoint.
func (m *etsModel) fitSpline(x, y []float64, d0, d1 *float64) {
	n := len(x)
	var fb interp.FritschButland
	_ = fb.Fit(x, y) // always nil; n ≥ 2 and x strictly increasing here
	ds := make([]float64, n)
	for i, v := range x {
		ds[i] = fb.PredictDerivative(v)
	}
	if d0 != nil {
		ds[0] = *d0
	}
	if d1 != nil {
		ds[n-1] = *d1
	}
	m.spline.FitWithDerivatives(x, y, ds)
	m.sx0, m.sx1, m.sy0, m.sy1 = x[0], x[n-1], y[0], y[n-1]
	m.d0, m.d1 = ds[0], ds[n-1]
}

func (m *etsModel) sse(x, y []float64) float64 {
	var s float64
	for i := range x {
		d := m.Predict(x[i]) - y[i]
		s += d * d
	}
	return s
}
