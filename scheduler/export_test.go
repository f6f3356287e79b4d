package scheduler

// RefProfile exposes the frozen reference profile (profile_test.go) to the
// external test package, whose reference policy needs scheduler/sim and so
// cannot live in this package.
type RefProfile struct{ p refProfile }

func (r *RefProfile) Reset(now float64, free int, room float64)  { r.p.reset(now, free, room) }
func (r *RefProfile) Release(at float64, procs int, w float64)   { r.p.release(at, procs, w) }
func (r *RefProfile) Earliest(procs int, w, dur float64) float64 { return r.p.earliest(procs, w, dur) }
func (r *RefProfile) Reserve(from, to float64, procs int, w float64) {
	r.p.reserve(from, to, procs, w)
}
func (r *RefProfile) Advance(now float64) { r.p.advance(now) }

// NewDR builds the dr governor (scheduler/governor) for this package's
// engine tests that run under it: they cannot import package governor,
// which imports scheduler, so governor_hook_test.go, in the external test
// package of the same test binary, sets it before any test runs.
var NewDR func() Governor

func newDR() Governor {
	if NewDR == nil {
		panic("scheduler tests: NewDR unset (governor_hook_test.go)")
	}
	return NewDR()
}

// NewSlurmBackfillByRecord returns slurm-backfill reading every tested
// job's processors and estimate from its record: the reference for the
// wait queue's arrays (SlurmBackfill.job).
func NewSlurmBackfillByRecord() Policy { return &SlurmBackfill{byRecord: true} }
