package machine

import (
	"fmt"
	"strconv"
	"strings"

	"drsim/workloads"
)

// Router sends jobs to partitions.
type Router struct {
	m     *Machine
	fixed int           // all jobs to this partition; -1 if not fixed
	byVal map[int64]int // SWF field 16 value -> partition (field16 rule)
	other int           // field16 "*": partition of unmapped values; -1 drops them
	names []int         // Trace.Names.Partitions index -> partition (sacct); -1 unknown
}

// NoPartition is what Router.Partition returns for a job whose partition
// is not in the machine.
const NoPartition = -1

// NewRouter builds the job→partition rule of a --partition-map spec:
//
//	""                       sacct traces: by partition name (Job.Partition indexes
//	                         names); a job with no partition goes to the default.
//	                         SWF traces (no names): every job to the default partition.
//	all:NAME                 every job to partition NAME
//	field16:1=cpu,2=gpu,*=cpu  by SWF field 16 (partition number); * catches the
//	                         rest (without it, unmapped numbers are dropped)
//
// names are the trace's partition names (workloads.Trace.Names.Partitions),
// nil for SWF.
func NewRouter(m *Machine, spec string, names []string) (*Router, error) {
	r := &Router{m: m, fixed: -1, other: NoPartition}
	part := func(name string) (int, error) {
		if i := m.Partition(name); i >= 0 {
			return i, nil
		}
		known := make([]string, len(m.Partitions))
		for i, p := range m.Partitions {
			known[i] = p.Name
		}
		return 0, fmt.Errorf("partition-map: no partition %q in %s (known: %s)", name, m.File, strings.Join(known, ", "))
	}
	kind, arg, _ := strings.Cut(spec, ":")
	switch kind {
	case "":
		if len(names) == 0 {
			r.fixed = m.Default
			return r, nil
		}
		r.names = make([]int, len(names))
		for i, n := range names {
			r.names[i] = m.Partition(n)
		}
	case "all":
		i, err := part(arg)
		if err != nil {
			return nil, err
		}
		r.fixed = i
	case "field16":
		r.byVal = map[int64]int{}
		for _, rule := range strings.Split(arg, ",") {
			v, name, ok := strings.Cut(strings.TrimSpace(rule), "=")
			if !ok {
				return nil, fmt.Errorf("partition-map: %q is not VALUE=PARTITION", rule)
			}
			i, err := part(name)
			if err != nil {
				return nil, err
			}
			if v == "*" {
				r.other = i
				continue
			}
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				return nil, fmt.Errorf("partition-map: %q is not a partition number", v)
			}
			if _, dup := r.byVal[n]; dup {
				return nil, fmt.Errorf("partition-map: partition number %d mapped twice", n)
			}
			r.byVal[n] = i
		}
	default:
		return nil, fmt.Errorf("partition-map: %q is not one of all:NAME, field16:V=NAME,... or empty (by name for sacct traces)", spec)
	}
	return r, nil
}

// Partition returns the partition job j goes to, or NoPartition.
func (r *Router) Partition(j *workloads.Job) int {
	switch {
	case r.fixed >= 0:
		return r.fixed
	case r.byVal != nil:
		if i, ok := r.byVal[j.Partition]; ok {
			return i
		}
		return r.other
	}
	if j.Partition <= 0 {
		return r.m.Default
	}
	if int(j.Partition) > len(r.names) {
		return NoPartition
	}
	return r.names[j.Partition-1]
}
