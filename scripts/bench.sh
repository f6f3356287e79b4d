#!/usr/bin/env bash
# bench.sh [BIN] — where the current build stands on the runs a DR study
# makes: wall time, CPU time, × plain EASY on the same trace (by wall and
# by CPU time), peak RSS. Wall time is read with bash's EPOCHREALTIME
# (microseconds); CPU time and RSS come from GNU time (CPU in 10 ms steps).
# One run each (BENCH_RUNS=N for the best of N). Needs GNU time
# (apt-get install time). DRSIM_SHARED locates the traces (default
# ../shared beside the repository). BENCH_ONLY=regex keeps matching rows.
#
# BENCH_BASE=OLD compares BIN with the binary OLD instead: each row runs
# OLD and BIN alternately BENCH_RUNS times (default 5) and prints the
# median wall and CPU times of each, BIN's change in %, and both builds'
# × plain EASY by median wall time. On a shared machine whose speed drifts
# by tens of per cent within minutes, only such alternating medians tell
# two builds apart.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
bin=${1:-}
if [ -z "$bin" ]; then
	bin=$(mktemp -d)/drsim
	(cd "$here" && go build -o "$bin" ./cmd/drsim)
fi
[ -x /usr/bin/time ] || { echo "bench.sh: needs GNU time: apt-get install -y time" >&2; exit 2; }
shared=${DRSIM_SHARED:-$here/../shared}
tr=$shared/traces
runs=${BENCH_RUNS:-1}
base=${BENCH_BASE:-}
if [ -n "$base" ]; then
	[ -x "$base" ] || { echo "bench.sh: BENCH_BASE=$base is not an executable" >&2; exit 2; }
	runs=${BENCH_RUNS:-5}
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

