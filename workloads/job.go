package workloads

// Job is one SWF record: all 18 fields of the Standard Workload Format, as
// read, plus the two values the simulator derives from them (Procs and
// Estimate) and where the record came from. Times are seconds on the trace's
// own submit-time scale; -1 means "unknown", as in SWF.
type Job struct {
	Line int64 // 1-based line of the record in its file (0 for generated jobs)

	ID         int64   // field 1: job number
	Submit     float64 // field 2: submit time (s)
	Wait       float64 // field 3: wait time (s)
	Run        float64 // field 4: run time (s)
	AllocProcs int64   // field 5: number of allocated processors
	AvgCPU     float64 // field 6: average CPU time used (s)
	UsedMem    float64 // field 7: used memory (KB per processor)
	ReqProcs   int64   // field 8: requested number of processors
	ReqTime    float64 // field 9: requested time (s)
	ReqMem     float64 // field 10: requested memory (KB per processor)
	Status     int64   // field 11: 1 completed, 0 failed, 5 cancelled, -1 unknown
	User       int64   // field 12: user ID
	Group      int64   // field 13: group ID
	Exe        int64   // field 14: executable (application) number
	Queue      int64   // field 15: queue number
	Partition  int64   // field 16: partition number
	Preceding  int64   // field 17: preceding job number
	Think      float64 // field 18: think time from preceding job (s)

	// Derived by the reader according to its Options (never -1 for a kept job).
	Procs    int64   // processors the simulator allocates
	Estimate float64 // the user's runtime estimate the scheduler sees

	// Resources that SWF has no field for; zero means "not given". Slurm
	// accounting logs (sacct NNodes, AllocTRES/ReqTRES gres/gpu,
	// ConsumedEnergyRaw) fill them; a machine file uses Nodes and GPUs to
	// place the job.
	Nodes int64 // nodes requested or allocated
	// ReqNodes is the node count the job asked for (sacct ReqTRES node=:
	// Slurm's min_nodes, 1 for a job submitted with -n alone); 0 = not
	// given. Slurm's multifactor job-size factor counts it.
	ReqNodes int64
	GPUs     int64   // GPUs over the whole job
	Energy   float64 // energy the job consumed as recorded by the site (J)
}

// Names are the strings behind a trace's numeric identifiers, for formats
// that carry names (Slurm accounting logs): Job.Partition, Job.User,
// Job.Group (the Slurm account) and Job.Queue (the Slurm QOS) are 1-based
// indices into these tables, 0 or -1 meaning none. SWF traces leave them
// empty; their numbers are the archive's own.
type Names struct {
	Partitions, Users, Accounts, QOS []string
}

// Name returns the name of a 1-based index into t, or "" when out of range.
func Name(t []string, i int64) string {
	if i < 1 || i > int64(len(t)) {
		return ""
	}
	return t[i-1]
}

// FieldNames are the SWF field names, indexed by 1-based field number
// (FieldNames[0] is unused). They appear in error messages.
var FieldNames = [19]string{"",
	"job_number", "submit_time", "wait_time", "run_time", "allocated_processors",
	"average_cpu_time", "used_memory", "requested_processors", "requested_time",
	"requested_memory", "status", "user_id", "group_id", "executable_number",
	"queue_number", "partition_number", "preceding_job_number", "think_time",
}
