package sweep

import (
	"drsim/internal/oneline"
	"fmt"
	"math"
	"os"
	"reflect"
	"regexp"
	"slices"
	"strings"

	"github.com/BurntSushi/toml"

	"drsim/scheduler/sim"
)

// Config is a parsed experiment file. Every sim.Spec field may be given at
// the top level as a scalar or a list; the cross product of the lists makes
// the cells.
//
//	jobs     = 2000
//	policy   = ["easy", "conservative"]
//	dvfs     = ["performance", "powersave"]
//	baseline = { dvfs = "performance" }
//
//	[output]
//	jobs  = "gz"   # csv (default) | gz | off
//	power = true   # power.csv and consumed_energy.csv
type Config struct {
	File     string    // the file name errors refer to
	Dims     []Dim     // the keys given, in sim.Spec field order
	Baseline []Setting // the reference of each group, in sim.Spec field order; empty = no saving columns
	Output   Output
}

// A Dim is one sim.Spec field and the values it takes. Values have the
// field's Go type (string, int, uint64, float64 or bool).
type Dim struct {
	Key    string // the TOML key, e.g. "dr_ratio"
	Values []any
}

// A Setting is one sim.Spec field set to one value.
type Setting struct {
	Key   string `json:"key"`
	Value any    `json:"value"`
}

// Output chooses the per-cell files besides summary.json and cell.json.
type Output struct {
	Jobs      string  `toml:"jobs" json:"jobs"`             // jobs.csv: "csv" (default, ""), "gz" (jobs.csv.gz) or "off"
	Power     bool    `toml:"power" json:"power"`           // also write power.csv and Batsim's consumed_energy.csv
	PowerStep float64 `toml:"power_step" json:"power_step"` // at most one power.csv row per step (s); 0 = every change
}

// specFields maps TOML keys to sim.Spec field indices, in field order.
var specFields = func() []specField {
	t := reflect.TypeFor[sim.Spec]()
	var fs []specField
	for i := range t.NumField() {
		if tag := strings.Split(t.Field(i).Tag.Get("toml"), ",")[0]; tag != "" && tag != "-" {
			fs = append(fs, specField{tag, i, t.Field(i).Type})
		}
	}
	return fs
}()

type specField struct {
	key   string
	index int
	typ   reflect.Type
}

func fieldFor(key string) (specField, bool) {
	for _, f := range specFields {
		if f.key == key {
			return f, true
		}
	}
	return specField{}, false
}

// raw keeps a TOML value undecoded; converting it ourselves gives errors
// that name the key and the expected type.
type raw struct{ v any }

func (r *raw) UnmarshalTOML(v any) error { r.v = v; return nil }

// fileType is a struct with one raw field per sim.Spec key plus baseline
// and output, so that MetaData.Undecoded reports every other key.
var fileType = func() reflect.Type {
	var sf []reflect.StructField
	for i, f := range specFields {
		sf = append(sf, reflect.StructField{Name: fmt.Sprintf("F%d", i), Type: reflect.TypeFor[*raw](), Tag: reflect.StructTag(`toml:"` + f.key + `"`)})
	}
	sf = append(sf,
		reflect.StructField{Name: "Baseline", Type: reflect.TypeFor[map[string]*raw](), Tag: `toml:"baseline"`},
		reflect.StructField{Name: "Output", Type: reflect.TypeFor[Output](), Tag: `toml:"output"`})
	return reflect.StructOf(sf)
}()

// LoadConfig reads and parses an experiment file.
func LoadConfig(path string) (*Config, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return ParseConfig(path, b)
}

// ParseConfig parses an experiment file; name is used in errors, which have
// the form "name:line: key: problem".
func ParseConfig(name string, data []byte) (*Config, error) {
	v := reflect.New(fileType)
	md, err := toml.Decode(string(data), v.Interface())
	if err != nil {
		if pe, ok := err.(toml.ParseError); ok {
			return nil, fmt.Errorf("%s:%d: %s", name, pe.Position.Line, oneline.Escape(pe.Message)) // the message may quote raw input
		}
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	if u := md.Undecoded(); len(u) > 0 {
		return nil, fmt.Errorf("%s:%d: unknown key %q (known: sim.Spec keys such as policy, dvfs, dr_ratio; baseline; [output] jobs, power, power_step)",
			name, keyLine(data, u[0]), u[0].String())
	}
	c := &Config{File: name, Output: v.Elem().FieldByName("Output").Interface().(Output)}
	switch c.Output.Jobs {
	case "", "csv", "gz", "off":
	default:
		return nil, fmt.Errorf("%s:%d: output.jobs: %q is not one of csv, gz, off", name, keyLine(data, toml.Key{"output", "jobs"}), c.Output.Jobs)
	}
	if s := c.Output.PowerStep; s < 0 || math.IsInf(s, 0) || math.IsNaN(s) {
		return nil, fmt.Errorf("%s:%d: output.power_step: %v is not a duration in seconds", name, keyLine(data, toml.Key{"output", "power_step"}), s)
	}
	for i, f := range specFields {
		r := v.Elem().Field(i).Interface().(*raw)
		if r == nil {
			continue
		}
		vals, err := convertList(f, r.v)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %s: %v", name, keyLine(data, toml.Key{f.key}), f.key, err)
		}
		if err := checkRanges(f.key, vals...); err != nil { // sim.SpecRanges: refused before any cell runs
			return nil, fmt.Errorf("%s:%d: %v", name, keyLine(data, toml.Key{f.key}), err)
		}
		c.Dims = append(c.Dims, Dim{Key: f.key, Values: vals})
	}
	base := v.Elem().FieldByName("Baseline").Interface().(map[string]*raw)
	for _, f := range specFields {
		if r, ok := base[f.key]; ok {
			x, err := convert(f.typ, r.v)
			if err == nil {
				err = checkRanges(f.key, x)
			}
			if err != nil {
				return nil, fmt.Errorf("%s:%d: baseline.%s: %v", name, keyLine(data, toml.Key{"baseline"}), f.key, err)
			}
			c.Baseline = append(c.Baseline, Setting{f.key, x})
		}
	}
	if len(c.Baseline) != len(base) {
		for _, k := range sortedKeys(base) {
			if _, ok := fieldFor(k); !ok {
				return nil, fmt.Errorf("%s:%d: unknown key %q in baseline", name, keyLine(data, toml.Key{"baseline"}), k)
			}
		}
	}
	return c, nil
}

