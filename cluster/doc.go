// Package cluster models the simulated machine: processors grouped into
// nodes, which processors each running job holds (placement), and the
// cluster's power and energy.
//
// Files:
//   - ranges.go: Range, a half-open run of processor indices, and the
//     Batsim interval-set text form ("0-3 8 10-11").
//   - alloc.go: Allocator (free-processor bookkeeping) and the placement
//     registry Placements ("contiguous", "scattered", ...). A new placement
//     is one file plus one registry line.
//   - energy.go: Meter, the exact integral of piecewise-constant power
//     (running jobs, idle processors, off nodes, booting nodes).
//   - nodes.go: Nodes, an Allocator wrapper keeping per-node occupancy and
//     power states (idle, busy, off, booting) for node power saving.
//   - topology.go: NodeTopology and the "topology" placement.
//   - gres.go: Gres, the placement of shared-core partitions whose nodes
//     have GPUs (cores and GPUs per node, as Slurm's cons_tres).
//   - constres.go: SelectCores, Slurm's cons_tres choice of nodes for a
//     job of n cores, and ConsTres, the placement that follows it
//     (slurm-backfill on shared-core partitions without GPUs).
//
// Sub-package machine reads machine files (node types, partitions, Slurm
// hostlists) and lays their nodes out on the processor index space.
//
// Units: processors are counted in processors (SWF's unit), power in W,
// energy in J, time in s. The package is pure: no I/O, no clocks, no global
// randomness.
package cluster
