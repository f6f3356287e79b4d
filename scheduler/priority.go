package scheduler

import (
	"math"
	"slices"

	"drsim/workloads"
)

// Priority configures Slurm's multifactor priority (priority/multifactor
// with PriorityFlags=NO_FAIR_TREE, Slurm 22.05), used with the
// "multifactor" queue order. A job's priority is
//
//	floor(WeightAge·age + WeightFairshare·fs + WeightJobSize·size
//	      + WeightPartition·part + WeightQOS·qos), at least 1,
//
// with every factor in [0,1]:
//
//   - age = min(now − submit, MaxAge) / MaxAge (1 once a job is older than
//     MaxAge; with MaxAge 0, 1 as soon as it has waited at all);
//   - size = (nodes/N + procs/P)/2 for a job of procs processors asking
//     for nodes nodes (Job.ReqNodes, else Job.Nodes, else procs over the
//     processors per node) on a machine of P processors on N nodes, or
//     ((N−nodes)/N + (P−procs)/P)/2 with FavorSmall;
//   - part and qos are the job's partition PriorityJobFactor and its QOS
//     priority, each divided by the largest one configured;
//   - fs is the classic fair-share factor 2^(−UE/S) (below).
//
// Fair share. Associations form a tree: root, accounts under root, users
// under accounts, each with raw shares. A user's normalised shares are
// S = (s_acct/Σ s over root's children) · (s_user/Σ s over the account's
// users). Usage is processor-seconds: at every recompute instant (every
// CalcPeriod from the start of the run) all usage is multiplied by
// d^Δt, d = 1 − ln2/HalfLife (Slurm's decay_factor, ln 2 as 0.693), and
// each job running then adds procs·δ·d^δ for the δ seconds it ran since
// the previous instant; with EndUsage a job that ends adds its last stretch
// the same way at its end, otherwise that stretch (and all of a job that
// starts and ends between two instants) is never counted, as in Slurm
// without AccountingStorageEnforce=limits. The normalised usage U of an
// association is its raw usage over root's (0 while root has none); an
// account's effective usage is its U as of the start of the last recompute
// instant, before that instant's decay and new usage (Slurm computes the
// accounts' usage_efctv first, then the usage), and a user's is UE = U +
// (UE_acct − U)·s_user/Σ s_siblings (Slurm's _set_usage_efctv) with the
// user's current U. fs is 0 for an association with no shares. A
// recompute walks the jobs in trace order (Slurm's job list): each running
// job adds its usage in turn, and a user with a waiting job gets its
// factor at its first one, from root's and its own usage at that point of
// the walk (Slurm computes a user's usage_efctv on first use); any other
// user gets it on first use after the recompute, from all the usage.
//
// That is the classic algorithm, not Fair Tree (Slurm's default since
// 19.05): Fair Tree ranks every user of the tree by a depth-first walk
// that orders siblings by their usage/shares ratio, and fs is a user's rank
// over the number of users, so a user of an under-served account always
// outranks every user of an over-served one; the classic formula mixes a
// user's own usage with its account's, so a light user of a heavy account
// can outrank a heavy user of a light one.
//
// Schedule. As in Slurm, a job's priority is computed once at submit
// (with the fair-share factors of the last recompute instant) and then
// only at recompute instants, when every waiting job is recomputed and the
// queue re-sorted. Ties in priority break by trace order (Slurm: job ID).
type Priority struct {
	WeightAge, WeightFairshare, WeightJobSize, WeightPartition, WeightQOS float64

	MaxAge     float64 // s; Slurm's default is 7 days
	HalfLife   float64 // s; 0 = no decay
	CalcPeriod float64 // s between recomputes (> 0)
	FavorSmall bool
	Nodes      int // nodes of the machine for the size factor; 0 = Procs/ProcsPerNode
	// EndUsage adds a job's last stretch of usage when it ends (Slurm's
	// priority_p_job_end, which 22.05 calls only with
	// AccountingStorageEnforce=limits); false: usage accrues only at
	// recompute instants, for the jobs running then (Slurm's default).
	EndUsage bool

	// PartFactor is each partition's (Config.Parts order; one entry without
	// partitions) PriorityJobFactor over the largest one, in [0,1].
	PartFactor []float64
	// QOSFactor returns a job's QOS priority over the largest one, in
	// [0,1]; nil = 0.
	QOSFactor func(*workloads.Job) float64
	// Tree holds the associations; AssocOf returns a job's user
	// association (an index into Tree.Users), and may append new users
	// and accounts to Tree (a trace's users missing from an associations
	// file get one share).
	Tree    *ShareTree
	AssocOf func(*workloads.Job) int

	// Trace, if set, is called after every recompute at t with each user
	// association's fair-share factor (by Tree index) as a job of that
	// user gets it until the next recompute: what sprio shows. It must
	// not keep fs. (A look into the multifactor state, for comparisons
	// with a real Slurm; it changes nothing.)
	Trace func(t float64, fs []float64)
}

