package sim

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"drsim/cluster"
	"drsim/netmodel"
	"drsim/results"
	"drsim/scheduler"
	"drsim/workloads"
)

// runtimes records the mean runtime (end − start) of finished jobs.
type runtimes struct {
	n   int
	sum float64
}

func (r *runtimes) Record(rec *results.Record) error {
	r.n++
	r.sum += rec.End - rec.Start
	return nil
}

func (r *runtimes) mean() float64 { return r.sum / float64(r.n) }

// runNet runs the embedded workload (first jobs jobs) under s and returns
// jobs.csv, the mean runtime and the result.
func runNet(t *testing.T, s Spec, jobs int) ([]byte, float64, *Result) {
	t.Helper()
	s.Jobs = jobs
	tr, err := Load(s)
	if err != nil {
		t.Fatal(err)
	}
	var csv bytes.Buffer
	rt := &runtimes{}
	res, err := Run(context.Background(), s, tr, Outputs{Jobs: &csv, Record: rt})
	if err != nil {
		t.Fatalf("Run(%+v): %v", s, err)
	}
	if res.Stats.NViolations > 0 {
		t.Fatalf("invariant violations: %v", res.Stats.Violations)
	}
	return csv.Bytes(), rt.mean(), res
}

// With the model off the replay is the recorded one, byte for byte; with
// the model on but only c = 0 applications (ep) it is too, since the
// multiplier (1−0)·scale + 0·ratio is exactly scale.
func TestNetworkOffIsByteIdentical(t *testing.T) {
	for _, s := range []Spec{
		{Check: true, NetModel: "off"},
		{Check: true, NetModel: "off", Preset: "edison"},  // topology only guides placement (contiguous ignores it)
		{Check: true, Preset: "edison", AppMap: "one:ep"}, // model on, c = 0
		{Check: true, Preset: "hopper", AppMap: "one:xsbench", Interference: "on", Placement: "scattered"},
	} {
		base, _, _ := runNet(t, Spec{Check: true, AppMap: s.AppMap, Placement: s.Placement}, 1500)
		got, _, res := runNet(t, s, 1500)
		if !bytes.Equal(got, base) {
			t.Errorf("%+v: jobs.csv differs from the run without a network model", s)
		}
		if on := s.NetModel != "off"; on != (res.Summary.NetStarts > 0) {
			t.Errorf("%+v: NetStarts = %d", s, res.Summary.NetStarts)
		}
	}
}

// The issue's acceptance test: the same trace with one communication-heavy
// application (ft, c = 0.5) is never faster scattered than contiguous; the
// topology placement spans fewer switches than scattered.
func TestScatteredNotFasterForCommHeavy(t *testing.T) {
	for _, preset := range []string{"edison", "hopper", "stampede"} {
		for _, inter := range []string{"off", "on"} {
			t.Run(preset+"/interference-"+inter, func(t *testing.T) {
				s := Spec{Check: true, Preset: preset, AppMap: "one:ft", Interference: inter}
				s.Placement = "contiguous"
				_, contig, rc := runNet(t, s, 800)
				s.Placement = "scattered"
				_, scat, rs := runNet(t, s, 800)
				s.Placement = "topology"
				_, _, rt := runNet(t, s, 800)
				if scat < contig {
					t.Errorf("mean runtime scattered %.1f s < contiguous %.1f s", scat, contig)
				}
				t.Logf("mean runtime contiguous %.1f s, scattered %.1f s; switches %.2f / %.2f / %.2f (topology)",
					contig, scat, rc.Summary.MeanSwitches, rs.Summary.MeanSwitches, rt.Summary.MeanSwitches)
				if !(scat > contig) {
					t.Errorf("scattered %.1f s is not slower than contiguous %.1f s for ft", scat, contig)
				}
				cs, ss, ts := rc.Summary, rs.Summary, rt.Summary
				if !(ts.MeanSwitches < ss.MeanSwitches) || !(cs.MeanSwitches < ss.MeanSwitches) {
					t.Errorf("switches spanned: contiguous %.2f, scattered %.2f, topology %.2f", cs.MeanSwitches, ss.MeanSwitches, ts.MeanSwitches)
				}
				if ss.NonContig <= cs.NonContig {
					t.Errorf("non-contiguous fraction: scattered %.3f ≤ contiguous %.3f", ss.NonContig, cs.NonContig)
				}
			})
		}
	}
}

