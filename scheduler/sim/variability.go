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
	for i, v := range nv {
		for p := lo[i]; p < lo[i+1]; p++ {
			pv[p] = v
		}
	}
	cfg.ProcVar, cfg.Pace, cfg.JobNoise = pv, pace, d.JobNoise
	cfg.Drift, err = parseDrift(d.NodeDrift, lo, names)
	return err
}

// parseDrift reads node_drift, NODE@T:FACTOR[,...]: from trace time T (s)
// on, node NODE (index or machine-file name) takes FACTOR times as long.
func parseDrift(s string, lo []int, names []string) ([]scheduler.DriftStep, error) {
	if s == "" {
		return nil, nil
	}
	var out []scheduler.DriftStep
	for i, item := range strings.Split(s, ",") {
		bad := func(why string) error {
			return specErr(fmt.Errorf("node-drift: step %d %q: %s (want NODE@T:FACTOR, e.g. 3@86400:1.1)", i+1, item, why))
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
		f, err := strconv.ParseFloat(fs, 64)
		if err != nil || !(f > 0 && f <= 10) {
			return nil, bad("factor not in (0, 10]")
		}
		out = append(out, scheduler.DriftStep{T: t, Lo: lo[n], Hi: lo[n+1], Slow: f})
	}
	slices.SortStableFunc(out, func(a, b scheduler.DriftStep) int { return cmp.Compare(a.T, b.T) })
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