// ShareTree is a two-level association tree under root.
type ShareTree struct {
	AcctShares []float64 // per account
	RootUsers  float64   // shares of user associations directly under root
	UserAcct   []int32   // per user association: its account
	UserShares []float64 // per user association
}

// prioState is the engine's multifactor state; nil without Config.Priority.
//
// Usage is kept scaled: the true raw usage of user association u is
// usage[u]·scale, so the decay of every association at a recompute is one
// multiplication of scale, and the normalised usages (ratios to root's)
// never need scale at all. The jobs counted as running at the last
// recompute are in runs, in trace order (Slurm's job list order: a
// recompute adds their usage one by one in that order, and a user's
// fair-share factor is computed at its first waiting job in that walk); a
// job started since the last recompute is on fresh until then.
type prioState struct {
	cfg     *Priority
	decay   float64 // d per second
	last    float64 // last recompute instant
	next    float64 // next recompute instant armed; NaN when none is
	scale   float64
	usage   []float64 // scaled raw usage per user association
	acctU   []float64 // scaled raw usage per account
	acctN   []float64 // normalised usage per account at the start of the last recompute
	rootU   float64   // scaled raw usage of root
	runs    []prioRun // jobs running at the last recompute (stale entries: not inRun, or restarted)
	fresh   []prioRun // jobs started since last (stale entries skipped)
	first   []prioFirst
	firstAt []int64   // per user: 1 + trace order of its first waiting job in this recompute's walk, 0 none
	sib     []float64 // Σ shares of each account's users
	rootSh  float64   // Σ shares of root's children
	fs      []float64 // fair-share factor per user, valid when fsEpoch[u] == epoch
	fsEpoch []uint32
	epoch   uint32
	trace   []float64 // Priority.Trace's argument
	nodes   float64
	procs   float64
}

// jobPrio is a job's multifactor state.
type jobPrio struct {
	prio  float64 // current priority
	fixed float64 // weighted size, partition and QOS factors
	// The job's submit time and trace order, copied here so that a
	// recompute's walk over the queue reads one stretch of each record.
	submit float64
	seq    int64
	assoc  int32   // user association
	inRun  bool    // on prioState.runs
	usedTo float64 // usage accounted up to this time
}

func (e *Engine) initPriority() {
	p := e.cfg.Priority
	st := &prioState{cfg: p, next: math.NaN(), decay: 1, scale: 1, epoch: 1, procs: float64(e.cfg.Procs)}
	if p.HalfLife > 0 {
		st.decay = 1 - 0.693/p.HalfLife
	}
	st.nodes = float64(p.Nodes)
	if st.nodes <= 0 {
		st.nodes = float64(e.cfg.Procs / max(e.cfg.ProcsPerNode, 1))
	}
	if p.Tree != nil {
		st.rootSh = p.Tree.RootUsers
	}
	e.prio = st
}

