// Package slurmconf reads the part of a Slurm configuration that decides
// the order in which Slurm starts jobs: the multifactor priority keys and
// the backfill SchedulerParameters of a slurm.conf, the partitions'
// PriorityJobFactor, AccountingStorageEnforce (whether a finished job's
// last stretch of usage counts), and the fair-share associations (a small
// TOML file or the output of `sacctmgr show assoc -P`).
//
// Keys it does not use are ignored and returned once each (Conf.Unknown),
// so an operator can point drsim at a centre's own slurm.conf. A bad value
// of a key it does use is an error naming file, line and key. Times follow
// Slurm's own parsing: PriorityMaxAge, PriorityDecayHalfLife and
// PriorityCalcPeriod are minutes or [days-]hours:minutes[:seconds], stored
// in whole minutes as Slurm stores them.
//
// The package does I/O only in Load and LoadAssoc; Parse and ParseAssoc
// read an io.Reader.
package slurmconf
