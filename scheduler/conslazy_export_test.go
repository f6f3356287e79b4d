package scheduler

// SetLazyTail sets the fewest waiting jobs for which a conservative pass
// skips (conslazy.go; 0: every keyed pass that may end early) and counts
// the jobs such passes skip, start and materialise, and the searches of
// skipped jobs that a failed class saved (lazyTail.fails), from now on;
// restore puts the threshold back and stops counting.
func SetLazyTail(minQueue int) (skipped, started, materialised, failHits *int, restore func()) {
	old := lazyMinQueue
	lazyMinQueue = minQueue
	skipped, started, materialised, failHits = new(int), new(int), new(int), new(int)
	lazyPassEnd = func(s, st, m, f int) { *skipped += s; *started += st; *materialised += m; *failHits += f }
	return skipped, started, materialised, failHits, func() { lazyMinQueue, lazyPassEnd = old, nil }
}
