package netmodel

import (
	"bytes"
	"drsim/internal/oneline"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"
)

// Spec describes a topology. Files use the toml/json names. Units are GB/s
// (1e9 bytes/s) and µs so that published figures can be typed in directly.
// Zero values mean the default stated on each field.
type Spec struct {
	Name string `toml:"name" json:"name"` // zero: the kind
	Kind string `toml:"kind" json:"kind"` // fat-tree, dragonfly or torus

	// torus
	Dims   []int     `toml:"dims" json:"dims"`       // ring sizes, dimension 0 varies fastest in node order
	DimGBs []float64 `toml:"dim_gbs" json:"dim_gbs"` // per-dimension link bandwidth; empty: link_gbs for all

	// fat-tree (m-port n-tree)
	Ports  int `toml:"ports" json:"ports"`   // m, even
	Levels int `toml:"levels" json:"levels"` // n ≥ 1
	Nodes  int `toml:"nodes" json:"nodes"`   // populated nodes, a prefix of the node order; zero: all 2·(m/2)^n

	// dragonfly
	Groups          int     `toml:"groups" json:"groups"`
	RoutersPerGroup int     `toml:"routers_per_group" json:"routers_per_group"`
	Rows            int     `toml:"rows" json:"rows"`                           // routers per group arranged rows×cols, all-to-all in each row and column; zero: 1 (all-to-all group)
	GlobalPerRouter int     `toml:"global_per_router" json:"global_per_router"` // global links per router
	GlobalGBs       float64 `toml:"global_gbs" json:"global_gbs"`               // zero: link_gbs

	// shared
	NodesPerRouter int     `toml:"nodes_per_router" json:"nodes_per_router"` // torus and dragonfly; zero: 1
	LinkGBs        float64 `toml:"link_gbs" json:"link_gbs"`                 // switch-to-switch link bandwidth, required
	NodeGBs        float64 `toml:"node_gbs" json:"node_gbs"`                 // node-to-switch link (injection cap); zero: link_gbs
	NICLatencyUS   float64 `toml:"nic_latency_us" json:"nic_latency_us"`     // per end, so a message pays 2×
	HopLatencyUS   float64 `toml:"hop_latency_us" json:"hop_latency_us"`     // per switch-to-switch link
	Plateau        float64 `toml:"plateau" json:"plateau"`                   // large-message B_eff / path peak; zero: 0.72 (Gemini)
}

// defaultPlateau is the measured Gemini ratio 6.75 GB/s / 9.375 GB/s = 0.72
// (see the hopper preset).
const defaultPlateau = 0.72

// SpecError is a bad topology description. File and Line are set when the
// spec came from a file and the line is known.
type SpecError struct {
	File  string
	Line  int
	Field string // the toml/json key
	Msg   string
}

func (e *SpecError) Error() string {
	switch {
	case e.File != "" && e.Line > 0:
		return fmt.Sprintf("%s:%d: %s: %s", e.File, e.Line, e.Field, e.Msg)
	case e.File != "":
		return fmt.Sprintf("%s: %s: %s", e.File, e.Field, e.Msg)
	}
	return fmt.Sprintf("netmodel: %s: %s", e.Field, e.Msg)
}

func specErr(field, format string, a ...any) error {
	return &SpecError{Field: field, Msg: fmt.Sprintf(format, a...)}
}

// common validates the shared fields, rejects fields the kind does not use
// and fills defaults.
func (s *Spec) common() error {
	used := map[string]bool{
		"dims":    s.Kind == "torus",
		"dim_gbs": s.Kind == "torus",
		"ports":   s.Kind == "fat-tree",
		"levels":  s.Kind == "fat-tree",
		"nodes":   s.Kind == "fat-tree",
		"groups":  s.Kind == "dragonfly", "routers_per_group": s.Kind == "dragonfly", "rows": s.Kind == "dragonfly",
		"global_per_router": s.Kind == "dragonfly", "global_gbs": s.Kind == "dragonfly",
		"nodes_per_router": s.Kind != "fat-tree",
	}
	set := []struct {
		key string
		on  bool
	}{
		{"dims", len(s.Dims) > 0}, {"dim_gbs", len(s.DimGBs) > 0}, {"ports", s.Ports != 0}, {"levels", s.Levels != 0},
		{"nodes", s.Nodes != 0}, {"groups", s.Groups != 0}, {"routers_per_group", s.RoutersPerGroup != 0}, {"rows", s.Rows != 0},
		{"global_per_router", s.GlobalPerRouter != 0}, {"global_gbs", s.GlobalGBs != 0}, {"nodes_per_router", s.NodesPerRouter != 0},
	}
	for _, f := range set {
		if f.on && !used[f.key] {
			return specErr(f.key, "is not used by kind %s", s.Kind)
		}
	}
	if s.LinkGBs <= 0 {
		return specErr("link_gbs", "must be > 0, got %v", s.LinkGBs)
	}
	if s.NodeGBs < 0 || s.GlobalGBs < 0 || s.NICLatencyUS < 0 || s.HopLatencyUS < 0 {
		return specErr("node_gbs/global_gbs/latency", "must not be negative")
	}
	if s.Plateau < 0 || s.Plateau > 1 {
		return specErr("plateau", "must be in (0,1], got %v", s.Plateau)
	}
	if s.NodesPerRouter < 0 {
		return specErr("nodes_per_router", "must be ≥ 0, got %d", s.NodesPerRouter)
	}
	if s.NodesPerRouter == 0 {
		s.NodesPerRouter = 1
	}
	if s.NodeGBs == 0 {
		s.NodeGBs = s.LinkGBs
	}
	if s.GlobalGBs == 0 {
		s.GlobalGBs = s.LinkGBs
	}
	if s.Plateau == 0 {
		s.Plateau = defaultPlateau
	}
	if s.Name == "" {
		s.Name = s.Kind
	}
	return nil
}

