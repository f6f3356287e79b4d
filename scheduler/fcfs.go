package scheduler

// FCFS starts jobs in queue order while they fit and stops at the first
// that does not: no job ever overtakes another.
type FCFS struct{}

var _ Policy = (*FCFS)(nil)

func (*FCFS) Name() string { return "fcfs" }

func (*FCFS) Schedule(v *View) {
	for i := 0; i < v.Len() && v.Fits(i); i++ {
		v.Start(i)
	}
}
