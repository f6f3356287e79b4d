package machine

import (
	"bytes"
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"drsim/internal/slurmlex"
)

// SlurmKeys are the slurm.conf keys the machine is read from (the reader's
// switch below), so that a slurm.conf given both as the machine and as
// --slurm-conf does not list them as ignored.
var SlurmKeys = []string{"ClusterName", "SelectType", "SelectTypeParameters", "NodeName", "NodeSet", "PartitionName"}

// A slurm.conf describes the machine with NodeName, NodeSet and
// PartitionName lines, SelectType and SelectTypeParameters; slurmgres.go
// reads Gres= and gres.conf, slurmbuild.go turns what this file reads into
// a Machine. The rules are Slurm's (src/common/read_config.c, the
// slurm.conf man page): keys in any case, the last of a repeated key wins,
// NodeName=DEFAULT and PartitionName=DEFAULT set the defaults of the lines
// after them.

var slurmConfRE = regexp.MustCompile(`(?im)^[ \t]*(NodeName|PartitionName)[ \t]*=`)

// IsSlurmConf reports whether data looks like a slurm.conf (a line that
// starts with NodeName= or PartitionName=) rather than a machine TOML.
func IsSlurmConf(data []byte) bool { return slurmConfRE.Match(data) }

// ReadFunc returns a file's contents (os.ReadFile outside tests).
type ReadFunc func(path string) ([]byte, error)

// pos is where a line of a Slurm file is.
type pos struct {
	file string
	line int
}

func (p pos) String() string { return fmt.Sprintf("%s:%d", p.file, p.line) }

// slurmConf is what drsim reads of a slurm.conf.
type slurmConf struct {
	file       string // the slurm.conf itself
	cluster    string // ClusterName
	selectType string // lower case; "" if not set
	selectAt   pos
	crParams   string // SelectTypeParameters as written
	crAt       pos
	nodes      []slurmNode
	nodeSets   []nodeSet
	parts      []slurmPart
	notes      []string
}

// slurmNode is one node of a NodeName line.
type slurmNode struct {
	name    string
	cpus    int
	gpus    int
	gpuType string // the gpu:TYPE:N types, joined by "+" ("" if untyped)
	memMB   uint64 // RealMemory; 0 if not given
	weight  uint32
	feature []string
	future  bool // State=FUTURE: not in service
	at      pos
	gresAt  pos // the Gres= value's line (the NodeName line)
}

type nodeSet struct {
	name, nodes, feature string
	at                   pos
}

// slurmPart is one PartitionName line, with defaults applied.
type slurmPart struct {
	name     string
	nodes    string // as written; "ALL" for every node
	def      bool
	maxTime  float64 // s; 0 = unlimited
	share    string  // OverSubscribe (or Shared) in upper case; "" = NO
	excl     string  // Exclusive= in upper case; ""
	state    string  // UP, DOWN, DRAIN, INACTIVE
	crParams string  // partition SelectTypeParameters
	at       pos
}

// slurmError is an *Error at a Slurm line: where is "NodeName=c[1-4]"
// or "PartitionName=cpu".
func slurmError(at pos, where, key, format string, a ...any) error {
	return &Error{File: at.file, Line: at.line, Where: where, Key: key, Msg: fmt.Sprintf(format, a...)}
}

// readSlurmConf reads the slurm.conf text data of file name, following
// Include lines with read (nil: an Include is an error).
func readSlurmConf(name string, data []byte, read ReadFunc) (*slurmConf, error) {
	c := &slurmConf{file: name}
	r := confReader{c: c, read: read, nodeDef: map[string]string{}, partDef: map[string]string{}}
	if err := r.file(name, data, 0); err != nil {
		return nil, err
	}
	return c, nil
}

type confReader struct {
	c       *slurmConf
	read    ReadFunc
	nodeDef map[string]string // NodeName=DEFAULT keys (lower case) -> value
	partDef map[string]string // PartitionName=DEFAULT
	defAt   pos               // the last PartitionName=DEFAULT line
}

