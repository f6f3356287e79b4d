package machine

import (
	"cmp"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Power figures of node types read from a slurm.conf, which has none.
// CPU power is left at zero, which means the run's per-processor idle
// power and its applications' busy power, exactly as builtin:default
// (which has no figures either). GPUs take builtin:perlmutter's A100 SXM
// figures: 400 W busy (the datasheet TDP) and 50 W idle (assumed there).
const (
	DefaultGPUIdleW = 50
	DefaultGPUBusyW = 400
)

// ParseSlurm builds a machine from the slurm.conf text data of file name:
// its nodes (NodeName), node sets (NodeSet), partitions (PartitionName),
// SelectType and SelectTypeParameters. read reads Include files and
// gresConf (nil: neither); gresConf is a gres.conf to check the nodes'
// GPU counts against ("" for none). Nodes with the same CPU count and
// the same GPUs form one node type, with the power defaults above
// (Machine.Notes says so). Partitions must not share nodes and must hold
// one node type, as in a machine TOML.
func ParseSlurm(name string, data []byte, read ReadFunc, gresConf string) (*Machine, error) {
	c, err := readSlurmConf(name, data, read)
	if err != nil {
		return nil, err
	}
	if gresConf != "" {
		g, err := read(gresConf)
		if err != nil {
			return nil, fmt.Errorf("machine: %w", err)
		}
		if err := checkGresConf(gresConf, g, c.nodes); err != nil {
			return nil, err
		}
	}
	m, err := c.build()
	if err != nil {
		return nil, err
	}
	if note := powerNote(name, m.Types, make([]bool, len(m.Types))); note != "" {
		m.Notes = append(m.Notes, note)
	}
	return m, nil
}

// build lays out the machine of c.
func (c *slurmConf) build() (*Machine, error) {
	if len(c.nodes) == 0 {
		return nil, &Error{File: c.file, Line: 1, Key: "NodeName", Msg: "no nodes: a slurm.conf machine needs NodeName lines"}
	}
	byName := make(map[string]int, len(c.nodes))
	for i, n := range c.nodes {
		if j, dup := byName[n.name]; dup {
			return nil, slurmError(n.at, "NodeName="+n.name, "NodeName", "node %s is already defined at %s", n.name, c.nodes[j].at)
		}
		byName[n.name] = i
	}
	total := 0
	for _, n := range c.nodes {
		if total += n.cpus; total > 1<<30 || len(c.nodes) > 1<<22 {
			return nil, slurmError(n.at, "NodeName="+n.name, "NodeName", "the machine passes 2^22 nodes or 2^30 processors, beyond the simulator's range")
		}
	}
	linear, err := c.selectLinear()
	if err != nil {
		return nil, err
	}
	m := &Machine{File: c.file, Name: c.cluster, Default: -1}
	if m.Name == "" {
		m.Name = filepath.Base(c.file)
	}
	m.Source = "slurm.conf " + c.file + " (no power figures: defaults)"
	// Partitions claim nodes in file order.
	owner := make([]int, len(c.nodes))
	for i := range owner {
		owner[i] = -1
	}
	var members [][]int // c.nodes indices of each kept partition
	var kept []*slurmPart
	for i := range c.parts {
		sp := &c.parts[i]
		where := "PartitionName=" + sp.name
		if sp.state == "INACTIVE" {
			c.notes = append(c.notes, fmt.Sprintf("%s: %s is State=INACTIVE (it takes no jobs): left out of the machine", sp.at, where))
			continue
		}
		if slices.ContainsFunc(kept, func(o *slurmPart) bool { return o.name == sp.name }) {
			return nil, slurmError(sp.at, where, "PartitionName", "partition %s is defined twice", sp.name)
		}
		nodes, err := c.partNodes(sp, byName)
		if err != nil {
			return nil, err
		}
		if len(nodes) == 0 {
			c.notes = append(c.notes, fmt.Sprintf("%s: %s has no nodes: left out of the machine (its jobs are dropped as of no such partition)", sp.at, where))
			continue
		}
		k := len(kept)
		for _, n := range nodes {
			switch o := owner[n]; {
			case o == k:
				return nil, slurmError(sp.at, where, "Nodes", "node %s is listed twice", c.nodes[n].name)
			case o >= 0:
				return nil, slurmError(sp.at, where, "Nodes", "node %s is also in partition %s (%s): drsim cannot simulate partitions that share nodes",
					c.nodes[n].name, kept[o].name, kept[o].at)
			}
			owner[n] = k
		}
		if sp.state != "UP" {
			c.notes = append(c.notes, fmt.Sprintf("%s: %s is State=%s: drsim schedules its jobs as if it were UP", sp.at, where, sp.state))
		}
		kept = append(kept, sp)
		members = append(members, nodes)
	}
	if len(kept) == 0 {
		return nil, &Error{File: c.file, Line: 1, Key: "PartitionName", Msg: "no partition with nodes: a machine needs at least one"}
	}
	typeOf := c.nodeTypes(m, owner, kept)
	for k, sp := range kept {
		where := "PartitionName=" + sp.name
		p := Partition{Name: sp.name, Type: typeOf[members[k][0]], Default: sp.def, MaxTime: sp.maxTime}
		for _, n := range members[k] {
			if t := typeOf[n]; t != p.Type {
				a, b := &c.nodes[members[k][0]], &c.nodes[n]
				return nil, slurmError(sp.at, where, "Nodes", "nodes %s (%s) and %s (%s) differ: one node type per partition in this version",
					a.name, shape(a), b.name, shape(b))
			}
		}
		if p.Exclusive, err = c.exclusive(sp, linear); err != nil {
			return nil, err
		}
		if p.Default {
			if m.Default >= 0 {
				c.notes = append(c.notes, fmt.Sprintf("%s: %s is Default=YES after %s: the last one is the default, as in Slurm", sp.at, where, m.Partitions[m.Default].Name))
				m.Partitions[m.Default].Default = false
			}
			m.Default = k
		}
		m.Partitions = append(m.Partitions, p)
	}
	if m.Default < 0 {
		m.Default = 0 // as a machine TOML: jobs that name no partition go to the first
		m.Partitions[0].Default = true
	}
	c.layout(m, owner, members, typeOf)
	m.Notes = c.notes
	return m, nil
}

// selectLinear reads SelectType: true for select/linear (whole nodes).
func (c *slurmConf) selectLinear() (bool, error) {
	switch c.selectType {
	case "select/linear":
		return true, nil
	case "select/cons_tres", "select/cons_res":
		return false, nil
	case "":
		c.notes = append(c.notes, fmt.Sprintf("%s: no SelectType: select/cons_tres, Slurm's default since 23.11 (select/linear before): cores are allocated, not whole nodes", c.file))
		return false, nil
	}
	return false, slurmError(c.selectAt, "", "SelectType", "%q: want select/cons_tres, select/cons_res or select/linear", c.selectType)
}

// exclusive says whether partition sp allocates whole nodes: always under
// select/linear; under cons_tres/cons_res with OverSubscribe=EXCLUSIVE or
// Exclusive=NODE|TOPO. Otherwise cores are allocated (CR_Core, CR_CPU);
// what drsim cannot model is refused: sockets (CR_Socket), cores shared
// between jobs (CR_Memory, OverSubscribe=FORCE).
func (c *slurmConf) exclusive(sp *slurmPart, linear bool) (bool, error) {
	where := "PartitionName=" + sp.name
	kind, n, _ := strings.Cut(sp.share, ":")
	if kind == "FORCE" && n != "1" {
		return false, slurmError(sp.at, where, "OverSubscribe", "%s: every job shares its resources with others (time-slicing), which drsim does not model (NO or EXCLUSIVE)", sp.share)
	}
	excl := kind == "EXCLUSIVE"
	switch sp.excl {
	case "NODE", "TOPO":
		excl = true
	case "NO", "NONE":
		excl = false
	}
	if linear || excl {
		return true, nil
	}
	params, at := c.crParams, c.crAt
	if sp.crParams != "" {
		params, at = sp.crParams, sp.at
	}
	if params == "" {
		return false, nil // cons_tres's default is CR_Core_Memory
	}
	cr, err := crKind(params)
	if err != nil {
		return false, slurmError(at, "", "SelectTypeParameters", "%v", err)
	}
	switch cr {
	case "socket":
		return false, slurmError(at, "", "SelectTypeParameters", "%s: partition %s would allocate whole sockets, which drsim does not model (CR_Core or CR_CPU, or OverSubscribe=EXCLUSIVE on the partition)", params, sp.name)
	case "memory":
		return false, slurmError(at, "", "SelectTypeParameters", "%s: partition %s would share cores between jobs, which drsim does not model (CR_Core or CR_CPU, or OverSubscribe=EXCLUSIVE on the partition)", params, sp.name)
	}
	if kind == "YES" {
		c.notes = append(c.notes, fmt.Sprintf("%s: %s is OverSubscribe=%s: drsim shares no cores (jobs that asked for --oversubscribe get cores of their own)", sp.at, where, sp.share))
	}
	return false, nil
}

// partNodes expands a partition's Nodes= (ALL, node sets, hostlists)
// into c.nodes indices, in the order written, FUTURE nodes left out.
func (c *slurmConf) partNodes(sp *slurmPart, byName map[string]int) ([]int, error) {
	where := "PartitionName=" + sp.name
	var out []int
	add := func(i int) {
		if !c.nodes[i].future {
			out = append(out, i)
		}
	}
	if strings.EqualFold(sp.nodes, "ALL") {
		for i := range c.nodes {
			add(i)
		}
		return out, nil
	}
	if sp.nodes == "" {
		return nil, nil
	}
	for _, item := range splitOutside(sp.nodes, ',', '[', ']') {
		if k := slices.IndexFunc(c.nodeSets, func(ns nodeSet) bool { return ns.name == item }); k >= 0 {
			idx, err := c.nodeSet(&c.nodeSets[k], byName)
			if err != nil {
				return nil, err
			}
			for _, i := range idx {
				add(i)
			}
			continue
		}
		hosts, err := ExpandHostlist(item)
		if err != nil {
			return nil, slurmError(sp.at, where, "Nodes", "%v", err)
		}
		for _, h := range hosts {
			i, ok := byName[h]
			if !ok {
				return nil, slurmError(sp.at, where, "Nodes", "no node called %s (no NodeName line defines it)", h)
			}
			add(i)
		}
	}
	return out, nil
}

// nodeSet returns a NodeSet's nodes: its Nodes= hostlist, else the nodes
// whose Feature list holds its Feature=.
func (c *slurmConf) nodeSet(ns *nodeSet, byName map[string]int) ([]int, error) {
	where := "NodeSet=" + ns.name
	var out []int
	switch {
	case ns.nodes != "":
		hosts, err := ExpandHostlist(ns.nodes)
		if err != nil {
			return nil, slurmError(ns.at, where, "Nodes", "%v", err)
		}
		for _, h := range hosts {
			i, ok := byName[h]
			if !ok {
				return nil, slurmError(ns.at, where, "Nodes", "no node called %s (no NodeName line defines it)", h)
			}
			out = append(out, i)
		}
	case ns.feature != "":
		for i, n := range c.nodes {
			if slices.Contains(n.feature, ns.feature) {
				out = append(out, i)
			}
		}
	default:
		return nil, slurmError(ns.at, where, "Nodes", "a node set needs Nodes= or Feature=")
	}
	return out, nil
}

// shape describes a node's CPUs and GPUs.
func shape(n *slurmNode) string {
	s := fmt.Sprintf("%d CPUs", n.cpus)
	if n.gpus > 0 {
		s += fmt.Sprintf(", %d GPUs", n.gpus)
		if n.gpuType != "" {
			s += " " + n.gpuType
		}
	}
	return s
}

// nodeTypes groups the nodes by CPU count, GPU count and GPU types, in
// order of first appearance, and returns each node's type (-1 for FUTURE
// nodes). A type whose nodes are exactly one partition's is named after
// it; otherwise after its shape ("cpus64", "cpus64-gpus4-a100").
func (c *slurmConf) nodeTypes(m *Machine, owner []int, kept []*slurmPart) []int {
	typeOf := make([]int, len(c.nodes))
	var rep []int // first node of each type
	for i := range c.nodes {
		n := &c.nodes[i]
		if n.future {
			typeOf[i] = -1
			continue
		}
		t := slices.IndexFunc(rep, func(r int) bool {
			o := &c.nodes[r]
			return o.cpus == n.cpus && o.gpus == n.gpus && o.gpuType == n.gpuType
		})
		if t < 0 {
			t = len(rep)
			rep = append(rep, i)
			m.Types = append(m.Types, NodeType{Cores: n.cpus, GPUs: n.gpus})
			if n.gpus > 0 {
				m.Types[t].GPUIdleW, m.Types[t].GPUBusyW = DefaultGPUIdleW, DefaultGPUBusyW
			}
		}
		typeOf[i] = t
		tt := &m.Types[t]
		tt.Count++
		if mem := float64(n.memMB) / 1024; n.memMB > 0 && (tt.MemoryGB == 0 || mem < tt.MemoryGB) {
			tt.MemoryGB = mem // informational: the smallest of the type's nodes
		}
	}
	// part[t] is the one partition holding every node of type t, else -1;
	// a partition holding nodes of two types names neither.
	part := make([]int, len(m.Types))
	for t := range part {
		part[t] = -2
	}
	mixed, first := make([]bool, len(kept)), make([]int, len(kept))
	for i := len(owner) - 1; i >= 0; i-- {
		if owner[i] >= 0 {
			first[owner[i]] = i
		}
	}
	for i, t := range typeOf {
		if t < 0 {
			continue
		}
		o := owner[i]
		switch {
		case part[t] == -2:
			part[t] = o
		case part[t] != o:
			part[t] = -1
		}
		if o >= 0 && typeOf[first[o]] != t {
			mixed[o] = true
		}
	}
	for t := range m.Types {
		name := ""
		if p := part[t]; p >= 0 && !mixed[p] {
			name = kept[p].name
		} else {
			n := &c.nodes[rep[t]]
			name = fmt.Sprintf("cpus%d", n.cpus)
			if n.gpus > 0 {
				name += fmt.Sprintf("-gpus%d", n.gpus)
				if n.gpuType != "" {
					name += "-" + n.gpuType
				}
			}
		}
		for base, k := name, 2; slices.ContainsFunc(m.Types[:t], func(o NodeType) bool { return o.Name == name }); k++ {
			name = fmt.Sprintf("%s-%d", base, k)
		}
		m.Types[t].Name = name
	}
	return typeOf
}

// layout places the nodes on processors: partitions in file order, each
// partition's nodes by Weight (Slurm allocates the lowest first) and then
// in slurm.conf order, then the nodes of no partition (FUTURE nodes are
// left out).
func (c *slurmConf) layout(m *Machine, owner []int, members [][]int, typeOf []int) {
	order := make([]int, 0, len(c.nodes))
	for k := range members {
		nodes := slices.Clone(members[k])
		slices.SortStableFunc(nodes, func(a, b int) int { return cmp.Compare(c.nodes[a].weight, c.nodes[b].weight) })
		order = append(order, nodes...)
	}
	for i := range c.nodes {
		if owner[i] < 0 && !c.nodes[i].future {
			order = append(order, i)
		}
	}
	at := make([]int, len(c.nodes))
	lo := 0
	for k, i := range order {
		n := &c.nodes[i]
		m.Nodes = append(m.Nodes, Node{Name: n.name, Type: typeOf[i], Lo: lo})
		at[i] = k
		lo += n.cpus
	}
	m.Procs = lo
	for k := range m.Partitions {
		p := &m.Partitions[k]
		for _, i := range members[k] {
			p.Nodes = append(p.Nodes, at[i])
		}
		slices.Sort(p.Nodes)
		p.Lo = m.Nodes[p.Nodes[0]].Lo
		p.Procs = len(p.Nodes) * m.Types[p.Type].Cores
	}
}

// powerNote says which node types of a slurm.conf machine take default
// power figures (those whose given[t] is false); "" if none.
func powerNote(file string, types []NodeType, given []bool) string {
	var cpu, gpu []string
	for t := range types {
		if given[t] {
			continue
		}
		cpu = append(cpu, types[t].Name)
		if types[t].GPUs > 0 {
			gpu = append(gpu, types[t].Name)
		}
	}
	if len(cpu) == 0 {
		return ""
	}
	note := fmt.Sprintf("%s: slurm.conf has no power figures: node types %s take the run's per-processor idle and busy power, as builtin:default",
		file, strings.Join(cpu, ", "))
	if len(gpu) > 0 {
		note += fmt.Sprintf("; the GPUs of %s take %d W idle and %d W busy (an A100 SXM, as builtin:perlmutter)", strings.Join(gpu, ", "), DefaultGPUIdleW, DefaultGPUBusyW)
	}
	return note + " (a machine TOML with slurm_conf = \"FILE\" sets them: docs/machine.md)"
}

// gresBeside returns the gres.conf in the directory of slurm.conf path,
// or "" if there is none.
func gresBeside(path string) string {
	g := filepath.Join(filepath.Dir(path), "gres.conf")
	if st, err := os.Stat(g); err == nil && st.Mode().IsRegular() {
		return g
	}
	return ""
}
