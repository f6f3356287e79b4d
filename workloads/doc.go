// Package workloads reads, writes and generates job traces in the Standard
// Workload Format (SWF) of the Parallel Workloads Archive.
//
// Files: job.go (Job, the 18 SWF fields plus the derived Procs and
// Estimate), reader.go (the streaming Reader and its Options), parse.go
// (the allocation-free line parser), header.go (the "; Key: value" header),
// report.go (anomaly reasons and the Report), load.go (Load/LoadFile into a
// Trace), write.go (WriteSWF), lublin.go (the Lublin–Feitelson generator),
// errors.go (ParseError and its sentinels).
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
package workloads
