package contracts

import (
	"bytes"
	"encoding/binary"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"drsim/powercap"
)

// Fuzz targets for the verifier and the optimiser on random menus
// (scripts/fuzz.sh runs them).

// fuzzCost builds the cost a fuzz input selects; nil when c0 is invalid,
// which must then be an error.
func fuzzCost(t *testing.T, c0 float64, cubic bool) Cost {
	name := "quadratic"
	if cubic {
		name = "cubic"
	}
	cost, err := Costs.New(name, CostConfig{C0: c0})
	if (err == nil) != (c0 > 0 && !math.IsInf(c0, 0)) {
		t.Fatalf("Costs.New(%s, c0=%v): error %v", name, c0, err)
	}
	if err != nil {
		checkModelErr(t, err)
		return nil
	}
	return cost
}

func checkModelErr(t *testing.T, err error) {
	t.Helper()
	if msg := err.Error(); strings.ContainsAny(msg, "\n\r") || !strings.HasPrefix(msg, "contracts: ") {
		t.Fatalf("error is not one line starting with contracts: %q", msg)
	}
}

// randomMenu draws n types and bundles from seed; raw bytes, when long
// enough, overwrite them with arbitrary float64 bits (NaN, Inf, subnormals).
func randomMenu(seed uint64, n int, scale float64, raw []byte) ([]float64, []Bundle) {
	rng := rand.New(rand.NewPCG(seed, 0))
	theta, menu := make([]float64, n), make([]Bundle, n)
	th := 0.0
	for i := range n {
		th += rng.Float64() * scale
		theta[i] = th
		menu[i] = Bundle{Reward: rng.Float64() * 100 * scale, Dt: float64(rng.IntN(50)), Level: -1}
	}
	for i := 0; i+24 <= len(raw) && i/24 < n; i += 24 {
		k := i / 24
		theta[k] = math.Float64frombits(binary.LittleEndian.Uint64(raw[i:]))
		menu[k].Reward = math.Float64frombits(binary.LittleEndian.Uint64(raw[i+8:]))
		menu[k].Dt = math.Float64frombits(binary.LittleEndian.Uint64(raw[i+16:]))
	}
	return theta, menu
}

// FuzzVerify: Verify never panics; malformed input is a one-line error; a
// report's violations are exactly the broken constraints; a valid menu lets
// every type choose its own bundle and pays at least the minimal rewards.
func FuzzVerify(f *testing.F) {
	f.Add(uint64(1), uint8(3), 10.0, 1.0, false, []byte(nil))
	f.Add(uint64(2), uint8(1), 0.5, 0.01, true, []byte(nil))
	f.Add(uint64(3), uint8(6), 1e-3, 100.0, false, []byte(nil))
	f.Add(uint64(4), uint8(2), -1.0, 1.0, false, []byte(nil))
	f.Add(uint64(5), uint8(2), 1.0, 1.0, false, bytes.Repeat([]byte{0xff}, 48))
	for _, c := range badCorpusMenus(f) {
		f.Add(uint64(6), uint8(len(c.theta)-1), c.c0, 1.0, false, c.raw)
	}
	f.Fuzz(func(t *testing.T, seed uint64, n8 uint8, c0, scale float64, cubic bool, raw []byte) {
		n := 1 + int(n8%8)
		cost := fuzzCost(t, c0, cubic)
		if cost == nil {
			return
		}
		theta, menu := randomMenu(seed, n, scale, raw)
		rep, err := Verify(menu, theta, cost)
		if err != nil {
			checkModelErr(t, err)
			return
		}
		checkReport(t, rep, menu, theta, cost)
	})
}

// corpusMenu is a `drsim contract verify` case of testdata/bad as a
// FuzzVerify input: θ, c0, and the menu in randomMenu's raw layout.
type corpusMenu struct {
	theta []float64
	c0    float64
	raw   []byte
}

