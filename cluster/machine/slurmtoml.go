package machine

import (
	"fmt"
	"io"
	"math"
	"path/filepath"
	"slices"
	"strings"
)

// A machine TOML with slurm_conf = "FILE" takes its nodes and partitions
// from that slurm.conf (ParseSlurm) and adds what a slurm.conf lacks:
//
//	slurm_conf = "/etc/slurm/slurm.conf"  # relative to this file's directory
//	gres_conf = "gres.conf"               # optional; default: the one beside slurm.conf, if any
//	name = "mycluster"                    # optional, as source
//
//	[[node_type]]      # a type ParseSlurm made (drsim machine show names them)
//	name = "gpu"
//	idle_w = 390       # any of memory_gb, idle_w, core_busy_w, gpu_idle_w, gpu_busy_w
//
//	[[partition]]      # a partition of the slurm.conf
//	name = "gpu"
//	allocation = "node"  # and/or apps
//
// Everything else about nodes and partitions comes from the slurm.conf:
// setting it here is an error.

// overlayTypeKeys and overlayPartKeys are the keys an overlay may set.
var (
	overlayTypeKeys = []string{"name", "memory_gb", "idle_w", "core_busy_w", "gpu_idle_w", "gpu_busy_w"}
	overlayPartKeys = []string{"name", "allocation", "apps"}
)

// overlay builds the machine of a TOML f with a slurm_conf key.
func overlay(name string, f *file, li lineIndex, read ReadFunc) (*Machine, error) {
	fail := func(section string, i int, where, key, format string, a ...any) error {
		return &Error{File: name, Line: li.line(section, i, key), Where: where, Key: key, Msg: fmt.Sprintf(format, a...)}
	}
	if read == nil {
		return nil, fail("", 0, "", "slurm_conf", "a machine with slurm_conf is read from a file (machine.Load), not from text")
	}
	rel := func(p string) string {
		if p == "" || filepath.IsAbs(p) {
			return p
		}
		return filepath.Join(filepath.Dir(name), p)
	}
	conf := rel(f.SlurmConf)
	data, err := read(conf)
	if err != nil {
		return nil, fail("", 0, "", "slurm_conf", "%v", err)
	}
	gres := rel(f.GresConf)
	if gres == "" {
		gres = gresBeside(conf)
	}
	m, err := ParseSlurm(conf, data, read, gres)
	if err != nil {
		return nil, err
	}
	m.File = name // later errors (apps, partition maps) are about this file
	if f.Name != "" {
		m.Name = f.Name
	}
	if f.Source != "" {
		m.Source = f.Source
	}
	given := make([]bool, len(m.Types))
	for i := range f.NodeTypes {
		ft := &f.NodeTypes[i]
		where := fmt.Sprintf("node_type %q", ft.Name)
		if k := setOutside(li, "node_type", i, overlayTypeKeys); k != "" {
			return nil, fail("node_type", i, where, k, "comes from slurm_conf %s; a node type here sets only %s", conf, strings.Join(overlayTypeKeys[1:], ", "))
		}
		t := slices.IndexFunc(m.Types, func(t NodeType) bool { return t.Name == ft.Name })
		if t < 0 {
			return nil, fail("node_type", i, where, "name", "no node type %q in %s (its types: %s)", ft.Name, conf, typeNames(m.Types))
		}
		if given[t] {
			return nil, fail("node_type", i, where, "name", "node type %q is set twice", ft.Name)
		}
		given[t] = true
		mt := &m.Types[t]
		for _, kv := range []struct {
			key string
			dst *float64
			v   float64
		}{{"memory_gb", &mt.MemoryGB, ft.MemoryGB}, {"idle_w", &mt.IdleW, ft.IdleW}, {"core_busy_w", &mt.CoreBusyW, ft.CoreBusyW},
			{"gpu_idle_w", &mt.GPUIdleW, ft.GPUIdleW}, {"gpu_busy_w", &mt.GPUBusyW, ft.GPUBusyW}} {
			if !isSet(li, "node_type", i, kv.key) {
				continue
			}
			if kv.v < 0 || math.IsNaN(kv.v) || math.IsInf(kv.v, 0) {
				return nil, fail("node_type", i, where, kv.key, "%v; need a finite value ≥ 0", kv.v)
			}
			*kv.dst = kv.v
		}
		switch {
		case mt.GPUBusyW < mt.GPUIdleW:
			return nil, fail("node_type", i, where, "gpu_busy_w", "%v W is below gpu_idle_w %v W", mt.GPUBusyW, mt.GPUIdleW)
		case mt.IdleW > 0 && mt.IdleW < float64(mt.GPUs)*mt.GPUIdleW:
			return nil, fail("node_type", i, where, "idle_w", "%v W is below the %d idle GPUs' %v W (idle_w is the whole node; set gpu_idle_w too)", mt.IdleW, mt.GPUs, float64(mt.GPUs)*mt.GPUIdleW)
		}
	}
	seen := make([]bool, len(m.Partitions))
	for i := range f.Parts {
		fp := &f.Parts[i]
		where := fmt.Sprintf("partition %q", fp.Name)
		if k := setOutside(li, "partition", i, overlayPartKeys); k != "" {
			return nil, fail("partition", i, where, k, "comes from slurm_conf %s; a partition here sets only allocation and apps", conf)
		}
		p := m.Partition(fp.Name)
		if p < 0 {
			return nil, fail("partition", i, where, "name", "no partition %q in %s", fp.Name, conf)
		}
		if seen[p] {
			return nil, fail("partition", i, where, "name", "partition %q is set twice", fp.Name)
		}
		seen[p] = true
		mp := &m.Partitions[p]
		switch fp.Allocation {
		case "":
		case "node":
			mp.Exclusive = true
		case "core":
			mp.Exclusive = false
		default:
			return nil, fail("partition", i, where, "allocation", "%q is not one of node, core", fp.Allocation)
		}
		if fp.Apps != nil {
			if len(fp.Apps) == 0 {
				return nil, fail("partition", i, where, "apps", "empty list: leave apps out for every application")
			}
			mp.Apps, mp.AppsLine = fp.Apps, li.line("partition", i, "apps")
		}
	}
	if f.Source == "" && slices.Contains(given, true) {
		m.Source = fmt.Sprintf("slurm.conf %s; power figures from %s", conf, name)
	}
	// Replace the power note by one for the types still on defaults.
	m.Notes = slices.DeleteFunc(m.Notes, func(s string) bool { return strings.Contains(s, "slurm.conf has no power figures") })
	if note := powerNote(conf, m.Types, given); note != "" {
		m.Notes = append(m.Notes, note)
	}
	return m, nil
}