func TestNetworkDeterministic(t *testing.T) {
	s := Spec{Check: true, Preset: "edison", Placement: "scattered", Interference: "on", Seed: 5}
	a, _, ra := runNet(t, s, 1000)
	b, _, rb := runNet(t, s, 1000)
	var ta, tb bytes.Buffer
	ra.Summary.WriteTable(&ta)
	rb.Summary.WriteTable(&tb)
	if !bytes.Equal(a, b) || !bytes.Equal(ta.Bytes(), tb.Bytes()) || !strings.Contains(ta.String(), "placement spread") {
		t.Fatal("two identical runs with interference differ")
	}
}

func TestNetworkSpecErrors(t *testing.T) {
	dir := t.TempDir()
	small := filepath.Join(dir, "small.toml")
	if err := os.WriteFile(small, []byte("kind = \"torus\"\ndims = [4, 4]\nlink_gbs = 5\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		s    Spec
		want string
	}{
		{Spec{NetModel: "yes"}, `netmodel: "yes" is not one of`},
		{Spec{Interference: "1"}, `interference: "1" is not one of`},
		{Spec{NetModel: "on"}, "netmodel on: give a machine"},
		{Spec{Interference: "on"}, "interference on needs the network model"},
		{Spec{Placement: "topology"}, "placement topology needs a machine"},
		{Spec{Preset: "edison", Topology: small}, "not both"},
		{Spec{Preset: "nope"}, `unknown preset "nope"`},
		{Spec{Topology: small}, "topology torus has 16 nodes; the machine needs 256"},
		{Spec{Preset: "edison", NetModel: "off", Interference: "on"}, "netmodel is off"},
		{Spec{Topology: filepath.Join(dir, "missing.toml")}, "missing.toml"},
	} {
		tr, err := Load(Spec{Jobs: 10})
		if err != nil {
			t.Fatal(err)
		}
		_, err = Run(context.Background(), tc.s, tr, Outputs{})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Run(%+v) = %v, want an error containing %q", tc.s, err, tc.want)
		}
	}
}

// A topology file works like a preset; 4 processors per node map 256
// processors onto 64 of its 96 nodes.
func TestNetworkTopologyFile(t *testing.T) {
	f := filepath.Join(t.TempDir(), "fly.json")
	spec := `{"kind": "dragonfly", "groups": 4, "routers_per_group": 6, "rows": 2, "nodes_per_router": 4, "global_per_router": 2, "link_gbs": 5}`
	if err := os.WriteFile(f, []byte(spec), 0o644); err != nil {
		t.Fatal(err)
	}
	_, _, res := runNet(t, Spec{Check: true, Topology: f, ProcsPerNode: 4, Placement: "topology", Interference: "on", AppMap: "one:cg"}, 500)
	if s := res.Summary; s.NetStarts < 500 || s.MeanSwitches < 1 || s.MeanGroups < 1 || s.MeanGroups > 4 {
		t.Fatalf("spread: %d starts, %.2f switches, %.2f groups", s.NetStarts, s.MeanSwitches, s.MeanGroups)
	}
}

// adapterOn builds an adapter on edison (4 nodes per router, 96 routers per
// group) for one application.
func adapterOn(t *testing.T, app string, inter bool) *NetAdapter {
	t.Helper()
	topo, err := netmodel.Preset("edison")
	if err != nil {
		t.Fatal(err)
	}
	m, _ := netmodel.NewModel(topo, netmodel.Config{})
	return NewNetAdapter(m, NetApps([]string{app}), 1, inter)
}

