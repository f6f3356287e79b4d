package machine

import (
	"errors"
	"fmt"
	"math"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"
)

// Machine is a validated machine file.
type Machine struct {
	File       string // name used in errors ("builtin:gpu" for embedded ones)
	Name       string
	Source     string // where the figures come from (free text)
	Types      []NodeType
	Partitions []Partition
	Nodes      []Node   // every node, in processor order
	Procs      int      // processors (cores) in the whole machine
	Default    int      // index of the default partition
	Notes      []string // what a slurm.conf left to defaults (slurmbuild.go), for the caller to print once
}

// NodeType is one kind of node. Power figures are whole-node or
// per-component draws in W; zero means not given (the run's processor
// idle power and no GPU draw are used instead).
type NodeType struct {
	Name      string  `toml:"name"`
	Prefix    string  `toml:"prefix"`      // node names: prefix + 1-based number, zero-padded to the count's width
	Count     int     `toml:"count"`       // nodes of this type
	Cores     int     `toml:"cores"`       // cores (processors) per node
	GPUs      int     `toml:"gpus"`        // GPUs per node
	MemoryGB  float64 `toml:"memory_gb"`   // informational
	IdleW     float64 `toml:"idle_w"`      // whole node, every component idle (W)
	CoreBusyW float64 `toml:"core_busy_w"` // informational for now: a busy core's draw above idle at fmax (W)
	GPUIdleW  float64 `toml:"gpu_idle_w"`  // one idle GPU (W), part of IdleW
	GPUBusyW  float64 `toml:"gpu_busy_w"`  // one busy GPU (W)
	// StaticW is the intercept of the node's load line (W, whole node): a
	// node with some cores busy draws StaticW + u·(P_allcores − StaticW),
	// so each of its idle cores draws StaticW/cores instead of
	// IdleW/cores (scheduler/nodeload.go). 0: IdleW (no change).
	StaticW float64 `toml:"static_w"`
}

// Partition is one Slurm partition: a set of nodes of one type.
type Partition struct {
	Name      string
	Type      int      // index into Machine.Types
	Nodes     []int    // indices into Machine.Nodes, ascending
	Lo, Procs int      // the partition's processors are [Lo, Lo+Procs)
	Default   bool     // jobs that name no partition go here
	Exclusive bool     // allocation = "node": jobs get whole nodes
	MaxTime   float64  // s; 0 = unlimited
	Apps      []string // power profiles its jobs may run (names); nil = every one the run uses
	AppsLine  int      // line of apps, for errors found by the run (unknown names)
}

// Node is one node of the machine.
type Node struct {
	Name string
	Type int // index into Machine.Types
	Lo   int // first processor
}

// NodeTypeOf returns the node type of partition p.
func (m *Machine) NodeTypeOf(p int) *NodeType { return &m.Types[m.Partitions[p].Type] }

// Partition returns the index of the partition called name, or -1.
func (m *Machine) Partition(name string) int {
	for i := range m.Partitions {
		if m.Partitions[i].Name == name {
			return i
		}
	}
	return -1
}

// Error is a mistake in a machine file.
type Error struct {
	File  string
	Line  int
	Where string // `partition "gpu"`, `node_type "a100"`, or "" at the top level
	Key   string // the key at fault; "" for the table as a whole
	Msg   string
}

func (e *Error) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s:%d: ", e.File, e.Line)
	if e.Where != "" {
		b.WriteString(e.Where + ": ")
	}
	if e.Key != "" {
		fmt.Fprintf(&b, "key %q: ", e.Key)
	}
	b.WriteString(e.Msg)
	return b.String()
}

// file is the TOML shape of a machine file.
type file struct {
	Name      string     `toml:"name"`
	Source    string     `toml:"source"`
	NodeTypes []NodeType `toml:"node_type"`
	Parts     []partFile `toml:"partition"`
	SlurmConf string     `toml:"slurm_conf"` // slurmtoml.go: nodes and partitions from this slurm.conf
	GresConf  string     `toml:"gres_conf"`
}

