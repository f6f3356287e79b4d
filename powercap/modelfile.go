package powercap

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strings"
)

// ModelSchema is the value of the "schema" key of a model file with CPU
// models only; ModelSchemaGPU that of a file with GPU keys (device,
// gpu_freq, gpu_cap, joint). Both load; a /1 file must not hold GPU keys.
const (
	ModelSchema    = "drsim-powercap-model/1"
	ModelSchemaGPU = "drsim-powercap-model/2"
)

// schemaOf returns the schema SaveModel writes for p: /1 unless p has GPU
// keys, so that CPU-only files stay readable by older drsim builds.
func schemaOf(p Profile) string {
	if p.HasGPU() || p.Device != "" {
		return ModelSchemaGPU
	}
	return ModelSchema
}

// modelFile is the on-disk form of a Profile: the schema tag plus the
// Profile's own fields. See doc.go for the schema.
type modelFile struct {
	Schema string `json:"schema"`
	Profile
}

// SaveModel writes p as an indented JSON model file.
func SaveModel(w io.Writer, p Profile) error {
	if err := p.Validate(); err != nil {
		return err
	}
	b, err := json.MarshalIndent(modelFile{schemaOf(p), p}, "", "  ")
	if err != nil {
		return fmt.Errorf("powercap: encoding model %q: %v", p.Name, err)
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// DecodeModel reads one model file strictly: unknown keys, wrong types,
// trailing data, a wrong schema or an invalid model are errors naming
// name:line:column.
func DecodeModel(r io.Reader, name string) (Profile, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return Profile{}, &FileError{File: name, Err: err}
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	var mf modelFile
	if err := dec.Decode(&mf); err != nil {
		return Profile{}, decodeError(data, name, dec.InputOffset(), err)
	}
	if dec.More() {
		line, col := position(data, dec.InputOffset())
		return Profile{}, &FileError{File: name, Line: line, Column: col, Err: errors.New("data after the model object")}
	}
	if mf.Schema != ModelSchema && mf.Schema != ModelSchemaGPU {
		return Profile{}, &FileError{File: name, Field: "schema", Err: fmt.Errorf("%q, want %q or %q", mf.Schema, ModelSchema, ModelSchemaGPU)}
	}
	if mf.Schema == ModelSchema && schemaOf(mf.Profile) == ModelSchemaGPU {
		return Profile{}, &FileError{File: name, Field: "schema", Err: fmt.Errorf("%q has no GPU keys (device, gpu_freq, gpu_cap, joint): want %q", mf.Schema, ModelSchemaGPU)}
	}
	if err := mf.Profile.Validate(); err != nil {
		return Profile{}, &FileError{File: name, Err: err}
	}
	return mf.Profile, nil
}

// decodeError places a json decoding error: a syntax error at its offset,
// a wrong type at its value (naming the key path and the wanted kind), an
// unknown key at the key itself (encoding/json only says which key).
func decodeError(data []byte, name string, off int64, err error) error {
	msg := strings.TrimPrefix(err.Error(), "json: ")
	field := ""
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		off = se.Offset
	case errors.As(err, &te):
		off, field = te.Offset, strings.TrimPrefix(te.Field, "Profile.")
		msg = fmt.Sprintf("got a JSON %s, want %s", te.Value, jsonKind(te.Type))
	case strings.HasPrefix(msg, "unknown field "):
		key := strings.TrimPrefix(msg, "unknown field ")
		if loc := regexp.MustCompile(regexp.QuoteMeta(key) + `\s*:`).FindIndex(data); loc != nil {
			off = int64(loc[0])
		}
		msg = "unknown key " + key
	}
	line, col := position(data, off)
	return &FileError{File: name, Line: line, Column: col, Field: field, Err: errors.New(msg)}
}

// jsonKind names the JSON value a Go type is decoded from.
func jsonKind(t reflect.Type) string {
	if t == nil {
		return "a value"
	}
	switch t.Kind() {
	case reflect.Float32, reflect.Float64, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "a number"
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Slice, reflect.Array:
		return "an array"
	}
	return "an object"
}

// position converts a byte offset into a 1-based line and column.
func position(data []byte, off int64) (line, col int) {
	off = min(max(off, 0), int64(len(data)))
	before := data[:off]
	line = bytes.Count(before, []byte("\n")) + 1
	return line, int(off) - (bytes.LastIndexByte(before, '\n') + 1) + 1
}

// LoadModels reads every *.json model file in dir (the edge where model
// files meet the simulator, so it opens files itself) and returns the
// profiles sorted by name. Two files with the same app name are an error.
func LoadModels(dir string) ([]Profile, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		return nil, fmt.Errorf("powercap: %v", err)
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("powercap: no *.json model files in %s", dir)
	}
	sort.Strings(files)
	var out []Profile
	seen := map[string]string{}
	for _, f := range files {
		p, err := loadModel(f)
		if err != nil {
			return nil, err
		}
		if prev, dup := seen[strings.ToLower(p.Name)]; dup {
			return nil, fmt.Errorf("powercap: app %q is defined in both %s and %s", p.Name, prev, f)
		}
		seen[strings.ToLower(p.Name)] = f
		out = append(out, p)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

func loadModel(file string) (Profile, error) {
	f, err := os.Open(file)
	if err != nil {
		return Profile{}, err
	}
	defer f.Close()
	return DecodeModel(f, file)
}

// LoadProfiles returns Builtin() and BuiltinGPU() for "builtin" (or ""),
// else LoadModels(spec). The simulator's CPU runs take Builtin() alone.
func LoadProfiles(spec string) ([]Profile, error) {
	if spec == "" || spec == "builtin" {
		return append(Builtin(), BuiltinGPU()...), nil
	}
	return LoadModels(spec)
}
