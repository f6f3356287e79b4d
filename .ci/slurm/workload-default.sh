# The default workload of accounting.sh (sourced; WORKLOAD= replaces it).
# 32 submissions (37 jobs with the array elements) by users u1, u2, u3 on
# partitions cpu (c[1-4], 4 cores each) and gpu (g[1-2], 4 cores and 4
# GPUs each): sizes from 1 core to the whole partition, --exclusive, two
# job arrays, GPU jobs, failures, a time-out, a job cancelled while running
# and three cancelled while pending (held, queued behind a full partition,
# never-satisfiable dependency), a throttled array (%2), a dependency and a
# delayed --begin. Submission order and sizes are fixed; the times Slurm
# records vary from run to run.
# Helpers (sub, waitstate, cancel) are defined in accounting.sh.

# Wave 1: more than the machine holds, so later jobs wait.
serial=$(sub serial u1 -n1 --time=2 -- sleep 20)
sub small4 u1 -n4 --time=2 -- sleep 25 >/dev/null
sub wide u2 -N2 -n8 --time=3 -- sleep 30 >/dev/null
sub two u3 -A bio -n2 --time=2 -- sleep 15 >/dev/null
sub excl u1 --exclusive -N1 -n1 --time=2 -- sleep 10 >/dev/null
sub arr u2 --array=0-3 -n2 --time=1 -- sleep 8 >/dev/null
sub gpu1 u3 -p gpu --gres=gpu:1 -n1 -- sleep 15 >/dev/null
sub gpu2 u1 -p gpu --gres=gpu:2 -n2 --time=2 -- sleep 20 >/dev/null
sub gpuexcl u2 -A bio -p gpu --exclusive -N1 --time=2 -- sleep 10 >/dev/null
fail1=$(sub fail1 u1 -n1 --time=1 -- 'sleep 3; exit 1')
sub gpufail u2 -p gpu --gres=gpu:1 --time=1 -- 'sleep 2; exit 3' >/dev/null
sub timeout u3 -n1 --time=1 -- sleep 150 >/dev/null
running=$(sub runcancel u1 -n2 --time=5 -- sleep 100)
held=$(sub held u2 -H -n1 --time=1 -- sleep 5)
sub multipart u3 -p cpu,gpu -n2 --time=1 -- sleep 6 >/dev/null
sub deftime u1 -n1 -- sleep 5 >/dev/null

waitstate "$running" R
sleep 3
cancel "$held"
sleep 5
cancel "$running"

# Wave 2: a whole-partition job, one queued behind it and cancelled, a
# dependency, a delayed begin, multi-node GPU jobs, small fillers.
sub big u2 -N4 -n16 --time=2 -- sleep 10 >/dev/null
behind=$(sub behind u3 -N4 --exclusive --time=1 -- sleep 5)
sub depend u1 --dependency=afterok:"$serial" -n1 --time=1 -- sleep 5 >/dev/null
sub begin u2 --begin=now+30 -n1 --time=1 -- sleep 5 >/dev/null
sub gpu2node u3 -p gpu -N2 --gres=gpu:2 -n2 --time=2 -- sleep 10 >/dev/null
sub gpuexcl2 u1 -p gpu -N2 --exclusive --time=1 -- sleep 5 >/dev/null
for i in 1 2 3 4 5 6; do
	sub fill$i u$((i % 3 + 1)) -n$((i % 4 + 1)) --time=1 -- sleep $((3 + i)) >/dev/null
done
sub gpufill u2 -p gpu --gres=gpu:1 -c2 --time=1 -- sleep 6 >/dev/null
sub cpt u3 -n2 -c2 --time=1 -- sleep 6 >/dev/null
waitstate "$behind" PD
sleep 4
cancel "$behind"

# Wave 3: a throttled GPU array, a dependency that can never be met.
sleep 10
sub garr u3 -p gpu --array=1-3%2 --gres=gpu:1 --time=1 -- sleep 4 >/dev/null
never=$(sub never u2 --dependency=afterok:"$fail1" -n1 --time=1 -- sleep 5)
waitstate "$never" PD
sleep 5
cancel "$never"
