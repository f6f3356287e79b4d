package sim

import (
	"fmt"
	"os"
	"slices"

	"drsim/cluster"
	"drsim/netmodel"
	"drsim/results"
	"drsim/scheduler"
)

// DefaultNetApp is the communication profile of an application that
// netmodel.Apps does not list (for example a model from drsim calibrate
// under another name): c = 0.2, about the median of the listed estimates,
// with one 32 KiB six-neighbour halo exchange and one 8-byte allreduce per
// step, the shape of a typical stencil code (minife's). Each call returns a
// fresh value.
func DefaultNetApp(name string) netmodel.App {
	return netmodel.App{Name: name, Fraction: 0.2,
		Traffic: []netmodel.Traffic{{Pattern: netmodel.Halo3D, Size: 32 << 10, Weight: 1}, {Pattern: netmodel.Allreduce, Size: 8, Weight: 1}},
		Note:    "drsim default for applications without a netmodel profile (estimate)"}
}

// NetApps returns the communication profile of each named application:
// netmodel.LookupApp, or DefaultNetApp for names it does not know.
func NetApps(names []string) []netmodel.App {
	out := make([]netmodel.App, len(names))
	for i, n := range names {
		a, err := netmodel.LookupApp(n)
		if err != nil {
			a = DefaultNetApp(n)
		}
		out[i] = a
	}
	return out
}

// useNetwork resolves the spec's network options into cfg: the switch and
// group of every machine node (for the "topology" placement) and, when the
// model is on, a NetAdapter as cfg.Network. apps are the run's application
// names by index. Placement spread figures go into sum as jobs start.
func useNetwork(cfg *scheduler.Config, d Spec, apps []string, sum *results.Summary) error {
	if err := oneOf("netmodel", d.NetModel, "", "off", "on"); err != nil {
		return err
	}
	if err := oneOf("interference", d.Interference, "", "off", "on"); err != nil {
		return err
	}
	on, inter := d.NetModel == "on", d.Interference == "on"
	topo, err := loadTopology(d)
	if err != nil {
		return specErr(err)
	}
	if topo == nil {
		switch {
		case on:
			return specErr(fmt.Errorf("netmodel on: give a machine with preset or topology"))
		case inter:
			return specErr(fmt.Errorf("interference on needs the network model: give preset or topology"))
		case d.Placement == "topology":
			return specErr(fmt.Errorf("placement topology needs a machine: give preset or topology"))
		}
		return nil
	}
	ppn := max(cfg.ProcsPerNode, 1)
	nodes := (cfg.Procs + ppn - 1) / ppn
	if nodes > topo.Nodes() {
		return specErr(fmt.Errorf("topology %s has %d nodes; the machine needs %d (%d processors, %d per node)", topo.Name, topo.Nodes(), nodes, cfg.Procs, ppn))
	}
	order := topo.NodeOrder()[:nodes]
	cfg.Topology.Switch, cfg.Topology.Group = make([]int32, nodes), make([]int32, nodes)
	for k, n := range order {
		cfg.Topology.Switch[k], cfg.Topology.Group[k] = topo.SwitchOf(n), topo.GroupOf(n)
	}
	if d.NetModel == "off" {
		if inter {
			return specErr(fmt.Errorf("interference on needs the network model, but netmodel is off"))
		}
		return nil // the topology only guides placement
	}
	m, err := netmodel.NewModel(topo, netmodel.Config{})
	if err != nil {
		return err
	}
	a := NewNetAdapter(m, NetApps(apps), ppn, inter)
	a.sum = sum
	cfg.Network = a
	return nil
}

// loadTopology builds the spec's preset or topology file; nil when neither
// is given.
func loadTopology(d Spec) (*netmodel.Topology, error) {
	switch {
	case d.Preset != "" && d.Topology != "":
		return nil, fmt.Errorf("give preset or topology, not both")
	case d.Preset != "":
		return netmodel.Preset(d.Preset)
	case d.Topology != "":
		f, err := os.Open(d.Topology)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		return netmodel.LoadTopology(f, d.Topology)
	}
	return nil, nil
}

