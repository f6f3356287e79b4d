package netmodel

// Slack links. A link shared by two or more jobs is slack when it starts
// a fill above the rate alone of every job on it, by slackMargin:
//
//	c_l / load_l > max_{j on l} alone_j · (1 + slackMargin)
//
// Such a link never bounds any of its jobs, in any fill, so the solver
// leaves it out: a job's shared list holds only its tight links (shared,
// not slack), and the components (netcomp.go) are those of the graph of
// tight links, so a fill walks fewer links and solves fewer jobs together.
//
// Why it is exact. Every level a pop of job j computes is at most alone_j,
// bit for bit: a private link's bound c/a is one of alone_j's operands,
// and a shared link's level rem/lsum has rem ≤ c (a freeze subtracts a
// non-negative amount, clamped at 0, and rounding is monotone) and
// lsum ≥ a_jl while j is unfrozen, so rem/lsum ≤ c/a_jl. A freeze on l at
// x ≤ level_l leaves (rem − c·x)/(lsum − c) ≥ level_l, so a link's level
// only rises during a fill, up to roundings of relative size about c·N·2⁻⁵²
// (N the freezes on it), far below slackMargin: a slack link's level stays
// above every level its jobs' pops compute, it is never the minimum, and
// dropping it changes no minimum, no freeze elsewhere, and so no rate (the
// same argument as netskip.go's). Its own rem is then never read: the next
// fill that walks it sets it afresh. Jobs joined only through slack links
// get, solved apart, the rates they get solved together (split's argument),
// so the components may follow the tight links only.
//
// Upkeep. Status changes only where a link's job list does. An add
// raises the load and may raise the maximum, so it can only make a link
// tight: it is appended to the shared lists of the jobs already on it (and
// the new job's own). A remove lowers the load, so it can only make a link
// slack: it leaves those lists, and a link left with one job is private as
// before. amax, the maximum, is kept while a link is shared: set when it
// turns shared, raised at adds, not lowered at removes (an upper bound
// keeps the test sufficient). Only on finite networks (the solver's NaN
// path keeps every shared link).

// slackMargin is the relative room a slack link's starting level has above
// the rates alone of its jobs.
const slackMargin = 1e-6

// isTight reports whether shared link p, with its current load, may bound
// one of its jobs, whose rates alone are at most amax.
func (n *Network) isTight(p *netLink, amax float64) bool {
	return !n.finite || !(p.bw/float64(p.load) > amax*(1+slackMargin))
}

// nowTight puts shared link l, turned tight, on job u.k's shared list.
func (n *Network) nowTight(u linkUse, l int32) {
	j := &n.jobs[u.k]
	if j.dirty {
		return
	}
	j.shared, j.coef = append(j.shared, l), append(j.coef, u.n)
}

// nowSlack takes shared link l, turned slack, off job u.k's shared list.
func (n *Network) nowSlack(u linkUse, l int32) {
	j := &n.jobs[u.k]
	if j.dirty {
		return
	}
	j.dropShared(l)
}

// dropShared takes l off j's shared list (order does not matter to the
// solver). l is listed once; it is found from the end, where links that
// turned shared lately are (nowShared and nowTight append): 36 % of the
// way on the average instead of 64 % from the front (HPC2N hopper).
func (j *netJob) dropShared(l int32) {
	last := len(j.shared) - 1
	i := last
	for j.shared[i] != l {
		i--
	}
	j.shared[i], j.coef[i] = j.shared[last], j.coef[last]
	j.shared, j.coef = j.shared[:last], j.coef[:last]
}
