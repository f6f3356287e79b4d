package sim

import (
	"cmp"
	"fmt"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"

	"drsim/cluster"
	"drsim/cluster/machine"
	"drsim/scheduler"
)

// useVariability sets the engine's per-processor variability
// (scheduler/variability.go) from Spec.NodeVar (a node,speed,power CSV),
// or from the seeded draw of Spec.NodeSpeedSD and Spec.SlowNodes. Nodes
// are the machine file's (names usable in the CSV) or, without one,
// blocks of ProcsPerNode processors. Nothing is set when none is given,
// so the run is the one without variability.
func useVariability(cfg *scheduler.Config, d Spec, m *machine.Machine) error {
	pace, err := scheduler.ParsePace(defaultPace(d.Pace))
	if err != nil {
		return fmt.Errorf("pace: %w", err)
	}
	frac, slowdown, err := parseSlowNodes(d.SlowNodes)
	if err != nil {
		return err
	}
	temporal := d.JobNoise != 0 || d.NodeDrift != ""
	if d.NodeVar == "" && d.NodeSpeedSD == 0 && frac == 0 && !temporal {
		if defaultPace(d.Pace) != "slowest" {
			return fmt.Errorf("pace: %q needs node variability (node_var, node_speed_sd, slow_nodes, job_noise or node_drift)", d.Pace)
		}
		return nil
	}
	switch {
	case d.NodeVar != "" && (d.NodeSpeedSD != 0 || frac != 0):
		return fmt.Errorf("node_var: %s given with node_speed_sd or slow_nodes; use one source", d.NodeVar)
	case d.Malleable > 0:
		return fmt.Errorf("malleable: malleable jobs do not work with node variability yet")
	case d.PowerCap == "uniform":
		return fmt.Errorf("powercap: the uniform cap shares the limit per processor and ignores node power factors; use --powercap dr")
	}
	// Node i covers processors [lo[i], lo[i+1]).
	var lo []int
	var names []string
	if m != nil {
		for _, n := range m.Nodes {
			lo = append(lo, n.Lo)
			names = append(names, n.Name)
		}
	} else {
		ppn := max(cfg.ProcsPerNode, 1)
		for p := 0; p < cfg.Procs; p += ppn {
			lo = append(lo, p)
		}
	}
	lo = append(lo, cfg.Procs)
	nodes := len(lo) - 1
	var nv []cluster.NodeVar
	if d.NodeVar != "" {
		f, err := os.Open(d.NodeVar)
		if err != nil {
			return fmt.Errorf("node_var: %w", err)
		}
		defer f.Close()
		if nv, err = cluster.ReadNodeVar(f, d.NodeVar, nodes, names); err != nil {
			return err
		}
	} else {
		nv = cluster.DrawNodeVar(nodes, d.NodeSpeedSD, frac, slowdown, d.Seed)
	}
	pv := make([]cluster.NodeVar, cfg.Procs)
	idle := make([]float64, nodes) // each node's idle power now (W)
	for i, v := range nv {
		for p := lo[i]; p < lo[i+1]; p++ {
			pv[p] = v
		}
		idle[i] = typeIdleW(cfg, lo[i], lo[i+1]-lo[i])
		if v.IdleW > 0 && v.IdleW != idle[i] {
			cfg.IdleOffsets = append(cfg.IdleOffsets, scheduler.IdleOffset{Lo: lo[i], Hi: lo[i+1], W: v.IdleW - idle[i]})
			idle[i] = v.IdleW
		}
	}
	cfg.ProcVar, cfg.Pace, cfg.JobNoise = pv, pace, d.JobNoise
	if cfg.Drift, err = parseDrift(d.NodeDrift, lo, names, idle); err != nil {
		return err
	}
	if d.SuspendAfter > 0 && (len(cfg.IdleOffsets) > 0 || slices.ContainsFunc(cfg.Drift, func(s scheduler.DriftStep) bool { return s.IdleW != 0 })) {
		return fmt.Errorf("suspend_after: node power saving does not work with per-node idle power (node_var idle_w, node_drift NODE@T:+WW) yet")
	}
	return nil
}

