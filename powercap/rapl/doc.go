// Package rapl reads and sets Intel RAPL power caps through the Linux
// powercap sysfs interface and measures a command's runtime, energy and mean
// power under a sweep of caps, for "drsim measure". Unlike its parent package
// it is not pure: it reads and writes files under /sys/class/powercap and
// runs commands. Everything that touches the machine (files, clock,
// processes) is behind a small interface (FS, Clock, Runner) so the tests run
// against a fake sysfs tree in a temporary directory with a fake clock.
//
// # The sysfs interface
//
// Each RAPL zone is a directory /sys/class/powercap/intel-rapl:N (one per
// CPU package, name "package-N") with sub-zones intel-rapl:N:M ("core",
// "uncore", "dram"); on Linux they all also appear flat under the class
// directory, which is what Zones lists. The files used are:
//
//	name                         the zone's name, e.g. "package-0"
//	energy_uj                    a free-running energy counter in µJ
//	max_energy_range_uj          the counter's largest value; the next increment wraps to 0
//	constraint_0_power_limit_uw  the long-term power cap (PL1) in µW
//	constraint_0_time_window_us  the window over which that cap is enforced, in µs
//	enabled                      0 when the zone's limits are not enforced
//
// # Semantics of a cap
//
// A cap applies to the whole zone (one package, with all its cores), not to
// a process or a core, and it is in µW with a time window: the hardware keeps
// the package's power averaged over the window (an exponentially weighted
// average in practice; platforms ship PL1 windows of about 1 to 28 s) at or
// below the limit.
// Short bursts above the cap are therefore allowed, and a run much shorter
// than the window may see little of the cap's effect; measure runs that last
// many windows. The hardware stores both values in its own units (power in
// steps of 1/2^PU W, typically 1/8 W = 125000 µW; the window as 2^Y·(1+Z/4)
// time units of about 976 µs), so the value read back can differ from the one
// written: writing a 10000 µs window reads back 9765. Measure always records
// the read-back cap, which is the one the hardware applies.
//
// # Energy
//
// energy_uj wraps at max_energy_range_uj (about 262 kJ on many parts: a
// little over 20 minutes at 200 W). A Counter accumulates successive readings
// as (cur − prev) mod (max+1), which is right as long as at most one wrap
// happens between readings, so Measure polls the counter every
// Config.Interval (1 s by default) while the command runs.
//
// # Safety
//
// Measure reads the original cap and window before changing anything and
// writes them back in a deferred path that also runs after a failed command,
// a failed write or a cancelled context (drsim wires Ctrl-C to the context).
// MeasureFile writes its CSV through a temporary file in the destination
// directory, renamed into place only after every run succeeded, and refuses to
// replace an existing file unless asked. Missing or read-only files give
// one-line errors that name the file and the likely cause.
//
// Files: zone.go (Tree, Zone, FS), counter.go, clock.go, runner.go,
// measure.go (Config, Measure), csv.go (Row, ParseCaps, file output).
// Read Example_measure first.
package rapl