// badCorpusMenus reads the --types, --c0 and --menu flags of the contract
// verify cases in testdata/bad (the worked example, broken menus, bad θ and
// c0) to seed FuzzVerify.
func badCorpusMenus(f *testing.F) []corpusMenu {
	files, _ := filepath.Glob("../testdata/bad/contract-*/args")
	var out []corpusMenu
	for _, p := range files {
		b, err := os.ReadFile(p)
		if err != nil || !bytes.Contains(b, []byte("contract verify")) {
			continue
		}
		var c corpusMenu
		var menu [][2]float64
		args := strings.Fields(string(b))
		for i := 0; i+1 < len(args); i++ {
			switch v := args[i+1]; args[i] {
			case "--types":
				for _, s := range strings.Split(v, ",") {
					x, _ := strconv.ParseFloat(s, 64)
					c.theta = append(c.theta, x)
				}
			case "--c0":
				c.c0, _ = strconv.ParseFloat(v, 64)
			case "--menu":
				for _, s := range strings.Split(v, ",") {
					r, dt, _ := strings.Cut(s, ":")
					x, _ := strconv.ParseFloat(r, 64)
					y, _ := strconv.ParseFloat(dt, 64)
					menu = append(menu, [2]float64{x, y})
				}
			}
		}
		if len(c.theta) == 0 {
			f.Fatalf("%s: no --types", p)
		}
		for i, th := range c.theta {
			var rd [2]float64
			if i < len(menu) {
				rd = menu[i]
			}
			for _, v := range []float64{th, rd[0], rd[1]} {
				c.raw = binary.LittleEndian.AppendUint64(c.raw, math.Float64bits(v))
			}
		}
		out = append(out, c)
	}
	if len(out) < 5 {
		f.Fatalf("found %d contract verify cases in testdata/bad; want the corpus's", len(out))
	}
	return out
}

func checkReport(t *testing.T, rep *Report, menu []Bundle, theta []float64, cost Cost) {
	t.Helper()
	n := len(theta)
	var ir, ic, mono int
	for i := range n {
		own := menu[i].Reward - theta[i]*cost.C(menu[i].Dt)
		if own < -Tol {
			ir++
		}
		for j := range n {
			if u := menu[j].Reward - theta[i]*cost.C(menu[j].Dt); j != i && u-own > Tol {
				ic++
			}
		}
		if i+1 < n && menu[i+1].Dt-menu[i].Dt > DtTol {
			mono++
		}
	}
	if len(rep.Violations) != ir+ic+mono {
		t.Fatalf("θ %v menu %v: %d violations reported, want %d IR + %d IC + %d monotonicity", theta, menu, len(rep.Violations), ir, ic, mono)
	}
	for i, c := range rep.Choice {
		if c < -1 || c >= n {
			t.Fatalf("type %d chooses bundle %d of %d", i+1, c, n)
		}
	}
	var buf bytes.Buffer
	if err := rep.WriteText(&buf); err != nil {
		t.Fatal(err)
	}
	if err := rep.WriteJSON(&buf); err != nil && !anyNonFinite(rep) {
		t.Fatal(err)
	}
	if !rep.OK() {
		if rep.Err() == nil || strings.Contains(rep.Err().Error(), "\n") {
			t.Fatalf("invalid menu: Err() = %v", rep.Err())
		}
		return
	}
	for i, c := range rep.Choice {
		if c != i {
			t.Fatalf("valid menu %v for θ %v: type %d chooses bundle %d", menu, theta, i+1, c+1)
		}
	}
	// IR on top and the downward ICs give slack_{i-1} >= slack_i - Tol.
	for j, s := range rep.Slack {
		if tol := float64(n-j)*Tol + 1e-9*(math.Abs(menu[j].Reward)+math.Abs(rep.MinReward[j])); s < -tol {
			t.Fatalf("valid menu %v for θ %v pays bundle %d %v below its minimal reward %v", menu, theta, j+1, -s, rep.MinReward[j])
		}
	}
}