type partFile struct {
	Name       string   `toml:"name"`
	Nodes      string   `toml:"nodes"`     // Slurm hostlist
	NodeType   string   `toml:"node_type"` // instead of nodes: a type ...
	Count      int      `toml:"count"`     // ... and how many of its unassigned nodes (0: all of them)
	Default    bool     `toml:"default"`
	Allocation string   `toml:"allocation"` // "node" (default) or "core"
	MaxTime    string   `toml:"max_time"`   // Slurm time: MM, MM:SS, HH:MM:SS, D-HH, D-HH:MM, D-HH:MM:SS, or UNLIMITED
	Apps       []string `toml:"apps"`       // power profiles (application names) its jobs may run
}

// Load reads and parses a machine file, or an embedded one named
// "builtin:NAME".
func Load(path string) (*Machine, error) {
	if name, ok := strings.CutPrefix(path, "builtin:"); ok {
		return Builtin(name)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("machine: %w", err)
	}
	if IsSlurmConf(data) { // slurm.go: a centre's slurm.conf, gres.conf beside it
		return ParseSlurm(path, data, os.ReadFile, gresBeside(path))
	}
	return parse(path, data, os.ReadFile)
}

var tomlTypeErr = regexp.MustCompile(`^toml: line (\d+) \(last key "([^"]*)"\): (.*)$`)

// Parse parses and validates a machine file; name is used in errors.
func Parse(name string, data []byte) (*Machine, error) { return parse(name, data, nil) }

// parse is Parse; read reads the files a slurm_conf key names (nil:
// such a file is an error).
func parse(name string, data []byte, read ReadFunc) (*Machine, error) {
	var f file
	md, err := toml.Decode(string(data), &f)
	if pe, ok := errors.AsType[toml.ParseError](err); ok {
		return nil, &Error{File: name, Line: pe.Position.Line, Msg: strings.ReplaceAll(pe.Message, "\n", " ")}
	}
	if m := tomlTypeErr.FindStringSubmatch(fmt.Sprint(err)); m != nil {
		line, _ := strconv.Atoi(m[1])
		section, key, _ := strings.Cut(m[2], ".")
		if key == "" {
			section, key = "", section
		}
		// The decoder's line is that of the last key it read, which need not
		// be the key at fault: take the first line setting the key to a value
		// of the type the decoder complains about.
		if l := typeLine(data, key, m[3]); l > 0 {
			line = l
		}
		return nil, &Error{File: name, Line: line, Where: indexLines(data).where(section, line), Key: key, Msg: m[3]}
	}
	if err != nil {
		return nil, &Error{File: name, Line: 1, Msg: err.Error()}
	}
	li := indexLines(data)
	if und := md.Undecoded(); len(und) > 0 {
		k := und[0]
		section, key := "", k[len(k)-1]
		if len(k) > 1 {
			section = k[0]
		}
		line := li.first(section, key)
		return nil, &Error{File: name, Line: line, Where: li.where(section, line), Key: key,
			Msg: "unknown key (known: name, source, slurm_conf, gres_conf; [[node_type]] name, prefix, count, cores, gpus, memory_gb, idle_w, static_w, core_busy_w, gpu_idle_w, gpu_busy_w; [[partition]] name, nodes, node_type, count, default, allocation, max_time, apps)"}
	}
	if f.SlurmConf != "" {
		return overlay(name, &f, li, read)
	}
	return build(name, &f, li)
}

