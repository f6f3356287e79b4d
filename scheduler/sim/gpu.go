package sim

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"drsim/cluster/machine"
	"drsim/powercap"
	"drsim/scheduler"
	"drsim/scheduler/governor"
	"drsim/workloads"
)

// GPU jobs (docs/gpu-dr.md). On a machine file with GPU nodes, a job that
// asks for GPUs (sacct gres/gpu, or Spec.GPUMap for SWF traces) and goes to
// a partition with GPUs runs a GPU profile (Spec.GPUAppMap, over the
// built-in GPU profiles that have a joint model with CPU and GPU power) at
// (CPU cap, GPU cap) pair levels: GPUGridN × GPUGridN caps spread evenly
// over each model's fitted ranges (a measured grid's own ends). Per node,
//
//	node power = (idle_w − GPUs·gpu_idle_w) + p_cpu(c, g) + GPUs·p_gpu(c, g)
//
// (the rest of the node, one CPU package, every GPU of the node: a job
// gets whole nodes and runs on all of their GPUs). A pair is one
// scheduler Level of W per processor, Power = IdleW + (p_cpu + GPUs·(p_gpu −
// gpu_idle_w))/cores (the engine adds the nodes' idle share), and Scale
// t(c, g)/t(c_max, g_max); its GPU share GPUs·p_gpu/cores goes to
// scheduler.Config.GPUShare for the per-device energy.
//
// Spec.GPUCap chooses the GPU knob's governor the way Spec.PowerCap (or
// Spec.DVFS) chooses the CPU's: performance keeps GPU jobs at g_max,
// powersave at g_min, dr lets the dr governor choose the pair. With one
// family at dr and the other static, the static family's tables keep
// their one level (top or bottom) and the run's governor is dr: dr alone
// on the GPUs is "GPU-only capping", --powercap dr alone "CPU-only", both
// "joint".

// GPUGridN is the number of caps per knob of a GPU pair table.
const GPUGridN = 5

// GPUCapModes are the values of Spec.GPUCap ("" = performance).
var GPUCapModes = []string{"performance", "powersave", "dr", "uniform"}

// gpuProfiles returns the built-in GPU profiles that can give pair
// levels (a joint model with both powers), by name.
func gpuProfiles() []powercap.Profile {
	var out []powercap.Profile
	for _, p := range powercap.BuiltinGPU() {
		if _, err := p.PairTable(pairCaps(&p)); err == nil {
			out = append(out, p)
		}
	}
	return out
}

// pairCaps returns p's CPU and GPU cap grids (GPUGridN each, evenly over
// the fitted ranges) and 1 GPU, PairTable's arguments.
func pairCaps(p *powercap.Profile) (cpu, gpu []float64, gpus int) {
	var clo, chi, glo, ghi float64
	switch {
	case p.Joint != nil:
		j := p.Joint
		clo, chi, glo, ghi = j.CPUCaps[0], j.CPUCaps[len(j.CPUCaps)-1], j.GPUCaps[0], j.GPUCaps[len(j.GPUCaps)-1]
	case p.Cap != nil && p.GPUCap != nil:
		clo, chi, glo, ghi = p.Cap.XMin, p.Cap.XMax, p.GPUCap.XMin, p.GPUCap.XMax
	default:
		return nil, nil, 1
	}
	return spread(clo, chi), spread(glo, ghi), 1
}

func spread(lo, hi float64) []float64 {
	out := make([]float64, GPUGridN)
	for i := range out {
		out[i] = lo + (hi-lo)*float64(i)/float64(GPUGridN-1)
	}
	out[GPUGridN-1] = hi
	return out
}

// gpuModeOf returns the GPU knob's mode and the CPU knob's.
func gpuModes(d Spec) (gpu, cpu string) {
	gpu = d.GPUCap
	if gpu == "" {
		gpu = "performance"
	}
	cpu = d.DVFS
	if capMode(d) {
		cpu = d.PowerCap
	}
	return gpu, cpu
}

// pick restricts a grid to one knob mode: performance its top, powersave
// its bottom, anything else all of it.
func pick[T any](xs []T, mode string) []T {
	switch mode {
	case "performance":
		return xs[len(xs)-1:]
	case "powersave":
		return xs[:1]
	}
	return xs
}

