# Compares an SWF file written by "drsim trace convert" with truth.csv
# (.ci/slurm/jobcomp2truth.sh); see accounting-check.sh for the rules.
#
#   awk -v file=NAME [-v mode=noreq] -f swf-vs-truth.awk EXCLUSIVE_IDS truth.csv OUT.swf
#
# Prints one line per mismatch and exits 1 if there is any. Partition
# numbers (field 16) are read against the partition names in the SWF
# header: a line whose key names partitions (possibly after "Note:"),
# listing the names in index order ("; Partitions: cpu gpu" or "cpu,gpu")
# or as pairs ("; Note: partition_number: 1=cpu 2=gpu", "1:cpu"), or one
# line per partition ("; Partition 1: cpu").
function bad(id, what) {
	printf "acct-check: FAIL: %s: job %s: %s\n", file, id, what > "/dev/stderr"
	nbad++
}
function trim(s) { sub(/^[ \t]+/, "", s); sub(/[ \t\r]+$/, "", s); return s }
FNR == 1 { part++ }
part == 1 { excl[$1] = 1; next }
part == 2 {
	if (FNR == 1) { if ($0 !~ /^id,jobid,partition,submit,start,end,nodes,cpus,timelimit,/) { bad("-", "truth.csv header is " $0); exit 1 } next }
	n = split($0, c, ",")
	if (n != 13) { bad("-", "truth.csv line " FNR " has " n " fields, want 13"); next }
	id = c[1]; ids[++nt] = id
	tpart[id] = c[3]; tsub[id] = c[4]; tstart[id] = c[5]; tend[id] = c[6]; tcpus[id] = c[8]; ttl[id] = c[9]; tstate[id] = c[12]
	next
}
/^;/ {
	line = $0; sub(/^;[ \t]*/, "", line)
	k = index(line, ":"); if (!k) next
	key = trim(substr(line, 1, k - 1)); val = trim(substr(line, k + 1))
	if (key == "UnixStartTime") { ust = val + 0; haveust = 1; next }
	if (tolower(key) == "note") { # "; Note: partition_number: 1=cpu 2=gpu"
		k = index(val, ":"); if (!k) next
		key = trim(substr(val, 1, k - 1)); val = trim(substr(val, k + 1))
	}
	lk = tolower(key)
	if (lk !~ /^partitions?([ _-]?(numbers?|names?))?([ _-]?[0-9]+)?$/) next
	if (match(lk, /[0-9]+$/)) { pname[substr(lk, RSTART) + 0] = val; nparts++; next }
	m = split(val, tok, /[ \t,;]+/)
	if (m == 2 && tok[1] ~ /^[0-9]+$/ && tok[2] !~ /[=:]/) { pname[tok[1] + 0] = tok[2]; nparts++; next }
	seq = 0
	for (i = 1; i <= m; i++) {
		if (tok[i] == "") continue
		if (match(tok[i], /^[0-9]+[=:]/)) { pname[substr(tok[i], 1, RLENGTH - 1) + 0] = substr(tok[i], RLENGTH + 1); nparts++ }
		else { pname[++seq] = tok[i]; nparts++ }
	}
	next
}
/^[ \t]*$/ { next }
{
	if (NF < 18) { bad("-", "SWF line " FNR " has " NF " fields"); next }
	id = $1
	if (id in seen) { bad(id, "appears twice in the SWF"); next }
	seen[id] = 1
	if (!(id in tsub)) { bad(id, "is in the SWF but not in truth.csv (job numbers must be Slurm's JobIDRaw)"); next }
	if (!haveust) { bad(id, "the SWF header has no UnixStartTime"); haveust = 1; ust = 0 }
	sub_ = ust + $2
	if (sub_ != tsub[id]) bad(id, "submit " sub_ " (UnixStartTime " ust " + " $2 "), truth " tsub[id])
	if (tstart[id] != "") {
		w = tstart[id] - tsub[id]; r = tend[id] - tstart[id]
		if ($3 != w) bad(id, "wait " $3 ", truth " w)
		if ($4 != r) bad(id, "run " $4 ", truth " r)
		if ($5 != tcpus[id]) bad(id, "allocated processors " $5 ", truth " tcpus[id])
		if (mode != "noreq") {
			if (id in excl) { if ($8 < 1 || $8 > tcpus[id]) bad(id, "requested processors " $8 ", want 1.." tcpus[id] " (exclusive)") }
			else if ($8 != tcpus[id]) bad(id, "requested processors " $8 ", truth " tcpus[id])
		}
	} else {
		if ($4 != 0 && $4 != -1) bad(id, "run " $4 " for a job that never started, want 0 or -1")
		if ($5 != 0 && $5 != -1 && $5 != $8 && !(mode == "noreq" && $5 >= 1)) bad(id, "allocated processors " $5 " for a job that never started, want 0, -1 or the requested " $8)
		if ($3 != -1 && $3 != tend[id] - tsub[id]) bad(id, "wait " $3 " for a job that never started, want -1 or " tend[id] - tsub[id])
		if (mode != "noreq" && $8 < 1) bad(id, "requested processors " $8 ", want >= 1")
	}
	if ($9 != ttl[id]) bad(id, "requested time " $9 ", truth " ttl[id])
	st = tstate[id]
	if (st == "COMPLETED" && $11 != 1 || st == "FAILED" && $11 != 0 || st == "CANCELLED" && $11 != 5 || st == "TIMEOUT" && $11 != 0 && $11 != 1)
		bad(id, "status " $11 " for " st)
	if (!nparts) { bad(id, "the SWF header lists no partition names"); nparts = -1 }
	p = $16 + 0
	if (nparts > 0 && pname[p] != tpart[id]) bad(id, "partition " p " (\"" pname[p] "\"), truth " tpart[id])
}
END {
	for (i = 1; i <= nt; i++) if (!(ids[i] in seen)) bad(ids[i], "is in truth.csv but missing from the SWF")
	if (nt == 0) bad("-", "truth.csv has no jobs")
	exit nbad > 0
}
