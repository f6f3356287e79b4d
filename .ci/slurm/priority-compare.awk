# priority-compare.awk BF_INTERVAL SCHED_INTERVAL A B — compares two start
# tables ("id start_seconds" per line, same time origin): prints the
# number of jobs, the largest and mean |start difference|, how many
# differ by more than 2 x BF_INTERVAL, the number of pairs of jobs that A
# starts more than SCHED_INTERVAL apart, and how many of those B starts in
# the other order. Usage: awk -v bf=5 -v si=5 -f priority-compare.awk A B
FNR == NR { a[$1] = $2; next }
($1 in a) { n++; id[n] = $1; sa[n] = a[$1]; sb[n] = $2 }
END {
	for (i = 1; i <= n; i++) {
		d = sa[i] - sb[i]; if (d < 0) d = -d
		sum += d; if (d > mx) mx = d
		if (d > 2 * bf) { far++; if (list != "") list = list " "; if (far <= 10) list = list id[i] ":" d }
	}
	for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) {
		g = sa[i] - sa[j]
		if (g > si || -g > si) {
			pairs++
			if ((g > 0 && sb[i] < sb[j]) || (g < 0 && sb[i] > sb[j])) swapped++
		}
	}
	printf "jobs %d max_diff_s %.1f mean_diff_s %.2f beyond_2bf %d pairs_apart %d pairs_swapped %d", n, mx, (n ? sum / n : 0), far + 0, pairs + 0, swapped + 0
	if (list != "") printf " first_beyond %s", list
	printf "\n"
}
