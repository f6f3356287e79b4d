#!/usr/bin/env bash
# pgo-check.sh — the profile-guided build (cmd/drsim/default.pgo, used by
# go build by default) must compute what a build without it computes:
# builds drsim both ways and compares jobs.csv, power.csv and the summary
# byte for byte on runs that cover the hot paths the profile steers
# (plain EASY, conservative, the dr governors, network contention,
# malleable jobs, multifactor priority). DRSIM_SHARED locates the traces.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
tr=${DRSIM_SHARED:?set DRSIM_SHARED}/traces
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
(cd "$here" && go build -o "$work/pgo" ./cmd/drsim && go build -pgo=off -o "$work/nopgo" ./cmd/drsim)
go version -m "$work/pgo" | grep -q -- '-pgo=.*default.pgo' || { echo "pgo-check: the default build did not use cmd/drsim/default.pgo"; exit 1; }
hpc2n=$tr/HPC2N-2002-2.2-cln.swf.gz cea=$tr/CEA-Curie-2011-2.1-cln.swf.gz
runs=(
	"--trace $tr/CTC-SP2-1996-3.1-cln.swf.gz --policy conservative"
	"--trace $cea --jobs 60000 --policy easy"
	"--trace $cea --jobs 60000 --dvfs dr --dr-ratio 0.25"
	"--trace $cea --jobs 60000 --powercap dr --dr-ratio 0.25"
	"--trace $hpc2n --jobs 60000 --preset hopper --interference on"
	"--trace $hpc2n --jobs 60000 --powercap dr --malleable 0.5 --dr-ratio 0.25"
	"--trace $hpc2n --jobs 60000 --priority multifactor --policy slurm-backfill"
)
n=0
for r in "${runs[@]}"; do
	n=$((n + 1))
	for b in pgo nopgo; do
		# shellcheck disable=SC2086
		"$work/$b" run $r --out "$work/$b.$n" >"$work/$b.$n.stdout" 2>&1 || { cat "$work/$b.$n.stdout"; exit 1; }
		# the build's own identity differs by design
		grep -Ev '"(drsim_version|vcs_[a-z_]+|go_version)"' "$work/$b.$n/summary.json" >"$work/$b.$n.summary"
		rm "$work/$b.$n/summary.json"
	done
	for f in jobs.csv power.csv; do
		cmp "$work/pgo.$n/$f" "$work/nopgo.$n/$f" || { echo "pgo-check: $f differs on: $r"; exit 1; }
	done
	cmp "$work/pgo.$n.summary" "$work/nopgo.$n.summary" || { echo "pgo-check: summary.json differs on: $r"; exit 1; }
	cmp "$work/pgo.$n.stdout" "$work/nopgo.$n.stdout" || { echo "pgo-check: the output differs on: $r"; exit 1; }
	echo "pgo-check: same: $r"
done