// typeIdleW is the idle power of the n-processor node at processor lo as
// the run has it without per-node figures: its partition's (machine file
// idle_w) or n × the processor idle power.
func typeIdleW(cfg *scheduler.Config, lo, n int) float64 {
	for _, p := range cfg.Parts {
		if lo >= p.Lo && lo < p.Lo+p.Procs && p.IdleW > 0 {
			return float64(n) * p.IdleW
		}
	}
	return float64(n) * cfg.IdleW
}

// parseDrift reads node_drift, NODE@T:CHANGE[,...]: from trace time T (s)
// on, node NODE (index or machine-file name) takes FACTOR times as long
// (CHANGE a plain number), or draws W watts more, idle and busy alike
// (CHANGE +WW or -WW, e.g. +11W: Heinrich's taurus-12 after 29 months,
// seed 000 line 1501). idle is each node's idle power at the start; a
// step that takes it below 0 is an error.
func parseDrift(s string, lo []int, names []string, idle []float64) ([]scheduler.DriftStep, error) {
	if s == "" {
		return nil, nil
	}
	var out []scheduler.DriftStep
	for i, item := range strings.Split(s, ",") {
		bad := func(why string) error {
			return specErr(fmt.Errorf("node-drift: step %d %q: %s (want NODE@T:FACTOR or NODE@T:±WATTSW, e.g. 3@86400:1.1 or 3@86400:+11W)", i+1, item, why))
		}
		node, rest, ok1 := strings.Cut(strings.TrimSpace(item), "@")
		ts, fs, ok2 := strings.Cut(rest, ":")
		if !ok1 || !ok2 {
			return nil, bad("not NODE@T:FACTOR")
		}
		n := slices.Index(names, node)
		if n < 0 {
			k, err := strconv.Atoi(node)
			if err != nil || k < 0 || k >= len(lo)-1 {
				return nil, bad(fmt.Sprintf("no node %q (indices 0–%d or machine-file names)", node, len(lo)-2))
			}
			n = k
		}
		t, err := strconv.ParseFloat(ts, 64)
		if err != nil || math.IsNaN(t) || math.IsInf(t, 0) {
			return nil, bad("time is not a number of seconds")
		}
		if ws, ok := strings.CutSuffix(fs, "W"); ok && (strings.HasPrefix(ws, "+") || strings.HasPrefix(ws, "-")) {
			w, err := strconv.ParseFloat(ws, 64)
			if err != nil || w == 0 || math.Abs(w) > 1e5 {
				return nil, bad("idle change not a number of watts in [-100000, 100000], not 0")
			}
			out = append(out, scheduler.DriftStep{T: t, Lo: lo[n], Hi: lo[n+1], Slow: 1, IdleW: w})
			continue
		}
		f, err := strconv.ParseFloat(fs, 64)
		if err != nil || !(f > 0 && f <= 10) {
			return nil, bad("factor not in (0, 10]")
		}
		out = append(out, scheduler.DriftStep{T: t, Lo: lo[n], Hi: lo[n+1], Slow: f})
	}
	slices.SortStableFunc(out, func(a, b scheduler.DriftStep) int { return cmp.Compare(a.T, b.T) })
	for _, st := range out { // in time order: a node's idle power never falls below 0
		if st.IdleW == 0 {
			continue
		}
		n, _ := slices.BinarySearch(lo, st.Lo)
		if idle[n] += st.IdleW; idle[n] < 0 {
			return nil, specErr(fmt.Errorf("node-drift: node %d's idle power falls to %g W at t=%g; need ≥ 0", n, idle[n], st.T))
		}
	}
	return out, nil
}

// parseSlowNodes reads FRACTION:SLOWDOWN ("" is 0:1).
func parseSlowNodes(s string) (frac, slowdown float64, err error) {
	if s == "" {
		return 0, 1, nil
	}
	a, b, ok := strings.Cut(s, ":")
	if ok {
		frac, err = strconv.ParseFloat(a, 64)
	}
	if ok && err == nil {
		slowdown, err = strconv.ParseFloat(b, 64)
	}
	if !ok || err != nil || !(frac >= 0 && frac <= 1) || !(slowdown >= 1 && slowdown <= 10) {
		return 0, 0, specErr(fmt.Errorf("slow-nodes: %q is not FRACTION:SLOWDOWN with FRACTION in [0, 1] and SLOWDOWN (time factor) in [1, 10], e.g. 0.0625:1.1", s))
	}
	return frac, slowdown, nil
}

func defaultPace(s string) string {
	if s == "" {
		return "slowest"
	}
	return s
}
