package machine

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strings"
	"testing"

	"drsim/workloads"
)

// Slurm's rule for a node's CPU count (read_config.c, _parse_nodename),
// worked out by hand; -1 is a key left out.
func TestCPUCount(t *testing.T) {
	for _, tc := range []struct {
		name                                   string
		cpus, boards, sockets, spb, cores, thr int64
		want                                   int
		reset                                  bool
	}{
		{"CPUs only: Sockets=CPUs", 4, -1, -1, -1, -1, -1, 4, false},
		{"nothing: one CPU", -1, -1, -1, -1, -1, -1, 1, false},
		{"2 sockets x 8 cores x 2 threads", -1, -1, 2, -1, 8, 2, 32, false},
		{"CPUs = sockets x cores: threads not scheduled", 16, -1, 2, -1, 8, 2, 16, false},
		{"CPUs = sockets (select/linear style)", 2, -1, 2, -1, 4, -1, 2, false},
		{"CPUs matching nothing is reset to the product", 20, -1, 2, -1, 8, 2, 32, true},
		{"Boards x SocketsPerBoard", -1, 2, -1, 2, 4, -1, 16, false},
		{"SocketsPerBoard wins over Sockets", -1, 2, 3, 1, 4, -1, 8, false},
		{"no Sockets: Boards sockets", -1, 2, -1, -1, 4, -1, 8, false},
		{"no Sockets: CPUs / (cores x threads) when exact", 12, -1, -1, -1, 4, 1, 12, false},
		{"no Sockets, inexact: one socket per board, CPUs reset", 10, -1, -1, -1, 4, -1, 4, true},
		{"no Sockets, CPUs below one socket's cores: one socket, reset", 2, -1, -1, -1, 4, 2, 8, true},
		{"no Sockets, CPUs = one socket's cores: threads not scheduled", 8, -1, -1, -1, 8, 2, 8, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, reset := CPUCount(tc.cpus, tc.boards, tc.sockets, tc.spb, tc.cores, tc.thr)
			if got != tc.want || reset != tc.reset {
				t.Errorf("CPUCount(%d, %d, %d, %d, %d, %d) = %d, %v; want %d, %v",
					tc.cpus, tc.boards, tc.sockets, tc.spb, tc.cores, tc.thr, got, reset, tc.want, tc.reset)
			}
		})
	}
}

