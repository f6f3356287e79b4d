package powercap

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestModelRoundTrip(t *testing.T) {
	for _, p := range append(Builtin(), Fallback("fb", 0.7)) {
		var b bytes.Buffer
		if err := SaveModel(&b, p); err != nil {
			t.Fatal(err)
		}
		got, err := DecodeModel(&b, p.Name+".json")
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, p) {
			t.Errorf("%s: round trip changed the profile:\n got %+v\nwant %+v", p.Name, got, p)
		}
	}
}

func TestDecodeModelErrors(t *testing.T) {
	const head = `{"schema":"drsim-powercap-model/1","app":"a",`
	tests := []struct {
		name, text, want string
	}{
		{"unknown key", head + "\n" + `"colour":1}`, `m.json:2:`},
		{"wrong type", head + "\n" + `"idle_w":"x","boundness":null}`, `m.json:2:`},
		{"syntax", head + `"cap":{`, `m.json:1:`},
		{"trailing", head + `"freq":{"x_min":1,"x_max":2,"power":null,"runtime":{"form":"quadratic","coef":[1,2,3]}}} {}`, "data after"},
		{"schema", `{"schema":"v0","app":"a"}`, `schema: "v0"`},
		{"bad form", head + `"freq":{"x_min":1,"x_max":2,"power":null,"runtime":{"form":"exp","coef":[1,2,3]}}}`, `form "exp", want "quadratic"`},
		{"coef count", head + `"cap":{"x_min":1,"x_max":2,"power":null,"runtime":{"form":"exp","coef":[1,2]}}}`, "2 coefficients"},
		{"no model", head + `"idle_w":3}`, "neither"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := DecodeModel(strings.NewReader(tc.text), "m.json")
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "m.json") {
				t.Errorf("DecodeModel(%s) error = %v, want one naming m.json containing %q", tc.text, err, tc.want)
			}
			if _, ok := errors.AsType[*FileError](err); !ok {
				t.Errorf("error %v is not a *FileError", err)
			}
		})
	}
}

func TestLoadModels(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, p Profile) {
		var b bytes.Buffer
		if err := SaveModel(&b, p); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("z.json", Fallback("zeta", 0.5))
	write("a.json", Fallback("alpha", 1))
	ps, err := LoadModels(dir)
	if err != nil || len(ps) != 2 || ps[0].Name != "alpha" || ps[1].Name != "zeta" {
		t.Fatalf("LoadModels = %v, %v; want alpha, zeta", ps, err)
	}
	write("b.json", Fallback("ALPHA", 1))
	if _, err := LoadModels(dir); err == nil || !strings.Contains(err.Error(), "both") {
		t.Errorf("duplicate app: error %v", err)
	}
	if _, err := LoadModels(t.TempDir()); err == nil {
		t.Error("empty directory: no error")
	}
}