func (r *confReader) file(name string, data []byte, depth int) error {
	return slurmlex.Scan(bytes.NewReader(data), name, func(l slurmlex.Line) error {
		at := pos{name, l.Num}
		if l.Include != "" {
			return r.include(at, l.Include, depth)
		}
		if len(l.Pairs) == 0 {
			word, _, _ := strings.Cut(l.Rest, " ")
			return slurmError(at, "", "", "%q: want Key=Value", word)
		}
		key, val := l.Pairs[0].Key, l.Pairs[0].Value
		if l.Rest != "" && slices.Contains([]string{"nodename", "nodeset", "partitionname"}, strings.ToLower(key)) {
			word, _, _ := strings.Cut(l.Rest, " ")
			return slurmError(at, key+"="+val, "", "%q: want Key=Value (Slurm stops with a parse error here)", word)
		}
		switch strings.ToLower(key) {
		case "clustername":
			r.c.cluster = val
		case "selecttype":
			r.c.selectType, r.c.selectAt = strings.ToLower(val), at
		case "selecttypeparameters":
			r.c.crParams, r.c.crAt = val, at
		case "nodename":
			return r.node(at, &l)
		case "nodeset":
			ns := nodeSet{name: val, at: at}
			ns.nodes, _ = l.Get("Nodes", 1)
			ns.feature, _ = l.Get("Feature", 1)
			r.c.nodeSets = append(r.c.nodeSets, ns)
		case "partitionname":
			return r.part(at, &l)
		}
		return nil
	})
}

// include reads an Include line's file: %c is the ClusterName in lower
// case, and a relative path is relative to the slurm.conf's directory.
func (r *confReader) include(at pos, path string, depth int) error {
	if r.read == nil {
		return slurmError(at, "", "Include", "%s: included files are read only from a file on disk (machine.Load)", path)
	}
	if depth >= 16 {
		return slurmError(at, "", "Include", "%s: more than 16 nested includes", path)
	}
	if strings.Contains(path, "%c") {
		if r.c.cluster == "" {
			return slurmError(at, "", "Include", "%s: %%c needs a ClusterName before this line", path)
		}
		path = strings.ReplaceAll(path, "%c", strings.ToLower(r.c.cluster))
	}
	if strings.Contains(path, "*") {
		return slurmError(at, "", "Include", "%s: Slurm does not expand globs in Include", path)
	}
	if !filepath.IsAbs(path) {
		path = filepath.Join(filepath.Dir(r.c.file), path)
	}
	data, err := r.read(path)
	if err != nil {
		return slurmError(at, "", "Include", "%v", err)
	}
	return r.file(path, data, depth+1)
}

// value returns key's value on line l (after the first pair), else in
// defaults; aliases are tried in order, each on the line then in the
// defaults, as read_config.c does.
func value(l *slurmlex.Line, defaults map[string]string, keys ...string) (string, bool) {
	for _, k := range keys {
		if v, ok := l.Get(k, 1); ok {
			return v, true
		}
		if v, ok := defaults[strings.ToLower(k)]; ok {
			return v, true
		}
	}
	return "", false
}

