#!/usr/bin/env bash
# Runs examples/slurm/sweep.sbatch on a real Slurm (Debian's packages) on
# this machine and checks that the merged shards are byte-identical to a
# single-process sweep.
#
#   .ci/slurm/test.sh /path/to/drsim
#
# Needs root and the Debian mirror. Starts munged, slurmctld and four
# slurmd (emulated nodes n1-n4 on localhost), all state under a temporary
# directory, and stops exactly those processes on exit. Fails (never skips)
# when Slurm cannot be installed or started.
set -euo pipefail

die() { echo "slurm-test: $*" >&2; exit 1; }
[ $# -eq 1 ] || die "usage: $0 /path/to/drsim"
DRSIM=$(realpath "$1")
[ -x "$DRSIM" ] || die "$1 is not an executable"
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
[ "$(id -u)" -eq 0 ] || die "must run as root (installs packages, starts daemons)"

echo "slurm-test: installing slurm and munge"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq || die "apt-get update failed"
apt-get install -y -qq --no-install-recommends slurmctld slurmd slurm-client munge >/dev/null ||
	die "apt-get install slurmctld slurmd slurm-client munge failed"

W=$(mktemp -d /tmp/drsim-slurm.XXXXXX)
chmod 755 "$W"
PIDS=()
cleanup() {
	local rc=$?
	for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
	for p in "${PIDS[@]}"; do
		for _ in $(seq 50); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
		kill -9 "$p" 2>/dev/null || true
	done
	if [ $rc -ne 0 ]; then
		echo "slurm-test: FAILED; logs:" >&2
		tail -n 30 "$W"/log/* "$W"/run/*.out 2>/dev/null >&2 || true
	fi
	rm -rf "$W"
	exit $rc
}
trap cleanup EXIT

mkdir -p "$W"/munge "$W"/state "$W"/spool "$W"/log "$W"/run /run/munge
chmod 755 "$W"/munge
dd if=/dev/urandom of="$W"/munge/munge.key bs=1 count=1024 status=none
chmod 400 "$W"/munge/munge.key
munged --force --foreground --socket="$W"/munge/munge.socket --key-file="$W"/munge/munge.key \
	--pid-file="$W"/munge/munged.pid --seed-file="$W"/munge/seed >"$W"/log/munged.log 2>&1 &
PIDS+=($!)
for _ in $(seq 50); do [ -S "$W"/munge/munge.socket ] && break; sleep 0.1; done
[ -S "$W"/munge/munge.socket ] || die "munged did not start"

cat >"$W"/epilog.sh <<'EOF'
#!/bin/sh
exit 0
EOF
chmod 755 "$W"/epilog.sh
export SLURM_CONF="$W"/slurm.conf
cat >"$SLURM_CONF" <<EOF
ClusterName=drsimci
SlurmctldHost=localhost
SlurmctldPort=16817
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$W/munge/munge.socket
CredType=cred/munge
StateSaveLocation=$W/state
SlurmdSpoolDir=$W/spool/%n
SlurmctldPidFile=$W/slurmctld.pid
SlurmdPidFile=$W/slurmd-%n.pid
SlurmctldLogFile=$W/log/slurmctld.log
SlurmdLogFile=$W/log/slurmd-%n.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/backfill
JobCompType=jobcomp/filetxt
JobCompLoc=$W/jobcomp.txt
AccountingStorageType=accounting_storage/none
MpiDefault=none
ReturnToService=2
SlurmdParameters=config_overrides
Epilog=$W/epilog.sh
NodeName=n[1-4] NodeHostname=localhost Port=17001-17004 CPUs=1 RealMemory=1000 State=UNKNOWN
PartitionName=ci Nodes=n[1-4] Default=YES MaxTime=INFINITE State=UP
EOF

echo "slurm-test: starting slurmctld and slurmd n1-n4"
slurmctld -D -c -i >"$W"/log/slurmctld.out 2>&1 &
PIDS+=($!)
for n in n1 n2 n3 n4; do
	slurmd -D -N $n >"$W"/log/slurmd-$n.out 2>&1 &
	PIDS+=($!)
done
for _ in $(seq 150); do
	[ "$(sinfo -h -o '%t' 2>/dev/null | sort -u | tr -d '\n')" = "idle" ] && break
	sleep 0.2
done
[ "$(sinfo -h -o '%t' | sort -u | tr -d '\n')" = "idle" ] || die "nodes not idle: $(sinfo -h -N -o '%N %t' | tr '\n' ' ')"

echo "slurm-test: submitting an 8-task array"
cd "$W"/run
cp "$ROOT"/.ci/slurm/ci.toml exp.toml
DRSIM="$DRSIM" SWEEP_CONFIG=exp.toml SWEEP_OUT=sweep \
	timeout 150 sbatch --wait --array=0-7 --chdir="$W"/run "$ROOT"/examples/slurm/sweep.sbatch ||
	die "sbatch --wait failed"
"$DRSIM" merge sweep/shard-* --out table-slurm

echo "slurm-test: single-process reference"
"$DRSIM" sweep --config exp.toml --out single --workers 2 --quiet
"$DRSIM" merge single --out table-single

diff -r table-single table-slurm || die "merged tables differ"
ncells=0
for c in single/cells/*/; do
	id=$(basename "$c")
	found=$(ls -d sweep/shard-*/cells/"$id" 2>/dev/null | wc -l)
	[ "$found" -eq 1 ] || die "cell $id is in $found shards, want 1"
	diff -r "$c" sweep/shard-*/cells/"$id" || die "cell $id differs"
	ncells=$((ncells + 1))
done
[ "$ncells" -eq 16 ] || die "$ncells cells, want 16"
[ "$(ls -d sweep/shard-* | wc -l)" -eq 8 ] || die "want 8 shard directories"
echo "slurm-test: OK: 8 array tasks, $ncells cells, merged table and plots byte-identical to one process"
