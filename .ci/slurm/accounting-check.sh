#!/usr/bin/env bash
# Checks that drsim reads back every job a real Slurm recorded: runs
# accounting.sh into a temporary directory (or takes an existing dump), has
# drsim convert each sacct dump to SWF and compares the SWF with truth.csv,
# which accounting.sh derived from slurmctld's jobcomp log, not from sacct.
#
#   .ci/slurm/accounting-check.sh /path/to/drsim          # runs Slurm (root)
#   .ci/slurm/accounting-check.sh /path/to/drsim DUMPDIR  # e.g. testdata/sacct
#
# For every job of truth.csv the SWF must hold one record whose job number
# is Slurm's JobIDRaw and whose
#   field 2 + UnixStartTime = submit       field 3 (wait) = start - submit
#   field 4 (run) = end - start            field 5 (alloc procs) = cpus
#   field 8 (req procs): = cpus, or 1..cpus for an --exclusive job
#   field 9 (req time) = timelimit         field 16 = the truth partition,
#     by the partition names listed in the SWF header
#   field 11 (status): COMPLETED 1, FAILED 0, CANCELLED 5, TIMEOUT 0 or 1
# A job that never started (truth start empty: cancelled while pending)
# must be there too (drsim runs with --keep-unstarted), with run 0 or -1,
# alloc procs 0, -1 or its requested procs, wait -1 or end - submit.
# Steps (steps.sacct) must be skipped, the -p variant (trailing "|") and a
# different column order (jobs-cols.sacct) must give the same jobs. Exits
# non-zero on any mismatch or missing file.
set -euo pipefail

die() { echo "acct-check: FAIL: $*" >&2; exit 1; }
[ $# -ge 1 ] && [ $# -le 2 ] || die "usage: $0 /path/to/drsim [DUMPDIR]"
DRSIM=$(realpath "$1")
[ -x "$DRSIM" ] || die "$1 is not an executable"
HERE=$(cd "$(dirname "$0")" && pwd)
T=$(mktemp -d /tmp/drsim-acctcheck.XXXXXX)
trap 'rm -rf "$T"' EXIT
if [ $# -eq 2 ]; then
	D=$(cd "$2" && pwd) || die "$2: no such directory"
else
	"$HERE"/accounting.sh "$T"/dump || die "accounting.sh failed"
	D=$T/dump
fi
for f in jobs.sacct steps.sacct jobs-p.sacct jobs-cols.sacct jobcomp.log truth.csv VERSIONS slurm.conf scontrol-jobs.txt; do
	[ -s "$D/$f" ] || die "$D/$f: missing or empty"
done
zone=$(sed -n 's/^zone: \([^ ]*\).*/\1/p' "$D"/VERSIONS)
[ -n "$zone" ] || die "$D/VERSIONS: no 'zone:' line"
# truth.csv must be what jobcomp2truth.sh makes of jobcomp.log today.
TZ=$zone "$HERE"/jobcomp2truth.sh "$D"/jobcomp.log "$D"/slurm.conf "$D"/scontrol-jobs.txt >"$T"/truth.csv
cmp -s "$T"/truth.csv "$D"/truth.csv || die "$D/truth.csv differs from jobcomp2truth.sh's: $(diff "$D"/truth.csv "$T"/truth.csv | head -5)"
njobs=$(($(wc -l <"$D"/truth.csv) - 1))
[ "$njobs" -gt 0 ] || die "$D/truth.csv has no jobs"
# Exclusive jobs (OverSubscribe=NO in scontrol's record) may request fewer
# processors than they were given.
awk '/OverSubscribe=NO/ { for (i = 1; i <= NF; i++) if ($i ~ /^JobId=/) print substr($i, 7) }' "$D"/scontrol-jobs.txt >"$T"/exclusive

fails=0
check() { # check FILE [noreq]
	local f=$1 mode=${2:-} base
	base=$(basename "$f" .sacct)
	if ! "$DRSIM" trace info --json --trace-tz "$zone" --keep-unstarted "$f" >"$T/$base.info" 2>"$T/$base.err"; then
		echo "acct-check: FAIL: drsim trace info $f: $(head -3 "$T/$base.err")" >&2
		fails=$((fails + 1))
		return
	fi
	local read
	read=$(grep -o '"jobs_read": *[0-9]*' "$T/$base.info" | grep -o '[0-9]*$' || true)
	if [ "$read" != "$njobs" ]; then
		echo "acct-check: FAIL: drsim trace info $f: jobs_read=${read:-none}, truth has $njobs jobs" >&2
		fails=$((fails + 1))
	fi
	if ! "$DRSIM" trace convert --trace-tz "$zone" --keep-unstarted "$f" "$T/$base.swf" >"$T/$base.out" 2>"$T/$base.err"; then
		echo "acct-check: FAIL: drsim trace convert $f: $(head -3 "$T/$base.err")" >&2
		fails=$((fails + 1))
		return
	fi
	if ! awk -v mode="$mode" -v file="$f" -f "$HERE"/swf-vs-truth.awk "$T"/exclusive "$D"/truth.csv "$T/$base.swf"; then
		fails=$((fails + 1))
		return
	fi
	echo "acct-check: ok: $f: $njobs jobs match truth.csv"
}
check "$D"/jobs.sacct
check "$D"/jobs-p.sacct
check "$D"/steps.sacct
check "$D"/jobs-cols.sacct noreq
# The three full dumps carry the same columns: their SWF records must agree.
for v in jobs-p steps; do
	if [ -s "$T/$v.swf" ] && [ -s "$T"/jobs.swf ] && ! cmp -s <(grep -v '^;' "$T"/jobs.swf) <(grep -v '^;' "$T/$v.swf"); then
		echo "acct-check: FAIL: $v.sacct and jobs.sacct convert to different SWF records" >&2
		fails=$((fails + 1))
	fi
done
[ $fails -eq 0 ] || die "$fails check(s) failed on $D"
echo "acct-check: OK: $njobs jobs of $D read back by drsim as Slurm recorded them"
