package scheduler

// SetLazyTail sets the fewest waiting jobs for which a conservative pass
// skips (conslazy.go; 0: every keyed pass that may end early) and counts
// the jobs such passes skip, start and materialise from now on; restore
// puts the threshold back and stops counting.
func SetLazyTail(minQueue int) (skipped, started, materialised *int, restore func()) {
	old := lazyMinQueue
	lazyMinQueue = minQueue
	skipped, started, materialised = new(int), new(int), new(int)
	lazyPassEnd = func(s, st, m int) { *skipped += s; *started += st; *materialised += m }
	return skipped, started, materialised, func() { lazyMinQueue, lazyPassEnd = old, nil }
}