// prioAdmit computes a new job's association and initial priority.
func (e *Engine) prioAdmit(j *job, w *workloads.Job) {
	st, p := e.prio, e.prio.cfg
	a := 0
	if p.AssocOf != nil {
		a = p.AssocOf(w)
	}
	j.pr.assoc = int32(a)
	j.pr.submit, j.pr.seq = j.submit, j.seq
	// Slurm's job-size factor counts the nodes asked for (min_nodes: 1
	// for a job submitted with -n alone), not those allocated.
	nodes := float64(w.ReqNodes)
	if nodes <= 0 {
		nodes = float64(w.Nodes)
	}
	if nodes <= 0 {
		nodes = math.Ceil(float64(j.procs) / float64(max(e.cfg.ProcsPerNode, 1)))
	}
	size := (nodes/st.nodes + float64(j.procs)/st.procs) / 2
	if p.FavorSmall {
		size = ((st.nodes-nodes)/st.nodes + (st.procs-float64(j.procs))/st.procs) / 2
	}
	size = min(max(size, 0), 1)
	part := 0.0
	if k := int(j.part); k < len(p.PartFactor) {
		part = p.PartFactor[k]
	}
	qos := 0.0
	if p.QOSFactor != nil {
		qos = p.QOSFactor(w)
	}
	j.pr.fixed = p.WeightJobSize*size + p.WeightPartition*part + p.WeightQOS*qos
	e.growTree()
	j.pr.prio = e.priorityAt(j, e.now)
	if math.IsNaN(st.next) {
		e.armPriority()
	}
}

// priorityAt is j's priority at t with the fair-share factors of the last
// recompute.
func (e *Engine) priorityAt(j *job, t float64) float64 {
	p := e.prio.cfg
	age := 1.0
	if wait := t - j.submit; p.MaxAge > 0 && wait < p.MaxAge {
		age = max(wait, 0) / p.MaxAge
	} else if wait <= 0 {
		age = 0
	}
	fs := 0.0
	if p.WeightFairshare != 0 {
		fs = e.fairShare(int(j.pr.assoc))
	}
	v := math.Floor(p.WeightAge*age + p.WeightFairshare*fs + j.pr.fixed)
	return max(v, 1)
}

// growTree extends the per-association state to the tree's size.
func (e *Engine) growTree() {
	st, tr := e.prio, e.prio.cfg.Tree
	if tr == nil {
		return
	}
	if len(st.acctU) == len(tr.AcctShares) && len(st.usage) == len(tr.UserShares) {
		return
	}
	for len(st.acctU) < len(tr.AcctShares) {
		st.rootSh += tr.AcctShares[len(st.acctU)]
		st.acctU = append(st.acctU, 0)
		st.acctN = append(st.acctN, 0)
		st.sib = append(st.sib, 0)
	}
	for u := len(st.usage); u < len(tr.UserShares); u++ {
		st.sib[tr.UserAcct[u]] += tr.UserShares[u]
		st.usage = append(st.usage, 0)
		st.firstAt = append(st.firstAt, 0)
		st.fs = append(st.fs, 0)
		st.fsEpoch = append(st.fsEpoch, 0)
	}
	// As in Slurm, factors already computed since the last recompute stay
	// as they are (a new association's is computed on first use).
}

// armPriority pushes the next recompute event on the CalcPeriod grid.
func (e *Engine) armPriority() {
	st := e.prio
	per := st.cfg.CalcPeriod
	k := math.Floor((e.now-st.last)/per) + 1
	st.next = st.last + k*per
	e.q.Push(Event{T: st.next, Kind: KindPriority, Job: -1})
}

// startPriority anchors the recompute grid at the run's first instant.
func (e *Engine) startPriority(t0 float64) { e.prio.last, e.prio.next = t0, math.NaN() }

// addUsage adds procs·δ·d^δ of true usage to user u.
func (st *prioState) addUsage(u int32, procs, d float64) {
	if d <= 0 {
		return
	}
	f := 1.0
	if st.decay != 1 {
		f = math.Pow(st.decay, d)
	}
	st.addScaled(u, procs*d*f)
}

// addScaled adds x of true usage to user u.
func (st *prioState) addScaled(u int32, x float64) {
	if int(u) >= len(st.usage) {
		return
	}
	x /= st.scale
	st.usage[u] += x
	st.acctU[st.cfg.Tree.UserAcct[u]] += x
	st.rootU += x
}

// snapAccounts sets the accounts' normalised usage (their effective usage
// until the next recompute) from their raw usage now.
func (st *prioState) snapAccounts() {
	for a := range st.acctN {
		st.acctN[a] = 0
		if st.rootU > 0 {
			st.acctN[a] = min(st.acctU[a]/st.rootU, 1)
		}
	}
}

