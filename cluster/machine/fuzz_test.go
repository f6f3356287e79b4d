package machine

import (
	"errors"
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
