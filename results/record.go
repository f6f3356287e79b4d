package results

import "drsim/cluster"

// Final states, in Batsim's vocabulary.
const (
	StateCompleted = "COMPLETED_SUCCESSFULLY"
	StateFailed    = "COMPLETED_FAILED"
	StateWalltime  = "COMPLETED_WALLTIME_REACHED"
	StateKilled    = "COMPLETED_KILLED"
)

// BoundedSlowdownTau is the threshold τ (s) of the bounded slowdown
// max(1, turnaround / max(runtime, τ)).
const BoundedSlowdownTau = 10

// Record is one finished job as the engine reports it. Times are seconds in
// trace time. Alloc is the processors the job held in its last run, as
// ascending ranges (jobs.csv writes them in Batsim's interval-set text,
// e.g. "0-3 8"); it is only valid during the Record call.
type Record struct {
	ID          int64
	Seq         int64 // position in the trace (unique, unlike SWF job numbers)
	Workload    string
	Submit      float64
	Procs       int64
	ReqTime     float64 // requested time (s); -1 when unknown
	State       string  // one of the State constants
	Start       float64 // start of the run that finished
	End         float64
	Alloc       []cluster.Range
	Energy      float64 // J consumed by the finishing run; -1 without a power model
	Evictions   int
	Wasted      float64 // J consumed by runs that were evicted
	StartedInDR bool    // the finishing run started under a finite power limit
	Work        float64 // processor-seconds of the finishing run (procs × (End − Start))
	// On machines with GPUs: the part of Energy and Wasted drawn by the
	// job's GPUs (J); the rest is CPU packages and the nodes' other draw.
	GPUEnergy, GPUWasted float64
}

// Wait returns the waiting time Start − Submit.
func (r *Record) Wait() float64 { return r.Start - r.Submit }

// Turnaround returns End − Submit.
func (r *Record) Turnaround() float64 { return r.End - r.Submit }

// Runtime returns End − Start.
func (r *Record) Runtime() float64 { return r.End - r.Start }

// BoundedSlowdown returns max(1, turnaround / max(runtime, τ)).
func (r *Record) BoundedSlowdown() float64 {
	return max(1, r.Turnaround()/max(r.Runtime(), BoundedSlowdownTau))
}

// Stretch returns turnaround / runtime (Batsim's "stretch"); +Inf never
// occurs because zero-length runs are dropped at load time.
func (r *Record) Stretch() float64 { return r.Turnaround() / r.Runtime() }

// A Recorder receives every finished job exactly once, in finish order.
type Recorder interface {
	Record(r *Record) error
}

// Recorders fans a record out to several recorders in order.
type Recorders []Recorder

func (rs Recorders) Record(r *Record) error {
	for _, x := range rs {
		if err := x.Record(r); err != nil {
			return err
		}
	}
	return nil
}