func anyNonFinite(r *Report) bool {
	for _, row := range r.Utility {
		for _, u := range row {
			if math.IsInf(u, 0) || math.IsNaN(u) {
				return true
			}
		}
	}
	return false
}

// randomTypes draws n types with l frequency levels each: power rising and
// runtime scale falling with X, as in the built-in profiles.
func randomTypes(seed uint64, n, l int) []Type {
	rng := rand.New(rand.NewPCG(seed, 1))
	types := make([]Type, n)
	th := 0.0
	for i := range types {
		th += 0.05 + rng.Float64()
		ls := make([]powercap.Level, l)
		x, p, s := 1.0, 50+rng.Float64()*50, 1+rng.Float64()*2
		for k := range ls {
			ls[k] = powercap.Level{X: x, Power: p, Scale: s}
			x += 0.1 + rng.Float64()
			p += rng.Float64() * 40
			s = 1 + (s-1)*rng.Float64()
		}
		ls[l-1].Scale = 1
		types[i] = Type{Theta: th, M: float64(rng.IntN(4)), Procs: 1 + rng.IntN(64), Levels: ls}
	}
	return types
}

// FuzzOptimal: the optimal menu verifies, and no monotone choice of levels
// (brute force over every combination) earns the operator more.
func FuzzOptimal(f *testing.F) {
	f.Add(uint64(1), uint8(3), uint8(3), 40.0, 10.0, false)
	f.Add(uint64(7), uint8(1), uint8(4), -5.0, 0.01, true)
	f.Add(uint64(9), uint8(4), uint8(2), 500.0, 1e-4, false)
	f.Fuzz(func(t *testing.T, seed uint64, n8, l8 uint8, price, c0 float64, cubic bool) {
		n, l := 1+int(n8%4), 1+int(l8%4)
		cost := fuzzCost(t, c0, cubic)
		if cost == nil || math.IsNaN(price) || math.Abs(price) > 1e6 {
			return
		}
		types := randomTypes(seed, n, l)
		opts := SlotOptions{Price: price, Cost: cost}
		m, err := Optimal(types, opts)
		if err != nil {
			if strings.Contains(err.Error(), "all type weights") {
				return
			}
			t.Fatalf("Optimal: %v", err)
		}
		if !m.Report.OK() {
			t.Fatalf("optimal menu fails verification: %v", m.Report.Err())
		}
		theta := make([]float64, n)
		for i, ty := range types {
			theta[i] = ty.Theta
		}
		best := bruteOptimum(types, theta, opts)
		if tol := 1e-7 * (1 + math.Abs(best)); m.Utility < best-tol {
			t.Fatalf("Optimal utility %v below the brute-force optimum %v", m.Utility, best)
		}
	})
}

// bruteOptimum returns the best operator utility over every assignment of
// candidate levels with Δt non-increasing, rewards at the minimal IR/IC
// rewards.
func bruteOptimum(types []Type, theta []float64, o SlotOptions) float64 {
	cands := make([][]candidate, len(types))
	for i, ty := range types {
		cands[i] = candidates(ty, o)
	}
	best := math.Inf(-1)
	pick := make([]int, len(types))
	var rec func(i int)
	rec = func(i int) {
		if i == len(types) {
			c := make([]float64, len(types))
			gain := 0.0
			for k, p := range pick {
				c[k] = cands[k][p].c
				gain += cands[k][p].gain
			}
			r := MinRewards(theta, c)
			for k := range r {
				gain -= types[k].M * r[k]
			}
			best = math.Max(best, gain)
			return
		}
		for p, cd := range cands[i] {
			if i > 0 && cd.dt > cands[i-1][pick[i-1]].dt {
				continue
			}
			pick[i] = p
			rec(i + 1)
		}
	}
	rec(0)
	return best
}