// NetAdapter implements scheduler.Network on a netmodel.Model.
//
// Machine node k (processors [k·ppn, (k+1)·ppn)) is topology node
// NodeOrder()[k]; a job's ranks are its distinct nodes in machine order. At
// a start the job's ratio is Model.AppRatio(nodes, app, share), with share 1
// without interference. With interference the job's dominant traffic (the
// entry with the largest Weight·Size) joins a netmodel.Network; every add
// or remove marks the jobs whose share changed, and Changed re-prices only
// those, once per call however often they changed. Jobs with c = 0, no
// traffic or a single node never enter the network.
type NetAdapter struct {
	m     *netmodel.Model
	net   *netmodel.Network // nil: no interference
	apps  []netApp
	order []int32 // topology node of each machine node
	ppn   int32
	jobs  []netJob // by engine slot
	dirty []int32  // slots whose share changed since the last Changed

	// placement spread
	seenSw, seenGr      []uint32 // stamp per switch/group of the job being counted
	stamp               uint32
	swRun, grRun        []int32 // per machine node, its switch's/group's run along the node order (nil: a switch/group has two runs)
	starts, nonContig   int
	switchSum, groupSum float64
	sum                 *results.Summary // optional, kept up to date

	// caches: T_comm of the compact placement per app and node count, and
	// the price of recent placements per app (direct-mapped by hash)
	den    [][]float64
	cache  []ratioEntry
	paths  *netmodel.PathCache // the machine's node pairs and sampled ranks, for new rounds
	rounds netmodel.Rounds     // scratch: the rounds of a placement being priced, through paths
	canon  []int32             // the canonical form of the placement looked up last
}

// ratioEntry holds the prices of one placement per app (empty: not priced
// yet), and the rounds its apps walked.
type ratioEntry struct {
	nodes  []int32
	prices []netmodel.Price
	memo   netmodel.RoundMemo // the placement's rounds, shared by its apps
}

const ratioCacheSize = 1 << 14 // placements, a power of two

type netApp struct {
	netmodel.App
	pat netmodel.Pattern // dominant pattern, for the interference flows
}

type netJob struct {
	nodes                 []int32        // topology nodes, reused across the slot's jobs
	price                 netmodel.Price // T_comm of the job's app and placement by share, for re-pricing
	app                   int32
	ratio                 float64
	running, inNet, dirty bool
}

var _ scheduler.Network = (*NetAdapter)(nil)

// NewNetAdapter returns an adapter for applications apps (by engine app
// index; an index out of range gets DefaultNetApp) on a machine with
// procsPerNode processors per node (0 means 1).
func NewNetAdapter(m *netmodel.Model, apps []netmodel.App, procsPerNode int, interference bool) *NetAdapter {
	t := m.Topology()
	a := &NetAdapter{m: m, order: t.NodeOrder(), ppn: int32(max(procsPerNode, 1)),
		seenSw: make([]uint32, t.Switches()), seenGr: make([]uint32, t.Groups()),
		cache: make([]ratioEntry, ratioCacheSize), paths: m.NewPathCache()}
	a.rounds.UsePaths(a.paths)
	a.swRun = orderRuns(a.order, t.SwitchOf, t.Switches())
	a.grRun = orderRuns(a.order, t.GroupOf, t.Groups())
	if interference {
		a.net = netmodel.NewNetwork(t)
	}
	for _, app := range append(slices.Clone(apps), DefaultNetApp("default")) {
		na := netApp{App: app}
		best := -1.0
		for _, tr := range app.Traffic {
			if v := tr.Weight * tr.Size; v > best {
				best, na.pat = v, tr.Pattern
			}
		}
		a.apps = append(a.apps, na)
	}
	a.den = make([][]float64, len(a.apps))
	return a
}

// ratio is Model.AppRatio(j.nodes, app, share), with the compact
// denominator cached per node count and the numerator from the job's
// netmodel.Price, which its first pricing copies from the placement's
// cache entry (priced there once per app, from rounds the placement's
// other apps may have walked): the same sums in the same order, so the
// same value.
func (a *NetAdapter) ratio(j *netJob, share float64) float64 {
	if j.price.Len() == 0 {
		e := a.entry(j.nodes)
		pe := &e.prices[j.app]
		if pe.Len() == 0 {
			a.rounds.Reset()
			a.rounds.UseMemo(&e.memo)
			a.m.PriceRounds(pe, &a.rounds, j.nodes, a.apps[j.app].Traffic)
		}
		j.price.CopyFrom(pe)
	}
	num := j.price.Time(share)
	if den := a.compactTime(j.app, len(j.nodes)); den > 0 && num > 0 {
		return num / den
	}
	return 1
}