func (s *Spec) base() *Topology {
	return &Topology{Name: s.Name, Kind: s.Kind, nicLat: s.NICLatencyUS * 1e-6, hopLat: s.HopLatencyUS * 1e-6, plateau: s.Plateau}
}

// LoadSpec reads a topology description; name is the file name used in
// errors, and a name ending in .json selects JSON, anything else TOML.
// Unknown keys are errors.
func LoadSpec(r io.Reader, name string) (Spec, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return Spec{}, fmt.Errorf("%s: %w", name, err)
	}
	var s Spec
	if strings.HasSuffix(strings.ToLower(name), ".json") {
		err = decodeJSON(data, name, &s)
	} else {
		err = decodeTOML(data, name, &s)
	}
	return s, err
}

// LoadTopology reads and builds a topology description.
func LoadTopology(r io.Reader, name string) (*Topology, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	s, err := LoadSpec(bytes.NewReader(data), name)
	if err != nil {
		return nil, err
	}
	t, err := Topologies.New(s)
	if se, ok := errors.AsType[*SpecError](err); ok {
		se.File = name
		key := strings.SplitN(se.Field, "/", 2)[0]
		se.Line = keyLine(data, key)
		return nil, se
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return t, nil
}

// tomlTypeErr matches the decoder's type errors, which are not ParseErrors.
var tomlTypeErr = regexp.MustCompile(`^toml: line (\d+) \(last key "([^"]*)"\): (.*)$`)

func decodeTOML(data []byte, name string, s *Spec) error {
	md, err := toml.NewDecoder(bytes.NewReader(data)).Decode(s)
	if pe, ok := errors.AsType[toml.ParseError](err); ok {
		return fmt.Errorf("%s:%d: %s", name, pe.Position.Line, oneline.Escape(pe.Message)) // the message may quote raw input
	}
	if m := tomlTypeErr.FindStringSubmatch(fmt.Sprint(err)); m != nil {
		line, _ := strconv.Atoi(m[1])
		return &SpecError{File: name, Line: line, Field: m[2], Msg: m[3]}
	}
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	if und := md.Undecoded(); len(und) > 0 {
		k := und[0].String()
		return &SpecError{File: name, Line: keyLine(data, und[0][len(und[0])-1]), Field: k, Msg: "unknown key"}
	}
	return nil
}

func decodeJSON(data []byte, name string, s *Spec) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	err := dec.Decode(s)
	if err == nil {
		return nil
	}
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		return fmt.Errorf("%s:%d: %v", name, offsetLine(data, se.Offset), err)
	case errors.As(err, &te):
		return &SpecError{File: name, Line: offsetLine(data, te.Offset), Field: te.Field, Msg: err.Error()}
	case strings.HasPrefix(err.Error(), "json: unknown field "):
		key := strings.Trim(strings.TrimPrefix(err.Error(), "json: unknown field "), `"`)
		return &SpecError{File: name, Line: keyLine(data, key), Field: key, Msg: "unknown key"}
	}
	return fmt.Errorf("%s: %w", name, err)
}

func offsetLine(data []byte, off int64) int {
	if off > int64(len(data)) {
		off = int64(len(data))
	}
	return 1 + bytes.Count(data[:off], []byte("\n"))
}

// keyLine is the 1-based line on which key is assigned (TOML key = or JSON
// "key":), or 0 when it does not appear.
func keyLine(data []byte, key string) int {
	re, err := regexp.Compile(`(?m)^\s*"?` + regexp.QuoteMeta(key) + `"?\s*[=:]`)
	if err != nil {
		return 0
	}
	loc := re.FindIndex(data)
	if loc == nil {
		return 0
	}
	return offsetLine(data, int64(loc[0]))
}
