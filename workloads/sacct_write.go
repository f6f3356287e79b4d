package workloads

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"time"
)

// SacctColumns is the header WriteSacct writes: the columns of
// sacct -P -X -o ... that a Reader understands.
const SacctColumns = "JobID|JobIDRaw|User|Account|Partition|QOS|Submit|Eligible|Start|End|Elapsed|Timelimit|NNodes|NCPUS|ReqCPUS|ReqTRES|AllocTRES|State|ExitCode|ConsumedEnergyRaw"

// WriteSacct writes tr's jobs as the output of sacct -P -X would show
// them, times as wall clock in loc (nil: UTC) counted from the header's
// UnixStartTime. Status 1 is COMPLETED, 0 FAILED, 5 "CANCELLED by 0" and
// any other UNKNOWN; a job with Wait < 0 has Start Unknown; ReqTime <= 0 is
// UNLIMITED; names come from tr.Names, else are made from the numbers
// ("u12", "a3", "p1", "q2"). Times are whole seconds (fractions are
// truncated), so an SWF trace with integer times reads back exactly,
// except that local times repeated when clocks go back read back as their
// first occurrence: write UTC (the default) to be safe.
func WriteSacct(w io.Writer, tr *Trace, loc *time.Location) error {
	if loc == nil {
		loc = time.UTC
	}
	bw := bufio.NewWriterSize(w, 64<<10)
	bw.WriteString(SacctColumns + "\n")
	base := tr.Header.UnixStartTime
	b := make([]byte, 0, 512)
	for i := range tr.Jobs {
		j := &tr.Jobs[i]
		b = strconv.AppendInt(b[:0], j.ID, 10)
		b = strconv.AppendInt(append(b, '|'), j.ID, 10)
		b = appendName(append(b, '|'), tr.Names.Users, j.User, "u")
		b = appendName(append(b, '|'), tr.Names.Accounts, j.Group, "a")
		b = appendName(append(b, '|'), tr.Names.Partitions, j.Partition, "p")
		b = appendName(append(b, '|'), tr.Names.QOS, j.Queue, "q")
		submit := base + int64(math.Floor(j.Submit))
		b = appendSacctTime(append(b, '|'), submit, loc)
		b = appendSacctTime(append(b, '|'), submit, loc) // Eligible
		run := int64(max(math.Floor(j.Run), 0))
		if j.Wait >= 0 {
			start := submit + int64(math.Floor(j.Wait))
			b = appendSacctTime(append(b, '|'), start, loc)
			b = appendSacctTime(append(b, '|'), start+run, loc)
		} else {
			b = append(b, "|Unknown|Unknown"...)
		}
		b = appendDuration(append(b, '|'), run)
		if j.ReqTime > 0 {
			b = appendDuration(append(b, '|'), int64(math.Floor(j.ReqTime)))
		} else {
			b = append(b, "|UNLIMITED"...)
		}
		b = appendCount(append(b, '|'), j.Nodes)
		b = appendCount(append(b, '|'), j.AllocProcs)
		b = appendCount(append(b, '|'), j.ReqProcs)
		b = appendTRES(append(b, '|'), j.ReqProcs, j.Nodes, j.GPUs)
		if j.Wait >= 0 {
			b = appendTRES(append(b, '|'), j.AllocProcs, j.Nodes, j.GPUs)
		} else {
			b = append(b, '|')
		}
		switch j.Status {
		case 1:
			b = append(b, "|COMPLETED|0:0|"...)
		case 0:
			b = append(b, "|FAILED|1:0|"...)
		case 5:
			b = append(b, "|CANCELLED by 0|0:15|"...)
		default:
			b = append(b, "|UNKNOWN|0:0|"...)
		}
		b = strconv.AppendInt(b, int64(max(j.Energy, 0)), 10)
		b = append(b, '\n')
		if _, err := bw.Write(b); err != nil {
			return err
		}
	}
	return bw.Flush()
}

func appendName(b []byte, table []string, i int64, prefix string) []byte {
	if n := Name(table, i); n != "" {
		return append(b, n...)
	}
	if i < 0 {
		return b
	}
	return strconv.AppendInt(append(b, prefix...), i, 10)
}

func appendSacctTime(b []byte, unix int64, loc *time.Location) []byte {
	return time.Unix(unix, 0).In(loc).AppendFormat(b, "2006-01-02T15:04:05")
}

