// Package governor holds the demand-response governors: the exact DR
// governor (dr.go: a multiple-choice knapsack over the running jobs'
// levels, a 0-1 knapsack for evictions, and a quick path that walks the
// running list in place when every job's least-energy level fits), the
// hardware-style uniform cap (uniform.go) and DR-Scale, DR with malleable
// jobs (drscale.go; each job's sizes and options, shared between jobs of
// one shape, and its least-cost option kept with the range of remaining
// work over which it stays least: drscale_sizes.go); and their tables of
// contents (registry.go).
//
// A governor implements scheduler.Governor and reads and changes the
// engine only through scheduler.Control, whose accessors read fields in
// place (no copy, no allocation; RunView walks the running list's blocks,
// RunChanges returns its inserts and removes since the last call, which
// dr's quick path and DR-Scale's start order follow instead of re-reading
// the list).
// Governors whose start level depends only on the limit in force also
// implement scheduler.LimitLeveler.
//
// The trivial governors, performance and powersave, stay in package
// scheduler: they are the engine's default (a nil Config.Governor), and
// the engine recognises them to keep exact queue estimates without asking
// the governor (Engine.govKind). The registries here list them too.
//
// Adding a governor is one file here plus one line in DVFS or Caps.
package governor