// Hostlists as Slurm writes them, expanded by hand.
func TestExpandHostlistSlurm(t *testing.T) {
	hl, err := ExpandHostlist("node[001-128,200]")
	if err != nil {
		t.Fatal(err)
	}
	if len(hl) != 129 || hl[0] != "node001" || hl[9] != "node010" || hl[127] != "node128" || hl[128] != "node200" {
		t.Errorf("node[001-128,200]: %d names, %q %q %q %q", len(hl), hl[0], hl[9], hl[127], hl[128])
	}
	for in, want := range map[string]string{
		"c[1-3],g1":         "c1 c2 c3 g1",
		"n[8-10]":           "n8 n9 n10",
		"n[08-10]":          "n08 n09 n10",
		"gpu[1-2]-ib,login": "gpu1-ib gpu2-ib login",
	} {
		got, err := ExpandHostlist(in)
		if err != nil || strings.Join(got, " ") != want {
			t.Errorf("ExpandHostlist(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
}

// files is an in-memory file system for Include and gres.conf.
type files map[string]string

func (f files) read(path string) ([]byte, error) {
	if s, ok := f[path]; ok {
		return []byte(s), nil
	}
	return nil, &fs.PathError{Op: "open", Path: path, Err: fs.ErrNotExist}
}

const synthConf = `# keys in any case, defaults, a continuation, an Include
ClusterName=Demo
selecttype=select/cons_tres
SelectTypeParameters=CR_Core_Memory
NodeName=DEFAULT Sockets=2 CoresPerSocket=8 ThreadsPerCore=2 RealMemory=192000
NodeName=cn[01-04] CPUs=16 Weight=10 \
    Feature=skylake
NodeName=cn[05-06] Weight=1 Feature=skylake
Include nodes-%c.conf
NodeName=fut1 State=FUTURE
PartitionName=DEFAULT MaxTime=1-00:00:00 State=UP
PartitionName=batch Nodes=cn[01-04] Default=YES
PartitionName=big Nodes=cn[05-06] MaxTime=UNLIMITED OverSubscribe=EXCLUSIVE
PartitionName=gpu Nodes=gpus MaxTime=30:00
PartitionName=old Nodes=cn01 State=INACTIVE
PartitionName=empty State=DOWN Nodes=
`

// A synthetic slurm.conf with every feature the reader handles; the
// machine is worked out by hand:
//   - cn01-04: CPUs=16 = Sockets×CoresPerSocket (threads not scheduled): 16;
//     cn05-06: no CPUs, 2×8×2 = 32; gpu1-2 from the included file: 2×8×2 =
//     32 CPUs and gpu:a100:2 + gpu:a100:2 = 4 GPUs.
//   - fut1 is FUTURE (left out); old is INACTIVE, empty has no nodes (left out).
//   - batch: cn01-04 in Weight order (all 10) = processors 0-63; big:
//     cn05 cn06 (Weight 1) = 64-127, whole nodes; gpu: the node set of
//     feature a100 = gpu1 gpu2 = 128-191; MaxTime 30:00 = 30 min.
func TestParseSlurm(t *testing.T) {
	fsys := files{"/etc/slurm/nodes-demo.conf": "NodeName=gpu[1-2] Gres=gpu:a100:2,gpu:a100:2,mps:200 Feature=a100\nNodeSet=gpus Feature=a100\n"}
	m, err := ParseSlurm("/etc/slurm/slurm.conf", []byte(synthConf), fsys.read, "")
	if err != nil {
		t.Fatal(err)
	}
	var types []string
	for _, ty := range m.Types {
		types = append(types, fmt.Sprintf("%s:%dx%d/%dgpu/%gGB/%g-%gW", ty.Name, ty.Count, ty.Cores, ty.GPUs, ty.MemoryGB, ty.GPUIdleW, ty.GPUBusyW))
	}
	want := []string{"batch:4x16/0gpu/187.5GB/0-0W", "big:2x32/0gpu/187.5GB/0-0W", "gpu:2x32/4gpu/187.5GB/50-400W"}
	if !slices.Equal(types, want) {
		t.Errorf("types %v\nwant  %v", types, want)
	}
	var parts []string
	for _, p := range m.Partitions {
		parts = append(parts, fmt.Sprintf("%s:%d-%d/excl=%v/max=%g/def=%v", p.Name, p.Lo, p.Lo+p.Procs-1, p.Exclusive, p.MaxTime, p.Default))
	}
	want = []string{"batch:0-63/excl=false/max=86400/def=true", "big:64-127/excl=true/max=0/def=false", "gpu:128-191/excl=false/max=1800/def=false"}
	if !slices.Equal(parts, want) {
		t.Errorf("partitions %v\nwant       %v", parts, want)
	}
	var nodes []string
	for _, n := range m.Nodes {
		nodes = append(nodes, fmt.Sprintf("%s@%d", n.Name, n.Lo))
	}
	if got := strings.Join(nodes, " "); got != "cn01@0 cn02@16 cn03@32 cn04@48 cn05@64 cn06@96 gpu1@128 gpu2@160" {
		t.Errorf("nodes %s", got)
	}
	if m.Name != "Demo" || m.Procs != 192 || m.Default != 0 {
		t.Errorf("name %q procs %d default %d", m.Name, m.Procs, m.Default)
	}
	notes := strings.Join(m.Notes, "\n")
	for _, w := range []string{"PartitionName=old is State=INACTIVE", "PartitionName=empty has no nodes", "the GPUs of gpu take 50 W idle and 400 W busy"} {
		if !strings.Contains(notes, w) {
			t.Errorf("notes lack %q:\n%s", w, notes)
		}
	}
}

// Weight orders a partition's nodes (Slurm allocates the lowest first),
// then slurm.conf order; select/linear gives whole nodes; the last
// Default=YES wins; nodes of no partition come last.
func TestParseSlurmOrder(t *testing.T) {
	conf := "SelectType=select/linear\nNodeName=a[1-3] CPUs=2 Weight=5\nNodeName=b1 CPUs=2 Weight=1\nNodeName=spare CPUs=2\n" +
		"PartitionName=p Nodes=a[1-3],b1 Default=YES\nPartitionName=q Nodes=spare Default=YES State=DRAIN\nNodeName=late CPUs=2\n"
	m, err := ParseSlurm("s.conf", []byte(conf), nil, "")
	if err != nil {
		t.Fatal(err)
	}
	var nodes []string
	for _, n := range m.Nodes {
		nodes = append(nodes, n.Name)
	}
	if got := strings.Join(nodes, " "); got != "b1 a1 a2 a3 spare late" {
		t.Errorf("node order %s, want b1 a1 a2 a3 spare late", got)
	}
	if !m.Partitions[0].Exclusive || m.Default != 1 || m.Partitions[0].Default || m.Types[0].Name != "cpus2" || m.Procs != 12 {
		t.Errorf("%+v default %d types %+v", m.Partitions, m.Default, m.Types)
	}
	if !strings.Contains(strings.Join(m.Notes, "\n"), "s.conf:6: PartitionName=q is State=DRAIN") {
		t.Errorf("notes %q", m.Notes)
	}
}

// Each mistake is one line naming file, line and key.
func TestParseSlurmErrors(t *testing.T) {
	const nodes = "NodeName=c[1-4] CPUs=4\nNodeName=g[1-2] CPUs=4 Gres=gpu:2\n"
	for _, tc := range []struct{ conf, want string }{
		{nodes + "PartitionName=a Nodes=c[1-4]\nPartitionName=b Nodes=c[3-4]", `s.conf:4: PartitionName=b: key "Nodes": node c3 is also in partition a (s.conf:3): drsim cannot simulate partitions that share nodes`},
		{nodes + "PartitionName=all Nodes=ALL", `s.conf:3: PartitionName=all: key "Nodes": nodes c1 (4 CPUs) and g1 (4 CPUs, 2 GPUs) differ: one node type per partition in this version`},
		{nodes + "PartitionName=a Nodes=c[1-5]", `s.conf:3: PartitionName=a: key "Nodes": no node called c5 (no NodeName line defines it)`},
		{nodes + "SelectTypeParameters=CR_Socket\nPartitionName=a Nodes=c1", `s.conf:3: key "SelectTypeParameters": CR_Socket: partition a would allocate whole sockets`},
		{nodes + "SelectTypeParameters=CR_Memory\nPartitionName=a Nodes=c1 OverSubscribe=EXCLUSIVE", ""},
		{nodes + "PartitionName=a Nodes=c1 OverSubscribe=FORCE:4", `s.conf:3: PartitionName=a: key "OverSubscribe": FORCE:4: every job shares`},
		{nodes + "PartitionName=a Nodes=c1 OverSubscribe=SOMETIMES", `s.conf:3: PartitionName=a: key "OverSubscribe": "SOMETIMES": want NO, EXCLUSIVE, YES[:N] or FORCE[:N]`},
		{nodes + "PartitionName=a Nodes=c1 MaxTime=1-x", `s.conf:3: PartitionName=a: key "MaxTime": "1-x": want minutes or [days-]hours:minutes[:seconds], or UNLIMITED`},
		{nodes + "PartitionName=a Nodes=c1 MaxTime=0", `s.conf:3: PartitionName=a: key "MaxTime": "0": a zero time limit`},
		{nodes + "PartitionName=a Nodes=c1 Default=maybe", `s.conf:3: PartitionName=a: key "Default": "maybe": want YES or NO`},
		{nodes + "PartitionName=a Nodes=c1 Exclusive=USER", `s.conf:3: PartitionName=a: key "Exclusive": USER`},
		{nodes + "PartitionName=a Nodes=c1 State=SLEEPY", `s.conf:3: PartitionName=a: key "State": "SLEEPY"`},
		{nodes + "PartitionName=a Nodes=c1 PriorityJobFactor=70000", `s.conf:3: PartitionName=a: key "PriorityJobFactor": "70000": want an integer 0-65533`},
		{nodes + "PartitionName=a Nodes=c1\nPartitionName=a Nodes=c2", `s.conf:4: PartitionName=a: key "PartitionName": partition a is defined twice`},
		{"NodeName=c1 CPUs=x\n", `s.conf:1: NodeName=c1: key "CPUs": "x": want an integer 1-65535`},
		{"NodeName=c1 CoresPerSocket=0\n", `s.conf:1: NodeName=c1: key "CoresPerSocket": 0: want at least 1`},
		{"NodeName=c1 Gres=gpu:a100:x\n", `s.conf:1: NodeName=c1: key "Gres": "gpu:a100:x": count "x" is not a number`},
		{"NodeName=c[2-1]\n", `s.conf:1: NodeName=c[2-1]: key "NodeName": bad range "2-1" in "c[2-1]"`},
		{"NodeName=c1\nNodeName=c[1-2]\nPartitionName=a Nodes=c1", `s.conf:2: NodeName=c1: key "NodeName": node c1 is already defined at s.conf:1`},
		{"NodeName=ALL CPUs=2\n", `s.conf:1: NodeName=ALL: key "NodeName": ALL is a reserved word`},
		{"SelectType=select/cray_aries\nNodeName=c1\nPartitionName=a Nodes=c1", `s.conf:1: key "SelectType": "select/cray_aries": want select/cons_tres`},
		{"NodeName=c1\nInclude more.conf\n", `s.conf:2: key "Include": more.conf: included files are read only from a file on disk`},
		{"NodeName=c1\nhello world\n", `s.conf:2: "hello": want Key=Value`},
		{"NodeName=c1 CPUs=4 fast\n", `s.conf:1: NodeName=c1: "fast": want Key=Value`},
		{"ClusterName=x\n", `s.conf:1: key "NodeName": no nodes`},
		{"NodeName=c1\nPartitionName=a Nodes=", `s.conf:1: key "PartitionName": no partition with nodes`},
	} {
		_, err := ParseSlurm("s.conf", []byte(tc.conf), nil, "")
		if tc.want == "" {
			if err != nil {
				t.Errorf("%q: %v", tc.conf, err)
			}
			continue
		}
		if _, ok := errors.AsType[*Error](err); !ok || !strings.HasPrefix(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("ParseSlurm(%q):\n got %v\nwant %s…", tc.conf, err, tc.want)
		}
	}
}

// gres.conf is checked against slurm.conf's Gres= counts.
func TestGresConf(t *testing.T) {
	conf := []byte("NodeName=g[1-2] CPUs=4 Gres=gpu:4\nNodeName=c1 CPUs=4\nPartitionName=g Nodes=g[1-2]\n")
	for _, tc := range []struct{ gres, want string }{
		{"NodeName=g[1-2] Name=gpu Count=4 File=/dev/fake[0-3]\n", ""},
		{"# one line per device\nNodeName=g[1-2] Name=gpu File=/dev/nvidia[0-1]\nNodeName=g[1-2] Name=gpu File=/dev/nvidia[2-3]\n", ""},
		{"AutoDetect=nvml\nName=gpu File=/dev/nvidia[0-3]\n", ""},
		{"NodeName=other[1-9] Name=gpu Count=8\n", ""},
		{"NodeName=g2 Name=gpu File=/dev/nvidia[0-2]\n", `gres.conf:1: key "Name": node g2 has 3 GPUs here but 4 in slurm.conf (s.conf:1: NodeName Gres=)`},
		{"NodeName=c1 Name=gpu Count=2\n", `gres.conf:1: key "Name": node c1 has 2 GPUs here but 0 in slurm.conf`},
		{"NodeName=g1 Name=gpu Count=lots\n", `gres.conf:1: key "Count": "lots" is not a count`},
	} {
		fsys := files{"gres.conf": tc.gres}
		_, err := ParseSlurm("s.conf", conf, fsys.read, "gres.conf")
		if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.HasPrefix(err.Error(), tc.want)) {
			t.Errorf("gres.conf %q:\n got %v\nwant %q", tc.gres, err, tc.want)
		}
	}
}

// IsSlurmConf tells a slurm.conf from a machine TOML by content.
func TestIsSlurmConf(t *testing.T) {
	for _, name := range BuiltinNames {
		b, _ := BuiltinText(name)
		if IsSlurmConf(b) {
			t.Errorf("builtin:%s taken for a slurm.conf", name)
		}
	}
	for _, s := range []string{"NodeName=c1\n", "# x\n  partitionname = a Nodes=c1\n"} {
		if !IsSlurmConf([]byte(s)) {
			t.Errorf("%q not taken for a slurm.conf", s)
		}
	}
}

// The real slurm.conf of testdata/sacct (with its gres.conf beside it)
// describes the machine of examples/sacct/machine.toml but for two
// things: Slurm shared the gpu nodes' cores (CR_Core; the TOML gives
// whole nodes, as drsim v1 needs for GPU jobs), and slurm.conf has
// RealMemory but no power. machine-slurm.toml reads the slurm.conf and
// adds those: its tables equal machine.toml's but for the memory column.
func TestRealSlurmConf(t *testing.T) {
	conf, err := Load("../../testdata/sacct/slurm.conf")
	if err != nil {
		t.Fatal(err)
	}
	toml, err := Load("../../examples/sacct/machine.toml")
	if err != nil {
		t.Fatal(err)
	}
	over, err := Load("../../examples/sacct/machine-slurm.toml")
	if err != nil {
		t.Fatal(err)
	}
	tables := func(m *Machine) string {
		var b bytes.Buffer
		if err := m.WriteText(&b); err != nil {
			t.Fatal(err)
		}
		_, rest, _ := strings.Cut(b.String(), "\n\n") // after the header and source
		return strings.ReplaceAll(rest, "3.90625  ", "0        ")
	}
	if got, want := tables(over), tables(toml); got != want {
		t.Errorf("machine-slurm.toml:\n%s\nmachine.toml:\n%s", got, want)
	}
	// The slurm.conf alone: the same nodes, types and partitions, with the
	// gpu partition shared by core.
	if len(conf.Partitions) != 2 || conf.Partitions[1].Exclusive || conf.Partitions[0].MaxTime != 1800 || conf.Partitions[1].MaxTime != 0 {
		t.Errorf("partitions %+v", conf.Partitions)
	}
	for i := range toml.Nodes {
		if conf.Nodes[i].Name != toml.Nodes[i].Name || conf.Nodes[i].Lo != toml.Nodes[i].Lo || conf.Types[conf.Nodes[i].Type].Name != toml.Types[toml.Nodes[i].Type].Name {
			t.Errorf("node %d: %+v, TOML %+v", i, conf.Nodes[i], toml.Nodes[i])
		}
	}
}

// Every job of the real sacct dumps is routed to the same partition with
// the slurm.conf Slurm ran with as with the TOML written for it:
// testdata/sacct (examples/sacct/machine.toml) and the priority run of
// testdata/slurm-priority/run1 (.ci/slurm/priority-machine.toml, whose
// fast nodes it names f1, f2 where slurm.conf says c5, c6).
func TestRealSlurmConfRoutes(t *testing.T) {
	for _, tc := range []struct{ trace, conf, toml string }{
		{"../../testdata/sacct/jobs.sacct", "../../testdata/sacct/slurm.conf", "../../examples/sacct/machine.toml"},
		{"../../testdata/slurm-priority/run1/jobs.sacct", "../../testdata/slurm-priority/run1/slurm.conf", "../../.ci/slurm/priority-machine.toml"},
	} {
		tr, err := workloads.LoadFile(tc.trace, workloads.Options{})
		if err != nil {
			t.Fatal(err)
		}
		byPart := map[string]int{}
		var ms [2]*Machine
		var rs [2]*Router
		for k, f := range []string{tc.conf, tc.toml} {
			if ms[k], err = Load(f); err != nil {
				t.Fatal(err)
			}
			if rs[k], err = NewRouter(ms[k], "", tr.Names.Partitions); err != nil {
				t.Fatal(err)
			}
		}
		for i := range tr.Jobs {
			a, b := rs[0].Partition(&tr.Jobs[i]), rs[1].Partition(&tr.Jobs[i])
			if a < 0 || b < 0 || ms[0].Partitions[a].Name != ms[1].Partitions[b].Name {
				t.Fatalf("%s job %d: partition %d vs %d", tc.trace, tr.Jobs[i].ID, a, b)
			}
			byPart[ms[0].Partitions[a].Name]++
		}
		// Both lay the partitions out alike (the TOML of the priority run
		// leaves out slurm.conf's MaxTime=30, which no job reaches).
		for i, p := range ms[0].Partitions {
			q := ms[1].Partitions[i]
			if p.Name != q.Name || p.Procs != q.Procs || p.Lo != q.Lo || p.Exclusive != q.Exclusive && p.Name != "gpu" {
				t.Errorf("%s partition %s: [%d,+%d) exclusive %v; TOML %s [%d,+%d) %v", tc.conf, p.Name, p.Lo, p.Procs, p.Exclusive, q.Name, q.Lo, q.Procs, q.Exclusive)
			}
		}
		t.Logf("%s: %d jobs by partition %v", tc.trace, len(tr.Jobs), byPart)
		if len(byPart) != 2 {
			t.Errorf("%s: jobs in %v, want both partitions", tc.trace, byPart)
		}
	}
}

// A machine TOML with slurm_conf sets power, allocation and apps only.
func TestOverlayErrors(t *testing.T) {
	dir := t.TempDir()
	conf := "NodeName=c[1-2] CPUs=4\nNodeName=g1 CPUs=8 Gres=gpu:2\nPartitionName=cpu Nodes=c[1-2]\nPartitionName=gpu Nodes=g1\n"
	if err := os.WriteFile(dir+"/slurm.conf", []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ toml, want string }{
		{"slurm_conf = \"slurm.conf\"\n[[node_type]]\nname = \"gpu\"\nidle_w = 300\ngpu_idle_w = 40\n", ""},
		{"slurm_conf = \"slurm.conf\"\n[[node_type]]\nname = \"cpu\"\ncores = 8\n", `m.toml:4: node_type "cpu": key "cores": comes from slurm_conf`},
		{"slurm_conf = \"slurm.conf\"\n[[node_type]]\nname = \"cpus4\"\n", `m.toml:3: node_type "cpus4": key "name": no node type "cpus4" in ` + dir + `/slurm.conf (its types: cpu, gpu)`},
		{"slurm_conf = \"slurm.conf\"\n[[node_type]]\nname = \"gpu\"\nidle_w = 50\n", `m.toml:4: node_type "gpu": key "idle_w": 50 W is below the 2 idle GPUs' 100 W`},
		{"slurm_conf = \"slurm.conf\"\n[[partition]]\nname = \"cpu\"\nmax_time = \"1:00:00\"\n", `m.toml:4: partition "cpu": key "max_time": comes from slurm_conf`},
		{"slurm_conf = \"slurm.conf\"\n[[partition]]\nname = \"cpu\"\nallocation = \"socket\"\n", `m.toml:4: partition "cpu": key "allocation": "socket" is not one of node, core`},
		{"slurm_conf = \"nope.conf\"\n", `m.toml:1: key "slurm_conf": open ` + dir + `/nope.conf`},
	} {
		path := dir + "/m.toml"
		if err := os.WriteFile(path, []byte(tc.toml), 0o644); err != nil {
			t.Fatal(err)
		}
		m, err := Load(path)
		got := fmt.Sprint(err)
		got = strings.Replace(got, dir+"/m.toml", "m.toml", 1)
		if tc.want == "" {
			if err != nil {
				t.Errorf("%q: %v", tc.toml, err)
			} else if ty := m.Types[1]; ty.IdleW != 300 || ty.GPUIdleW != 40 || ty.GPUBusyW != DefaultGPUBusyW || strings.Contains(strings.Join(m.Notes, ""), "types gpu") {
				t.Errorf("overlay gave %+v, notes %q", ty, m.Notes)
			}
			continue
		}
		if err == nil || !strings.HasPrefix(got, tc.want) {
			t.Errorf("%q:\n got %s\nwant %s…", tc.toml, got, tc.want)
		}
	}
	if _, err := Parse("m.toml", []byte("slurm_conf = \"slurm.conf\"\n")); err == nil || !strings.Contains(err.Error(), "read from a file") {
		t.Errorf("Parse with slurm_conf: %v", err)
	}
}

// The TOML WriteOverlay writes (drsim machine show --toml slurm.conf)
// loads back to the same machine, figures and all, with no power note
// left: every type's figures are spelled out.
func TestWriteOverlayRoundTrip(t *testing.T) {
	conf, err := Load("../../testdata/sacct/slurm.conf")
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := conf.WriteOverlay(&b, "/nonexistent/slurm.conf"); err != nil {
		t.Fatal(err)
	}
	abs, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	text := strings.Replace(b.String(), "/nonexistent/slurm.conf", abs+"/../../testdata/sacct/slurm.conf", 1)
	path := t.TempDir() + "/machine.toml"
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	back, err := Load(path)
	if err != nil {
		t.Fatalf("%v\n%s", err, text)
	}
	show := func(m *Machine) string {
		var b bytes.Buffer
		if err := m.WriteText(&b); err != nil {
			t.Fatal(err)
		}
		_, rest, _ := strings.Cut(b.String(), "\n\n")
		return rest
	}
	if show(back) != show(conf) {
		t.Errorf("overlay:\n%s\nslurm.conf:\n%s", show(back), show(conf))
	}
	if strings.Contains(strings.Join(back.Notes, "\n"), "no power figures") {
		t.Errorf("notes %q", back.Notes)
	}
}