// prioStarted notes a job that started now.
func (e *Engine) prioStarted(slot int32) {
	st, j := e.prio, &e.jobs[slot]
	j.pr.usedTo, j.pr.inRun = j.start, false
	if st.usageRead() {
		st.fresh = append(st.fresh, prioRun{slot, j.startSeq})
	}
}

// usageRead reports whether a priority reads the usage: without a weight
// on fair share (Slurm's default) no usage is kept.
func (st *prioState) usageRead() bool { return st.cfg.WeightFairshare != 0 && st.cfg.Tree != nil }

// prioEnded accounts a finished (or evicted) job's last stretch of usage
// (with EndUsage) and takes it out of the running jobs.
func (e *Engine) prioEnded(j *job) {
	st := e.prio
	if st.cfg.EndUsage {
		st.addUsage(j.pr.assoc, float64(j.procs), e.now-max(j.pr.usedTo, st.last))
	}
	j.pr.inRun = false // its entry in runs goes at the next recompute
	j.pr.usedTo = e.now
}

// recomputePriority is the KindPriority event: decay, new usage, every
// waiting job's priority, and a stable re-sort of the queues.
//
// As Slurm's decay thread (priority_multifactor.c, _decay_thread), the
// accounts' effective usage is set first, then all usage decays, then the
// jobs are walked in trace order (Slurm's job list, in job ID order): a
// running job adds its new usage, and a user's fair-share factor is
// computed at its first waiting job (Slurm computes a user's usage_efctv on
// first use, here in the middle of the walk), from the usage of root and
// of the user as they stand there: without the usage of the running jobs
// later in trace order. A user with no waiting job gets its factor from the
// whole usage, on first use after the recompute.
func (e *Engine) recomputePriority() {
	st := e.prio
	t := e.now
	st.next = math.NaN()
	st.snapAccounts() // before this instant's decay and new usage
	dt := t - st.last
	f := 1.0 // d^dt
	if dt > 0 && st.decay != 1 {
		f = math.Pow(st.decay, dt)
		st.scale *= f
		if st.scale < 1e-200 {
			for i := range st.usage {
				st.usage[i] *= st.scale
			}
			for i := range st.acctU {
				st.acctU[i] *= st.scale
			}
			st.rootU *= st.scale
			st.scale = 1
		}
	}
	st.epoch++ // factors computed from here on are this recompute's
	running := int(e.startSeq)-e.stats.Finished-e.stats.Evictions > 0
	if st.usageRead() {
		e.walkRuns(t, dt, f)
	}
	st.last = t
	queued := 0
	if e.parts == nil {
		queued = e.reprioritise()
	} else {
		prev := e.bind(0)
		for k := range e.parts[:len(e.parts)-1] {
			e.bind(k)
			queued += e.reprioritise()
		}
		e.bind(prev)
	}
	if queued > 0 || running || e.haveNext {
		e.armPriority()
	}
	if st.cfg.Trace != nil {
		e.tracePriority(t)
	}
}