// entry returns the cache entry of placement nodes, emptied if it held
// another placement.
//
// Placements are keyed by their canonical form (Topology.Canonical: on a
// torus, translated to the corner), whose ratios and round statistics are
// theirs bit for bit, so translated placements share one entry.
func (a *NetAdapter) entry(nodes []int32) *ratioEntry {
	a.canon = a.m.Topology().Canonical(nodes, a.canon[:0])
	nodes = a.canon
	h := uint64(14695981039346656037)
	for _, n := range nodes {
		h = (h ^ uint64(uint32(n))) * 1099511628211
	}
	e := &a.cache[h&(ratioCacheSize-1)]
	if e.prices == nil || !slices.Equal(e.nodes, nodes) {
		e.nodes = append(e.nodes[:0], nodes...)
		if e.prices == nil {
			e.prices = make([]netmodel.Price, len(a.apps))
		}
		for i := range e.prices {
			e.prices[i].Reset()
		}
		e.memo.Reset()
	}
	return e
}

// compactTime is Σ w·T_comm of app on the first n nodes of the node order,
// without contention.
func (a *NetAdapter) compactTime(app int32, n int) float64 {
	d := a.den[app]
	if n >= len(d) {
		old := len(d)
		d = append(d, make([]float64, n+1-old)...)
		for i := old; i < len(d); i++ {
			d[i] = -1
		}
		a.den[app] = d
	}
	if d[n] < 0 {
		d[n] = 0
		for _, tr := range a.apps[app].Traffic {
			d[n] += tr.Weight * a.m.CommTime(a.order[:n], tr.Pattern, tr.Size, 1)
		}
	}
	return d[n]
}

// Started places slot's nodes on the topology and returns c and its ratio.
func (a *NetAdapter) Started(slot int32, app, procs int, alloc []cluster.Range) (c, ratio float64) {
	for int(slot) >= len(a.jobs) {
		a.jobs = append(a.jobs, netJob{})
	}
	if app < 0 || app >= len(a.apps) {
		app = len(a.apps) - 1
	}
	j := &a.jobs[slot]
	j.nodes = a.nodesOf(alloc, j.nodes[:0])
	j.price.Reset()
	j.app, j.running, j.ratio = int32(app), true, 1
	p := &a.apps[app]
	if p.Fraction == 0 || len(p.Traffic) == 0 || len(j.nodes) < 2 {
		return p.Fraction, 1
	}
	share := 1.0
	if a.net != nil {
		changed, err := a.net.AddJob(slot, j.nodes, p.pat)
		if err == nil { // nodes come from NodeOrder, so AddJob cannot fail
			j.inNet = true
			a.mark(changed, slot)
			share = a.net.Share(slot)
		}
	}
	j.ratio = a.ratio(j, share)
	return p.Fraction, j.ratio
}

// Finished takes slot off the network.
func (a *NetAdapter) Finished(slot int32) {
	if int(slot) >= len(a.jobs) {
		return
	}
	j := &a.jobs[slot]
	j.running = false
	if j.inNet {
		j.inNet = false
		a.mark(a.net.Remove(slot), -1)
	}
}

// Changed re-prices the running jobs whose share changed since the last
// call and appends those whose ratio moved, in slot order.
func (a *NetAdapter) Changed(dst []scheduler.RatioChange) []scheduler.RatioChange {
	slices.Sort(a.dirty)
	for _, s := range a.dirty {
		j := &a.jobs[s]
		j.dirty = false
		if !j.running || !j.inNet {
			continue
		}
		if r := a.ratio(j, a.net.Share(s)); r != j.ratio {
			j.ratio = r
			dst = append(dst, scheduler.RatioChange{Slot: s, Ratio: r})
		}
	}
	a.dirty = a.dirty[:0]
	return dst
}