// useGPUs adds the GPU applications of a machine with GPU nodes to cfg
// (tables, GPU shares, the job→application rule and the GPU request rule
// on src) and returns the source to replay and the added applications'
// names and tables. Without GPU nodes it changes nothing.
func useGPUs(cfg *scheduler.Config, d Spec, m *machine.Machine, src scheduler.Source) (scheduler.Source, []string, []powercap.Table, error) {
	if !machineHasGPUs(m) {
		switch {
		case d.GPUCap != "":
			return nil, nil, nil, fmt.Errorf("gpucap: %q needs a machine file with GPU nodes (--machine)", d.GPUCap)
		case d.GPUMap != "":
			return nil, nil, nil, fmt.Errorf("gpu-map: %q needs a machine file with GPU nodes (--machine)", d.GPUMap)
		case d.GPUAppMap != "":
			return nil, nil, nil, fmt.Errorf("gpu-app-map: %q needs a machine file with GPU nodes (--machine)", d.GPUAppMap)
		}
		return src, nil, nil, nil
	}
	gmode, cmode := gpuModes(d)
	if err := oneOf("gpucap", gmode, GPUCapModes...); err != nil {
		return nil, nil, nil, err
	}
	switch {
	case gmode == "dr" && cmode == "uniform":
		return nil, nil, nil, fmt.Errorf("gpucap: dr cannot be combined with the uniform CPU cap; use --powercap dr")
	case gmode == "uniform" && cmode == "dr":
		return nil, nil, nil, fmt.Errorf("gpucap: uniform cannot be combined with the dr CPU governor; use --powercap uniform")
	case gmode == "uniform" && d.DRPartition != "":
		return nil, nil, nil, fmt.Errorf("gpucap: the uniform cap shares the limit over the whole machine; use --gpucap dr with --dr-partition")
	}
	uniform := gmode == "uniform" || cmode == "uniform"
	profs := gpuProfiles()
	am, err := powercap.NewAppMap(defaultStr(d.GPUAppMap, "mix"), profs, d.Seed)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("gpu-app-map: %w", err)
	}
	gmap, err := parseGPUMap(d.GPUMap)
	if err != nil {
		return nil, nil, nil, err
	}
	cfg.Apps = slices.Clone(cfg.Apps)
	if (gmode == "dr" || gmode == "uniform") && cmode != gmode && cmode != "uniform" {
		// GPU-only capping: the CPU applications keep the one level their
		// static governor gives them; the run's governor is the GPU knob's.
		for i, t := range cfg.Apps {
			t.Levels = pick(t.Levels, cmode)
			cfg.Apps[i] = t
		}
		if cfg.Governor, err = governor.Caps.New(gmode, scheduler.GovernorConfig{}); err != nil {
			return nil, nil, nil, err
		}
	}
	nCPU := len(cfg.Apps)
	cfg.GPUShare = make([][]float64, nCPU, nCPU+len(profs)*len(cfg.Parts))
	base := make([]int, len(cfg.Parts))
	var names []string
	var tables []powercap.Table
	for pi, part := range cfg.Parts {
		base[pi] = -1
		if part.GPUs == 0 {
			continue
		}
		base[pi] = len(cfg.Apps)
		t := m.NodeTypeOf(pi)
		idleW := cfg.IdleW
		for k := range profs {
			pr := &profs[k]
			cc, gc, _ := pairCaps(pr)
			pt, err := pr.PairTable(cc, gc, 1) // Scale relative to the full grid's top pair
			if err != nil {
				return nil, nil, nil, fmt.Errorf("gpu app %s: %w", pr.Name, err)
			}
			cs, gs := pick(cc, cmode), pick(gc, gmode)
			pt.Levels = slices.DeleteFunc(pt.Levels, func(l powercap.PairLevel) bool {
				return !slices.Contains(cs, l.CPUCap) || !slices.Contains(gs, l.GPUCap)
			})
			tab := powercap.Table{App: pr.Name + "@" + part.Name, Knob: powercap.Joint}
			share := make([]float64, 0, len(pt.Levels))
			cores, gpn := float64(t.Cores), float64(t.GPUs)
			if uniform { // ascending X, the order governor.UniformLevel reads (stable: CPU cap major among equals)
				slices.SortStableFunc(pt.Levels, func(a, b powercap.PairLevel) int {
					return cmpFloat(a.CPUCap+gpn*a.GPUCap, b.CPUCap+gpn*b.GPUCap)
				})
			}
			for _, l := range pt.Levels {
				v, _ := pr.JointAt(l.CPUCap, l.GPUCap)
				// X bounds Power as a cap bounds a CPU level (p_cpu ≤ c,
				// p_gpu ≤ g): the uniform cap's guarantee holds per processor.
				tab.Levels = append(tab.Levels, powercap.Level{X: idleW + (l.CPUCap+gpn*(l.GPUCap-t.GPUIdleW))/cores,
					Power: idleW + (v.CPUPower+gpn*(v.GPUPower-t.GPUIdleW))/cores, Scale: l.Scale})
				share = append(share, gpn*v.GPUPower/cores)
			}
			cfg.Apps = append(cfg.Apps, tab)
			cfg.GPUShare = append(cfg.GPUShare, share)
			names, tables = append(names, tab.App), append(tables, tab)
		}
	}
	cpuOf, partOf, parts := cfg.AppOf, cfg.PartOf, cfg.Parts
	cfg.AppOf = func(w *workloads.Job) int {
		if w.GPUs > 0 {
			// A pair level is a job on whole nodes; on shared cores a GPU
			// job runs its CPU application and its GPUs draw
			// Part.GPUBusyW each (scheduler/gres.go).
			if p := partOf(w); p >= 0 && p < len(base) && base[p] >= 0 && parts[p].Exclusive {
				return base[p] + am.App(w)
			}
		}
		return cpuOf(w)
	}
	if gmap != nil {
		src = &gpuSource{src: src, rule: gmap, partOf: partOf, parts: cfg.Parts}
	}
	return src, names, tables, nil
}