// reprioritise recomputes the priorities of the bound queue's jobs and
// re-sorts it stably if their order changed; it returns the queue length.
func (e *Engine) reprioritise() int {
	if e.wq.Len() == 0 {
		return 0
	}
	// priorityAt inlined: this loop runs over the whole queue at every
	// recompute instant.
	st, p, now := e.prio, e.prio.cfg, e.now
	if p.WeightAge == 0 && p.WeightFairshare == 0 {
		// No factor that changes with time is weighed (Slurm's default
		// weights are all 0): every priority is still the one the job
		// got at admission, and the queue is in that order.
		return e.wq.Len()
	}
	sorted, last, lastSeq := true, math.Inf(1), int64(-1)
	for _, s := range e.wq.slots[e.wq.head:] {
		if s < 0 {
			continue
		}
		j := &e.jobs[s]
		age := 1.0
		if wait := now - j.pr.submit; p.MaxAge > 0 && wait < p.MaxAge {
			age = max(wait, 0) / p.MaxAge
		} else if wait <= 0 {
			age = 0
		}
		v := p.WeightAge*age + j.pr.fixed
		if p.WeightFairshare != 0 {
			fs := 0.0
			if u := j.pr.assoc; int(u) < len(st.fs) && st.fsEpoch[u] == st.epoch {
				fs = st.fs[u]
			} else {
				fs = e.fairShare(int(u))
			}
			v += p.WeightFairshare * fs
		}
		v = max(math.Floor(v), 1)
		j.pr.prio = v
		if v > last || v == last && j.pr.seq < lastSeq {
			sorted = false
		}
		last, lastSeq = v, j.pr.seq
	}
	if sorted {
		return e.wq.Len() // same order: nothing a policy saw has changed
	}
	e.wq.squeeze() // the bounds are rebuilt below
	e.wq.chgLo = 0
	slices.SortStableFunc(e.wq.slots, func(a, b int32) int { return prioCmp(&e.jobs[a], &e.jobs[b]) })
	for i, s := range e.wq.slots {
		e.wq.procs[i], e.wq.est[i], e.wq.pw[i] = int32(e.jobs[s].procs), e.estLow(&e.jobs[s]), e.powerLow(&e.jobs[s])
	}
	e.wq.rebuild()
	e.changed, e.dirty, e.newFrom = true, true, 0
	return e.wq.Len()
}

// prioCmp orders jobs by priority, high first, ties in trace order.
func prioCmp(a, b *job) int {
	switch {
	case a.pr.prio > b.pr.prio:
		return -1
	case a.pr.prio < b.pr.prio:
		return 1
	case a.seq < b.seq:
		return -1
	case a.seq > b.seq:
		return 1
	}
	return 0
}

// fairShare returns user association u's classic fair-share factor as of
// the last recompute (see Priority), computing it on first use after it.
func (e *Engine) fairShare(u int) float64 {
	st, tr := e.prio, e.prio.cfg.Tree
	if tr == nil || u >= len(st.fs) {
		return 0
	}
	if st.fsEpoch[u] == st.epoch {
		return st.fs[u]
	}
	f := e.fairShareNow(u)
	st.fs[u], st.fsEpoch[u] = f, st.epoch
	return f
}

// fairShareNow computes user association u's factor from the usage as it
// stands, without keeping it.
func (e *Engine) fairShareNow(u int) float64 {
	st, tr := e.prio, e.prio.cfg.Tree
	a := tr.UserAcct[u]
	un, an := 0.0, 0.0
	if st.rootU > 0 {
		un = min(st.usage[u]/st.rootU, 1)
	}
	an = st.acctN[a]
	ue := an // the account's effective usage, then the user's
	if st.sib[a] > 0 {
		ue = un + (an-un)*tr.UserShares[u]/st.sib[a]
	}
	sn := 0.0
	if st.rootSh > 0 && st.sib[a] > 0 {
		sn = tr.AcctShares[a] / st.rootSh * tr.UserShares[u] / st.sib[a]
	}
	if sn <= 0 {
		return 0
	}
	return math.Exp2(-ue / sn)
}

// multifactorOrder is Slurm's queue order: priority high to low, ties in
// trace order.
type multifactorOrder struct{}

func (multifactorOrder) Name() string { return "multifactor" }
func (multifactorOrder) Less(a, b *QueuedJob) bool {
	if a.Prio != b.Prio {
		return a.Prio > b.Prio
	}
	return a.Seq < b.Seq
}

// checkPriorityStart is the multifactor --check: outside a backfill
// decision (before the policy reserved anything in this pass) a job starts
// only if no job before it in the partition's queue, of higher or equal
// priority earlier in trace order, fits now.
func (e *Engine) checkPriorityStart(i int) {
	if k := e.wq.next(0, e.alloc.Free()); k >= 0 && k < i {
		a, b := &e.jobs[e.wq.slots[k]], &e.jobs[e.wq.slots[i]]
		e.violate("job %d (priority %v) started while job %d (priority %v), ahead of it in the queue, fits now and waits outside a backfill decision",
			b.id, b.pr.prio, a.id, a.pr.prio)
	}
}
