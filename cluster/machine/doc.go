// Package machine is the machine file: the node types and partitions of a
// simulated cluster (drsim run --machine machine.toml). It parses and
// validates the TOML, expands Slurm hostlists (gpu[01-16]), lays the nodes
// out on the processor index space the scheduler allocates from, and
// routes jobs to partitions. It knows nothing about scheduling.
//
// Layout: processors stay the unit of allocation. Every node owns a
// contiguous block of its type's cores; partitions are laid out one after
// the other in file order, each partition's nodes in name order, and nodes
// that belong to no partition come last (they stay idle). So each
// partition is one contiguous processor block [Lo, Lo+Procs), which is what
// lets the scheduler give it an allocator of its own.
//
// Limitations of v1 (Slurm allows both): partitions may not share nodes,
// and a partition holds nodes of one type only. Both are refused with the
// file:line of the partition.
//
// Files:
//   - machine.go: Machine, NodeType, Partition; Parse and validation.
//   - hostlist.go: Slurm hostlist expansion.
//   - lines.go: the line index behind file:line errors.
//   - builtin.go: the embedded example machines (builtin/*.toml).
//   - route.go: partition maps (which partition a job goes to).
//   - slurm.go, slurmgres.go, slurmbuild.go: a centre's slurm.conf (and
//     gres.conf) as the machine, by Slurm's rules (docs/machine.md);
//     slurmtoml.go: a machine TOML with slurm_conf that adds power figures.
//
// Pure: Load is the only function that reads a file (with the slurm.conf
// it names, its Include files and gres.conf); ParseSlurm reads through
// the ReadFunc it is given.
package machine
