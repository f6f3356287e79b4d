package machine

import (
	"errors"
	"os"
	"strings"
	"testing"
)

// FuzzParse: any input parses or fails with a one-line *Error naming the
// file, never a panic; a machine that parses has partitions of whole
// nodes laid out without overlap inside the machine.
func FuzzParse(f *testing.F) {
	for _, name := range BuiltinNames {
		b, err := BuiltinText(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte(twoParts))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := Parse("f.toml", data)
		if err != nil {
			if _, ok := errors.AsType[*Error](err); !ok || !strings.HasPrefix(err.Error(), "f.toml:") || strings.Contains(err.Error(), "\n") {
				t.Fatalf("error %T %q", err, err)
			}
			return
		}
		end := 0
		for _, p := range m.Partitions {
			cores := m.Types[p.Type].Cores
			if p.Lo < end || p.Procs != len(p.Nodes)*cores || p.Lo+p.Procs > m.Procs {
				t.Fatalf("partition %q at [%d,%d) of %d", p.Name, p.Lo, p.Lo+p.Procs, m.Procs)
			}
			end = p.Lo + p.Procs
		}
	})
}

// FuzzParseSlurm: any slurm.conf text parses or fails with a one-line
// *Error naming a file and line, never a panic; a machine that parses has
// its partitions laid out without overlap, each of one node type.
func FuzzParseSlurm(f *testing.F) {
	for _, p := range []string{"../../testdata/sacct/slurm.conf", "../../testdata/slurm-priority/run1/slurm.conf"} {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte(synthConf))
	f.Add([]byte("SelectType=select/linear\nNodeName=DEFAULT CPUs=2\nNodeName=a[1-3] Weight=5 \\\n Gres=gpu:v100:2\nNodeSet=s Feature=x\nPartitionName=p Nodes=ALL OverSubscribe=YES:2 MaxTime=1-0\n"))
	fsys := files{"/etc/slurm/nodes-demo.conf": "NodeName=gpu[1-2] Gres=gpu:a100:4 Feature=a100\nNodeSet=gpus Feature=a100\n"}
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := ParseSlurm("/etc/slurm/slurm.conf", data, fsys.read, "")
		if err != nil {
			if _, ok := errors.AsType[*Error](err); !ok || !strings.HasPrefix(err.Error(), "/etc/slurm/") || strings.Contains(err.Error(), "\n") {
				t.Fatalf("error %T %q", err, err)
			}
			return
		}
		end := 0
		for _, p := range m.Partitions {
			cores := m.Types[p.Type].Cores
			if p.Lo < end || p.Procs != len(p.Nodes)*cores || p.Lo+p.Procs > m.Procs || cores < 1 {
				t.Fatalf("partition %q at [%d,%d) of %d", p.Name, p.Lo, p.Lo+p.Procs, m.Procs)
			}
			for _, n := range p.Nodes {
				if m.Nodes[n].Type != p.Type {
					t.Fatalf("partition %q holds node %s of another type", p.Name, m.Nodes[n].Name)
				}
			}
			end = p.Lo + p.Procs
		}
	})
}
