# Workload for priority-check.sh (sourced by accounting.sh): submits the
# jobs listed in $PRIO_JOBS (from priority-jobs.sh) as their users, on
# their partitions, waiting the listed gap before each.
# Helpers (sub) are defined in accounting.sh.
log "$(scontrol show config | grep -E "^(SchedulerParameters|PriorityType|PriorityFlags|PriorityCalcPeriod) ")"
while read -r gap user part cores secs limit id; do
	sleep "$gap"
	sub "kth$id" "$user" -p "$part" -n "$cores" --time="$limit" -- sleep "$secs" >/dev/null
done <"$PRIO_JOBS"