// isSet reports whether the index-th table of section sets key.
func isSet(li lineIndex, section string, index int, key string) bool {
	_, ok := li.at[lineKey{section, index, key}]
	return ok
}

// setOutside returns a key the index-th table of section sets that is
// not in allowed, the one on the earliest line; "" if none.
func setOutside(li lineIndex, section string, index int, allowed []string) string {
	best, line := "", 0
	for k, n := range li.at {
		if k.section == section && k.index == index && k.key != "" && !slices.Contains(allowed, k.key) && (line == 0 || n < line) {
			best, line = k.key, n
		}
	}
	return best
}

func typeNames(types []NodeType) string {
	names := make([]string, len(types))
	for i, t := range types {
		names[i] = t.Name
	}
	return strings.Join(names, ", ")
}

// WriteOverlay writes a machine TOML that reads the slurm.conf at path
// (as the TOML at dir will find it) with every node type's current power
// figures and every partition's allocation spelled out: the file an
// operator edits to give a slurm.conf machine its power figures
// (drsim machine show --toml slurm.conf).
func (m *Machine) WriteOverlay(w io.Writer, path string) error {
	var b strings.Builder
	fmt.Fprintf(&b, "# drsim machine file: nodes and partitions from a slurm.conf, power here (docs/machine.md).\n")
	fmt.Fprintf(&b, "# Power figures are drsim's defaults until you replace them with your nodes' own.\n")
	fmt.Fprintf(&b, "slurm_conf = %q\nname = %q\n", path, m.Name)
	for _, t := range m.Types {
		fmt.Fprintf(&b, "\n[[node_type]]  # %d nodes, %d CPUs", t.Count, t.Cores)
		if t.GPUs > 0 {
			fmt.Fprintf(&b, ", %d GPUs", t.GPUs)
		}
		fmt.Fprintf(&b, "\nname = %q\nidle_w = %v       # whole node, all idle (0: the run's per-processor idle power)\ncore_busy_w = %v  # informational\n", t.Name, t.IdleW, t.CoreBusyW)
		if t.GPUs > 0 {
			fmt.Fprintf(&b, "gpu_idle_w = %v\ngpu_busy_w = %v\n", t.GPUIdleW, t.GPUBusyW)
		}
	}
	for _, p := range m.Partitions {
		alloc := "core"
		if p.Exclusive {
			alloc = "node"
		}
		fmt.Fprintf(&b, "\n[[partition]]\nname = %q\nallocation = %q  # as slurm.conf says\n", p.Name, alloc)
	}
	_, err := io.WriteString(w, b.String())
	return err
}
