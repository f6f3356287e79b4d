package machine

import (
	"fmt"
	"io"
	"text/tabwriter"
)

// PeakW returns a node of type t's draw with every core and GPU busy, or
// 0 when the file gives no idle power for it: idle_w + cores ×
// core_busy_w + gpus × (gpu_busy_w − gpu_idle_w).
func (t *NodeType) PeakW() float64 {
	if t.IdleW == 0 {
		return 0
	}
	return t.IdleW + float64(t.Cores)*t.CoreBusyW + float64(t.GPUs)*(t.GPUBusyW-t.GPUIdleW)
}

// WriteText describes m: its node types, partitions and power figures.
func (m *Machine) WriteText(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "machine %s (%s): %d nodes, %d processors\n", m.Name, m.File, len(m.Nodes), m.Procs)
	if m.Source != "" {
		fmt.Fprintf(tw, "source: %s\n", m.Source)
	}
	fmt.Fprintln(tw, "\nnode type\tnodes\tcores\tGPUs\tmemory GB\tidle W\tpeak W\tall idle kW\tall peak kW")
	idle, peak := 0.0, 0.0
	for i := range m.Types {
		t := &m.Types[i]
		n := float64(t.Count)
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%g\t%s\t%s\t%s\t%s\n", t.Name, t.Count, t.Cores, t.GPUs, t.MemoryGB,
			watts(t.IdleW, 1), watts(t.PeakW(), 1), watts(n*t.IdleW, 1e-3), watts(n*t.PeakW(), 1e-3))
		idle += n * t.IdleW
		peak += n * t.PeakW()
	}
	fmt.Fprintf(tw, "total\t%d\t\t\t\t\t\t%s\t%s\n", len(m.Nodes), watts(idle, 1e-3), watts(peak, 1e-3))
	m.writeStatic(tw)
	fmt.Fprintln(tw, "\npartition\tnodes\tnode type\tprocessors\tallocation\tmax time\tdefault")
	for i := range m.Partitions {
		p := &m.Partitions[i]
		alloc, maxT := "core", "unlimited"
		if p.Exclusive {
			alloc = "node"
		}
		if p.MaxTime > 0 {
			maxT = fmt.Sprintf("%g h", p.MaxTime/3600)
		}
		def := ""
		if p.Default {
			def = "yes"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%d-%d\t%s\t%s\t%s\n", p.Name, hostRange(m, p.Nodes), m.Types[p.Type].Name,
			p.Lo, p.Lo+p.Procs-1, alloc, maxT, def)
	}
	return tw.Flush()
}

func watts(w, scale float64) string {
	if w == 0 {
		return "-"
	}
	return fmt.Sprintf("%.1f", w*scale)
}

// hostRange names a partition's nodes: the first and last and the count.
func hostRange(m *Machine, nodes []int) string {
	if len(nodes) == 1 {
		return m.Nodes[nodes[0]].Name
	}
	return fmt.Sprintf("%d (%s..%s)", len(nodes), m.Nodes[nodes[0]].Name, m.Nodes[nodes[len(nodes)-1]].Name)
}

// writeStatic lists the load-proportional node power of the types that
// give static_w (nothing otherwise): a node with u of its cores busy draws
// static + u·(all cores − static), each idle core of a busy node static/cores.
func (m *Machine) writeStatic(w io.Writer) {
	head := true
	for i := range m.Types {
		t := &m.Types[i]
		if t.StaticW == 0 {
			continue
		}
		if head {
			fmt.Fprintln(w, "\nnode type\tidle W\tstatic W\tidle core of a busy node W")
			head = false
		}
		fmt.Fprintf(w, "%s\t%.2f\t%.2f\t%.3f\n", t.Name, t.IdleW, t.StaticW, t.StaticW/float64(t.Cores))
	}
}
