package scheduler

// NewConservativeFull returns conservative backfilling that places every
// queued job at every pass, as before keyed passes ended early: the
// reference for that end and the deferrals it makes.
func NewConservativeFull() Policy { return &Conservative{full: true} }

// NewConservativeNoReuse returns conservative backfilling that rebuilds
// its profile and places every job again at every pass after a finish:
// the reference for incremental passes (consreuse.go).
func NewConservativeNoReuse() Policy { return &Conservative{noReuse: true} }
