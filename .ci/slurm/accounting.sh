#!/usr/bin/env bash
# Runs a workload on a real Slurm with accounting (Debian's slurmctld,
# slurmd, slurmdbd, munge and MariaDB on this machine, every address on
# loopback) and dumps what Slurm recorded, for drsim's sacct reader tests.
#
#   .ci/slurm/accounting.sh OUTDIR
#
# Environment (all optional):
#   WORKLOAD=file.sh  bash fragment sourced to submit the jobs, using the
#                     helpers below (default: .ci/slurm/workload-default.sh)
#   EXTRA_CONF=file   lines appended to slurm.conf (e.g. PriorityType=...)
#   NODES_CONF=file   replaces the NodeName/PartitionName lines of
#                     .ci/slurm/nodes-default.conf (cpu: c[1-4] x 4 cores,
#                     gpu: g[1-2] x 4 cores x gpu:4); its gres.conf comes
#                     from GRES_CONF (default .ci/slurm/gres-default.conf)
#   ASSOC_SETUP=file.sh  bash fragment sourced once slurmdbd runs, to add
#                     accounts and users with sacctmgr (the cluster is
#                     $CLUSTER; unix_user NAME adds a Unix user); default:
#                     accounts astro, bio and users u1 (astro), u2 (astro,
#                     bio), u3 (bio)
#   CLUSTER=drsimacct ClusterName
#   PORT_BASE=16900   slurmctld PORT_BASE+17, slurmdbd +19, MariaDB +6,
#                     slurmd PORT_BASE+201... (one port per node)
#   MAX_WAIT=420      seconds the workload may take before the run fails
#   TZ                time zone of the daemons and of every time written
#                     (default: the machine's)
#   NETNS=0           run in the machine's network namespace (default: a
#                     private one with only the loopback, see below)
#   KEEP=1            leave the daemons running and the state directory in
#                     place (prints how to stop them)
#
# Writes to OUTDIR: jobs.sacct, steps.sacct, jobs-p.sacct, jobs-cols.sacct,
# jobs.json.gz (sacct --json), jobcomp.log, truth.csv (from jobcomp.log),
# scontrol-jobs.txt, slurm.conf, gres.conf, assoc.txt, submitted.txt and
# VERSIONS. See testdata/sacct/README.md for what each file holds.
#
# Needs root and the Debian mirror. Stops exactly the processes it started
# (by pid) and removes its state directory on exit, success or failure.
set -euo pipefail