ricc=$tr/RICC-2010-2.swf.gz cea=$tr/CEA-Curie-2011-2.1-cln.swf.gz hpc2n=$tr/HPC2N-2002-2.2-cln.swf.gz
rows=(
	"RICC|$ricc|--policy easy"
	"RICC|$ricc|--policy conservative"
	"RICC|$ricc|--policy slurm-backfill"
	"RICC|$ricc|--dvfs dr --dr-ratio 0.25"
	"RICC|$ricc|--powercap dr --dr-ratio 0.25"
	"CEA-Curie|$cea|--policy easy"
	"CEA-Curie|$cea|--policy conservative"
	"CEA-Curie|$cea|--dvfs dr --dr-ratio 0.25"
	"CEA-Curie|$cea|--powercap dr --dr-ratio 0.25"
	"HPC2N|$hpc2n|--policy easy"
	"HPC2N|$hpc2n|--policy conservative"
	"HPC2N|$hpc2n|--priority multifactor"
	"HPC2N|$hpc2n|--node-speed-sd 0.03"
	"RICC|$ricc|--policy conservative --node-speed-sd 0.03"
	"HPC2N|$hpc2n|--dvfs dr --dr-ratio 0.25"
	"HPC2N|$hpc2n|--powercap dr --dr-ratio 0.25"
	"HPC2N|$hpc2n|--preset hopper --interference on"
	"HPC2N|$hpc2n|--preset edison --interference on"
	"HPC2N|$hpc2n|--preset mira --interference on"
	"HPC2N|$hpc2n|--preset stampede --interference on"
	"HPC2N|$hpc2n|--powercap dr --malleable 0.5 --dr-ratio 0.25"
	# Node power saving (docs/DESIGN.md, "Suspend timers" and "Conservative
	# under node power saving"): CEA-Curie's 93,312 nodes of one processor
	# (the default for an SWF trace), RICC in nodes of 8.
	"CEA-Curie|$cea|--suspend-after 600 --resume-time 300"
	"RICC|$ricc|--policy conservative --suspend-after 600 --resume-time 300 --procs-per-node 8"
	# Weighted multifactor priority: most submits land inside the queue
	# (DESIGN.md, "Enqueue inside the wait queue"); fast-nodes placement
	# under node speeds (docs/variability.md, "Speed").
	"RICC|$ricc|--priority multifactor --slurm-set PriorityWeightAge=1000;PriorityWeightFairshare=10000;PriorityWeightJobSize=100;PriorityDecayHalfLife=7-0;PriorityCalcPeriod=5"
	"RICC|$ricc|--placement fastnodes --node-speed-sd 0.03"
	# Perfect estimates (a common research setting): the overloaded
	# queue's lazy tail (DESIGN.md, "Failed classes").
	"RICC|$ricc|--policy conservative --estimate run"
	# The powersave baselines of a DR study overload CEA-Curie (queues of
	# weeks): EASY's backfill scan over ranges of the queue that hold no
	# candidate (DESIGN.md, "Staircases"), and under shortest-first every
	# submit lands inside the queue ("Enqueue inside the wait queue").
	"CEA-Curie|$cea|--powercap powersave"
	"CEA-Curie|$cea|--dvfs powersave"
	"CEA-Curie|$cea|--order sef --dvfs powersave"
	# Scattered placement on 93,312 processors (cluster/scattered.go).
	"CEA-Curie|$cea|--placement scattered"
	# slurm-backfill's node plan (docs/slurm-scheduling.md, "The node plan
	# at scale"): RICC on a machine file of 1,024 nodes of 8 cores
	# (machine8.sh), whole nodes and shared by core (cons_tres), each
	# against plain EASY on the same machine.
	"RICC nodes|$ricc|--policy easy --machine @NODES8@"
	"RICC nodes|$ricc|--policy slurm-backfill --machine @NODES8@"
	"RICC cores|$ricc|--policy easy --machine @CORES8@"
	"RICC cores|$ricc|--policy slurm-backfill --machine @CORES8@"
	# A machine of ten thousand nodes: CEA-Curie's processors in 11,664
	# whole nodes of 8 (docs/slurm-scheduling.md, "Large machines").
	"CEA nodes|$cea|--policy easy --machine @CEANODES8@"
	"CEA nodes|$cea|--policy slurm-backfill --machine @CEANODES8@"
)
# Conservative backfilling on every other shared trace (issue 18 bounds it
# at 3× plain EASY on each).
for f in "$tr"/*.swf "$tr"/*.swf.gz; do
	case $f in "$ricc" | "$cea" | "$hpc2n" | *'*'*) continue ;; esac
	name=$(basename "$f")
	name=${name%.gz}
	rows+=("$name|$f|--policy easy" "$name|$f|--policy conservative")
done
# Conservative on an overloaded machine: every job at the lowest frequency
# stretches KTH-SP2's workload past what its 100 processors serve, the
# queue grows to thousands of jobs, and each pass places the jobs up to
# the first that fits the processors an early finish freed (DESIGN.md,
# "Conservative on an overloaded machine"). Its × plain EASY is against
# plain EASY without powersave (EASY with it takes about as long).
kth=$tr/KTH-SP2-1996-2.1-cln.swf.gz
rows+=("KTH-SP2-1996-2.1-cln.swf|$kth|--policy conservative --dvfs powersave")
# Machine files for the rows that name one (@NODES8@, @CORES8@, @CEANODES8@).
"$here/scripts/machine8.sh" "$ricc" node >"$work/nodes8.toml"
"$here/scripts/machine8.sh" "$ricc" core >"$work/cores8.toml"
"$here/scripts/machine8.sh" "$cea" node >"$work/ceanodes8.toml"
machine() {
	local a=${1//@NODES8@/$work/nodes8.toml}
	a=${a//@CEANODES8@/$work/ceanodes8.toml}
	echo "${a//@CORES8@/$work/cores8.toml}"
}
# baseline ARGS: whether the row is a trace's plain EASY (the × plain EASY
# of the trace's other rows is against it).
baseline() { [ "$1" = "--policy easy" ] || [[ $1 == "--policy easy --machine @"* ]]; }
declare -A easy easycpu
# once RUN BIN FILE ARGS: one run; prints "wall cpu rss_mb".
once() {
	rm -rf "$work/out"
	local t0 t1 u s m
	t0=$EPOCHREALTIME
	# shellcheck disable=SC2086
	/usr/bin/time -f '%U %S %M' -o "$work/t" "$1" run --trace "$2" $3 --out "$work/out" >/dev/null 2>"$work/err" ||
		{ cat "$work/err" >&2; exit 1; }
	t1=$EPOCHREALTIME
	read -r u s m <"$work/t"
	awk "BEGIN{printf \"%.3f %.2f %d\n\", $t1 - $t0, $u + $s, $m / 1024}"
}
median() { sort -n | awk '{v[NR]=$1} END{if (NR%2) print v[(NR+1)/2]; else printf "%.3f\n", (v[NR/2]+v[NR/2+1])/2}'; }
if [ -n "$base" ]; then
	declare -A beasy neasy
	printf '| trace | run | base wall s | wall s | change | base CPU s | CPU s | base × EASY | × EASY |\n|---|---|---:|---:|---:|---:|---:|---:|---:|\n'
	for r in "${rows[@]}"; do
		IFS='|' read -r name file args <<<"$r"
		[ -n "${BENCH_ONLY:-}" ] && ! [[ "$name $args" =~ $BENCH_ONLY ]] && ! baseline "$args" && continue
		: >"$work/b" && : >"$work/n"
		for _ in $(seq "$runs"); do
			once "$base" "$file" "$(machine "$args")" >>"$work/b"
			once "$bin" "$file" "$(machine "$args")" >>"$work/n"
		done
		bw=$(cut -d' ' -f1 "$work/b" | median) nw=$(cut -d' ' -f1 "$work/n" | median)
		bc=$(cut -d' ' -f2 "$work/b" | median) nc=$(cut -d' ' -f2 "$work/n" | median)
		if baseline "$args"; then beasy[$name]=$bw neasy[$name]=$nw; fi
		rb=$(awk "BEGIN{b=${beasy[$name]:-0}; if (b>0) printf \"%.2f\", $bw/b; else print \"-\"}")
		rn=$(awk "BEGIN{b=${neasy[$name]:-0}; if (b>0) printf \"%.2f\", $nw/b; else print \"-\"}")
		ch=$(awk "BEGIN{printf \"%+.1f %%\", ($nw/$bw-1)*100}")
		printf '| %s | `%s` | %.3f | %.3f | %s | %.2f | %.2f | %s | %s |\n' "$name" "$args" "$bw" "$nw" "$ch" "$bc" "$nc" "$rb" "$rn"
	done
	exit 0
fi
printf '| trace | run | wall s | CPU s | × plain EASY (wall) | × plain EASY (CPU) | peak RSS MB |\n|---|---|---:|---:|---:|---:|---:|\n'
for r in "${rows[@]}"; do
	IFS='|' read -r name file args <<<"$r"
	[ -n "${BENCH_ONLY:-}" ] && ! [[ "$name $args" =~ $BENCH_ONLY ]] && ! baseline "$args" && continue
	best="" cpu="" rss=""
	for _ in $(seq "$runs"); do
		rm -rf "$work/out"
		t0=$EPOCHREALTIME
		# shellcheck disable=SC2086
		/usr/bin/time -f '%U %S %M' -o "$work/t" "$bin" run --trace "$file" $(machine "$args") --out "$work/out" >/dev/null 2>"$work/err" ||
			{ cat "$work/err" >&2; exit 1; }
		t1=$EPOCHREALTIME
		w=$(awk "BEGIN{printf \"%.3f\", $t1 - $t0}")
		read -r u s m <"$work/t"
		if [ -z "$best" ] || awk "BEGIN{exit !($w < $best)}"; then
			best=$w cpu=$(awk "BEGIN{print $u+$s}") rss=$((m / 1024))
		fi
	done
	if baseline "$args"; then easy[$name]=$best easycpu[$name]=$cpu; fi
	ratio=$(awk "BEGIN{b=${easy[$name]:-0}; if (b>0) printf \"%.1f\", $best/b; else print \"-\"}")
	cratio=$(awk "BEGIN{b=${easycpu[$name]:-0}; if (b>0) printf \"%.1f\", $cpu/b; else print \"-\"}")
	printf '| %s | `%s` | %.3f | %.2f | %s | %s | %d |\n' "$name" "$args" "$best" "$cpu" "$ratio" "$cratio" "$rss"
done
