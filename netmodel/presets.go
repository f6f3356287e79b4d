package netmodel

import (
	"fmt"
	"sort"
	"strings"
)

// Presets are published machines. Every number carries its source; where no
// published figure was at hand the value is marked as an assumption with its
// rationale. Figures quoted from "the issue" are the published parameters
// collected in drsim's network-model issue.
var Presets = map[string]Spec{
	// NERSC Hopper, Cray XE6 with the Gemini interconnect.
	"hopper": {
		Name: "hopper", Kind: "torus",
		// 17×8×24 Gemini 3-D torus (NERSC Hopper configuration, issue); two
		// nodes share one Gemini router (Alverson et al., "The Gemini System
		// Interconnect", HOTI 2010): 3,264 routers, 6,528 node slots
		// (NERSC lists 6,384 compute nodes; the rest are service nodes).
		Dims: []int{17, 8, 24}, NodesPerRouter: 2,
		// 9.375 GB/s links in X and Z, 4.68 GB/s in Y (issue; Y has half the cables).
		DimGBs: []float64{9.375, 4.68, 9.375}, LinkGBs: 9.375,
		// Assumption: the node's HyperTransport link to the Gemini is not the
		// bottleneck of a single flow, so it is set to the X/Z link peak.
		NodeGBs: 9.375,
		// 0.635 µs NIC latency per end, 0.109 µs per hop (issue): 2·0.635 =
		// 1.27 µs on one Gemini, 1.27 + 24·0.109 = 3.886 µs at the diameter
		// 8+4+12 = 24, matching the measured 1.27–3.88 µs.
		NICLatencyUS: 0.635, HopLatencyUS: 0.109,
		// Measured large-message plateau 6.75 GB/s / 9.375 GB/s = 0.72 (issue).
		Plateau: 0.72,
	},
	// ALCF Mira, IBM Blue Gene/Q.
	"mira": {
		Name: "mira", Kind: "torus",
		// 8×12×16×16×2 5-D torus, one node per router (issue; 48 racks × 1,024
		// nodes = 49,152 nodes, ALCF).
		Dims: []int{8, 12, 16, 16, 2}, NodesPerRouter: 1,
		// 2 GB/s per link and direction (issue; BG/Q 4 GB/s bidirectional links).
		LinkGBs: 2, NodeGBs: 2,
		// Derived from the measured 0.72–1.26 µs (issue): the nearest distinct
		// pair is 1 hop, the farthest 4+6+8+8+1 = 27 hops, so
		// L_hop = (1.26−0.72)/26 = 0.020769 µs and
		// L_nic = (0.72 − L_hop)/2 = 0.349615 µs.
		NICLatencyUS: (0.72 - 0.54/26) / 2, HopLatencyUS: 0.54 / 26,
		// Assumption: no plateau measurement at hand; the Gemini ratio 0.72 is used.
		Plateau: 0.72,
	},
	// NERSC Edison, Cray XC30 with the Aries dragonfly.
	"edison": {
		Name: "edison", Kind: "dragonfly",
		// A group is two cabinets = 6 chassis × 16 blades = 96 Aries routers,
		// 4 nodes per router = 384 nodes (issue; Alverson et al., "Cray XC
		// Series Network", 2012). Edison has 30 cabinets (NERSC), so 15
		// groups and 5,760 node slots (5,576 compute nodes plus service nodes).
		Groups: 15, RoutersPerGroup: 96, Rows: 6, NodesPerRouter: 4,
		// Each Aries has 10 global (optical) ports (Alverson et al. 2012);
		// assumption: all are cabled, spread evenly over the other 14 groups.
		GlobalPerRouter: 10,
		// 5.25 GB/s intra-group, 4.7 GB/s inter-group, 16 GB/s node link
		// (PCIe-3 ×16) (issue).
		LinkGBs: 5.25, GlobalGBs: 4.7, NodeGBs: 16,
		// About 0.1 µs per router-to-router link (issue). Assumption: NIC
		// latency 0.6 µs per end (no figure in the issue), giving 1.2 µs on one
		// router and at most 1.7 µs across the machine.
		NICLatencyUS: 0.6, HopLatencyUS: 0.1,
		// Assumption: Gemini plateau ratio; Aries adaptive routing that spreads
		// one flow over several paths is not modelled.
		Plateau: 0.72,
	},
	// TACC Stampede (2012), Mellanox InfiniBand FDR.
	"stampede": {
		Name: "stampede", Kind: "fat-tree",
		// 6,400 compute nodes (TACC) on a two-tier Clos of 36-port leaf
		// switches and 648-port core switches, each core internally a 2-level
		// tree of 36-port chips: modelled as a 36-port 3-tree (11,664 slots,
		// 1,620 switches) populated with the first 6,400 nodes. Assumption: full
		// bisection (the leaf oversubscription is not modelled).
		Ports: 36, Levels: 3, Nodes: 6400,
		// FDR 56 Gb/s = 7 GB/s per link and direction (issue).
		LinkGBs: 7, NodeGBs: 7,
		// About 0.7 µs per switch-to-switch link (issue). Assumption: 0.5 µs
		// NIC latency per end, so two nodes on one leaf see about 1 µs.
		NICLatencyUS: 0.5, HopLatencyUS: 0.7,
		Plateau: 0.72, // assumption: Gemini ratio
	},
}

// PresetNames lists the presets, sorted.
func PresetNames() []string {
	names := make([]string, 0, len(Presets))
	for k := range Presets {
		names = append(names, k)
	}
	sort.Strings(names)
	return names
}

// Preset builds the named preset.
func Preset(name string) (*Topology, error) {
	s, ok := Presets[name]
	if !ok {
		return nil, fmt.Errorf("netmodel: unknown preset %q (known: %s)", name, strings.Join(PresetNames(), ", "))
	}
	s.Dims = append([]int(nil), s.Dims...) // builders must not alias the table
	s.DimGBs = append([]float64(nil), s.DimGBs...)
	return Topologies.New(s)
}
