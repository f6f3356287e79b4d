package slurmlex

import (
	"fmt"
	"strings"
	"testing"
)

// scan renders every logical line as "num: key=value|key=value [include F] [rest R]".
func scan(t *testing.T, in string) string {
	t.Helper()
	var out []string
	err := Scan(strings.NewReader(in), "t.conf", func(l Line) error {
		var kv []string
		for _, p := range l.Pairs {
			op := ""
			if p.Op != 0 {
				op = string(p.Op)
			}
			kv = append(kv, p.Key+op+"="+p.Value)
		}
		s := fmt.Sprintf("%d: %s", l.Num, strings.Join(kv, "|"))
		if l.Include != "" {
			s += " include " + l.Include
		}
		if l.Rest != "" {
			s += " rest " + l.Rest
		}
		out = append(out, s)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return strings.Join(out, "\n")
}

// Each want is worked out by hand from Slurm's rules (parse_config.c:
// _strip_comments, _strip_continuation, _strip_escapes, keyvalue_pattern).
func TestScan(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"plain", "NodeName=c[1-4] CPUs=4 # four\n", "1: NodeName=c[1-4]|CPUs=4"},
		{"blank and comment lines", "\n# x\n   \nA=1\n", "4: A=1"},
		{"spaces around =", "PartitionName = cpu Nodes= c1\n", "1: PartitionName=cpu|Nodes=c1"},
		{"quoted value", `Reason="down for good" State=DOWN`, "1: Reason=down for good|State=DOWN"},
		{"escaped hash", `Feature=a\#b # comment`, "1: Feature=a#b"},
		{"escaped backslash ends no line", "A=x\\\\\nB=2", "1: A=x\\\n2: B=2"},
		{"continuation joins without a separator", "NodeName=c1 \\\n  CPUs=4 \\\nWeight=2\nB=1", "1: NodeName=c1|CPUs=4|Weight=2\n4: B=1"},
		{"continuation then comment", "A=1 \\ \n# c\nB=2", "1: A=1\n3: B=2"},
		{"operator", "SchedulerParameters+=bf_interval=5", "1: SchedulerParameters+=bf_interval=5"},
		{"include", "include /etc/slurm/nodes.conf\nIncludeX=1", "1:  include /etc/slurm/nodes.conf\n2: IncludeX=1"},
		{"not key=value", "JustAWord A=1", "1:  rest JustAWord A=1"},
		{"trailing garbage", "A=1 B", "1: A=1 rest B"},
		{"empty value at the end", "CPUs=", "1: CPUs="},
		{"crlf", "A=1\r\nB=2\r\n", "1: A=1\n2: B=2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := scan(t, tc.in); got != tc.want {
				t.Errorf("Scan(%q) =\n%s\nwant\n%s", tc.in, got, tc.want)
			}
		})
	}
}

func TestGetLast(t *testing.T) {
	l := Split("PartitionName=a MaxTime=5 maxtime=7", 1)
	if v, ok := l.Get("MAXTIME", 1); !ok || v != "7" {
		t.Errorf("Get = %q %v, want 7 (Slurm takes the last)", v, ok)
	}
	if _, ok := l.Get("PartitionName", 1); ok {
		t.Error("Get found a key before from")
	}
}

// Hand-computed from time_str2mins: seconds round up to whole minutes.
func TestMinutes(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want float64
	}{
		{"30", 1800}, {"1:30", 120}, {"1:00", 60}, {"2:00:00", 7200}, {"1-0", 86400},
		{"1-12", 86400 + 12*3600}, {"0-12:30", 12*3600 + 30*60}, {"1-00:00:01", 86400 + 60}, {"0", 0},
	} {
		if got, err := Minutes(tc.in); err != nil || got != tc.want {
			t.Errorf("Minutes(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
		}
	}
	for _, in := range []string{"", "x", "1-", "-1", "1:2:3:4", "1-2:3:4:5", "UNLIMITED", "1.5", "99999999999"} {
		if _, err := Minutes(in); err == nil {
			t.Errorf("Minutes(%q): no error", in)
		}
	}
}
