package sweep

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"

	"drsim/scheduler/sim"
)

// A Cell is one simulation of a sweep.
type Cell struct {
	ID   string   `json:"id"`   // CellID(Spec)
	Spec sim.Spec `json:"spec"` // defaults applied (Resolve)
}

// Resolve applies sim's documented defaults to s, so that two specs that
// run the same simulation are equal. It mirrors sim.Spec's zero-value
// documentation; TestResolveMatchesSim checks it against sim.Run's
// Result.Spec.
func Resolve(s sim.Spec) sim.Spec { return s.WithDefaults() }

// CanonicalJSON is the JSON of Resolve(s): fields in declaration order,
// zero fields left out, numbers in Go's shortest round-trip form. It fails
// only for a NaN or infinite number.
func CanonicalJSON(s sim.Spec) ([]byte, error) {
	b, err := json.Marshal(Resolve(s))
	if err != nil {
		return nil, fmt.Errorf("sweep: spec: %v", err)
	}
	return b, nil
}

// CellID is the first 16 hex digits of the SHA-256 of CanonicalJSON(s).
func CellID(s sim.Spec) (string, error) {
	b, err := CanonicalJSON(s)
	if err != nil {
		return "", err
	}
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:8]), nil
}

// Cells expands the configuration: the cross product of the dimensions, in
// file order with the last key varying fastest, followed by (if not already
// present) the baseline cell of each. Duplicates (specs that resolve to the
// same cell) appear once.
func (c *Config) Cells() ([]Cell, error) {
	specs := []sim.Spec{{}}
	for _, d := range c.Dims {
		f, _ := fieldFor(d.Key)
		next := make([]sim.Spec, 0, len(specs)*len(d.Values))
		for _, s := range specs {
			for _, v := range d.Values {
				if err := set(&s, f, v); err != nil {
					return nil, err
				}
				next = append(next, s)
			}
		}
		specs = next
	}
	var cells []Cell
	seen := map[string]bool{}
	add := func(s sim.Spec) error {
		s = Resolve(s)
		id, err := CellID(s)
		if err == nil && !seen[id] {
			seen[id] = true
			cells = append(cells, Cell{ID: id, Spec: s})
		}
		return err
	}
	for _, s := range specs {
		if err := add(s); err != nil {
			return nil, err
		}
	}
	for _, s := range specs {
		b, err := WithSettings(s, c.Baseline)
		if err == nil {
			err = add(b)
		}
		if err != nil {
			return nil, err
		}
	}
	return cells, nil
}

// WithSettings returns s with the settings applied (the baseline of s when
// settings is a Config's Baseline).
func WithSettings(s sim.Spec, settings []Setting) (sim.Spec, error) {
	for _, st := range settings {
		f, ok := fieldFor(st.Key)
		if !ok {
			return s, fmt.Errorf("sweep: unknown spec key %q", st.Key)
		}
		if err := set(&s, f, st.Value); err != nil {
			return s, err
		}
	}
	return s, nil
}

func set(s *sim.Spec, f specField, v any) error {
	x, err := convert(f.typ, v)
	if err != nil {
		return fmt.Errorf("sweep: %s: %v", f.key, err)
	}
	reflect.ValueOf(s).Elem().Field(f.index).Set(reflect.ValueOf(x))
	return nil
}

// get returns the value of the field named key in s.
func get(s sim.Spec, key string) any {
	f, _ := fieldFor(key)
	return reflect.ValueOf(s).Field(f.index).Interface()
}

// sortedIDs returns the IDs of cells, sorted.
func sortedIDs(cells []Cell) []string {
	ids := make([]string, len(cells))
	for i, c := range cells {
		ids[i] = c.ID
	}
	slices.Sort(ids)
	return ids
}
