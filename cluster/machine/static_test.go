package machine

import "testing"

// static_w (the load line's intercept, scheduler/nodeload.go) needs
// idle_w and may not be below it; errors name the file, line and key.
func TestStaticW(t *testing.T) {
	const part = "[[partition]]\nname = \"p\"\nnode_type = \"a\"\nallocation = \"core\"\n"
	m, err := Parse("m.toml", []byte("[[node_type]]\nname = \"a\"\ncount = 2\ncores = 4\nidle_w = 90\nstatic_w = 100\n"+part))
	if err != nil || m.Types[0].StaticW != 100 {
		t.Fatalf("Parse = %+v, %v; want static_w 100", m, err)
	}
	for _, c := range []struct{ body, want string }{
		{"idle_w = 90\nstatic_w = 80\n", `m.toml:6: node_type "a": key "static_w": 80 W needs idle_w and may not be below it (idle_w 90 W)`},
		{"static_w = 100\n", `m.toml:5: node_type "a": key "static_w": 100 W needs idle_w and may not be below it (idle_w 0 W)`},
		{"idle_w = 90\nstatic_w = -1\n", `m.toml:6: node_type "a": key "static_w": -1; need a finite value ≥ 0`},
	} {
		_, err := Parse("m.toml", []byte("[[node_type]]\nname = \"a\"\ncount = 2\ncores = 4\n"+c.body+part))
		if err == nil || err.Error() != c.want {
			t.Errorf("Parse(%q) = %v, want %s", c.body, err, c.want)
		}
	}
}
