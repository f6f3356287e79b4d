package scheduler

// NewConservativeFull returns conservative backfilling that places every
// queued job at every pass, as before keyed passes ended early: the
// reference for that end and the deferrals it makes.
func NewConservativeFull() Policy { return &Conservative{full: true} }
