#!/usr/bin/env bash
# priority-check.sh DRSIM_BIN — Slurm's own scheduling against drsim's.
#
# Runs the first 160 jobs of the KTH-SP2 trace (priority-jobs.sh: six users
# in two accounts, two partitions, runtimes scaled to seconds) on a real
# Slurm (accounting.sh with priority-nodes.conf, priority.conf:
# priority/multifactor with NO_FAIR_TREE, sched/backfill with bf_interval=5,
# and priority-assoc.sh) RUNS times (default 2), then replays each run's
# sacct dump in drsim with the same slurm.conf and associations
# (--policy slurm-backfill --priority multifactor) and compares start
# times: per run, the largest and mean |drsim − Slurm| start, the jobs
# more than 2 × bf_interval apart, and of the pairs Slurm starts more than
# one scheduling interval apart, how many drsim starts in the other order;
# and the same figures between the Slurm runs themselves.
#
# Exit 1 when drsim is beyond the bounds for any run: with BOUND=issue
# (the default) the issue's (no start more than 2 × bf_interval from
# Slurm's, no pair swapped), which Slurm does not meet against itself on
# this workload (docs/slurm-comparison.md); with BOUND=relative (what CI
# runs, needs two runs or more) drsim may be at most RATIO (default 3)
# times as far from each Slurm run as the Slurm runs are from each other,
# in starts beyond 2 × bf_interval and in swapped pairs. That relative bound
# proved flaky: Slurm's two runs differ by 482 swapped pairs one time and
# by 90 another. BOUND=guard (what CI runs) is a regression guard:
# MAX_BEYOND (default 70) and MAX_SWAPPED (default 1300), each one number
# for every run or a comma-separated list, one per run in the order REF,
# DUMPS (or the fresh runs), the last repeated for the runs after it. A tighter guard
# (60, 600), set from drsim's distance to the two committed runs after the
# fidelity fixes of 2026-11-25 (38–39 starts beyond, 264–299 pairs
# swapped), failed in CI on a fresh run (run3): 55 beyond, 977 swapped,
# although that run was close to run 1 (11, 90). drsim's replays of two
# close Slurm runs differ more than the runs do, so the guard is back at
# the thresholds that pass every fresh run measured (53–55, 905–1,047 for
# the starting build and the fixed one alike); .ci/run sets tighter
# thresholds for the committed runs, which are deterministic. It fails if
# the replay gets clearly worse; it does not say the issue's bounds are
# met (they are not: docs/slurm-comparison.md).
#
# Environment: DRSIM_SHARED (the traces; default ../shared beside the
# repository), OUT (default: a new temporary directory, kept), RUNS,
# DUMPS=dir1,dir2 (existing accounting.sh outputs: no Slurm run),
# REF=dir (an earlier run kept as run 1, e.g. testdata/slurm-priority/run1:
# with RUNS=1, CI makes one fresh run and compares it with that one),
# NJOBS (default 160).
#
# Where a run has its slurmctld.log (run2, run3 and fresh runs), it also
# prints, for the jobs drsim starts within 1 s of Slurm, how many drsim
# put on the nodes Slurm gave them (priority-nodes.awk; no bound).
set -euo pipefail
die() { echo "priority-check: $*" >&2; exit 1; }
[ $# -eq 1 ] || die "usage: $0 DRSIM_BIN"
drsim=$(realpath "$1")
here=$(cd "$(dirname "$0")" && pwd)
shared=${DRSIM_SHARED:-$here/../../../shared}
OUT=${OUT:-$(mktemp -d)}
mkdir -p "$OUT"
bf=5 si=5 # bf_interval and sched_interval of priority.conf

dumps=()
if [ -n "${REF:-}" ]; then # a committed run of the same workload (testdata/slurm-priority/run1)
	dumps+=("$REF")
fi
if [ -n "${DUMPS:-}" ]; then
	IFS=, read -r -a more <<<"$DUMPS"
	dumps+=("${more[@]}")
else
	trace=$shared/traces/KTH-SP2-1996-2.1-cln.swf.gz
	[ -r "$trace" ] || die "$trace: not readable (set DRSIM_SHARED)"
	"$here"/priority-jobs.sh "$trace" "${NJOBS:-160}" >"$OUT"/jobs.txt
	for r in $(seq "${RUNS:-2}"); do
		PRIO_JOBS="$OUT"/jobs.txt WORKLOAD="$here"/priority-workload.sh NODES_CONF="$here"/priority-nodes.conf \
			EXTRA_CONF="$here"/priority.conf ASSOC_SETUP="$here"/priority-assoc.sh MAX_WAIT=${MAX_WAIT:-1200} \
			"$here"/accounting.sh "$OUT"/slurm-$r
		dumps+=("$OUT"/slurm-$r)
	done
fi

# slurm_starts DUMP: "name start_s" per started job, seconds from the
# earliest submit (sacct's local times in the dump's zone).
slurm_starts() {
	local zone
	zone=$(sed -n 's/^zone: \([^ ]*\).*/\1/p' "$1"/VERSIONS)
	TZ=${zone:-UTC} awk -F'|' 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
		function t(s) { gsub(/[-T:]/, " ", s); return mktime(s) }
		{ sub_ = t($c["Submit"]); if (first == "" || sub_ < first) first = sub_
		  if ($c["Start"] ~ /^[0-9]/) { n++; name[n] = $c["JobName"]; st[n] = t($c["Start"]) } }
		END { for (i = 1; i <= n; i++) print name[i], st[i] - first }' "$1"/jobs.sacct | sort
}

BOUND=${BOUND:-issue} RATIO=${RATIO:-3} MAX_BEYOND=${MAX_BEYOND:-70} MAX_SWAPPED=${MAX_SWAPPED:-1300}
case $BOUND in issue | relative | guard) ;; *) die "BOUND=$BOUND: want issue, relative or guard" ;; esac
[ "$BOUND" != relative ] || [ "${#dumps[@]}" -ge 2 ] || die "BOUND=relative needs two Slurm runs or more"
field() { sed -n "s/.* $1 \([0-9]*\).*/\1/p" <<<"$2"; }
# nth LIST K: the K-th (0-based) of a comma-separated list, its last for K past its end.
nth() { awk -F, -v k="$2" '{ print (k < NF ? $(k + 1) : $NF) }' <<<"$1"; }
for k in "${!dumps[@]}"; do
	slurm_starts "${dumps[$k]}" >"$OUT"/slurm-starts-$((k + 1)).txt
