package powercap

import (
	"math"
	"strings"
	"testing"

	"drsim/workloads"
)

func apps(names ...string) []Profile {
	ps := make([]Profile, len(names))
	for i, n := range names {
		ps[i] = Profile{Name: n}
	}
	return ps
}

// TestAppMapsRegistry builds every registry entry and checks the unknown-key error.
func TestAppMapsRegistry(t *testing.T) {
	a := apps("bt", "cg", "lulesh")
	for name := range AppMaps {
		spec := name
		if name == "one" {
			spec = "one:cg"
		}
		if _, err := NewAppMap(spec, a, 1); err != nil {
			t.Errorf("NewAppMap(%q): %v", spec, err)
		}
	}
	_, err := NewAppMap("byname", a, 1)
	if want := `powercap: unknown app map "byname" (known: exe, mix, one, user)`; err == nil || err.Error() != want {
		t.Errorf("NewAppMap(byname) = %v, want %s", err, want)
	}
	for _, bad := range []string{"one:nope", "mix:bt=x", "mix:bt=-1", "mix:nope=1", "mix:bt=0", "exe:3"} {
		if _, err := NewAppMap(bad, a, 1); err == nil {
			t.Errorf("NewAppMap(%q) succeeded", bad)
		}
	}
}

func TestFieldMaps(t *testing.T) {
	a := apps("a0", "a1", "a2")
	tests := []struct { // hand-computed: value mod 3, job ID mod 3 when -1
		spec string
		job  workloads.Job
		want int
	}{
		{"exe", workloads.Job{ID: 10, Exe: 0}, 0},
		{"exe", workloads.Job{ID: 10, Exe: 5}, 2},
		{"exe", workloads.Job{ID: 10, Exe: -1}, 1},
		{"user", workloads.Job{ID: 4, User: 9}, 0},
		{"user", workloads.Job{ID: 4, User: -1}, 1},
		{"one:a2", workloads.Job{ID: 4}, 2},
	}
	for _, tc := range tests {
		m, err := NewAppMap(tc.spec, a, 7)
		if err != nil {
			t.Fatal(err)
		}
		if got := m.App(&tc.job); got != tc.want {
			t.Errorf("NewAppMap(%q).App(%+v) = %d, want %d", tc.spec, tc.job, got, tc.want)
		}
	}
}

// TestMixMap: the draw depends on (seed, ID, line) only, and the shares
// follow the weights (10,000 jobs: 3σ of a share p is < 0.015).
func TestMixMap(t *testing.T) {
	a := apps("bt", "cg", "lulesh")
	m, err := NewAppMap("mix:lulesh=2,bt=1", a, 42)
	if err != nil {
		t.Fatal(err)
	}
	const n = 10000
	count := make([]int, 3)
	first := make([]int, n)
	for i := range n {
		j := workloads.Job{ID: int64(i + 1), Line: int64(i + 3)}
		first[i] = m.App(&j)
		count[first[i]]++
	}
	for i := n - 1; i >= 0; i-- { // reverse order: same answers
		j := workloads.Job{ID: int64(i + 1), Line: int64(i + 3)}
		if got := m.App(&j); got != first[i] {
			t.Fatalf("job %d: %d on the second pass, %d on the first", i+1, got, first[i])
		}
	}
	if count[1] != 0 {
		t.Errorf("cg has weight 0 but got %d jobs", count[1])
	}
	for i, want := range []float64{1.0 / 3, 0, 2.0 / 3} {
		if got := float64(count[i]) / n; math.Abs(got-want) > 0.015 {
			t.Errorf("share of %s = %.4f, want %.4f", a[i].Name, got, want)
		}
	}
	m2, _ := NewAppMap("mix:lulesh=2,bt=1", a, 43)
	same := 0
	for i := range 1000 {
		j := workloads.Job{ID: int64(i + 1), Line: int64(i + 3)}
		if m2.App(&j) == first[i] {
			same++
		}
	}
	if same > 700 { // independent draws agree with probability 5/9
		t.Errorf("seeds 42 and 43 agree on %d of 1000 jobs", same)
	}
	eq, _ := NewAppMap("mix", a, 1)
	c := make([]int, 3)
	for i := range n {
		c[eq.App(&workloads.Job{ID: int64(i)})]++
	}
	for i := range c {
		if math.Abs(float64(c[i])/n-1.0/3) > 0.015 {
			t.Errorf("equal mix: %s share %.4f", a[i].Name, float64(c[i])/n)
		}
	}
}

var sinkApp int

func BenchmarkMixApp(b *testing.B) {
	m, _ := NewAppMap("mix:lulesh=2,cg=1", Builtin(), 1)
	j := workloads.Job{ID: 1, Line: 2}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		j.ID = int64(i)
		sinkApp += m.App(&j)
	}
}

func TestAppMapNoProfiles(t *testing.T) {
	if _, err := NewAppMap("exe", nil, 1); err == nil || !strings.Contains(err.Error(), "no application profiles") {
		t.Errorf("NewAppMap with no apps: %v", err)
	}
}
