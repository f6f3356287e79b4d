// Package workloads reads, writes and generates job traces in the Standard
// Workload Format (SWF) of the Parallel Workloads Archive, and reads Slurm
// accounting logs (sacct -P output) into the same Job.
//
// Files: job.go (Job, the 18 SWF fields plus the derived Procs and
// Estimate), reader.go (the streaming Reader and its Options), parse.go
// (the allocation-free line parser), header.go (the "; Key: value" header),
// report.go (anomaly reasons and the Report), load.go (Load/LoadFile into a
// Trace), loadpar.go (Load's parallel parse), readahead.go and pipe.go
// (decompression and parsing on goroutines of their own), write.go (WriteSWF), lublin.go (the Lublin–Feitelson generator),
// errors.go (ParseError and its sentinels); sacct_cols.go (format
// detection, the columns and Slurm states), sacct.go (the sacct line
// parser and its anomaly policy), sacct_values.go (job ids, counts, TRES,
// energy), sacct_time.go (times, zones, durations), sacct_peak.go (the
// peak concurrent allocation), sacct_write.go (WriteSacct, and SWFHeader
// for sacct → SWF).
//
// Units: times are float64 seconds on the trace's own submit-time scale
// (integer SWF values stay exact; "552.21" is allowed in float fields),
// processor counts are int64, -1 means unknown as in SWF. Input may be plain
// or gzip (detected by the 1f 8b magic bytes); a UTF-8 BOM, CRLF, TABs,
// trailing and blank lines and ";" comments anywhere are tolerated. A bad
// number, NaN/Inf, a value beyond int64, a fraction in an integer field or a
// line without exactly 18 fields is always a *ParseError naming
// file:line:field.
//
// Anomaly policy. Each job line is checked in a fixed order (see Reason):
// submit < 0, run time < 0, run time = 0, no processor count after the
// fallback, more processors than the machine: such a record is dropped and
// counted under its first reason. Kept records are then flagged (not
// dropped) for a submit earlier than the previous kept record (Load
// re-sorts stably), run time above the requested time (the engine decides
// what an overrun means) and a repeated job number. The Report counts each
// reason with its first file:line. With Options.Strict the first anomaly of
// any kind is returned as a *ParseError instead (ErrRange for the dropping
// reasons, ErrInconsistent for the others).
//
// Machine size: Options.MachineProcs, else the header's MaxProcs, else
// MaxNodes (decided when the first job line is read, so headers must come
// first, as they do in every archive file), else the largest kept job, with
// a warning in Header.Warnings.
//
// The reader allocates nothing per job line: lines are read with
// bufio.Reader.ReadSlice into its buffer and split and converted in one
// pass. Start with Example (reading a trace) and ExampleLublin.
//
// Slurm accounting logs. With Options.Format FormatAuto (the zero value) a
// first non-blank line that is "|"-separated and names a JobID or JobIDRaw
// column is a sacct header, and the lines after it are jobs, one per line,
// the columns in the header's order (sacct -p's trailing "|" is allowed; a
// repeated header line, as in concatenated dumps, is skipped; job steps
// such as "7.batch" are skipped and counted in Report.Steps). Columns:
// ID from JobIDRaw, else the number that starts JobID (so array elements
// "5_0", "5_1" share an id without JobIDRaw, and count as duplicates);
// Submit, Start and End are wall-clock times "YYYY-MM-DDTHH:MM:SS" in
// Options.TZ (nil: UTC; a time repeated when clocks go back is its first
// occurrence, one skipped when they go forward is an error); Wait = Start -
// Submit, Run = Elapsed (or End - Start); ReqTime = Timelimit ([D-]HH:MM:SS,
// MM:SS or minutes; UNLIMITED and Partition_Limit are -1, counted as "no
// time limit"); AllocProcs = NCPUS (else AllocTRES cpu=), ReqProcs =
// ReqCPUS (else ReqTRES cpu=), and Procs follows Options.ProcsField as for
// SWF; Nodes = NNodes (else the TRES node=), GPUs = AllocTRES gres/gpu
// (else ReqTRES; typed gres/gpu:TYPE counts are summed when there is no
// untyped one), Energy = ConsumedEnergyRaw (else ConsumedEnergy, K/M/G/T
// meaning powers of 1000); Status 1 for COMPLETED, 0 for FAILED, TIMEOUT,
// NODE_FAIL, OUT_OF_MEMORY, PREEMPTED, BOOT_FAIL and DEADLINE, 5 for
// CANCELLED, -1 otherwise, with every job counted by State in
// Report.States; Partition, User, Group (the account) and Queue (the QOS)
// index Trace.Names in order of first appearance. Time 0 is the earliest
// kept submit (Header.UnixStartTime, with TimeZoneString the zone): a
// Reader counts from its first kept job and Load shifts to the earliest
// (Reader.Shift). Jobs that never started (Start None or Unknown, or an
// empty AllocTRES: Slurm 22.05 may write Start = End for a job cancelled
// while pending) are dropped ("never started"),
// or kept with Run 0 and Wait -1 under Options.KeepUnstarted; jobs not
// finished when the log was taken are dropped ("not finished"); then the
// SWF reasons apply (Submit may be negative before the shift, so
// "submit<0" does not). Without Options.MachineProcs the machine size is
// the peak concurrent allocation of the kept jobs (MachineSource "peak
// concurrent allocation"), which needs the whole log, so OpenPipe declines.
// Errors name the byte column: file:line:column (Column)="value": reason.
package workloads
