package powercap

import (
	"encoding/binary"
	"math"
	"os"
	"strings"
	"testing"
)

// replayProblem is one recorded Solve call: its input (classes, capacity,
// budget, hint) and the answer the recording build gave.
type replayProblem struct {
	classes  [][]Option
	capacity float64
	budget   int
	hint     []int
	choice   []int
	cost     float64
	ok       bool
	exact    bool
	bound    float64
}

// loadReplay reads a file of recorded Solve calls: little-endian 64-bit
// words, per call m, capacity, budget, len(hint), hint, then per class
// its option count and (weight, cost) pairs, then len(choice), choice,
// cost, flags (1 ok, 2 exact) and bound.
func loadReplay(t testing.TB, path string) []replayProblem {
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	u := func() uint64 {
		x := binary.LittleEndian.Uint64(data)
		data = data[8:]
		return x
	}
	f := func() float64 { return math.Float64frombits(u()) }
	var ps []replayProblem
	for len(data) > 0 {
		var p replayProblem
		m := int(u())
		p.capacity = f()
		p.budget = int(int64(u()))
		p.hint = make([]int, u())
		for i := range p.hint {
			p.hint[i] = int(int64(u()))
		}
		p.classes = make([][]Option, m)
		for j := range p.classes {
			p.classes[j] = make([]Option, u())
			for k := range p.classes[j] {
				p.classes[j][k] = Option{Weight: f(), Cost: f()}
			}
		}
		p.choice = make([]int, u())
		for i := range p.choice {
			p.choice[i] = int(int64(u()))
		}
		p.cost = f()
		fl := u()
		p.ok, p.exact = fl&1 != 0, fl&2 != 0
		p.bound = f()
		ps = append(ps, p)
	}
	return ps
}

// replayFiles are the recordings named by MCKP_REPLAY (comma-separated);
// the replay test and benchmark skip without it.
func replayFiles(t testing.TB) []string {
	v := os.Getenv("MCKP_REPLAY")
	if v == "" {
		t.Skip("MCKP_REPLAY not set")
	}
	return strings.Split(v, ",")
}

// TestMCKPReplay solves recorded level problems and compares every answer
// (choice, cost bits, ok, exact) with the recording.
func TestMCKPReplay(t *testing.T) {
	for _, path := range replayFiles(t) {
		ps := loadReplay(t, path)
		var s MCKP
		bad := 0
		for i, p := range ps {
			s.Budget, s.Hint = p.budget, p.hint
			choice, cost, ok := s.Solve(p.classes, p.capacity)
			same := ok == p.ok && s.Exact == p.exact
			if same && ok {
				same = math.Float64bits(cost) == math.Float64bits(p.cost) && len(choice) == len(p.choice)
				for j := range choice {
					same = same && choice[j] == p.choice[j]
				}
			}
			if !same {
				if bad++; bad <= 5 {
					t.Errorf("%s problem %d (m=%d): got %v %v ok=%v, recorded %v %v ok=%v", path, i, len(p.classes), cost, choice, ok, p.cost, p.choice, p.ok)
				}
			}
		}
		t.Logf("%s: %d problems, %d differ", path, len(ps), bad)
	}
}

// BenchmarkMCKPReplay solves every recorded problem once per iteration.
func BenchmarkMCKPReplay(b *testing.B) {
	for _, path := range replayFiles(b) {
		ps := loadReplay(b, path)
		name := path[strings.LastIndex(path, "/")+1:]
		b.Run(name, func(b *testing.B) {
			var s MCKP
			for b.Loop() {
				for _, p := range ps {
					s.Budget, s.Hint = p.budget, p.hint
					s.Solve(p.classes, p.capacity)
				}
			}
		})
	}
}