func defaultStr(s, d string) string {
	if s == "" {
		return d
	}
	return s
}

// gpuRule is a parsed Spec.GPUMap: the GPUs a job asks for.
type gpuRule func(w *workloads.Job) int64

// parseGPUMap parses a --gpu-map rule (nil for ""):
//
//	all:N              every job N GPUs
//	field16:V=N,*=N    by SWF field 16 (partition number); * the others (default 0)
//	procs:K            one GPU per K processors, ⌈procs/K⌉
//
// It applies to jobs routed to a partition with GPUs; the others keep none.
func parseGPUMap(spec string) (gpuRule, error) {
	if spec == "" {
		return nil, nil
	}
	bad := func(v string) error {
		return specErr(fmt.Errorf("gpu-map: %q is not a GPU count in [0, 1000000]", v))
	}
	count := func(v string) (int64, error) {
		n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
		if err != nil || n < 0 || n > 1e6 {
			return 0, bad(v)
		}
		return n, nil
	}
	kind, arg, _ := strings.Cut(spec, ":")
	switch kind {
	case "all":
		n, err := count(arg)
		if err != nil {
			return nil, err
		}
		return func(*workloads.Job) int64 { return n }, nil
	case "procs":
		k, err := count(arg)
		if err != nil || k == 0 {
			return nil, specErr(fmt.Errorf("gpu-map: procs:%s needs processors per GPU in [1, 1000000]", arg))
		}
		return func(w *workloads.Job) int64 { return (w.Procs + k - 1) / k }, nil
	case "field16":
		by, other := map[int64]int64{}, int64(0)
		for _, r := range strings.Split(arg, ",") {
			v, ns, ok := strings.Cut(strings.TrimSpace(r), "=")
			if !ok {
				return nil, specErr(fmt.Errorf("gpu-map: %q is not VALUE=GPUS", r))
			}
			n, err := count(ns)
			if err != nil {
				return nil, err
			}
			if v == "*" {
				other = n
				continue
			}
			f, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				return nil, specErr(fmt.Errorf("gpu-map: %q is not a partition number", v))
			}
			if _, dup := by[f]; dup {
				return nil, specErr(fmt.Errorf("gpu-map: partition number %d mapped twice", f))
			}
			by[f] = n
		}
		return func(w *workloads.Job) int64 {
			if n, ok := by[w.Partition]; ok {
				return n
			}
			return other
		}, nil
	}
	return nil, specErr(fmt.Errorf("gpu-map: %q is not one of all:N, field16:V=N,...,*=N or procs:K", spec))
}

// gpuSource sets the GPU request of every job routed to a partition with
// GPUs by the --gpu-map rule.
type gpuSource struct {
	src    scheduler.Source
	rule   gpuRule
	partOf func(*workloads.Job) int
	parts  []scheduler.Part
}

func (s *gpuSource) Next() (workloads.Job, error) {
	j, err := s.src.Next()
	if err != nil {
		return j, err
	}
	if p := s.partOf(&j); p >= 0 && p < len(s.parts) && s.parts[p].GPUs > 0 {
		j.GPUs = s.rule(&j)
	}
	return j, nil
}

// machineHasGPUs reports whether machine m has GPU nodes in a partition.
func machineHasGPUs(m *machine.Machine) bool {
	if m == nil {
		return false
	}
	for i := range m.Partitions {
		if m.NodeTypeOf(i).GPUs > 0 {
			return true
		}
	}
	return false
}

// gpuTopW is the largest top-pair level power (W per processor, as the
// pair tables of useGPUs) of any GPU profile on a node of cores
// processors and gpus GPUs of idle draw gpuIdleW: the peak a GPU job may
// draw there.
func gpuTopW(cores, gpus int, gpuIdleW, idleW float64) float64 {
	top := 0.0
	for _, p := range gpuProfiles() {
		c, g, _ := pairCaps(&p)
		v, err := p.JointAt(c[len(c)-1], g[len(g)-1])
		if err != nil {
			continue
		}
		top = max(top, idleW+(v.CPUPower+float64(gpus)*(v.GPUPower-gpuIdleW))/float64(cores))
	}
	return top
}

// Compare policies of GPU machines: gpucap-dr is GPU-only capping (CPU
// jobs and the CPU knob at the top, the dr governor on the GPU knob;
// baselines performance and powersave); powercap-joint is joint capping
// (--powercap dr --gpucap dr; baselines powercap-performance and
// powercap-powersave). CPU-only capping is powercap-dr.
const (
	gpuPolicy   = "gpucap-dr"
	jointPolicy = capPrefix + "joint"
)

// applyGPUPolicy sets the spec's governor fields for the GPU compare
// policies and reports whether p is one.
func applyGPUPolicy(s *Spec, p string) bool {
	switch p {
	case gpuPolicy:
		s.DVFS, s.PowerCap, s.Malleable, s.GPUCap = "performance", "", 0, "dr"
	case jointPolicy:
		s.DVFS, s.PowerCap, s.Malleable, s.GPUCap = "performance", "dr", 0, "dr"
	default:
		return false
	}
	return true
}
