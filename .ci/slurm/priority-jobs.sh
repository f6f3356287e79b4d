#!/usr/bin/env bash
# priority-jobs.sh TRACE.swf[.gz] [N] — the first N (default 160) jobs of a
# real SWF trace, scaled for a real Slurm run of a few minutes, one line
# per job: "gap user partition cores seconds limit_minutes id".
#   gap      seconds to wait after the previous submission (trace
#            inter-arrival / 100, at most 4 s)
#   user     p1..p6: the trace's users in order of first appearance, mod 6
#   partition fast for every third job, else cpu
#   cores    requested processors, at most 16 (cpu) or 8 (fast)
#   seconds  runtime / 200, rounded, within [2, 30]
#   limit    requested time / 200 in whole minutes (rounded up), within
#            [1, 3] and at least the runtime plus 5 s
set -euo pipefail
tr=$1 n=${2:-160}
cat_() { case $1 in *.gz) zcat "$1" ;; *) cat "$1" ;; esac; }
cat_ "$tr" | awk -v n="$n" '
	k >= n || /^;/ || NF < 18 { next } # read to the end: an early exit would SIGPIPE zcat under pipefail
	$4 <= 0 || ($8 <= 0 && $5 <= 0) { next }
	{
		k++
		if (!($12 in u)) u[$12] = (nu++ % 6) + 1
		part = (k % 3 == 0) ? "fast" : "cpu"
		p = ($8 > 0) ? $8 : $5
		cap = (part == "fast") ? 8 : 16
		if (p > cap) p = cap
		s = int($4 / 200 + 0.5); if (s < 2) s = 2; if (s > 30) s = 30
		req = ($9 > 0) ? $9 : $4
		l = int((req / 200 + 59) / 60); if (l < 1) l = 1; if (l > 3) l = 3
		while (l * 60 < s + 5) l++
		gap = (k == 1) ? 0 : ($2 - prev) / 100; if (gap > 4) gap = 4; if (gap < 0) gap = 0
		prev = $2
		printf "%.1f p%d %s %d %d %d %d\n", gap, u[$12], part, p, s, l, $1
	}'