// appendDuration writes seconds as sacct does: [D-]HH:MM:SS.
func appendDuration(b []byte, s int64) []byte {
	if d := s / 86400; d > 0 {
		b = append(strconv.AppendInt(b, d, 10), '-')
	}
	s %= 86400
	for i, v := range [3]int64{s / 3600, s / 60 % 60, s % 60} {
		if i > 0 {
			b = append(b, ':')
		}
		b = append(b, byte('0'+v/10), byte('0'+v%10))
	}
	return b
}

func appendCount(b []byte, v int64) []byte {
	if v <= 0 {
		return b
	}
	return strconv.AppendInt(b, v, 10)
}

func appendTRES(b []byte, cpu, node, gpu int64) []byte {
	if cpu <= 0 {
		return b
	}
	b = strconv.AppendInt(append(b, "billing="...), cpu, 10)
	b = strconv.AppendInt(append(b, ",cpu="...), cpu, 10)
	if gpu > 0 {
		b = strconv.AppendInt(append(b, ",gres/gpu="...), gpu, 10)
	}
	if node > 0 {
		b = strconv.AppendInt(append(b, ",node="...), node, 10)
	}
	return b
}

// SWFHeader is the header of an SWF file converted from tr (a sacct log):
// UnixStartTime, TimeZoneString and MaxProcs, then "Note" lines saying
// where the file came from, what was dropped and why, the Slurm states,
// and the partition and QOS names behind partition_number and
// queue_number. User and account names are left out unless keepNames
// (user_id and group_id are numbered in order of first appearance), so the
// file can be shared as the archive shares its logs.
func SWFHeader(tr *Trace, keepNames bool) *Header {
	h := &Header{}
	rep := &tr.Report
	add := func(k, format string, a ...any) { h.Pairs = append(h.Pairs, KV{k, fmt.Sprintf(format, a...)}) }
	add("Version", "2.2")
	add("Note", "converted by drsim trace convert from the Slurm accounting log %s (sacct -P): %d jobs read, %d kept, %d dropped, %d job-step lines skipped", tr.File, rep.Records, rep.Kept, rep.Dropped, rep.Steps)
	add("UnixStartTime", "%d", tr.Header.UnixStartTime)
	if tr.Header.TimeZone != "" {
		add("TimeZoneString", "%s", tr.Header.TimeZone)
	}
	add("MaxJobs", "%d", len(tr.Jobs))
	add("MaxRecords", "%d", len(tr.Jobs))
	add("MaxProcs", "%d", tr.MachineProcs)
	add("Note", "MaxProcs from the %s", tr.MachineSource)
	for i, a := range rep.Anomalies {
		if a.Count > 0 {
			what := "kept"
			if Reason(i).Dropped() {
				what = "dropped"
			}
			add("Note", "%s %d jobs: %s (first at %s)", what, a.Count, Reason(i), a.First)
		}
	}
	var st []string
	for s, n := range rep.States {
		if n > 0 {
			st = append(st, fmt.Sprintf("%s %d", State(s), n))
		}
	}
	add("Note", "Slurm states (jobs read): %s; status 1 = COMPLETED, 0 = FAILED, TIMEOUT, NODE_FAIL, OUT_OF_MEMORY, PREEMPTED, BOOT_FAIL or DEADLINE, 5 = CANCELLED, -1 = other", strings.Join(st, ", "))
	table := func(what string, names []string) {
		if len(names) == 0 {
			return
		}
		var b strings.Builder
		for i, n := range names {
			fmt.Fprintf(&b, " %d=%s", i+1, n)
		}
		add("Note", "%s:%s", what, b.String())
	}
	table("partition_number", tr.Names.Partitions)
	table("queue_number (QOS)", tr.Names.QOS)
	if keepNames {
		table("user_id", tr.Names.Users)
		table("group_id (account)", tr.Names.Accounts)
	} else {
		add("Note", "user_id and group_id (Slurm account) are numbered in order of first appearance; the names are left out")
	}
	var nodes, gpus, energy bool
	for i := range tr.Jobs {
		j := &tr.Jobs[i]
		nodes, gpus, energy = nodes || j.Nodes > 0, gpus || j.GPUs > 0, energy || j.Energy > 0
	}
	if nodes || gpus || energy {
		add("Note", "SWF has no field for node counts, GPUs or consumed energy; they are left out")
	}
	return h
}
