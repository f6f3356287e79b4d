package plot

import (
	"math"
)

// Small fixed inputs shared by the golden tests, the PNG previews and the examples.

const hour = 3600.0

// fixturePower: 6 h of 10-minute steps between about 200 and 400 kW, a 300 kW
// limit during the DR event from 2 h to 4 h, no limit elsewhere.
func fixturePower() Power {
	var in Power
	for i := range 36 {
		t := float64(i) * 600
		w := 300e3 + 80e3*math.Sin(float64(i)/3) + float64(i%4)*10e3
		if t >= 2*hour && t < 4*hour {
			w = math.Min(w, 290e3)
		}
		in.Steps = append(in.Steps, Step{T: t, W: w})
	}
	in.Limit = []Step{{0, math.Inf(1)}, {2 * hour, 300e3}, {4 * hour, math.Inf(1)}}
	in.Events = []Interval{{2 * hour, 4 * hour}}
	in.End = 6 * hour
	return in
}

func fixtureTradeOffs() []TradeOff {
	return []TradeOff{
		{"cap 0.9", "powercap", 4, 1},
		{"cap 0.8", "powercap", 9, 3.5},
		{"cap 0.7", "powercap", 14, 9},
		{"cap 0.6", "powercap", 17, 20},
		{"2.0 GHz", "dvfs", 6, 4},
		{"1.8 GHz", "dvfs", 11, 8},
		{"1.6 GHz", "dvfs", 13, 15},
		{"10%", "shutdown", 8, 2},
		{"20%", "shutdown", 12, 12},
		{"30%", "shutdown", 15, 14},
	}
}

// fixtureQueueUtil: 12 h, queue rising during the DR event (4 h to 6 h) while
// utilisation drops.
func fixtureQueueUtil() QueueUtil {
	var in QueueUtil
	for i := range 72 {
		t := float64(i) * 600
		q, u := float64(5+i%7), 85+10*math.Sin(float64(i)/5)
		if t >= 4*hour && t < 6*hour {
			q += float64(i-24) * 2
			u -= 35
		}
		in.Queue = append(in.Queue, Step{T: t, W: q})
		in.Util = append(in.Util, Step{T: t, W: u})
	}
	in.Events = []Interval{{4 * hour, 6 * hour}}
	in.End = 12 * hour
	return in
}

// fixtureGantt: 14 jobs on 16 processors over about 3 h.
func fixtureGantt() []Bar {
	return []Bar{
		{1, 0, 3600, []Range{{0, 8}}},
		{2, 0, 1800, []Range{{8, 12}}},
		{3, 0, 5400, []Range{{12, 16}}},
		{4, 1800, 4500, []Range{{8, 10}}},
		{5, 1800, 2700, []Range{{10, 12}}},
		{6, 2700, 6000, []Range{{10, 12}}},
		{7, 3600, 7200, []Range{{0, 4}, {6, 8}}},
		{8, 3600, 5000, []Range{{4, 6}}},
		{9, 4500, 9000, []Range{{8, 10}}},
		{10, 5400, 10800, []Range{{12, 16}}},
		{11, 5000, 6200, []Range{{4, 6}}},
		{12, 6000, 8000, []Range{{10, 12}}},
		{13, 7200, 10000, []Range{{0, 8}}},
		{14, 9000, 9600, []Range{{8, 10}}},
	}
}

// fixtureFit: runtime t(P) = 100 + 3000/P s of a LULESH-like job under a RAPL cap.
func fixtureFit() Fit {
	curve := func(p float64) float64 { return 100 + 3000/p }
	f := Fit{
		Name:   "LULESH runtime vs cap",
		XLabel: "Power cap (W)", YLabel: "Runtime (s)",
		Curve: curve, CurveLabel: "t = 100 + 3000/P",
	}
	for i, p := range []float64{40, 50, 60, 70, 80, 90, 100, 110, 120} {
		f.Points = append(f.Points, XY{p, curve(p) + float64(i%3-1)*2.5})
	}
	return f
}
