// Package scheduler is drsim's discrete-event engine and its scheduling
// policies.
//
// The Engine owns a hand-written binary heap of Event values ordered by
// (time, kind, sequence): at equal times job finishes come first, in the
// order the jobs started, then power-limit changes, then node power events
// (boots, then suspends; only with Config.SuspendAfter > 0); submits, read
// lazily from a Source in trace order, come last. By default the policy runs once
// per instant, after all of that instant's events (Pass PassInstant);
// PassEvent runs it after every single event instead.
//
// Policies (fcfs, easy, conservative) see a View: the wait queue in queue
// order (filled lazily) and the running jobs in order of estimated end. A
// new policy is one file plus one line in Policies; a new queue order is
// one line in Orders.
//
// Power: each job belongs to an application whose powercap.Table lists its
// operating levels. A Governor picks the level a job starts at and may
// re-level or evict running jobs after each pass (the DR governors). A
// job's progress is the fraction α of its work done; changing its level at
// time t re-times it exactly (α += Δt/D_old; end = t + (1−α)·D_new), and its
// energy is integrated at every change, so the cluster energy is the exact
// integral of piecewise-constant power.
//
// Files:
//   - eventq.go: the event heap; waitq.go: the wait queue (tombstones and
//     per-block minimums, so backfill scans skip jobs that cannot fit).
//   - engine.go: Config, Run and the instant loop; jobs.go: submit, start,
//     finish, exact re-timing, eviction; decide.go: passes.
//   - view.go: what policies see; policy.go: the Policies and Orders
//     registries; fcfs.go, easy.go, conservative.go (+ profile.go, its
//     availability profile; consreuse.go, passes that keep the last
//     pass's reservations; conslazy.go, passes on long queues that leave
//     later jobs without one).
//   - governor.go: Governor, Control (with the read-only accessors the
//     governors of scheduler/governor use), performance and powersave;
//     malleable.go: resizing running jobs. The DR, uniform and DR-Scale
//     governors and the governor registries are in scheduler/governor.
//   - network.go: the Network hook (communication time that depends on
//     placement and contention); nodepower.go: node power states (suspend
//     and resume, like Slurm's power saving), with suspendq.go, the nodes'
//     suspend timers outside the event heap; nodeload.go: load-proportional
//     node power in shared-core partitions (per-node busy counts) and each
//     node's own idle power and its drift.
//   - partition.go: partitions of a machine file; gres.go: GPU jobs on
//     shared-core partitions (cores and GPUs per node, EASY's GPU head);
//     gpu.go: per-device GPU power; check.go: the --check state.
//
// Sub-packages: governor holds the demand-response governors, sim runs
// one experiment from a Spec (and compare), sweep runs many (resumable, shardable, byte-identical merges).
//
// The package is pure: no I/O beyond the Recorder and PowerObserver it is
// given, no clock, no global randomness.
package scheduler
