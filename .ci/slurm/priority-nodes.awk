# priority-nodes.awk — which nodes drsim gave each job against the nodes a
# real Slurm gave it (slurmctld.log's "sched: Allocate JobId=N NodeList=…"
# and "sched/backfill: _start_job: Started JobId=N in P on …"). drsim's
# nodes come from jobs.csv's allocated_resources on priority-machine.toml
# (processor p is on node c(p/4+1): cpu = c1-c4, fast = c5-c6, Slurm's
# names). Only jobs drsim starts within 1 s of Slurm's start are compared
# (elsewhere the two machines are in other states). Prints the jobs
# compared, how many are on Slurm's nodes, and the first few that are not
# (name drsim:slurm), e.g. "nodes_compared 97 nodes_same 97".
# Usage: awk -f priority-nodes.awk jobs.sacct slurmctld.log slurm-starts.txt drsim/jobs.csv
function expand(s,    out, m, parts, i, ab, k) {
	sub(/^c/, "", s); gsub(/[\[\]]/, "", s)
	out = ""; m = split(s, parts, ",")
	for (i = 1; i <= m; i++) {
		if (split(parts[i], ab, "-") == 1) ab[2] = ab[1]
		for (k = ab[1] + 0; k <= ab[2] + 0; k++) out = out (out == "" ? "" : ",") "c" k
	}
	return out
}
FILENAME == ARGV[1] { if (FNR > 1) { split($0, f, "|"); name[f[2]] = f[3] } next }
FILENAME == ARGV[2] {
	if (match($0, /JobId=[0-9]+ NodeList=[^ ]+/)) {
		split(substr($0, RSTART, RLENGTH), w, /[= ]/); slurm[w[2]] = expand(w[4])
	} else if (match($0, /_start_job: Started JobId=[0-9]+ in [^ ]+ on [^ ]+/)) {
		split(substr($0, RSTART, RLENGTH), w, /[= ]/); slurm[w[4]] = expand(w[8])
	}
	next
}
FILENAME == ARGV[3] { sstart[$1] = $2; next }
FNR > 1 {
	split($0, f, ","); id = f[1]; nm = name[id]
	if (!(id in slurm) || !(nm in sstart)) next
	d = f[8] - sstart[nm]; if (d < 0) d = -d
	if (d > 1) next
	m = split(f[14], rs, " "); delete on; nodes = ""
	for (i = 1; i <= m; i++) {
		if (split(rs[i], ab, "-") == 1) ab[2] = ab[1]
		for (p = ab[1] + 0; p <= ab[2] + 0; p++) on[int(p / 4) + 1] = 1
	}
	for (k = 1; k <= 6; k++) if (k in on) nodes = nodes (nodes == "" ? "" : ",") "c" k
	n++
	if (nodes == slurm[id]) same++
	else if (++diff <= 5) list = list " " nm ":" nodes ":" slurm[id]
}
END {
	printf "nodes_compared %d nodes_same %d", n, same
	if (list != "") printf " first_other%s", list
	printf "\n"
}
