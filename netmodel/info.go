package netmodel

import (
	"fmt"
	"io"
)

// Info summarises a topology for `drsim net info`.
type Info struct {
	Name        string  `json:"name"`
	Kind        string  `json:"kind"`
	Nodes       int     `json:"nodes"`
	Switches    int     `json:"switches"`
	Groups      int     `json:"groups"`
	Links       int     `json:"links"`        // physical bidirectional links, node links included
	SwitchLinks int     `json:"switch_links"` // physical switch-to-switch links
	Diameter    int     `json:"diameter_hops"`
	MeanHops    float64 `json:"mean_hops"`
	BisectionBW float64 `json:"bisection_bytes_per_s"` // one direction
	MinLatency  float64 `json:"min_latency_s"`         // zero-byte, distinct node pairs
	MeanLatency float64 `json:"mean_latency_s"`
	MaxLatency  float64 `json:"max_latency_s"`
	Exact       bool    `json:"exact"` // false when the mean comes from a sample of source routers
}

// Info computes the summary. Hop statistics use closed forms (tori, fat
// trees) or all router pairs (dragonflies), never all node pairs, so even
// mira's 49,152 nodes take milliseconds.
func (t *Topology) Info() Info {
	in := Info{Name: t.Name, Kind: t.Kind, Nodes: int(t.nodes), Switches: int(t.switches), Groups: int(t.groups)}
	for _, l := range t.links {
		if l.BW > 0 {
			in.Links++
			if l.From >= t.nodes && l.To >= t.nodes {
				in.SwitchLinks++
			}
		}
	}
	in.Links /= 2
	in.SwitchLinks /= 2
	lo, mean, hi, exact := t.shape.hopStats()
	in.Diameter, in.MeanHops, in.Exact = hi, mean, exact
	in.BisectionBW = t.shape.bisection(t.links)
	if t.nodes > 1 {
		in.MinLatency = 2*t.nicLat + float64(lo)*t.hopLat
		in.MeanLatency = 2*t.nicLat + mean*t.hopLat
		in.MaxLatency = 2*t.nicLat + float64(hi)*t.hopLat
	}
	return in
}

// WriteText writes the summary as aligned "key value" lines.
func (in Info) WriteText(w io.Writer) error {
	method := "exact"
	if !in.Exact {
		method = "sampled"
	}
	_, err := fmt.Fprintf(w, `name          %s
kind          %s
nodes         %d
switches      %d
groups        %d
links         %d (%d switch-to-switch)
diameter      %d hops
mean hops     %.3f (%s)
bisection     %.1f GB/s per direction
latency       min %.3f µs, mean %.3f µs, max %.3f µs (zero-byte)
`, in.Name, in.Kind, in.Nodes, in.Switches, in.Groups, in.Links, in.SwitchLinks, in.Diameter, in.MeanHops, method,
		in.BisectionBW/1e9, in.MinLatency*1e6, in.MeanLatency*1e6, in.MaxLatency*1e6)
	return err
}
