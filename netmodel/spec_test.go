package netmodel

import (
	"errors"
	"os"
	"strings"
	"testing"
)

func TestLoadTopologyFiles(t *testing.T) {
	f, err := os.Open("testdata/hopper.toml")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	tp, err := LoadTopology(f, "testdata/hopper.toml")
	if err != nil {
		t.Fatal(err)
	}
	got, want := tp.Info(), mustPreset(t, "hopper").Info()
	got.Name = want.Name
	if got != want {
		t.Errorf("hopper.toml Info = %+v, want the preset's %+v", got, want)
	}
	g, err := os.Open("testdata/mini.json")
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	tp, err = LoadTopology(g, "testdata/mini.json")
	if err != nil || tp.Nodes() != 24 || tp.Switches() != 12 || tp.Kind != "dragonfly" {
		t.Errorf("mini.json: %v nodes, err %v", tp, err)
	}
}

func TestLoadTopologyErrors(t *testing.T) {
	for _, c := range []struct {
		name, text, want string
	}{
		{"a.toml", "kind = \"torus\"\ndims = [4]\n  bogus = 3\nlink_gbs = 1\n", "a.toml:3: bogus: unknown key"},
		{"b.toml", "kind = \"fat-tree\"\nlink_gbs = 1\nlevels = 2\nports = 5\n", "b.toml:4: ports: must be even and ≥ 2, got 5"},
		{"c.toml", "kind = \"torus\"\ndims = [4\n", "c.toml:2: expected a comma"},
		{"d.toml", "kind = \"torus\"\ndims = \"four\"\n", "d.toml:2: dims: incompatible types"},
		{"e.toml", "kind = \"torus\"\ndims = [4]\n", "e.toml: link_gbs: must be > 0, got 0"},
		{"f.json", "{\n \"kind\": \"torus\",\n \"dimz\": [4]\n}", "f.json:3: dimz: unknown key"},
		{"g.json", "{\n \"kind\": \"torus\",\n \"dims\": \"x\"\n}", "g.json:3: dims:"},
		{"h.json", "{\n \"kind\": \"torus\",,\n}", "h.json:2:"},
		{"j.toml", "kind = \"torus\"\ndims = [4]\nlink_gbs = 1\nports = 36\n", "j.toml:4: ports: is not used by kind torus"},
		{"i.toml", "kind = \"mesh\"\nlink_gbs = 1\n", "i.toml: netmodel: unknown topology kind \"mesh\""},
	} {
		_, err := LoadTopology(strings.NewReader(c.text), c.name)
		if err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("LoadTopology(%s) error = %v, want prefix %q", c.name, err, c.want)
		}
	}
	_, err := LoadTopology(strings.NewReader("kind = \"torus\"\nlink_gbs = -1\ndims=[2]\n"), "x.toml")
	if se, ok := errors.AsType[*SpecError](err); !ok || se.Line != 2 || se.Field != "link_gbs" {
		t.Errorf("SpecError = %#v", err)
	}
}
