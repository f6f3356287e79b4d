#!/usr/bin/env bash
# ident.sh OLD NEW [quick|full] — run two drsim binaries on the shared traces
# under the configurations every scheduling, governor or model change must
# keep byte-identical, and compare jobs.csv, power.csv, summary.json (less
# the build-identity keys) and stdout. Exit 1 on any difference.
#
#   OLD, NEW   drsim binaries (go build -o /tmp/drsim-old ./cmd/drsim at the base)
#   quick      HPC2N, KTH, RICC and CEA-Curie (first 60,000 jobs), no RICC conservative nor cons-* (default)
#   full       all 11 traces in full under every configuration
#
# DRSIM_SHARED (default ../shared next to the repository) locates the traces.
# IDENT_ONLY=regex keeps the configurations whose name matches.
set -uo pipefail
old=${1:?usage: ident.sh OLD NEW [quick|full]}
new=${2:?usage: ident.sh OLD NEW [quick|full]}
mode=${3:-quick}
here=$(cd "$(dirname "$0")/.." && pwd)
shared=${DRSIM_SHARED:-$here/../shared}
tr=$shared/traces
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

configs=(
	"fcfs|--policy fcfs"
	"easy|--policy easy"
	"conservative|--policy conservative"
	"dvfs-dr|--dvfs dr --dr-ratio 0.25"
	"powercap-dr|--powercap dr --dr-ratio 0.25"
	"malleable|--powercap dr --malleable 0.5 --dr-ratio 0.25"
	"hopper|--preset hopper --interference on"
	"edison|--preset edison --interference on"
	"mira|--preset mira --interference on"
	"stampede|--preset stampede --interference on"
	"psave-sef-suspend|--dvfs powersave --order sef --suspend-after 600 --resume-time 300"
	"scattered-event|--placement scattered --pass event"
	"multifactor|--priority multifactor"
	# Weighted factors reorder the queue: most submits land inside it
	# (the wait queue's squeeze and insert, waitq.go).
	"mf-weights|--priority multifactor --slurm-set PriorityWeightAge=1000;PriorityWeightFairshare=10000;PriorityWeightJobSize=100;PriorityDecayHalfLife=7-0;PriorityCalcPeriod=5"
	"mf-weights-cons|--policy conservative --priority multifactor --slurm-set PriorityWeightAge=1000;PriorityWeightFairshare=10000;PriorityWeightJobSize=100;PriorityDecayHalfLife=7-0;PriorityCalcPeriod=5"
	"mf-weights-slurmbf|--policy slurm-backfill --priority multifactor --slurm-set PriorityWeightAge=1000;PriorityWeightFairshare=10000;PriorityWeightJobSize=100;PriorityDecayHalfLife=7-0;PriorityCalcPeriod=5"
	"mf-weights-dr|--priority multifactor --slurm-set PriorityWeightAge=1000;PriorityWeightFairshare=10000;PriorityWeightJobSize=100 --dvfs dr --dr-ratio 0.25"
	"sef-cons|--policy conservative --order sef"
	# Perfect estimates: long queues whose skipped jobs are mostly
	# dominated by a class already without a start (conslazy.go, fails).
	"cons-estrun|--policy conservative --estimate run"
	# Conservative under a power limit: the power profile, op for op.
	"cons-dvfs-dr|--policy conservative --dvfs dr --dr-ratio 0.25"
	"cons-powercap-dr|--policy conservative --powercap dr --dr-ratio 0.25"
	"fastnodes|--placement fastnodes --node-speed-sd 0.03 --slow-nodes 0.0625:1.2 --procs-per-node 4"
	"fastnodes-drift|--placement fastnodes --node-speed-sd 0.03 --node-drift 0@86400:1.3,3@86400:1.2,7@2592000:1.5,12@2592000:1.1"
	"slurm-backfill|--policy slurm-backfill"
	# A machine file of the trace's processors in nodes of 8 (@NODES8@:
	# whole nodes, @CORES8@: shared by core, cons_tres): slurm-backfill's
	# node plan (slurmbf_nodes.go) and the cons_tres placement.
	"slurmbf-nodes|--policy slurm-backfill --machine @NODES8@"
	"slurmbf-cores|--policy slurm-backfill --machine @CORES8@"
	"easy-cores|--policy easy --machine @CORES8@"
	"variability|--node-speed-sd 0.03 --slow-nodes 0.05:1.1 --dvfs dr --dr-ratio 0.25"
)
if [ "$mode" = full ]; then
	traces=$(ls "$tr"/*.swf "$tr"/*.swf.gz)
else
	traces="$tr/hpc2n.swf $tr/HPC2N-2002-2.2-cln.swf.gz $tr/KTH-SP2-1996-2.1-cln.swf.gz $tr/RICC-2010-2.swf.gz $tr/CEA-Curie-2011-2.1-cln.swf.gz"
fi

[ -n "$traces" ] || { echo "ident.sh: no traces in $tr (set DRSIM_SHARED to the shared data)" >&2; exit 2; }
for t in $traces; do
	[ -f "$t" ] || { echo "ident.sh: $t: no such trace (set DRSIM_SHARED to the shared data; it is $shared)" >&2; exit 2; }
done

# machine8 TRACE ALLOCATION: the trace's machine in nodes of 8
# (machine8.sh) in a file; prints its path.
machine8() {
	local f=$work/machine-$(basename "$1")-$2.toml
	"$here/scripts/machine8.sh" "$1" "$2" >"$f" && echo "$f"
}

strip() { grep -Ev '"(drsim_version|vcs_[a-z_]+|go_version|machine_size_source|model_extrapolation)"|^ +"[^"]*",?$|^  \],?$' "$1"; }
fail=0 n=0
for t in $traces; do
	base=$(basename "$t"); base=${base%%.swf*}
	for c in "${configs[@]}"; do
		name=${c%%|*} args=${c#*|}
		[ -n "${IDENT_ONLY:-}" ] && ! [[ $name =~ $IDENT_ONLY ]] && continue
		extra=""
		if [ "$mode" != full ]; then
			case "$base:$name" in
			RICC*:conservative | RICC*:cons-*) continue ;;
			RICC*:slurmbf-*) extra="--jobs 60000" ;;
			CEA*:*) extra="--jobs 60000" ;;
			esac
		fi
		case $args in *@NODES8@*) args=${args//@NODES8@/$(machine8 "$t" node)} ;; esac
		case $args in *@CORES8@*) args=${args//@CORES8@/$(machine8 "$t" core)} ;; esac
		for side in old new; do
			bin=$old; [ $side = new ] && bin=$new
			rm -rf "$work/$side"
			# shellcheck disable=SC2086
			"$bin" run --trace "$t" $args $extra --out "$work/$side" >"$work/$side.stdout" 2>"$work/$side.stderr"
			echo $? >"$work/$side.rc"
		done
		n=$((n + 1))
		d=""
		cmp -s "$work/old.rc" "$work/new.rc" || d="$d exit($(cat "$work/old.rc")→$(cat "$work/new.rc"))"
		# A run that fails compares no outputs: the same refusal on both
		# sides (a topology too small for the trace) is said as such, any
		# other failure is a difference.
		refused=""
		if [ "$(cat "$work/old.rc")" != 0 ] || [ "$(cat "$work/new.rc")" != 0 ]; then
			if cmp -s "$work/old.rc" "$work/new.rc" && cmp -s "$work/old.stderr" "$work/new.stderr"; then
				refused=" (both refused: $(tail -n 1 "$work/new.stderr" | head -c 200))"
			else
				d="$d stderr($(tail -n 1 "$work/new.stderr" | head -c 200))"
			fi
		fi
		cmp -s "$work/old.stdout" "$work/new.stdout" || d="$d stdout"
		for f in jobs.csv power.csv; do
			if [ -f "$work/old/$f" ] || [ -f "$work/new/$f" ]; then
				cmp -s "$work/old/$f" "$work/new/$f" || d="$d $f"
			fi
		done
		if [ -f "$work/old/summary.json" ]; then
			cmp -s <(strip "$work/old/summary.json") <(strip "$work/new/summary.json") || d="$d summary.json"
		fi
		if [ -n "$d" ]; then
			echo "DIFF $base $name:$d"
			fail=1
		else
			echo "same $base $name$refused"
		fi
	done
done
echo "$n configurations compared"
exit $fail