func TestNetAdapterRatios(t *testing.T) {
	a := adapterOn(t, "ft", false)
	// The compact placement itself: T(actual)/T(compact) is exactly 1.
	if c, r := a.Started(0, 0, 64, []cluster.Range{{Lo: 0, Hi: 64}}); c != 0.5 || r != 1 {
		t.Fatalf("compact: c, ratio = %v, %v; want 0.5, 1", c, r)
	}
	// Every other node: twice the routers and more hops.
	var spread []cluster.Range
	for p := int32(0); p < 128; p += 2 {
		spread = append(spread, cluster.Range{Lo: 1000 + p, Hi: 1001 + p})
	}
	if _, r := a.Started(1, 0, 64, spread); !(r > 1) {
		t.Fatalf("spread placement ratio = %v, want > 1", r)
	}
	// A single node, or an app without communication: ratio 1.
	if c, r := a.Started(2, 0, 1, []cluster.Range{{Lo: 5000, Hi: 5001}}); c != 0.5 || r != 1 {
		t.Fatalf("one node: %v, %v", c, r)
	}
	if n, sw, gr, nc := a.Spread(); n != 3 || sw != (16+32+1)/3.0 || gr != 1 || nc != 1/3.0 {
		t.Fatalf("Spread = %d, %v, %v, %v; want 3, %v, 1, 1/3", n, sw, gr, nc, (16+32+1)/3.0)
	}
	b := adapterOn(t, "unlisted-app", false)
	if b.apps[0].Fraction != 0.2 || b.apps[0].Name != "unlisted-app" {
		t.Fatalf("default profile = %+v", b.apps[0].App)
	}
}

// Two jobs whose flows share links change each other's ratio; a job on
// other routers is not touched; finishing restores the first job's ratio.
func TestNetAdapterInterference(t *testing.T) {
	a := adapterOn(t, "ft", true)
	// Jobs 0 and 1 take two nodes each of routers 0-15 (4 nodes per
	// router), so their all-to-all traffic crosses the same router links.
	var first, mixed []cluster.Range
	for p := int32(0); p < 64; p += 4 {
		first = append(first, cluster.Range{Lo: p, Hi: p + 2})
		mixed = append(mixed, cluster.Range{Lo: p + 2, Hi: p + 4})
	}
	_, r0 := a.Started(0, 0, 32, first)
	if got := a.Changed(nil); len(got) != 0 {
		t.Fatalf("Changed after one start = %v", got)
	}
	a.Started(1, 0, 32, mixed)
	// A job in another group, alone on its routers' links (ft's shifts stay
	// inside the job's own routers and their global links).
	_, r2 := a.Started(2, 0, 4, []cluster.Range{{Lo: 2000, Hi: 2004}})
	if r2 != 1 {
		t.Fatalf("job on one router alone: ratio %v, want 1", r2)
	}
	got := a.Changed(nil)
	if len(got) != 1 || got[0].Slot != 0 || !(got[0].Ratio > r0) {
		t.Fatalf("Changed after a sharing job started = %+v, want slot 0 with ratio > %v", got, r0)
	}
	if again := a.Changed(nil); len(again) != 0 {
		t.Fatalf("second Changed = %v, want none", again)
	}
	a.Finished(1)
	got = a.Changed(nil)
	if len(got) != 1 || got[0].Slot != 0 || math.Abs(got[0].Ratio-r0) > 1e-12 {
		t.Fatalf("Changed after the sharing job ended = %+v, want slot 0 back to %v", got, r0)
	}
	// A finished job's pending change is dropped (its slot may be reused).
	_, _ = a.Started(1, 0, 32, mixed)
	a.Finished(0)
	if got := a.Changed(nil); len(got) != 1 || got[0].Slot != 1 {
		t.Fatalf("Changed = %+v, want only slot 1", got)
	}
}

// The engine re-times a running job exactly when the adapter reports a new
// ratio: job A (c = 0.5) shares links with B until B ends, then runs
// uncontended. No power model, so the compute scale is 1.
func TestNetworkRetimesExactly(t *testing.T) {
	a := adapterOn(t, "ft", true)
	var ends [2]float64
	rec := recorderFunc(func(r *results.Record) error { ends[r.ID-1] = r.End; return nil })
	eng, err := scheduler.New(scheduler.Config{Procs: 128, Network: a, Recorder: rec, Placement: "scattered", Seed: 3, Check: true})
	if err != nil {
		t.Fatal(err)
	}
	jobs := []workloads.Job{
		{ID: 1, Submit: 0, Run: 1000, Procs: 64, ReqTime: 5000},
		{ID: 2, Submit: 0, Run: 100, Procs: 64, ReqTime: 5000},
	}
	// Replay the same starts on a twin adapter to get the ratios by hand.
	twin := adapterOn(t, "ft", true)
	al, _ := cluster.NewScattered(cluster.PlacementConfig{Procs: 128, Seed: 3})
	ra, _ := al.Alloc(64, nil)
	rb, _ := al.Alloc(64, nil)
	_, alone := twin.Started(0, 0, 64, ra)
	_, rB := twin.Started(1, 0, 64, rb)
	ch := twin.Changed(nil)
	if len(ch) != 1 {
		t.Fatalf("twin: jobs do not share links: %v", ch)
	}
	mA, mB, mAlone := 0.5+0.5*ch[0].Ratio, 0.5+0.5*rB, 0.5+0.5*alone
	endB := 100 * mB
	endA := endB + (1-endB/(1000*mA))*1000*mAlone
	if err := eng.Run(context.Background(), &scheduler.SliceSource{Jobs: jobs}); err != nil {
		t.Fatal(err)
	}
	if math.Abs(ends[1]-endB) > 1e-9*endB || math.Abs(ends[0]-endA) > 1e-9*endA {
		t.Fatalf("ends A %.9f B %.9f, want %.9f %.9f", ends[0], ends[1], endA, endB)
	}
	if !(endA < 1000*mA) {
		t.Fatalf("A did not speed up after B left: %v vs %v", endA, 1000*mA)
	}
}

