package sweep

import (
	"strings"
	"testing"
)

const exampleTOML = `# two policies, two governors, three seeds
jobs     = 300
policy   = ["easy", "conservative"]
dvfs     = ["powersave", "performance"]
seed     = [1, 2, 3]
dr_limit = 0.7
baseline = { dvfs = "performance" }

[output]
jobs  = "gz"
power = true
`

func TestParseConfig(t *testing.T) {
	c, err := ParseConfig("exp.toml", []byte(exampleTOML))
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, d := range c.Dims {
		keys = append(keys, d.Key)
	}
	// sim.Spec field order, not file order
	if got, want := strings.Join(keys, ","), "jobs,policy,seed,dvfs,dr_limit"; got != want {
		t.Errorf("dims = %s, want %s", got, want)
	}
	if c.Dims[2].Values[2] != uint64(3) || c.Dims[4].Values[0] != 0.7 || c.Dims[0].Values[0] != 300 {
		t.Errorf("values not converted to the field types: %#v", c.Dims)
	}
	if len(c.Baseline) != 1 || c.Baseline[0] != (Setting{"dvfs", "performance"}) {
		t.Errorf("baseline = %v", c.Baseline)
	}
	if c.Output != (Output{Jobs: "gz", Power: true}) {
		t.Errorf("output = %+v", c.Output)
	}
	cells, err := c.Cells()
	if err != nil {
		t.Fatal(err)
	}
	// 2 policies × 3 seeds × 2 governors; the baselines are among them.
	if len(cells) != 12 {
		t.Errorf("%d cells, want 12", len(cells))
	}
	if got := c.dimKeys(); strings.Join(got, ",") != "policy,seed,dvfs" {
		t.Errorf("dimKeys = %v", got)
	}
}

// A baseline value outside the lists adds one baseline cell per group.
func TestCellsAddBaselines(t *testing.T) {
	c, err := ParseConfig("x.toml", []byte("dvfs = \"powersave\"\nseed = [1, 2]\nbaseline = { dvfs = \"performance\" }\n"))
	if err != nil {
		t.Fatal(err)
	}
	cells, err := c.Cells()
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range cells {
		got = append(got, c.Spec.DVFS+"/"+string(rune('0'+c.Spec.Seed)))
	}
	if want := "powersave/1 powersave/2 performance/1 performance/2"; strings.Join(got, " ") != want {
		t.Errorf("cells %v, want %s", got, want)
	}
}

func TestParseConfigErrors(t *testing.T) {
	tests := []struct{ name, toml, want string }{
		{"unknown key", "jobs = 1\npolcy = \"easy\"\n", `x.toml:2: unknown key "polcy"`},
		{"unknown output key", "[output]\njobs = \"csv\"\ncompress = true\n", `x.toml:3: unknown key "output.compress"`},
		{"unknown baseline key", "baseline = { dvfss = \"performance\" }\n", `x.toml:1: unknown key "dvfss" in baseline`},
		{"wrong type", "jobs = \"many\"\n", `x.toml:1: jobs: want an integer or a list of them, got string many`},
		{"wrong element type", "policy = [\"easy\", 3]\n", `x.toml:1: policy: element 2: want a string`},
		{"float for int", "procs = 2.5\n", `x.toml:1: procs: want an integer`},
		{"negative seed", "seed = [-1]\n", `x.toml:1: seed: element 1: want a non-negative integer`},
		{"empty list", "seed = []\n", `x.toml:1: seed: empty list`},
		{"bad baseline type", "baseline = { seed = \"x\" }\n", `x.toml:1: baseline.seed: want an integer`},
		{"bad output.jobs", "[output]\njobs = \"zip\"\n", `x.toml:2: output.jobs: "zip" is not one of csv, gz, off`},
		{"output wrong type", "[output]\npower = 1\n", `x.toml`},
		{"syntax", "jobs = = 1\n", `x.toml:1: `},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseConfig("x.toml", []byte(tt.toml))
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("ParseConfig(%q) = %v, want an error containing %q", tt.toml, err, tt.want)
			}
		})
	}
}

// Integers are accepted for float fields (dr_ratio = 0), as TOML writes them.
func TestParseConfigIntForFloat(t *testing.T) {
	c, err := ParseConfig("x.toml", []byte("dr_ratio = [0, 0.25]\n"))
	if err != nil {
		t.Fatal(err)
	}
	cells, _ := c.Cells()
	if len(cells) != 2 || cells[0].Spec.DRRatio != 0 || cells[1].Spec.DRRatio != 0.25 {
		t.Errorf("cells = %+v", cells)
	}
}
