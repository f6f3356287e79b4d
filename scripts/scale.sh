#!/usr/bin/env bash
# The scale benchmark of the reliability issue: generate a Lublin–Feitelson
# trace of N jobs (default 5,000,000; a 337 MB file), replay it under EASY
# with jobs.csv and power.csv written, and report wall time, CPU time and
# peak RSS (GNU time, installed from Debian's mirror if missing). Memory
# should not grow with N: run it with N=1000000 and N=5000000 to compare.
#
#   scripts/scale.sh [N] [extra drsim run flags...]
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-5000000}
shift || true
if [ ! -x /usr/bin/time ]; then
	apt-get install -y time >/dev/null 2>&1 || sudo apt-get install -y time >/dev/null
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
go build -o "$work/drsim" ./cmd/drsim
"$work/drsim" generate --jobs "$n" --out "$work/trace.swf"
printf '%s jobs, %s MB trace\n' "$n" $(( $(stat -c %s "$work/trace.swf") / 1000000 ))
/usr/bin/time -f 'wall %e s, CPU %U s user + %S s sys, peak RSS %M KB' \
	"$work/drsim" run --trace "$work/trace.swf" --out "$work/out" "$@" | grep -E 'jobs simulated|wait mean'
