// Package results turns finished jobs into the files and tables users read.
//
// The engine calls a Recorder once per finished job with a Record. JobsCSV
// streams jobs.csv in Batsim's column layout (so evalys and pandas read it
// unchanged) with a hand-written buffered writer; Summary accumulates the
// run's metrics (waits, slowdowns, utilisation, energy). Power time series go
// through PowerCSV (power.csv) and BatsimEnergyCSV (consumed_energy.csv).
// Files are written through AtomicFile: a temporary file renamed into place
// on Commit, so an interrupted run never leaves a partial file under its
// final name.
//
// Files: record.go (Record, Recorder), jobscsv.go, summary.go, power.go,
// atomic.go, table.go. Subpackage plot draws the figures.
package results
