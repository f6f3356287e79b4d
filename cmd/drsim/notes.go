package main

import (
	"fmt"
	"io"

	"drsim/scheduler/sim"
	"drsim/workloads"
)

// noteModels says on w, once per (app, knob), which power models a run of
// spec asks for settings outside the range they were fitted on; the
// summary records the same (model_extrapolation). Errors are left to the
// run, which reports them.
func noteModels(w io.Writer, spec sim.Spec) {
	es, err := sim.Extrapolations(spec)
	if err != nil {
		return
	}
	for _, e := range es {
		fmt.Fprintf(w, "drsim: warning: power model outside its fitted range: %s\n", e)
	}
}

// noteMachine says on w where the machine size came from when nothing
// stated it: the trace has no MaxProcs/MaxNodes header and no --procs was
// given, so the largest job sizes the machine (summary.json:
// machine_size_source).
func noteMachine(w io.Writer, spec sim.Spec, tr *workloads.Trace) {
	if sim.MachineSource(spec, tr) == sim.MachineFromLargestJob {
		fmt.Fprintf(w, "drsim: note: %s has no MaxProcs/MaxNodes header: the machine has %d processors, the size of its largest job (--procs sets it)\n",
			spec.Trace, tr.MachineProcs)
	}
}
