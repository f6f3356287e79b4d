# Workload for priority-check.sh (sourced by accounting.sh): submits the
# jobs listed in $PRIO_JOBS (from priority-jobs.sh) as their users, on
# their partitions, waiting the listed gap before each.
# Helpers (sub, idle_wait, log) are defined in accounting.sh.
#
# It also records what an offline comparison needs beyond sacct's
# 1-s times (docs/slurm-comparison.md), into $OUT:
#   sprio.txt      every second while jobs wait: "epoch.ns" then one line
#                  per pending job of sprio (id user priority age
#                  fairshare jobsize partition qos factors)
#   slurmctld.log  slurmctld's log (state paths replaced by @STATE@):
#                  its start, the decay thread's ticks and each start's
#                  millisecond time, by the main scheduler ("sched:
#                  Allocate") or by backfill ("sched/backfill: _start_job")
log "$(scontrol show config | grep -E "^(SchedulerParameters|PriorityType|PriorityFlags|PriorityCalcPeriod) ")"
(
	while :; do
		echo "@ $(date +%s.%N)"
		sprio -h -n -o '%i %u %Y %A %F %J %P %Q' 2>/dev/null || true
		sleep 1
	done
) >"$OUT"/sprio.txt &
sprio_pid=$!
while read -r gap user part cores secs limit id; do
	sleep "$gap"
	sub "kth$id" "$user" -p "$part" -n "$cores" --time="$limit" -- sleep "$secs" >/dev/null
done <"$PRIO_JOBS"
idle_wait
kill "$sprio_pid" 2>/dev/null || true
wait "$sprio_pid" 2>/dev/null || true
sed -e "s#$W#@STATE@#g" "$W"/log/slurmctld.log >"$OUT"/slurmctld.log
