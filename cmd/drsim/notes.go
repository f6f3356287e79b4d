package main

import (
	"fmt"
	"io"

	"drsim/scheduler/sim"
	"drsim/workloads"
)

// noteModels says on w, once per (app, knob), which power models a run
// asks for settings outside the range they were fitted on
// (sim.Extrapolations; the summary records the same, model_extrapolation).
func noteModels(w io.Writer, es []sim.Extrapolation) {
	for _, e := range es {
		fmt.Fprintf(w, "drsim: warning: power model outside its fitted range: %s\n", e)
	}
}

// specExtrapolations returns sim.Extrapolations(spec), or none when the
// spec fails to build (the run reports why).
func specExtrapolations(spec sim.Spec) []sim.Extrapolation {
	es, _ := sim.Extrapolations(spec)
	return es
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
