package powercap

// Knapsack solves the 0-1 knapsack problem in maximisation form: keep a
// subset of items maximising Σvalue subject to Σweight ≤ capacity (in the
// scheduler: which jobs keep running at fmin, weight = their power at fmin,
// value = the energy they have already spent). The zero value is ready to
// use; scratch buffers are kept between calls. Not safe for concurrent use.
//
// It is the multiple-choice problem with two options per item, keep
// (weight, −value) at index 0 and drop (0, 0) at index 1, solved by MCKP: so
// the answer is exact on float64 data, with the LP bound of MCKP being
// Dantzig's fractional bound (items by value/weight ratio) and its
// Lagrangian form the bound at every partial solution. Ties: maximum value,
// then minimum kept weight, then keeping lower-indexed items. Sums are
// accumulated from the last item to the first.
type Knapsack struct {
	mckp    MCKP
	opts    []Option
	classes [][]Option
	keep    []bool
}

// Solve returns which items to keep and their total value. Items with a
// NaN or infinite weight or value are never kept; a capacity that even
// the empty set does not fit (negative or NaN) keeps nothing and returns
// value 0. keep is owned by the solver and valid until the next call.
func (k *Knapsack) Solve(weights, values []float64, capacity float64) (keep []bool, value float64) {
	n := len(weights)
	k.keep = mckpResize(k.keep, n)
	k.opts = mckpResize(k.opts, 2*n)
	k.classes = mckpResize(k.classes, n)
	for i := range n {
		k.opts[2*i] = Option{Weight: weights[i], Cost: -values[i]}
		k.opts[2*i+1] = Option{}
		k.classes[i] = k.opts[2*i : 2*i+2 : 2*i+2]
	}
	choice, cost, ok := k.mckp.Solve(k.classes, capacity)
	if !ok {
		clear(k.keep)
		return k.keep, 0
	}
	for i, c := range choice {
		k.keep[i] = c == 0
	}
	return k.keep, 0 - cost
}