die() { echo "slurm-acct: $*" >&2; exit 1; }
log() { echo "slurm-acct: $*" >&2; }
[ $# -eq 1 ] || die "usage: $0 OUTDIR"
[ "$(id -u)" -eq 0 ] || die "must run as root (installs packages, starts daemons, adds users)"
HERE=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$1"
OUT=$(cd "$1" && pwd)
WORKLOAD=$(realpath "${WORKLOAD:-$HERE/workload-default.sh}")
NODES_CONF=$(realpath "${NODES_CONF:-$HERE/nodes-default.conf}")
GRES_CONF=$(realpath "${GRES_CONF:-$HERE/gres-default.conf}")
[ -r "$WORKLOAD" ] || die "WORKLOAD=$WORKLOAD: not readable"
[ -r "$NODES_CONF" ] || die "NODES_CONF=$NODES_CONF: not readable"
[ -r "$GRES_CONF" ] || die "GRES_CONF=$GRES_CONF: not readable"
if [ -n "${ASSOC_SETUP:-}" ]; then
	ASSOC_SETUP=$(realpath "$ASSOC_SETUP")
	[ -r "$ASSOC_SETUP" ] || die "ASSOC_SETUP=$ASSOC_SETUP: not readable"
fi
if [ -n "${EXTRA_CONF:-}" ]; then
	EXTRA_CONF=$(realpath "$EXTRA_CONF")
	[ -r "$EXTRA_CONF" ] || die "EXTRA_CONF=$EXTRA_CONF: not readable"
fi
PORT_BASE=${PORT_BASE:-16900}
MAX_WAIT=${MAX_WAIT:-420}
CLUSTER=${CLUSTER:-drsimacct}
if [ -n "${TZ:-}" ]; then
	[ -e "/usr/share/zoneinfo/$TZ" ] || die "TZ=$TZ: no such zone in /usr/share/zoneinfo"
	export TZ
fi

need=()
for c in slurmctld slurmd sbatch sacct sacctmgr slurmdbd munged mariadbd mariadb-install-db; do
	command -v $c >/dev/null || need+=("$c")
done
if [ ${#need[@]} -gt 0 ]; then
	log "installing slurm, slurmdbd, munge and mariadb (missing: ${need[*]})"
	export DEBIAN_FRONTEND=noninteractive
	apt-get update -qq || die "apt-get update failed"
	apt-get install -y -qq --no-install-recommends slurmctld slurmd slurm-client munge slurmdbd mariadb-server >/dev/null ||
		die "apt-get install slurmctld slurmd slurm-client munge slurmdbd mariadb-server failed"
fi

# slurmctld, slurmd and slurmdbd listen on every address whatever their
# *Addr= settings say, so the rest runs in a private network namespace whose
# only interface is the loopback (NETNS=0: in the machine's own namespace).
if [ "${NETNS:-1}" = 1 ] && [ -z "${_ACCT_IN_NETNS:-}" ]; then
	if unshare --net true 2>/dev/null; then
		export _ACCT_IN_NETNS=1
		exec unshare --net -- bash -c 'ip link set lo up && ip addr add 10.254.254.1/32 dev lo && exec "$@"' _ "$0" "$OUT"
	fi
	log "warning: cannot make a network namespace (unshare --net); the daemons listen on every address"
fi

W=$(mktemp -d /tmp/drsim-slurmacct.XXXXXX)
chmod 755 "$W"
PIDS=()       # started daemons, stopped in reverse order
DBDCONF_SAVED= # /etc/slurm/slurmdbd.conf as found, restored on exit
stop_all() {
	local i p
	for ((i = ${#PIDS[@]} - 1; i >= 0; i--)); do
		p=${PIDS[i]}
		kill "$p" 2>/dev/null || continue
		for _ in $(seq 100); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
		kill -9 "$p" 2>/dev/null || true
	done
	PIDS=()
}
cleanup() {
	local rc=$?
	[ -n "${SNAP_PID:-}" ] && kill "$SNAP_PID" 2>/dev/null
	if [ "${KEEP:-}" = 1 ]; then
		echo "slurm-acct: KEEP=1: daemons still running: kill ${PIDS[*]}; state in $W; SLURM_CONF=$W/slurm.conf;" \
			"/etc/slurm/slurmdbd.conf left in place${_ACCT_IN_NETNS:+; reach them with nsenter -n -t ${PIDS[0]}}" >&2
		exit $rc
	fi
	stop_all
	if [ "$DBDCONF_SAVED" = none ]; then
		rm -f /etc/slurm/slurmdbd.conf
	elif [ -n "$DBDCONF_SAVED" ]; then
		mv -f "$DBDCONF_SAVED" /etc/slurm/slurmdbd.conf
	fi
	if [ $rc -ne 0 ]; then
		echo "slurm-acct: FAILED; logs:" >&2
		for f in slurmctld.log slurmdbd.log mariadb.log munged.out; do
			[ -e "$W/log/$f" ] && tail -n 15 "$W/log/$f" | sed "s/^/$f: /" >&2
		done
		ls "$W"/log >&2 2>/dev/null || true
	fi
	rm -rf "$W"
	exit $rc
}
trap cleanup EXIT
# start NAME CMD...: runs a daemon in the foreground under nice -n -10 (the
# machine's other load delays job launch otherwise) and records its pid.
start() {
	local name=$1
	shift
	nice -n -10 "$@" >"$W/log/$name.out" 2>&1 &
	PIDS+=($!)
	echo $! >"$W/run/$name.pid"
}
# waitfor SECONDS WHAT CMD...: polls CMD every 0.2 s until it succeeds.
waitfor() {
	local n=$(($1 * 5)) what=$2
	shift 2
	for _ in $(seq $n); do "$@" >/dev/null 2>&1 && return 0; sleep 0.2; done
	die "timed out waiting for $what"
}

mkdir -p "$W"/munge "$W"/state "$W"/spool "$W"/log "$W"/run "$W"/jobs "$W"/dev "$W"/mysql "$W"/mysqlrun
chmod 1777 "$W"/jobs

# --- MariaDB: a private data directory, loopback only ----------------------
log "starting MariaDB on 127.0.0.1:$((PORT_BASE + 6))"
chown mysql:mysql "$W"/mysql "$W"/mysqlrun
mariadb-install-db --user=mysql --datadir="$W"/mysql --auth-root-authentication-method=socket \
	--skip-test-db >"$W"/log/mariadb-install.out 2>&1 || die "mariadb-install-db failed: $(tail -3 "$W"/log/mariadb-install.out)"
MYSOCK=$W/mysqlrun/mysqld.sock
start mariadbd mariadbd --no-defaults --user=mysql --datadir="$W"/mysql --socket="$MYSOCK" \
	--pid-file="$W"/mysqlrun/mariadb.pid --bind-address=127.0.0.1 --port=$((PORT_BASE + 6)) \
	--skip-name-resolve --innodb-buffer-pool-size=64M --log-error="$W"/log/mariadb.log
waitfor 60 "MariaDB" mariadb --no-defaults -S "$MYSOCK" -u root -e 'select 1'
DBPASS=$(head -c 12 /dev/urandom | od -An -tx1 | tr -d ' \n')
mariadb --no-defaults -S "$MYSOCK" -u root <<EOF || die "creating the database failed"
CREATE DATABASE slurm_acct_db;
CREATE USER 'slurm'@'127.0.0.1' IDENTIFIED BY '$DBPASS';
CREATE USER 'slurm'@'localhost' IDENTIFIED BY '$DBPASS';
GRANT ALL ON slurm_acct_db.* TO 'slurm'@'127.0.0.1';
GRANT ALL ON slurm_acct_db.* TO 'slurm'@'localhost';
EOF

# --- munge on a private socket ---------------------------------------------
mkdir -p /run/munge
chmod 755 "$W"/munge
dd if=/dev/urandom of="$W"/munge/munge.key bs=1 count=1024 status=none
chmod 400 "$W"/munge/munge.key
start munged munged --force --foreground --socket="$W"/munge/munge.socket --key-file="$W"/munge/munge.key \
	--pid-file="$W"/munge/munged.pid --seed-file="$W"/munge/seed
waitfor 10 "munged" test -S "$W"/munge/munge.socket

# --- slurmdbd ----------------------------------------------------------------
# slurmdbd reads /etc/slurm/slurmdbd.conf whatever SLURM_CONF says: keep the
# file found there and put it back on exit.
mkdir -p /etc/slurm
if [ -e /etc/slurm/slurmdbd.conf ]; then
	DBDCONF_SAVED=$W/slurmdbd.conf.saved
	cp -p /etc/slurm/slurmdbd.conf "$DBDCONF_SAVED"
else
	DBDCONF_SAVED=none
fi
cat >"$W"/slurmdbd.conf <<EOF
AuthType=auth/munge
AuthInfo=socket=$W/munge/munge.socket
DbdHost=localhost
DbdAddr=127.0.0.1
DbdPort=$((PORT_BASE + 19))
SlurmUser=root
LogFile=$W/log/slurmdbd.log
PidFile=$W/run/slurmdbd.pidfile
StorageType=accounting_storage/mysql
StorageHost=127.0.0.1
StoragePort=$((PORT_BASE + 6))
StorageUser=slurm
StoragePass=$DBPASS
StorageLoc=slurm_acct_db
EOF
chmod 600 "$W"/slurmdbd.conf
install -m 600 -o root "$W"/slurmdbd.conf /etc/slurm/slurmdbd.conf

# --- slurm.conf and gres.conf ------------------------------------------------
for i in 0 1 2 3 4 5 6 7; do mknod "$W"/dev/fakegpu$i c 1 3; done
cat >"$W"/epilog.sh <<'EOF'
#!/bin/sh
exit 0
EOF
chmod 755 "$W"/epilog.sh
export SLURM_CONF=$W/slurm.conf
{
	cat <<EOF
ClusterName=$CLUSTER
SlurmctldHost=localhost
SlurmctldAddr=127.0.0.1
SlurmctldPort=$((PORT_BASE + 17))
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$W/munge/munge.socket
CredType=cred/munge
StateSaveLocation=$W/state
SlurmdSpoolDir=$W/spool/%n
SlurmctldPidFile=$W/run/slurmctld.pidfile
SlurmdPidFile=$W/run/slurmd-%n.pidfile
SlurmctldLogFile=$W/log/slurmctld.log
SlurmdLogFile=$W/log/slurmd-%n.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SchedulerType=sched/backfill
SchedulerParameters=bf_interval=1,bf_resolution=1
GresTypes=gpu
AccountingStorageType=accounting_storage/slurmdbd
AccountingStorageHost=localhost
AccountingStoragePort=$((PORT_BASE + 19))
AccountingStoragePass=$W/munge/munge.socket
AccountingStorageTRES=gres/gpu
AccountingStorageEnforce=associations
JobAcctGatherType=jobacct_gather/linux
JobAcctGatherFrequency=30
JobCompType=jobcomp/filetxt
JobCompLoc=$W/jobcomp.log
MinJobAge=3600
MpiDefault=none
ReturnToService=2
SlurmdParameters=config_overrides
Epilog=$W/epilog.sh
EOF
	awk -v b=$((PORT_BASE + 201)) '/^#/ { next }
		{ while (match($0, /@PORT\+[0-9]+@/)) $0 = substr($0, 1, RSTART - 1) (b + substr($0, RSTART + 6, RLENGTH - 7)) substr($0, RSTART + RLENGTH); print }' "$NODES_CONF"
	[ -z "${EXTRA_CONF:-}" ] || cat "$EXTRA_CONF"
} >"$SLURM_CONF"
sed -e '/^#/d' -e "s#@DEV@#$W/dev#g" "$GRES_CONF" >"$W"/gres.conf

log "starting slurmdbd on 127.0.0.1:$((PORT_BASE + 19))"
start slurmdbd slurmdbd -D
waitfor 60 "slurmdbd" timeout 10 sacctmgr -n show cluster
sacctmgr -i add cluster "$CLUSTER" >/dev/null
# unix_user NAME: adds a Unix user (and group) without a home if missing;
# users are left in place at the end (later runs reuse them).
unix_user() { id -u "$1" >/dev/null 2>&1 || useradd -M -U -s /bin/sh "$1" || die "useradd $1 failed"; }
if [ -n "${ASSOC_SETUP:-}" ]; then
	# shellcheck disable=SC1090
	. "$ASSOC_SETUP"
else
	sacctmgr -i add account astro Cluster="$CLUSTER" Description=astro Organization=drsim Fairshare=2 >/dev/null
	sacctmgr -i add account bio Cluster="$CLUSTER" Description=bio Organization=drsim Fairshare=1 >/dev/null
	for u in u1 u2 u3; do unix_user $u; done
	sacctmgr -i add user u1 Account=astro Fairshare=3 >/dev/null
	sacctmgr -i add user u2 Account=astro,bio DefaultAccount=astro Fairshare=1 >/dev/null
	sacctmgr -i add user u3 Account=bio Fairshare=1 >/dev/null
	sacctmgr -i add user root Account=astro >/dev/null
fi

NODES=$(scontrol show hostnames "$(awk '/^NodeName=/ { sub(/^NodeName=/, "", $1); print $1 }' "$SLURM_CONF" | paste -sd,)")
[ -n "$NODES" ] || die "no NodeName= lines in $NODES_CONF"
log "starting slurmctld on 127.0.0.1:$((PORT_BASE + 17)) and slurmd ${NODES//$'\n'/ }"
start slurmctld slurmctld -D -i
for n in $NODES; do
	mkdir -p "$W/spool/$n"
	start "slurmd-$n" slurmd -D -N "$n"
done
all_idle() { [ "$(sinfo -h -o '%t' | sort -u | tr -d '\n')" = idle ]; }
waitfor 60 "nodes idle ($(sinfo -h -N -o '%N %t' 2>/dev/null | sort -u | tr '\n' ' '))" all_idle

# --- the workload ------------------------------------------------------------
# Helpers for WORKLOAD files:
#   sub NAME USER [sbatch args...] [-- command]  submits, prints the job id,
#       records "id name user args" in submitted.txt; the default command is
#       "sleep 5";
#   waitstate ID STATE [SECONDS]   waits until squeue shows STATE (R, PD...);
#   cancel ID                      scancel as root;
#   idle_wait                      waits until no job is pending or running.
sub() {
	local name=$1 user=$2 cmd="sleep 5" id
	shift 2
	local args=()
	while [ $# -gt 0 ]; do
		if [ "$1" = -- ]; then
			shift
			cmd="$*"
			break
		fi
		args+=("$1")
		shift
	done
	id=$(sbatch --parsable --uid="$user" --gid="$user" -J "$name" --chdir="$W"/jobs \
		--output=/dev/null "${args[@]}" --wrap="$cmd") || die "sbatch $name failed"
	echo "$id $name $user ${args[*]} -- $cmd" >>"$W"/submitted.txt
	echo "${id%%;*}"
}
waitstate() {
	local id=$1 st=$2 secs=${3:-120}
	for _ in $(seq $((secs * 5))); do
		[ "$(squeue -h -j "$id" -o %t 2>/dev/null | head -1)" = "$st" ] && return 0
		sleep 0.2
	done
	die "job $id never reached state $st (now: $(squeue -h -j "$id" -o %t 2>/dev/null))"
}
cancel() { scancel "$1" || die "scancel $1 failed"; }
idle_wait() {
	local t0=$SECONDS
	while [ -n "$(squeue -h -o %i)" ]; do
		[ $((SECONDS - t0)) -lt "$MAX_WAIT" ] || die "jobs still queued after ${MAX_WAIT}s: $(squeue -h -o '%i %t' | tr '\n' ' ')"
		sleep 1
	done
}

: >"$W"/submitted.txt
START=$(date +%Y-%m-%dT%H:%M:%S)
t0=$SECONDS
log "running workload $WORKLOAD (since $START ${TZ:-$(cat /etc/timezone 2>/dev/null || echo local)})"
# shellcheck source=workload-default.sh
. "$WORKLOAD"
idle_wait
log "workload done in $((SECONDS - t0)) s; $(wc -l <"$W"/submitted.txt) submissions"

# --- the dumps ---------------------------------------------------------------
FIELDS=JobID,JobIDRaw,JobName,User,Account,Group,Partition,QOS,Submit,Eligible,Start,End,Elapsed,Timelimit,NNodes,NCPUS,ReqCPUS,ReqTRES,AllocTRES,State,ExitCode,ConsumedEnergyRaw
END=$(date -d '+1 min' +%Y-%m-%dT%H:%M:%S)
# A job held and cancelled before it was ever eligible is missing from a
# time window query (Eligible=Unknown); asking for the states as well brings
# it back. Wait until slurmdbd has every job's end.
ALLSTATES=BF,CA,CD,DL,F,NF,OOM,PD,PR,R,RQ,RS,RV,S,TO
ids_sacct() { sacct -n -P -X -a -S "$START" -E "$END" -s "$ALLSTATES" -o JobIDRaw,State | sort -u; }
ctld_ids=$(scontrol show job -o | grep -o '^JobId=[0-9]*' | cut -d= -f2 | sort -n)
nctld=$(echo "$ctld_ids" | grep -c .)
settled() {
	local s
	s=$(ids_sacct)
	[ "$(echo "$s" | grep -c .)" -eq "$nctld" ] && ! echo "$s" | grep -qE '\|(PENDING|RUNNING|REQUEUED|SUSPENDED)'
}
waitfor 60 "slurmdbd to record all $nctld jobs as ended" settled

sacct_dump() { sacct -a -S "$START" -E "$END" -s "$ALLSTATES" "$@"; }
sacct_dump -P -X -o "$FIELDS" >"$OUT"/jobs.sacct
sacct_dump -P -o "$FIELDS" >"$OUT"/steps.sacct
sacct_dump -p -X -o "$FIELDS" >"$OUT"/jobs-p.sacct
sacct_dump -P -X -o JobIDRaw,Partition,Submit,Start,End,Elapsed,Timelimit,NNodes,NCPUS,AllocTRES,State,User >"$OUT"/jobs-cols.sacct
sacct_dump -X --json >"$OUT"/jobs.json 2>"$W"/log/sacct-json.err || {
	log "sacct --json failed: $(head -2 "$W"/log/sacct-json.err)"
	rm -f "$OUT"/jobs.json
}
rm -f "$OUT"/jobs.json.gz
njobs=$(($(wc -l <"$OUT"/jobs.sacct) - 1))
[ "$njobs" -eq "$nctld" ] || die "jobs.sacct has $njobs jobs, slurmctld knew $nctld"
# The same jobs by id, whatever the window: a check that -S/-s above lost none.
want=$(echo "$ctld_ids" | paste -sd,)
byid=$(sacct -n -P -X -a -j "$want" -o JobIDRaw | sort -n | paste -sd,)
[ "$byid" = "$want" ] || die "sacct -j gives ids [$byid], slurmctld [$want]"
scontrol show job -o | sort -t= -k2 -n >"$OUT"/scontrol-jobs.txt
sacctmgr show assoc -P >"$OUT"/assoc.txt
sed -e "s#$W#@STATE@#g" -e "/^AuthInfo=/d" -e "/^AccountingStoragePass=/d" "$SLURM_CONF" >"$OUT"/slurm.conf
sed -e "s#$W#@STATE@#g" "$W"/gres.conf >"$OUT"/gres.conf
cp "$W"/jobcomp.log "$OUT"/jobcomp.log
sed -e "s#$W#@STATE@#g" "$W"/submitted.txt >"$OUT"/submitted.txt
sed -i -e "s#$W#@STATE@#g" "$OUT"/jobcomp.log "$OUT"/scontrol-jobs.txt
if [ -e "$OUT"/jobs.json ]; then
	sed -i -e "s#$W#@STATE@#g" "$OUT"/jobs.json
	gzip -nf "$OUT"/jobs.json
fi

# truth.csv: from slurmctld's own completion records, not from sacct.
# Times are the log's local wall-clock times converted to epoch seconds in
# TZ; start is empty for a job that never started (no nodes).
"$HERE"/jobcomp2truth.sh "$OUT"/jobcomp.log "$OUT"/slurm.conf "$OUT"/scontrol-jobs.txt >"$OUT"/truth.csv

{
	echo "date: $(date -u +%Y-%m-%dT%H:%M:%SZ)"
	echo "zone: ${TZ:-$(cat /etc/timezone 2>/dev/null || echo unknown)} ($(date +%Z%z))"
	echo "slurm: $(slurmctld -V)"
	echo "slurm-packages: $(dpkg-query -W -f '${Package}=${Version} ' slurmctld slurmd slurm-client slurmdbd 2>/dev/null)"
	echo "munge: $(dpkg-query -W -f '${Version}' munge 2>/dev/null)"
	echo "mariadb: $(mariadbd --version 2>/dev/null | sed 's/^.*Ver //')"
	echo "debian: $(cat /etc/debian_version)"
	echo "kernel: $(uname -r)"
	echo "workload: $(basename "$WORKLOAD") in $((SECONDS - t0)) s, $njobs jobs"
	echo "window: -S $START -E $END"
} >"$OUT"/VERSIONS
log "wrote $OUT: $njobs jobs ($(cut -d'|' -f20 "$OUT"/jobs.sacct | tail -n +2 | awk '{print $1}' | sort | uniq -c | tr -s ' ' | tr '\n' ',' ))"
