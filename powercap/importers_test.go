package powercap

import (
	"errors"
	"math"
	"strings"
	"testing"
	"testing/fstest"
)

func TestDuration(t *testing.T) {
	tests := []struct {
		in   string
		want float64 // hand-computed
	}{
		{"3m06s359112us", 186.359112},
		{"1m00s789us", 60.000789}, // µs part unpadded: 789 µs, not .789 s
		{"1s952122us", 1.952122},
		{"183s879491us", 183.879491},
		{"0s0us", 0},
	}
	for _, tc := range tests {
		if got, err := duration(tc.in); err != nil || math.Abs(got-tc.want) > 1e-9 {
			t.Errorf("duration(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
		}
	}
	for _, bad := range []string{"", "3m", "1.5s0us", "5s", "m1s2us"} {
		if _, err := duration(bad); err == nil {
			t.Errorf("duration(%q) succeeded", bad)
		}
	}
}

func TestReadIconoclastSynthetic(t *testing.T) {
	data := "data.csv,  \n" +
		"app-2.00GHz.out,1m40s0us 0s0us 99s0us 1000.0J 500J 10.0W  \n" +
		"sleep-2.00GHz.out,1m00s0us 0s0us 0s0us 360J 30J 6.0W  \n" +
		"sleep-3.00GHz.out,1m00s0us 0s0us 0s0us 420J 30J 7.0W  \n" +
		"app-3.00GHz.out,1m20s0us 0s0us 79s0us 1200J 600J 15.0W\n"
	ds, err := ReadIconoclast(fstest.MapFS{"d.csv": {Data: []byte(data)}}, "d.csv")
	if err != nil {
		t.Fatal(err)
	}
	// power = PKG J / real s: 1000/100 = 10, 1200/80 = 15; idle = mean(6, 7).
	want := []Point{{App: "app", Freq: 2, Power: 10, Runtime: 100, File: "d.csv", Line: 2}, {App: "app", Freq: 3, Power: 15, Runtime: 80, File: "d.csv", Line: 5}}
	if len(ds.Points) != 2 || ds.Points[0] != want[0] || ds.Points[1] != want[1] || ds.IdleW["app"] != 6.5 {
		t.Errorf("ReadIconoclast = %+v idle %v, want %+v idle 6.5", ds.Points, ds.IdleW, want)
	}
	_, err = ReadIconoclast(fstest.MapFS{"d.csv": {Data: []byte("data.csv,\napp-2.00GHz.out,1m40s 0s0us\n")}}, "d.csv")
	if err == nil || !strings.HasPrefix(err.Error(), "d.csv:2:") {
		t.Errorf("bad line: error %v, want d.csv:2:…", err)
	}
}

func TestReadPCMSynthetic(t *testing.T) {
	head := "System,System,System\nTime,CFREQ,Proc Energy (Joules)\n"
	fsys := fstest.MapFS{
		"big/app_x/pcm_app_x_80.csv":  {Data: []byte(head + "10:00:00.000,1.0,5\n10:00:00.500,2.0,10\n10:00:02.000,3.0,25\n")},
		"big/app_x/pcm_app_x_120.csv": {Data: []byte(head + "23:59:00.000,2.0,10\n23:59:01.000,2.0,30\n")},
		"bad/a/pcm_a_80.csv":          {Data: []byte(head + "10:00:00.000,1.0,5\n10:00:00.100,fast,5\n")},
		"gone/a/pcm_a_80.csv":         {Data: []byte("System,System\nTime,Proc Energy (Joules)\n1:0:0,1\n1:0:1,1\n")},
	}
	ds, err := ReadPCMSweep(fsys, "big")
	if err != nil {
		t.Fatal(err)
	}
	// 80 W: runtime 2 s, energy 40 J → 20 W, mean CFREQ 2; 120 W: 1 s, 40 J.
	if len(ds.Points) != 2 {
		t.Fatalf("%d points, want 2", len(ds.Points))
	}
	p80, p120 := ds.Points[0], ds.Points[1]
	if p80.App != "app_x" || p80.Cap != 80 || p80.Runtime != 2 || p80.Power != 20 || p80.Freq != 2 {
		t.Errorf("80 W point = %+v, want app_x, 2 s, 20 W, 2 GHz", p80)
	}
	if p120.Cap != 120 || p120.Runtime != 1 || p120.Power != 40 {
		t.Errorf("120 W point = %+v, want 1 s, 40 W", p120)
	}
	if _, err := ReadPCMSweep(fsys, "bad"); err == nil || err.Error() != `bad/a/pcm_a_80.csv:4:2: CFREQ: "fast" is not a number` {
		t.Errorf("bad CFREQ: error %v", err)
	}
	_, err = ReadPCMSweep(fsys, "gone")
	if fe, ok := errors.AsType[*FileError](err); !ok || fe.Line != 2 || fe.Field != "CFREQ" {
		t.Errorf("missing column: error %v, want line 2 field CFREQ", err)
	}
}

func TestReadECPSynthetic(t *testing.T) {
	head := "CPU Cap (W),GPU Cap (W),CPU_E (J),GPU_E (J),Runtime (s)\n"
	fsys := fstest.MapFS{
		"d/app_cap_dual.csv": {Data: []byte(head + "250,260,1000,1,10\n250,100,9,9,9\n120,260,600,1,12\n120,100,9,9,9\n")},
		"d/app_cap_gpu.csv":  {Data: []byte(head + "540,250,1,1,1\n")},
		"d/old_cap_cpu.csv":  {Data: []byte("CPU Cap (W),GPU Cap (W),Runtime (s)\n60,260,25\n")},
	}
	ds, err := ReadECP(fsys, "d")
	if err != nil {
		t.Fatal(err)
	}
	// dual: only GPU cap 260 rows; power = CPU_E / runtime; gpu sweep skipped.
	if len(ds.Points) != 3 {
		t.Fatalf("points %+v, want 3", ds.Points)
	}
	a, b, c := ds.Points[0], ds.Points[1], ds.Points[2]
	if a.App != "app" || a.Cap != 120 || a.Power != 50 || b.Cap != 250 || b.Power != 100 || c.App != "old" || !math.IsNaN(c.Power) {
		t.Errorf("points = %+v", ds.Points)
	}
}

func TestReadGenericErrors(t *testing.T) {
	tests := []struct{ name, data, want string }{
		{"bad number", "app,x,power_w,runtime_s\na,1,2,x\n", `m.csv:2:4: runtime_s: "x" is not a number`},
		{"Inf", "app,x,power_w,runtime_s\na,Inf,2,3\n", `m.csv:2:2: x: "Inf": value is NaN or infinite`},
		{"missing column", "app,x,runtime_s\na,1,2\n", `m.csv:1: power_w: missing column`},
		{"empty app", "app,x,power_w,runtime_s\n,1,2,3\n", `m.csv:2:1: app: empty application name`},
	}
	for _, tc := range tests {
		_, err := ReadGeneric(fstest.MapFS{"m.csv": {Data: []byte(tc.data)}}, "m.csv")
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("%s: ReadGeneric error = %v, want prefix %q", tc.name, err, tc.want)
		}
	}
	// energy_j / (nodes · runtime_s) when power_w is empty: 1200 / (2 · 10) = 60 W.
	ds, err := ReadGeneric(fstest.MapFS{"m.csv": {Data: []byte("app,x,power_w,runtime_s,nodes,energy_j\na,2,,10,2,1200\n")}}, "m.csv")
	if err != nil || ds.Points[0].Power != 60 {
		t.Errorf("energy-derived power = %+v, %v; want 60 W", ds.Points, err)
	}
}

var sinkCurve Curve

func BenchmarkFitCurve(b *testing.B) {
	caps := []float64{80, 100, 120, 140, 160, 180, 200, 220, 240, 250}
	y := make([]float64, len(caps))
	for i, x := range caps {
		y[i] = 140*math.Exp(-0.0175*x) + 18.5 + 0.3*math.Sin(x)
	}
	for _, f := range []Form{Cubic, Exp} {
		b.Run(string(f), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				sinkCurve, _ = FitCurve(f, caps, y)
			}
		})
	}
}