// build validates f and lays the machine out.
func build(name string, f *file, li lineIndex) (*Machine, error) {
	m := &Machine{File: name, Name: f.Name, Source: f.Source, Types: f.NodeTypes, Default: -1}
	fail := func(section string, i int, where, key, format string, a ...any) error {
		return &Error{File: name, Line: li.line(section, i, key), Where: where, Key: key, Msg: fmt.Sprintf(format, a...)}
	}
	if len(f.NodeTypes) == 0 {
		return nil, &Error{File: name, Line: 1, Msg: "no [[node_type]]: a machine needs at least one node type"}
	}
	// Node types and their nodes, type by type.
	byName := map[string]int{} // node name -> index in nodes
	var nodes []Node
	total := 0
	for i := range m.Types {
		t := &m.Types[i]
		where := fmt.Sprintf("node_type %q", t.Name)
		switch {
		case t.Name == "":
			return nil, fail("node_type", i, fmt.Sprintf("node_type %d", i+1), "name", "missing")
		case slices.ContainsFunc(m.Types[:i], func(o NodeType) bool { return o.Name == t.Name }):
			return nil, fail("node_type", i, where, "name", "duplicate node type name")
		case t.Count <= 0:
			return nil, fail("node_type", i, where, "count", "%d nodes; need at least 1", t.Count)
		case t.Cores <= 0:
			return nil, fail("node_type", i, where, "cores", "%d cores per node; need at least 1", t.Cores)
		case t.GPUs < 0:
			return nil, fail("node_type", i, where, "gpus", "%d GPUs per node; need 0 or more", t.GPUs)
		case t.Count > 1<<20 || t.Cores > 1<<16 || t.Count*t.Cores > 1<<28:
			return nil, fail("node_type", i, where, "count", "%d nodes of %d cores is beyond the simulator's range (2^28 processors)", t.Count, t.Cores)
		}
		for _, w := range []struct {
			key string
			v   float64
		}{{"memory_gb", t.MemoryGB}, {"idle_w", t.IdleW}, {"core_busy_w", t.CoreBusyW}, {"gpu_idle_w", t.GPUIdleW}, {"gpu_busy_w", t.GPUBusyW}, {"static_w", t.StaticW}} {
			if w.v < 0 || math.IsNaN(w.v) || math.IsInf(w.v, 0) {
				return nil, fail("node_type", i, where, w.key, "%v; need a finite value ≥ 0", w.v)
			}
		}
		if t.GPUBusyW < t.GPUIdleW {
			return nil, fail("node_type", i, where, "gpu_busy_w", "%v W is below gpu_idle_w %v W", t.GPUBusyW, t.GPUIdleW)
		}
		if t.StaticW > 0 && (t.IdleW == 0 || t.StaticW < t.IdleW) { // nodeload.go
			return nil, fail("node_type", i, where, "static_w", "%v W needs idle_w and may not be below it (idle_w %v W)", t.StaticW, t.IdleW)
		}
		if t.IdleW > 0 && t.IdleW < float64(t.GPUs)*t.GPUIdleW {
			return nil, fail("node_type", i, where, "idle_w", "%v W is below the %d idle GPUs' %v W (idle_w is the whole node)", t.IdleW, t.GPUs, float64(t.GPUs)*t.GPUIdleW)
		}
		if total += t.Count * t.Cores; total > 1<<30 || len(nodes)+t.Count > 1<<22 {
			return nil, fail("node_type", i, where, "count", "the machine passes 2^22 nodes or 2^30 processors, beyond the simulator's range")
		}
		if t.Prefix == "" {
			t.Prefix = t.Name
		}
		width := len(strconv.Itoa(t.Count))
		for k := 1; k <= t.Count; k++ {
			n := fmt.Sprintf("%s%0*d", t.Prefix, width, k)
			if _, dup := byName[n]; dup {
				return nil, fail("node_type", i, where, "prefix", "node name %s is also a node of an earlier type", n)
			}
			byName[n] = len(nodes)
			nodes = append(nodes, Node{Name: n, Type: i})
		}
	}
	// Partitions claim nodes in file order.
	owner := make([]int, len(nodes))
	for i := range owner {
		owner[i] = -1
	}
	if len(f.Parts) == 0 {
		return nil, &Error{File: name, Line: 1, Msg: "no [[partition]]: a machine needs at least one partition"}
	}
	for i, pf := range f.Parts {
		where := fmt.Sprintf("partition %q", pf.Name)
		p := Partition{Name: pf.Name, Type: -1, Default: pf.Default, Apps: pf.Apps, AppsLine: li.line("partition", i, "apps")}
		if pf.Apps != nil && len(pf.Apps) == 0 {
			return nil, fail("partition", i, fmt.Sprintf("partition %q", pf.Name), "apps", "empty list: leave apps out for every application")
		}
		switch {
		case pf.Name == "":
			return nil, fail("partition", i, fmt.Sprintf("partition %d", i+1), "name", "missing")
		case slices.ContainsFunc(m.Partitions, func(o Partition) bool { return o.Name == pf.Name }):
			return nil, fail("partition", i, where, "name", "duplicate partition name")
		}
		switch pf.Allocation {
		case "", "node":
			p.Exclusive = true
		case "core":
		default:
			return nil, fail("partition", i, where, "allocation", "%q is not one of node, core", pf.Allocation)
		}
		if pf.MaxTime != "" {
			t, err := ParseTime(pf.MaxTime)
			if err != nil {
				return nil, fail("partition", i, where, "max_time", "%v", err)
			}
			p.MaxTime = t
		}
		switch {
		case pf.Nodes != "" && pf.NodeType != "":
			return nil, fail("partition", i, where, "node_type", "give either nodes (a hostlist) or node_type and count, not both")
		case pf.Nodes != "":
			names, err := ExpandHostlist(pf.Nodes)
			if err != nil {
				return nil, fail("partition", i, where, "nodes", "%v", err)
			}
			for _, n := range names {
				k, ok := byName[n]
				if !ok {
					return nil, fail("partition", i, where, "nodes", "no node called %s (node names are a type's prefix and number, e.g. %s)", n, nodes[0].Name)
				}
				if err := claim(&p, k, i, owner, nodes, m); err != "" {
					return nil, fail("partition", i, where, "nodes", "%s", err)
				}
			}
		case pf.NodeType != "":
			ti := slices.IndexFunc(m.Types, func(t NodeType) bool { return t.Name == pf.NodeType })
			if ti < 0 {
				return nil, fail("partition", i, where, "node_type", "no node type %q", pf.NodeType)
			}
			if pf.Count < 0 {
				return nil, fail("partition", i, where, "count", "%d nodes; need at least 1 (or leave it out for every unassigned node of the type)", pf.Count)
			}
			want := pf.Count
			for k := range nodes {
				if nodes[k].Type == ti && owner[k] < 0 && (pf.Count == 0 || len(p.Nodes) < want) {
					_ = claim(&p, k, i, owner, nodes, m)
				}
			}
			if len(p.Nodes) == 0 || pf.Count > 0 && len(p.Nodes) < want {
				return nil, fail("partition", i, where, "count", "%d nodes of type %s wanted, %d left unassigned by earlier partitions", want, pf.NodeType, len(p.Nodes))
			}
		default:
			return nil, fail("partition", i, where, "nodes", "missing: give nodes (a hostlist such as gpu[01-04]) or node_type and count")
		}
		if pf.Count != 0 && pf.NodeType == "" {
			return nil, fail("partition", i, where, "count", "count goes with node_type, not with nodes")
		}
		if p.Default {
			if m.Default >= 0 {
				return nil, fail("partition", i, where, "default", "partition %q is already the default", m.Partitions[m.Default].Name)
			}
			m.Default = i
		}
		slices.Sort(p.Nodes)
		m.Partitions = append(m.Partitions, p)
	}
	if m.Default < 0 {
		m.Default = 0 // Slurm: the first partition when none is marked Default=YES
		m.Partitions[0].Default = true
	}
	// Lay out processors: partitions in file order, then unassigned nodes.
	order := make([]int, 0, len(nodes))
	for _, p := range m.Partitions {
		order = append(order, p.Nodes...)
	}
	for k := range nodes {
		if owner[k] < 0 {
			order = append(order, k)
		}
	}
	m.Nodes = make([]Node, len(nodes))
	remap := make([]int, len(nodes))
	lo := 0
	for at, k := range order {
		n := nodes[k]
		n.Lo = lo
		lo += m.Types[n.Type].Cores
		m.Nodes[at] = n
		remap[k] = at
	}
	m.Procs = lo
	for i := range m.Partitions {
		p := &m.Partitions[i]
		for j, k := range p.Nodes {
			p.Nodes[j] = remap[k]
		}
		p.Lo = m.Nodes[p.Nodes[0]].Lo
		p.Procs = len(p.Nodes) * m.Types[p.Type].Cores
	}
	return m, nil
}