done
# Slurm against itself: the largest distance between run 1 and the others.
self_far=0 self_swap=0 self=()
for k in "${!dumps[@]}"; do
	[ "$k" -gt 0 ] || continue
	res=$(awk -v bf=$bf -v si=$si -f "$here"/priority-compare.awk "$OUT"/slurm-starts-1.txt "$OUT"/slurm-starts-$((k + 1)).txt)
	self+=("Slurm run 1 vs run $((k + 1)): $res")
	self_far=$(( $(field beyond_2bf "$res") > self_far ? $(field beyond_2bf "$res") : self_far ))
	self_swap=$(( $(field pairs_swapped "$res") > self_swap ? $(field pairs_swapped "$res") : self_swap ))
done
fail=0
for k in "${!dumps[@]}"; do
	d=${dumps[$k]} r=$((k + 1))
	rm -rf "$OUT"/drsim-$r
	"$drsim" run --trace "$d"/jobs.sacct --machine "$here"/priority-machine.toml --partition-map field16:1=cpu,2=fast --policy slurm-backfill \
		--priority multifactor --slurm-conf "$d"/slurm.conf --assoc "$d"/assoc.txt --check --out "$OUT"/drsim-$r \
		>"$OUT"/drsim-$r.txt 2>"$OUT"/drsim-$r.err || die "drsim failed on $d: $(head -3 "$OUT"/drsim-$r.err)"
	# jobs.csv job_id is the JobID; names from the dump.
	awk -F'|' 'NR == FNR { if (FNR > 1) nm[$1] = $3; next } FNR > 1 { split($0, f, ","); print nm[f[1]], f[8] }' \
		"$d"/jobs.sacct "$OUT"/drsim-$r/jobs.csv | sort >"$OUT"/drsim-starts-$r.txt
	res=$(awk -v bf=$bf -v si=$si -f "$here"/priority-compare.awk "$OUT"/slurm-starts-$r.txt "$OUT"/drsim-starts-$r.txt)
	echo "run $r: drsim vs Slurm: $res"
	if [ -r "$d"/slurmctld.log ]; then # the nodes each job got, where the log says (priority-nodes.awk)
		echo "run $r: drsim's nodes vs Slurm's: $(awk -f "$here"/priority-nodes.awk "$d"/jobs.sacct "$d"/slurmctld.log \
			"$OUT"/slurm-starts-$r.txt "$OUT"/drsim-$r/jobs.csv)"
	fi
	far=$(field beyond_2bf "$res") swap=$(field pairs_swapped "$res")
	if [ "$BOUND" = issue ]; then
		[ "$far" -eq 0 ] && [ "$swap" -eq 0 ] || fail=1
	elif [ "$BOUND" = guard ]; then
		maxb=$(nth "$MAX_BEYOND" "$k") maxs=$(nth "$MAX_SWAPPED" "$k")
		echo "run $r: guard: at most $maxb starts beyond, $maxs pairs swapped"
		[ "$far" -le "$maxb" ] && [ "$swap" -le "$maxs" ] || fail=1
	else
		[ "$far" -le $((RATIO * self_far)) ] && [ "$swap" -le $((RATIO * self_swap)) ] || fail=1
	fi
done
printf '%s\n' "${self[@]}"
case $BOUND in
issue) how="" ;;
guard) how=" (regression guard: at most $MAX_BEYOND starts beyond 2 x bf_interval, $MAX_SWAPPED pairs swapped, per run)" ;;
*) how=" (at most $RATIO x Slurm's own: $((RATIO * self_far)) starts beyond, $((RATIO * self_swap)) pairs swapped)" ;;
esac
echo "bound: $BOUND$how: $([ $fail = 0 ] && echo met || echo NOT met)"
echo "outputs in $OUT"
exit $fail
