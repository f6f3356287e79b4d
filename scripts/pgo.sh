#!/usr/bin/env bash
# pgo.sh — regenerate cmd/drsim/default.pgo, the CPU profile that `go build`
# uses for profile-guided optimisation of drsim (Go's -pgo=auto, on by
# default: a default.pgo in the main package's directory).
#
# It builds drsim without a profile (-pgo=off, so the new profile does not
# depend on the old one), runs the rows of scripts/bench.sh that decide
# drsim's speed (plain EASY, conservative, the DR governors, the network
# presets, malleable, multifactor, slurm-backfill) once each with
# --cpuprofile, and merges the profiles (go tool pprof -proto). The runs
# need the shared traces: DRSIM_SHARED (default ../shared beside the
# repository). The profile only steers inlining and code layout, never what
# the program computes: outputs are byte for byte those of a build without
# it (scripts/ident.sh BASE NEW full checks that after regenerating).
#
# Regenerate after changes to the hot paths (a stale profile still builds
# and only loses some of the gain); commit the result.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
shared=${DRSIM_SHARED:-$here/../shared}
tr=$shared/traces
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
(cd "$here" && go build -pgo=off -o "$work/drsim" ./cmd/drsim)

ricc=$tr/RICC-2010-2.swf.gz cea=$tr/CEA-Curie-2011-2.1-cln.swf.gz hpc2n=$tr/HPC2N-2002-2.2-cln.swf.gz
ctc=$tr/CTC-SP2-1996-3.1-cln.swf.gz
rows=(
	"$ricc|--policy easy"
	"$ricc|--policy conservative"
	"$ricc|--policy slurm-backfill"
	"$ricc|--dvfs dr --dr-ratio 0.25"
	"$cea|--policy easy"
	"$cea|--policy conservative"
	"$cea|--dvfs dr --dr-ratio 0.25"
	"$cea|--powercap dr --dr-ratio 0.25"
	"$ctc|--policy conservative"
	"$hpc2n|--policy easy"
	"$hpc2n|--priority multifactor"
	"$hpc2n|--preset hopper --interference on"
	"$hpc2n|--preset edison --interference on"
	"$hpc2n|--preset mira --interference on"
	"$hpc2n|--powercap dr --malleable 0.5 --dr-ratio 0.25"
)
n=0
for r in "${rows[@]}"; do
	IFS='|' read -r file args <<<"$r"
	[ -f "$file" ] || { echo "pgo.sh: missing trace $file (set DRSIM_SHARED)" >&2; exit 1; }
	n=$((n + 1))
	echo "pgo.sh: $(basename "$file") $args" >&2
	# shellcheck disable=SC2086
	"$work/drsim" --cpuprofile "$work/$n.prof" run --trace "$file" $args --out "$work/out$n" >/dev/null 2>"$work/err" ||
		{ cat "$work/err" >&2; exit 1; }
	rm -rf "$work/out$n"
done
go tool pprof -proto "$work"/*.prof >"$work/merged.pgo"
mv "$work/merged.pgo" "$here/cmd/drsim/default.pgo"
echo "pgo.sh: wrote cmd/drsim/default.pgo ($(wc -c <"$here/cmd/drsim/default.pgo") bytes) from $n runs" >&2