// checkRanges checks values given for key against its range (a 0 written
// in the file counts as typed: it cannot mean the default).
func checkRanges(key string, vals ...any) error {
	r, ok := sim.SpecRange(key)
	for i := 0; ok && i < len(vals); i++ {
		if err := sim.CheckValue(r, vals[i], true, false); err != nil {
			return err
		}
	}
	return nil
}

// convertList converts a scalar or a non-empty list of values of f's type.
func convertList(f specField, v any) ([]any, error) {
	list, ok := v.([]any)
	if !ok {
		x, err := convert(f.typ, v)
		return []any{x}, err
	}
	if len(list) == 0 {
		return nil, fmt.Errorf("empty list")
	}
	out := make([]any, len(list))
	for i, e := range list {
		x, err := convert(f.typ, e)
		if err != nil {
			return nil, fmt.Errorf("element %d: %v", i+1, err)
		}
		out[i] = x
	}
	return out, nil
}

// convert turns a decoded TOML value (string, int64, float64, bool) or a
// decoded JSON value (float64 for numbers) into a value of type t.
func convert(t reflect.Type, v any) (any, error) {
	if reflect.TypeOf(v) == t {
		return v, nil
	}
	bad := func() error {
		return fmt.Errorf("want %s or a list of them, got %s %v", kindName(t), tomlKind(v), v)
	}
	switch t.Kind() {
	case reflect.String:
		if s, ok := v.(string); ok {
			return s, nil
		}
	case reflect.Bool:
		if b, ok := v.(bool); ok {
			return b, nil
		}
	case reflect.Int:
		if n, ok := asInt(v); ok {
			return int(n), nil
		}
	case reflect.Uint64:
		if n, ok := asInt(v); ok {
			if n < 0 {
				return nil, fmt.Errorf("want a non-negative integer, got %d", n)
			}
			return uint64(n), nil
		}
	case reflect.Float64:
		switch x := v.(type) {
		case float64:
			if !math.IsNaN(x) && !math.IsInf(x, 0) {
				return x, nil
			}
		case int64:
			return float64(x), nil
		}
	}
	return nil, bad()
}

func asInt(v any) (int64, bool) {
	switch x := v.(type) {
	case int64:
		return x, true
	case float64: // JSON numbers
		if x == math.Trunc(x) && math.Abs(x) < 1<<53 {
			return int64(x), true
		}
	}
	return 0, false
}

func kindName(t reflect.Type) string {
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "a boolean"
	case reflect.Int, reflect.Uint64:
		return "an integer"
	}
	return "a number"
}

func tomlKind(v any) string {
	switch v.(type) {
	case string:
		return "string"
	case int64:
		return "integer"
	case float64:
		return "float"
	case bool:
		return "boolean"
	case []any:
		return "list"
	case map[string]any:
		return "table"
	}
	return fmt.Sprintf("%T", v)
}

// keyLine finds the line of key in a TOML file by a plain scan: the first
// "name =" inside the key's table (or inline table line). 0 when not found.
func keyLine(data []byte, key toml.Key) int {
	if len(key) == 0 {
		return 0
	}
	table, last := strings.Join(key[:len(key)-1], "."), key[len(key)-1]
	header := regexp.MustCompile(`^\s*\[\s*([^\]]*?)\s*\]`)
	assign := regexp.MustCompile(`^\s*"?` + regexp.QuoteMeta(last) + `"?\s*=`)
	inline := regexp.MustCompile(`^\s*"?` + regexp.QuoteMeta(table) + `"?\s*=.*\b` + regexp.QuoteMeta(last) + `\b`)
	cur := ""
	for i, line := range strings.Split(string(data), "\n") {
		if m := header.FindStringSubmatch(line); m != nil {
			cur = m[1]
			continue
		}
		if cur == table && assign.MatchString(line) {
			return i + 1
		}
		if table != "" && cur == "" && inline.MatchString(line) {
			return i + 1
		}
	}
	return 0
}

func sortedKeys[V any](m map[string]V) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}

// dimKeys returns the keys that may vary between cells: those given as
// lists of several values and the baseline's, in sim.Spec order.
func (c *Config) dimKeys() []string {
	keys := []string{}
	for _, f := range specFields {
		if slices.ContainsFunc(c.Dims, func(d Dim) bool { return d.Key == f.key && len(d.Values) > 1 }) ||
			slices.ContainsFunc(c.Baseline, func(s Setting) bool { return s.Key == f.key }) {
			keys = append(keys, f.key)
		}
	}
	return keys
}
