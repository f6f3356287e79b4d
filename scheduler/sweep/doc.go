// Package sweep runs parameter sweeps: an experiment file (TOML) lists
// values for any sim.Spec field, the cross product makes the cells, and each
// cell is one sim.Run whose outputs land in out/cells/<id>/. Merge turns the
// cells of one or more output directories (shards) into the energy-saving
// versus slowdown table and its plots.
//
// Cell IDs are the first 16 hex digits of the SHA-256 of the cell's
// canonical JSON (sim.Spec with defaults applied, see Resolve), so the same
// configuration always lands in the same directory. A cell directory is
// written under a temporary name and renamed into place, so it is either
// complete or absent; a run that is killed (even with SIGKILL) and started
// again skips the finished cells and redoes the others. Each output directory
// keeps an append-only manifest (JSON lines, fsynced) of the cells it
// finished; a torn last line after a crash is ignored and cut off.
//
// Determinism: cells are independent, every output of a cell depends only on
// its Spec, and Merge sorts rows by the varying dimensions, so merged tables
// and plots are byte-identical whatever the worker count or sharding.
//
// Unlike the model packages this one touches the file system: it is the
// library behind drsim sweep and drsim merge, and keeping the directory
// protocol (temporary directory, rename, manifest) in one tested place is
// worth it. It reads no environment and no clock: the caller passes the
// shard and draws progress.
//
// Files: config.go (experiment file), cell.go (IDs, expansion), shard.go,
// manifest.go, run.go (worker pool, trace cache, cell output), merge.go
// (table and plots).
package sweep