// node reads a NodeName line.
func (r *confReader) node(at pos, l *slurmlex.Line) error {
	names := l.Pairs[0].Value
	where := "NodeName=" + names
	if strings.EqualFold(names, "DEFAULT") {
		for _, p := range l.Pairs[1:] {
			r.nodeDef[strings.ToLower(p.Key)] = p.Value
		}
		return nil
	}
	if strings.EqualFold(names, "ALL") {
		return slurmError(at, where, "NodeName", "ALL is a reserved word, not a node name")
	}
	// Numbers: absent is -1 (Slurm's "not given"); zero is a mistake
	// Slurm resets with an error in its log, and drsim refuses.
	num := func(max uint64, keys ...string) (int64, error) {
		v, ok := value(l, r.nodeDef, keys...)
		if !ok {
			return -1, nil
		}
		n, err := strconv.ParseUint(v, 10, 64)
		if err != nil || n > max {
			return 0, slurmError(at, where, keys[0], "%q: want an integer 1-%d", v, max)
		}
		if n == 0 && keys[0] != "Weight" {
			return 0, slurmError(at, where, keys[0], "0: want at least 1 (Slurm resets it to 1 and logs an error)")
		}
		return int64(n), nil
	}
	var n [6]int64 // CPUs, Boards, Sockets, SocketsPerBoard, CoresPerSocket, ThreadsPerCore
	var err error
	for i, keys := range [][]string{{"CPUs", "Procs"}, {"Boards"}, {"Sockets"}, {"SocketsPerBoard"}, {"CoresPerSocket"}, {"ThreadsPerCore"}} {
		if n[i], err = num(65535, keys...); err != nil {
			return err
		}
	}
	cpus, reset := CPUCount(n[0], n[1], n[2], n[3], n[4], n[5])
	if reset {
		r.c.notes = append(r.c.notes, fmt.Sprintf("%s: %s: CPUs=%d matches no Sockets, Sockets×CoresPerSocket or Sockets×CoresPerSocket×ThreadsPerCore; Slurm resets it to %d, and so does drsim", at, where, n[0], cpus))
	}
	node := slurmNode{cpus: cpus, at: at, gresAt: at}
	if v, ok := value(l, r.nodeDef, "RealMemory"); ok {
		if node.memMB, err = strconv.ParseUint(v, 10, 64); err != nil {
			return slurmError(at, where, "RealMemory", "%q: want megabytes, an integer", v)
		}
	}
	w, err := num(1<<32-1, "Weight")
	if err != nil {
		return err
	}
	node.weight = uint32(max(w, 1)) // Slurm's default weight is 1
	if v, ok := value(l, r.nodeDef, "Gres"); ok {
		if node.gpus, node.gpuType, err = parseGres(v); err != nil {
			return slurmError(at, where, "Gres", "%v", err)
		}
	}
	if v, ok := value(l, r.nodeDef, "Feature", "Features"); ok && v != "" {
		node.feature = strings.Split(v, ",")
	}
	if v, ok := value(l, r.nodeDef, "State"); ok && strings.HasPrefix(strings.ToUpper(v), "FUTURE") {
		node.future = true
	}
	hosts, err := ExpandHostlist(names)
	if err != nil {
		return slurmError(at, where, "NodeName", "%v", err)
	}
	for _, h := range hosts {
		node.name = h
		r.c.nodes = append(r.c.nodes, node)
	}
	return nil
}

// CPUCount is Slurm's rule for a node's usable CPU count
// (read_config.c, _parse_nodename): each argument is the NodeName key's
// value, or -1 when not given. Sockets are Boards × SocketsPerBoard when
// SocketsPerBoard is given (it wins over Sockets), else Sockets, else
// CPUs / (CoresPerSocket × ThreadsPerCore) when that divides exactly,
// else Boards. Without CPUs the count is Sockets × CoresPerSocket ×
// ThreadsPerCore; a CPUs equal to none of Sockets, Sockets ×
// CoresPerSocket and that product is reset to the product (reset true).
// Boards, CoresPerSocket and ThreadsPerCore default to 1.
func CPUCount(cpus, boards, sockets, socketsPerBoard, cores, threads int64) (n int, reset bool) {
	def := func(v int64) int64 {
		if v < 0 {
			return 1
		}
		return v
	}
	boards, cores, threads = def(boards), def(cores), def(threads)
	switch {
	case socketsPerBoard >= 0:
		sockets = boards * socketsPerBoard
	case sockets >= 0:
	case cpus >= 0 && cpus/(cores*threads) > 0 && cpus%(cores*threads) == 0:
		sockets = cpus / (cores * threads)
	default:
		sockets = boards
	}
	if cpus < 0 {
		cpus = sockets * cores * threads
	}
	if cpus != sockets && cpus != sockets*cores && cpus != sockets*cores*threads {
		return int(sockets * cores * threads), true
	}
	return int(cpus), false
}