// claim gives node k to partition p (the i-th), or says why not.
func claim(p *Partition, k, i int, owner []int, nodes []Node, m *Machine) string {
	if o := owner[k]; o >= 0 {
		if o == i {
			return fmt.Sprintf("node %s is listed twice", nodes[k].Name)
		}
		return fmt.Sprintf("node %s is also in partition %q (partitions may not overlap in this version: list each node in one partition, see docs/machine.md)", nodes[k].Name, m.Partitions[o].Name)
	}
	if p.Type >= 0 && nodes[k].Type != p.Type {
		return fmt.Sprintf("node %s is a %s node but the partition already has %s nodes (one node type per partition in this version: make one partition per node type, see docs/machine.md)",
			nodes[k].Name, m.Types[nodes[k].Type].Name, m.Types[p.Type].Name)
	}
	p.Type = nodes[k].Type
	owner[k] = i
	p.Nodes = append(p.Nodes, k)
	return ""
}

// ParseTime parses a Slurm time limit (sbatch --time): minutes, MM:SS,
// HH:MM:SS, D-HH, D-HH:MM or D-HH:MM:SS; "UNLIMITED" or "INFINITE" is 0
// (no limit). It returns seconds.
func ParseTime(s string) (float64, error) {
	switch strings.ToUpper(s) {
	case "UNLIMITED", "INFINITE":
		return 0, nil
	}
	bad := fmt.Errorf("%q is not a Slurm time (MM, MM:SS, HH:MM:SS, D-HH, D-HH:MM, D-HH:MM:SS or UNLIMITED)", s)
	days := 0
	rest := s
	if d, r, ok := strings.Cut(s, "-"); ok {
		v, err := strconv.Atoi(d)
		if err != nil || v < 0 {
			return 0, bad
		}
		days, rest = v, r
	}
	parts := strings.Split(rest, ":")
	nums := make([]int, len(parts))
	for i, p := range parts {
		v, err := strconv.Atoi(p)
		if err != nil || v < 0 {
			return 0, bad
		}
		nums[i] = v
	}
	var sec int
	switch {
	case s == rest && len(nums) == 1: // MM
		sec = nums[0] * 60
	case s == rest && len(nums) == 2: // MM:SS
		sec = nums[0]*60 + nums[1]
	case len(nums) == 3: // [D-]HH:MM:SS
		sec = nums[0]*3600 + nums[1]*60 + nums[2]
	case s != rest && len(nums) == 1: // D-HH
		sec = nums[0] * 3600
	case s != rest && len(nums) == 2: // D-HH:MM
		sec = nums[0]*3600 + nums[1]*60
	default:
		return 0, bad
	}
	t := float64(days*86400 + sec)
	if t <= 0 {
		return 0, fmt.Errorf("%q is a zero time limit", s)
	}
	return t, nil
}

// typeLine returns the first line that sets key to a value of the TOML
// type named in msg ("TOML value has type string; ..."), or 0.
func typeLine(data []byte, key, msg string) int {
	_, rest, ok := strings.Cut(msg, "TOML value has type ")
	if !ok {
		return 0
	}
	typ, _, _ := strings.Cut(rest, ";")
	for n, l := range strings.Split(string(data), "\n") {
		k, v, ok := strings.Cut(l, "=")
		if !ok || strings.Trim(strings.TrimSpace(k), `"`) != key {
			continue
		}
		v = strings.TrimSpace(v)
		var got string
		switch {
		case v == "":
			continue
		case v[0] == '"' || v[0] == '\'':
			got = "string"
		case v[0] == '[':
			got = "array"
		case v[0] == '{':
			got = "table"
		case v == "true" || v == "false":
			got = "bool"
		case strings.ContainsAny(v, ".eE") && !strings.HasPrefix(v, "0x"):
			got = "float"
		default:
			got = "integer"
		}
		if got == typ {
			return n + 1
		}
	}
	return 0
}