type recorderFunc func(*results.Record) error

func (f recorderFunc) Record(r *results.Record) error { return f(r) }

// The adapter's cached ratio is Model.AppRatio exactly, hit or miss.
func TestNetAdapterRatioIsAppRatio(t *testing.T) {
	topo, _ := netmodel.Preset("hopper")
	m, _ := netmodel.NewModel(topo, netmodel.Config{})
	apps := NetApps([]string{"ft", "lulesh", "lu", "cg", "other"})
	a := NewNetAdapter(m, apps, 1, false)
	rng := rand.New(rand.NewPCG(4, 0))
	for i := 0; i < 300; i++ {
		n := 2 + rng.IntN(200)
		perm := rng.Perm(topo.Nodes())[:n]
		j := &netJob{app: int32(i % len(apps))}
		for _, v := range perm {
			j.nodes = append(j.nodes, int32(v))
		}
		share := 1.0
		if i%3 == 0 {
			share = 0.1 + 0.9*rng.Float64()
		}
		want := m.AppRatio(j.nodes, apps[j.app], share)
		for k := 0; k < 2; k++ { // miss, then hit
			if got := a.ratio(j, share); got != want {
				t.Fatalf("ratio(%d nodes, %s, share %v) = %v, want AppRatio %v", n, apps[j.app].Name, share, got, want)
			}
		}
	}
}

// Two ft jobs (c = 0.5) of 32 nodes each share edison's routers 0-15, two
// nodes per router each (the compact placement would use routers 0-7).
// Job 1's start slows job 0; its end restores job 0's ratio.
func ExampleNetAdapter() {
	topo, _ := netmodel.Preset("edison")
	m, _ := netmodel.NewModel(topo, netmodel.Config{})
	a := NewNetAdapter(m, NetApps([]string{"ft"}), 1, true)
	var first, second []cluster.Range
	for p := int32(0); p < 64; p += 4 { // 4 nodes per router
		first = append(first, cluster.Range{Lo: p, Hi: p + 2})
		second = append(second, cluster.Range{Lo: p + 2, Hi: p + 4})
	}
	c, r := a.Started(0, 0, 32, first)
	fmt.Printf("job 0 alone: c %.2f, ratio %.3f, runtime factor %.3f\n", c, r, netmodel.RuntimeFactor(c, 1, r))
	_, r = a.Started(1, 0, 32, second)
	fmt.Printf("job 1: ratio %.3f\n", r)
	for _, ch := range a.Changed(nil) {
		fmt.Printf("re-time job %d: ratio %.3f\n", ch.Slot, ch.Ratio)
	}
	a.Finished(1)
	for _, ch := range a.Changed(nil) {
		fmt.Printf("re-time job %d: ratio %.3f\n", ch.Slot, ch.Ratio)
	}
	n, sw, gr, nc := a.Spread()
	fmt.Printf("%d starts, %.0f switches and %.0f group each, %.0f%% non-contiguous\n", n, sw, gr, 100*nc)
	// Output:
	// job 0 alone: c 0.50, ratio 1.045, runtime factor 1.023
	// job 1: ratio 2.072
	// re-time job 0: ratio 2.072
	// re-time job 0: ratio 1.045
	// 2 starts, 16 switches and 1 group each, 100% non-contiguous
}
