// Package sim turns one experiment Spec into one simulation: it loads the
// trace (or generates the embedded default workload), builds the power
// level tables and the application mapping, the governor and the power
// limit schedule, runs the scheduler engine and returns the summary. The
// CLI verbs run, compare and sweep, and the contract simulation, all go
// through Run, so a Spec means the same thing everywhere.
//
// Spec is plain data with TOML keys, so sweep configs fill the same struct
// as flags do. The zero value of every field means its documented default.
//
// Files: spec.go (Spec, defaults), run.go (Load, Run, the power model),
// stream.go (Open: traces over 32 MiB stream from the file), limits.go and
// events_csv.go (DR events: files, random, daily), compare*.go (drsim
// compare), powercap*.go (cap modes, RAPL window, malleability), network.go
// (the netmodel adapter), nodepower.go, hooks.go, ranges.go (the valid
// range of every numeric setting, Spec.Validate; the CLI checks its flags
// against the same table) and ranges_models.go (model extrapolation and the
// machine-size source a run records in its summary).
//
// This package reads trace and model files (through workloads and
// powercap); it writes only to the io.Writers it is given.
package sim
