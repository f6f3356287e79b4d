package netmodel

import (
	"fmt"
	"io"
)

// Prediction is the cost of one pattern on one placement, for `drsim net predict`.
type Prediction struct {
	Topology  string  `json:"topology"`
	Pattern   string  `json:"pattern"`
	Size      float64 `json:"size_bytes"`
	Nodes     int     `json:"nodes"`
	Switches  int     `json:"switches_spanned"`
	Groups    int     `json:"groups_spanned"`
	Time      float64 `json:"time_s"`         // on the placement, idle network
	Compact   float64 `json:"compact_time_s"` // on the first len(nodes) nodes
	Ratio     float64 `json:"comm_ratio"`
	MeanHops  float64 `json:"mean_hops"` // over ring neighbours of the placement (sampled)
	NearestUS float64 `json:"p2p_latency_us"`
}

// Predict prices pat with size-byte messages on nodes (validated).
func (m *Model) Predict(nodes []int32, pat Pattern, size float64) (Prediction, error) {
	if err := m.t.CheckNodes(nodes); err != nil {
		return Prediction{}, err
	}
	p := Prediction{Topology: m.t.Name, Pattern: pat.String(), Size: size, Nodes: len(nodes)}
	p.Switches, p.Groups = m.t.Span(nodes)
	p.Time = m.CommTime(nodes, pat, size, 1)
	p.Compact = m.CommTime(m.compact(len(nodes)), pat, size, 1)
	p.Ratio = m.CommRatio(nodes, pat, size, 1)
	if len(nodes) > 1 {
		r := m.round(nodes, pRing, 0, grid{})
		p.MeanHops, p.NearestUS = r.hops, r.alpha*1e6
	}
	return p, nil
}

// WriteText writes the prediction as aligned "key value" lines.
func (p Prediction) WriteText(w io.Writer) error {
	_, err := fmt.Fprintf(w, `topology      %s
pattern       %s, %.0f B
nodes         %d on %d switches in %d groups
ring hops     %.3f mean, zero-byte latency %.3f µs
time          %.6g s
compact       %.6g s
comm ratio    %.4f
`, p.Topology, p.Pattern, p.Size, p.Nodes, p.Switches, p.Groups, p.MeanHops, p.NearestUS, p.Time, p.Compact, p.Ratio)
	return err
}
