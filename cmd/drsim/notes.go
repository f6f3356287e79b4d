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

// noteNodePower says on w that node power saving runs on nodes of one
// processor when --suspend-after is given without --procs-per-node or a
// machine file: every processor is then suspended and booted on its own
// (a trace gives no node size), which is seldom the machine meant and is
// slow on large machines (CEA-Curie: 93,312 nodes, 58 M boots).
func noteNodePower(w io.Writer, spec sim.Spec, ppnSet bool) {
	if spec.SuspendAfter > 0 && spec.Machine == "" && !ppnSet && spec.ProcsPerNode <= 1 {
		fmt.Fprintln(w, "drsim: note: --suspend-after powers off nodes of one processor each (no --procs-per-node or --machine): give --procs-per-node with the machine's processors per node for node-level power saving")
	}
}
