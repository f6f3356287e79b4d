package powercap

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// FuzzDecodeModel: DecodeModel never panics, fails with one line naming the
// file, and a model it accepts validates and survives SaveModel and
// DecodeModel unchanged. Seeds: every built-in profile, the model files of
// testdata/bad, and a few broken ones.
func FuzzDecodeModel(f *testing.F) {
	for _, p := range append(Builtin(), Fallback("fb", 0.7)) {
		var b bytes.Buffer
		if err := SaveModel(&b, p); err == nil {
			f.Add(b.Bytes())
		}
	}
	for _, s := range []string{
		`{"schema":"drsim-powercap-model/1","app":"a","colour":1}`,
		`{"schema":"drsim-powercap-model/1","app":"a","freq":{"x_min":"1"}}`,
		`{"schema":"drsim-powercap-model/1","app":"a","freq":{"x_min":1,"x_max":2,"power":null,"runtime":{"form":"quadratic","coef":[1,2,3]}}} {}`,
		`{"schema":"drsim-powercap-model/1","app":"a","cap":{"x_min":1,"x_max":2,"power":null,"runtime":{"form":"exp","coef":[1,2,3]}},"boundness":{}}`,
		"\ufeff{}",
	} {
		f.Add([]byte(s))
	}
	files, _ := filepath.Glob("../testdata/bad/model-*/models/*.json")
	for _, p := range files {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := DecodeModel(bytes.NewReader(data), "m.json")
		if err != nil {
			checkFileErr(t, err, "m.json")
			return
		}
		if err := p.Validate(); err != nil {
			t.Fatalf("decoded profile does not validate: %v", err)
		}
		var b bytes.Buffer
		if err := SaveModel(&b, p); err != nil {
			t.Fatalf("decoded profile cannot be saved: %v", err)
		}
		q, err := DecodeModel(&b, "m.json")
		if err != nil {
			t.Fatalf("saved profile does not decode: %v\n%s", err, b.Bytes())
		}
		if !reflect.DeepEqual(p, q) {
			t.Fatalf("round trip changed the profile:\n got %+v\nwant %+v", q, p)
		}
	})
}
