#!/usr/bin/env bash
# Turns slurmctld's job completion log (JobCompType=jobcomp/filetxt) into
# truth.csv, an independent record to check a reader of sacct dumps with:
#
#   .ci/slurm/jobcomp2truth.sh jobcomp.log slurm.conf [scontrol-jobs.txt] >truth.csv
#
# Columns: id,jobid,partition,submit,start,end,nodes,cpus,timelimit,req_gpus,alloc_gpus,state,exit
#   id         JobId (Slurm's raw id, sacct JobIDRaw)
#   jobid      ArrayJobId_ArrayTaskId for an array element, else id (sacct JobID)
#   partition  the partition the job ran in; jobcomp lists every partition
#              of a multi-partition job ("gpu,cpu"), so the one holding the
#              job's first node (from slurm.conf's PartitionName lines) is
#              taken; a job that never ran keeps jobcomp's list, joined by ";"
#   submit, start, end  epoch seconds: jobcomp's local wall-clock times read
#              in the zone of TZ (the zone the daemons ran in); start is
#              empty for a job that never started (NodeList=(null): jobcomp
#              then writes StartTime=EndTime=the cancel time)
#   nodes, cpus  NodeCnt and ProcCnt as jobcomp wrote them (allocated for a
#              job that ran; 0 or the request for one that never started)
#   timelimit  TimeLimit in seconds (jobcomp writes minutes), -1 for UNLIMITED
#   req_gpus   gres/gpu in jobcomp's Tres= (the request: jobcomp does not
#              record GPUs that --exclusive allocated without a request)
#   alloc_gpus gres/gpu in the TRES= of `scontrol show job -o` (the
#              allocation), empty without the third argument or for a job
#              that never started
#   state      JobState; exit ExitCode (status:signal)
# Output rows are sorted by id.
set -euo pipefail
[ $# -ge 2 ] && [ $# -le 3 ] || { echo "usage: $0 jobcomp.log slurm.conf [scontrol-jobs.txt]" >&2; exit 2; }
comp=$1 conf=$2 sctl=${3:-}
die() { echo "jobcomp2truth: $*" >&2; exit 1; }
[ -r "$comp" ] || die "$comp: not readable"
[ -r "$conf" ] || die "$conf: not readable"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# hosts HOSTLIST: one name a line, for lists such as c[1-2,4],g1 (one
# bracket group per name, as Slurm prints them); needs no Slurm.
hosts() {
	awk -v hl="$1" 'BEGIN {
		while (hl != "") {
			if (match(hl, /^[^,\[]*\[[^]]*\]/) || match(hl, /^[^,\[]+/)) { e = substr(hl, 1, RLENGTH); hl = substr(hl, RLENGTH + 1) }
			else { print "bad hostlist " hl > "/dev/stderr"; exit 1 }
			sub(/^,/, "", hl)
			b = index(e, "[")
			if (!b) { print e; continue }
			pre = substr(e, 1, b - 1); n = split(substr(e, b + 1, length(e) - b - 1), r, ",")
			for (i = 1; i <= n; i++) {
				if (split(r[i], ab, "-") == 2) { w = length(ab[1]); for (k = ab[1] + 0; k <= ab[2] + 0; k++) printf "%s%0" w "d\n", pre, k }
				else print pre r[i]
			}
		}
	}'
}

# node -> partitions, one "node partition" line per membership.
sed -n 's/^PartitionName=\([^ ]*\) .*Nodes=\([^ ]*\).*/\1 \2/p' "$conf" >"$tmp"/parts
while read -r p nodes; do
	for n in $(hosts "$nodes"); do echo "$n $p"; done
done <"$tmp"/parts >"$tmp"/nodepart
[ -s "$tmp"/nodepart ] || die "$conf: no PartitionName=... Nodes=... lines"

# job -> allocated GPUs from scontrol (optional second record).
: >"$tmp"/allocgpu
if [ -n "$sctl" ]; then
	[ -r "$sctl" ] || die "$sctl: not readable"
	awk '{ id = ""; g = 0; tres = 0; nodes = 0
		for (i = 1; i <= NF; i++) {
			if ($i ~ /^JobId=/) id = substr($i, 7)
			else if ($i ~ /^NodeList=/) nodes = ($i != "NodeList=(null)" && $i != "NodeList=")
			else if ($i ~ /^TRES=/) { tres = 1; n = split(substr($i, 6), t, ","); for (k = 1; k <= n; k++) if (t[k] ~ /^gres\/gpu=/) g = substr(t[k], 10) }
		}
		if (id != "") print id, (tres && nodes ? g : "") }' "$sctl" >"$tmp"/allocgpu