// part reads a PartitionName line.
func (r *confReader) part(at pos, l *slurmlex.Line) error {
	name := l.Pairs[0].Value
	if strings.EqualFold(name, "DEFAULT") {
		for _, p := range l.Pairs[1:] {
			r.partDef[strings.ToLower(p.Key)] = p.Value
		}
		r.defAt = at
		return nil
	}
	where := "PartitionName=" + name
	p := slurmPart{name: name, state: "UP", at: at}
	p.nodes, _ = value(l, r.partDef, "Nodes")
	if v, ok := value(l, r.partDef, "Default"); ok {
		switch strings.ToLower(v) {
		case "yes", "up", "true", "1":
			p.def = true
		case "no", "down", "false", "0":
		default:
			return slurmError(at, where, "Default", "%q: want YES or NO", v)
		}
	}
	if v, ok := value(l, r.partDef, "MaxTime"); ok {
		switch strings.ToUpper(v) {
		case "UNLIMITED", "INFINITE":
		default:
			t, err := slurmlex.Minutes(v)
			if err != nil {
				return slurmError(at, where, "MaxTime", "%q: %v, or UNLIMITED", v, err)
			}
			if t == 0 {
				return slurmError(at, where, "MaxTime", "%q: a zero time limit (no job could run)", v)
			}
			p.maxTime = t
		}
	}
	if v, ok := value(l, r.partDef, "PriorityJobFactor"); ok {
		if n, err := strconv.ParseUint(v, 10, 16); err != nil || n > 65533 {
			return slurmError(at, where, "PriorityJobFactor", "%q: want an integer 0-65533", v)
		}
	}
	if v, ok := value(l, r.partDef, "OverSubscribe", "Shared"); ok {
		p.share = strings.ToUpper(v)
		kind, n, hasN := strings.Cut(p.share, ":")
		k, err := strconv.Atoi(n)
		switch {
		case !hasN && (kind == "NO" || kind == "EXCLUSIVE" || kind == "YES" || kind == "FORCE"):
		case hasN && (kind == "YES" || kind == "FORCE") && err == nil && k >= 1:
		default:
			return slurmError(at, where, "OverSubscribe", "%q: want NO, EXCLUSIVE, YES[:N] or FORCE[:N]", v)
		}
	}
	if v, ok := value(l, r.partDef, "Exclusive"); ok {
		p.excl = strings.ToUpper(v)
		switch p.excl {
		case "NO", "NONE", "NODE", "TOPO":
		case "USER":
			return slurmError(at, where, "Exclusive", "USER (nodes shared only by one user's jobs) is not modelled: drsim allocates cores or whole nodes")
		default:
			return slurmError(at, where, "Exclusive", "%q: want NO, NODE, USER or TOPO", v)
		}
	}
	if v, ok := value(l, r.partDef, "State"); ok {
		p.state = ""
		for _, s := range []string{"DOWN", "UP", "DRAIN", "INACTIVE"} { // prefixes, as Slurm compares them
			if strings.HasPrefix(strings.ToUpper(v), s) {
				p.state = s
				break
			}
		}
		if p.state == "" {
			return slurmError(at, where, "State", "%q: want UP, DOWN, DRAIN or INACTIVE", v)
		}
	}
	if v, ok := l.Get("SelectTypeParameters", 1); ok { // a partition's own, not a default
		if _, err := crKind(v); err != nil || !strings.HasPrefix(strings.ToUpper(v), "CR_CORE") && !strings.HasPrefix(strings.ToUpper(v), "CR_SOCKET") {
			return slurmError(at, where, "SelectTypeParameters", "%q: a partition takes CR_Core, CR_Core_Memory, CR_Socket or CR_Socket_Memory", v)
		}
		p.crParams = v
	}
	r.c.parts = append(r.c.parts, p)
	return nil
}

// crKind is the unit SelectTypeParameters allocates: "cpu" (CR_CPU*,
// CR_Core*: drsim's processors), "socket" or "memory" (CR_Memory, where
// cores are shared), from the options in any order.
func crKind(params string) (string, error) {
	for _, opt := range strings.Split(strings.ToUpper(params), ",") {
		switch strings.TrimSpace(opt) {
		case "CR_CPU", "CR_CPU_MEMORY", "CR_CORE", "CR_CORE_MEMORY":
			return "cpu", nil
		case "CR_SOCKET", "CR_SOCKET_MEMORY":
			return "socket", nil
		case "CR_MEMORY":
			return "memory", nil
		}
	}
	return "", fmt.Errorf("%q: want one of CR_CPU, CR_Core, CR_Socket or CR_Memory (each also with _Memory)", params)
}
