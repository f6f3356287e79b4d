#!/usr/bin/env bash
# machine8.sh TRACE node|core — print a machine file (docs/machine.md) of
# the SWF trace's processors (MaxProcs, else MaxNodes, from its header) in
# nodes of 8 cores, one partition allocated by whole node (node) or shared
# by core as Slurm's cons_tres (core). ident.sh and bench.sh run
# slurm-backfill's node plan and the cons_tres placement on it.
set -euo pipefail
trace=${1:?usage: machine8.sh TRACE node|core}
alloc=${2:?usage: machine8.sh TRACE node|core}
case $alloc in node | core) ;; *) echo "machine8.sh: allocation $alloc is not node or core" >&2; exit 2 ;; esac
head=$(zcat -f "$trace" | head -200 || true) # zcat stops on a closed pipe
procs=$(sed -n 's/^; *MaxProcs: *\([0-9]*\).*/\1/p' <<<"$head" | head -1)
[ -n "$procs" ] || procs=$(sed -n 's/^; *MaxNodes: *\([0-9]*\).*/\1/p' <<<"$head" | head -1)
[ -n "$procs" ] || { echo "machine8.sh: $trace: no MaxProcs or MaxNodes in its header" >&2; exit 2; }
nodes=$(((procs + 7) / 8))
printf 'name = "nodes8-%s"\nsource = "machine8.sh: %s processors of %s in %s nodes of 8 cores"\n\n[[node_type]]\nname = "n"\nprefix = "n"\ncount = %s\ncores = 8\n\n[[partition]]\nname = "batch"\nnodes = "n[%0*d-%s]"\nallocation = "%s"\n' \
	"$alloc" "$procs" "$(basename "$trace")" "$nodes" "$nodes" "${#nodes}" 1 "$nodes" "$alloc"