fi

# One tab-separated line per job with the raw fields; the first node of the
# NodeList is expanded below (a hostlist such as c[1,4]).
awk -v OFS='\t' '
function val(k,   i) { for (i = 1; i <= NF; i++) if (index($i, k "=") == 1) return substr($i, length(k) + 2); return "\001" }
NF > 0 {
	id = val("JobId"); aj = val("ArrayJobId"); at = val("ArrayTaskId")
	jobid = (aj != "\001" && at != "\001") ? aj "_" at : id
	tres = val("Tres"); g = 0; n = split(tres, t, ",")
	for (k = 1; k <= n; k++) if (t[k] ~ /^gres\/gpu=/) g = substr(t[k], 10)
	print NR, id, jobid, val("Partition"), val("SubmitTime"), val("StartTime"), val("EndTime"),
		val("NodeList"), val("NodeCnt"), val("ProcCnt"), val("TimeLimit"), g, val("JobState"), val("ExitCode")
}' "$comp" >"$tmp"/raw
while IFS=$'\t' read -r line id jobid part sub st en nl nn nc tl g state ex; do
	for v in "$id" "$part" "$sub" "$st" "$en" "$nl" "$nn" "$nc" "$tl" "$state" "$ex"; do
		[ "$v" != $'\001' ] || die "$comp:$line: a field is missing (JobId=$id)"
	done
	[[ "$id" =~ ^[0-9]+$ ]] || die "$comp:$line: JobId=$id is not a number"
	[[ "$nn" =~ ^[0-9]+$ && "$nc" =~ ^[0-9]+$ ]] || die "$comp:$line: NodeCnt=$nn ProcCnt=$nc"
	if [ "$nl" = "(null)" ] || [ -z "$nl" ]; then
		st=
	else
		first=$(hosts "$nl" | head -1)
		ps=$(awk -v n="$first" '$1 == n { print $2 }' "$tmp"/nodepart)
		[ -n "$ps" ] || die "$comp:$line: node $first (NodeList=$nl) is in no partition of $conf"
		pick=
		for p in $ps; do case ",$part," in *",$p,"*) pick=${pick:+$pick,}$p ;; esac; done
		[ -n "$pick" ] && [[ "$pick" != *,* ]] || die "$comp:$line: Partition=$part, node $first is in [$ps]"
		part=$pick
	fi
	part=${part//,/;}
	case "$tl" in
	UNLIMITED | NONE | INFINITE | 4294967295) tl=-1 ;;
	*) [[ "$tl" =~ ^[0-9]+$ ]] || die "$comp:$line: TimeLimit=$tl"; tl=$((tl * 60)) ;;
	esac
	ag=$(awk -v id="$id" '$1 == id { print $2 }' "$tmp"/allocgpu)
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$id" "$jobid" "$part" "$sub" "${st:--}" "$en" "$nn" "$nc" "$tl" "$g" "$ag" "$state" "$ex" "$line"
done <"$tmp"/raw >"$tmp"/rows
# Local wall-clock times to epoch seconds, all at once (date -f reads one a line).
for c in 4 5 6; do
	cut -f$c "$tmp"/rows | sed 's/^-$/1970-01-01T00:00:00Z/' >"$tmp"/t$c
	date -f "$tmp"/t$c +%s >"$tmp"/e$c 2>"$tmp"/err || die "$comp: bad time in column $c: $(head -1 "$tmp"/err)"
done
echo "id,jobid,partition,submit,start,end,nodes,cpus,timelimit,req_gpus,alloc_gpus,state,exit"
paste "$tmp"/rows "$tmp"/e4 "$tmp"/e5 "$tmp"/e6 | awk -F'\t' -v OFS=, '{
	start = ($5 == "-") ? "" : $16
	print $1, $2, $3, $15, start, $17, $7, $8, $9, $10, $11, $12, $13 }' | sort -t, -k1,1n