// Spread returns the placement figures so far: job starts, mean switches
// and groups spanned per start, and the fraction of starts whose nodes are
// not one run of the machine's node order.
func (a *NetAdapter) Spread() (starts int, switches, groups, nonContig float64) {
	if a.starts == 0 {
		return 0, 0, 0, 0
	}
	n := float64(a.starts)
	return a.starts, a.switchSum / n, a.groupSum / n, float64(a.nonContig) / n
}

func (a *NetAdapter) mark(ids []int32, except int32) {
	for _, id := range ids {
		if j := &a.jobs[id]; id != except && !j.dirty {
			j.dirty = true
			a.dirty = append(a.dirty, id)
		}
	}
}

// orderRuns numbers the runs of equal of(n) along order (consecutive
// machine nodes on one switch, or in one group) and returns each machine
// node's run, or nil when some value of of has more than one run: then
// distinct runs are not distinct values.
func orderRuns(order []int32, of func(int32) int32, values int) []int32 {
	runs := make([]int32, len(order))
	seen := make([]bool, values)
	r, prev := int32(-1), int32(-1)
	for k, n := range order {
		if v := of(n); k == 0 || v != prev {
			if seen[v] {
				return nil
			}
			seen[v] = true
			r, prev = r+1, v
		}
		runs[k] = r
	}
	return runs
}

// nodesOf appends the topology nodes of alloc's distinct machine nodes, in
// machine order, and counts the placement's spread.
//
// When every switch and group is one run of the node order (orderRuns)
// and alloc's ranges are sorted, a range spans the runs from its first
// node's to its last node's, and only its first run can be the previous
// range's last: the switches and groups are counted per range, not per
// node. Otherwise (unsorted or overlapping ranges, interleaved switches)
// they are counted node by node against the stamps.
func (a *NetAdapter) nodesOf(alloc []cluster.Range, dst []int32) []int32 {
	first, last := int32(-1), int32(-1)
	byRun := a.swRun != nil && a.grRun != nil
	sw, gr := 0, 0
	lastSw, lastGr := int32(-1), int32(-1)
	for _, r := range alloc {
		// A range's nodes are consecutive and distinct: only its first
		// may repeat the node appended last (a node shared with the
		// previous range).
		lo, hi := r.Lo/a.ppn, (r.Hi-1)/a.ppn
		if lo == last {
			lo++
		}
		if lo > hi {
			continue
		}
		if first < 0 {
			first = lo
		}
		if lo < last {
			byRun = false // unsorted or overlapping
		}
		if byRun {
			s0, g0 := a.swRun[lo], a.grRun[lo]
			sw += int(a.swRun[hi] - s0 + 1)
			gr += int(a.grRun[hi] - g0 + 1)
			if s0 == lastSw {
				sw--
			}
			if g0 == lastGr {
				gr--
			}
			lastSw, lastGr = a.swRun[hi], a.grRun[hi]
		}
		dst = append(dst, a.order[lo:hi+1]...)
		last = hi
	}
	if !byRun {
		sw, gr = a.spanStamped(dst)
	}
	a.starts++
	a.switchSum += float64(sw)
	a.groupSum += float64(gr)
	if len(dst) > 0 && int(last-first)+1 != len(dst) {
		a.nonContig++
	}
	if a.sum != nil {
		a.sum.NetStarts, a.sum.MeanSwitches, a.sum.MeanGroups, a.sum.NonContig = a.Spread()
	}
	return dst
}

// spanStamped counts the distinct switches and groups of nodes, node by
// node against the stamps.
func (a *NetAdapter) spanStamped(nodes []int32) (sw, gr int) {
	a.stamp++
	t := a.m.Topology()
	prevS, prevG := int32(-1), int32(-1) // neighbours mostly share a switch and group
	for _, n := range nodes {
		if s := t.SwitchOf(n); s != prevS {
			if prevS = s; a.seenSw[s] != a.stamp {
				a.seenSw[s] = a.stamp
				sw++
			}
		}
		if g := t.GroupOf(n); g != prevG {
			if prevG = g; a.seenGr[g] != a.stamp {
				a.seenGr[g] = a.stamp
				gr++
			}
		}
	}
	return sw, gr
}
