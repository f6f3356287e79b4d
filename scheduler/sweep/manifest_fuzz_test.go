package sweep

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"drsim/scheduler/sim"
)

// FuzzReadManifest: a manifest a crash or a user left in any state never
// panics the reader that resume starts with; an invalid line fails with one
// line naming the file and line; otherwise the valid prefix ends at a line
// end, holds exactly the entries returned (parsing it again gives the same
// entries and length), and only a torn last line is cut off. Seeds: a
// manifest as the sweep writes it, torn at several places.
func FuzzReadManifest(f *testing.F) {
	var good bytes.Buffer
	for i, e := range []ManifestEntry{
		{ID: "a1b2c3", Status: StatusDone, Spec: sim.Spec{Policy: "easy", Seed: 1, DRRatio: 0.25, DVFS: "dr"}},
		{ID: "d4e5f6", Status: StatusFailed, Error: "run: stopped", Spec: sim.Spec{Policy: "fcfs", Jobs: 100}},
		{ID: "070809", Status: StatusDone, Spec: sim.Spec{Trace: "t.swf", Policy: "conservative"}},
	} {
		b, err := json.Marshal(e)
		if err != nil {
			f.Fatal(err)
		}
		good.Write(append(b, '\n'))
		f.Add(good.Bytes()[:good.Len()-1-i]) // torn inside the last line
	}
	f.Add(good.Bytes())
	f.Add([]byte("{\"id\":\"x\"}\nnot json\n{\"id\":\"y\"}\n"))
	f.Add([]byte("\n\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		entries, n, err := parseManifest("m.jsonl", data)
		if err != nil {
			if msg := err.Error(); strings.ContainsAny(msg, "\n\r") || !strings.HasPrefix(msg, "m.jsonl:") {
				t.Fatalf("error is not one line starting with m.jsonl: %q", msg)
			}
			return
		}
		if n < 0 || n > len(data) || (n > 0 && data[n-1] != '\n') {
			t.Fatalf("valid prefix %d of %d bytes does not end a line", n, len(data))
		}
		if rest := data[n:]; bytes.Count(rest, []byte{'\n'}) > 1 {
			t.Fatalf("cut off more than a torn last line: %q", rest)
		}
		again, n2, err := parseManifest("m.jsonl", data[:n])
		if err != nil || n2 != n || !reflect.DeepEqual(again, entries) {
			t.Fatalf("valid prefix parses differently: %d entries, %d bytes, %v (was %d, %d)", len(again), n2, err, len(entries), n)
		}
		for _, e := range entries {
			if e.ID == "" {
				t.Fatalf("entry without an ID: %+v", e)
			}
		}
	})
}
