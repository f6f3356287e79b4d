package scheduler

// FCFS starts jobs in queue order while they fit and stops at the first
// that does not: no job ever overtakes another.
type FCFS struct{}

var _ Policy = (*FCFS)(nil)

func (*FCFS) Name() string { return "fcfs" }

func (*FCFS) Schedule(v *View) {
	if i := v.Next(0, v.Total); !v.Changed() && i >= 0 && i < v.NewFrom() {
		return // the head was blocked at the last pass and nothing freed anything
	}
	for i := v.Next(0, v.Total); i >= 0 && v.Fits(i); i = v.Next(i+1, v.Total) {
		v.Start(i)
	}
}
