package sweep

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A crash mid-append leaves a torn last line: it is ignored, cut off, and
// the next entry starts on a fresh line.
func TestManifestTornLine(t *testing.T) {
	for _, torn := range []string{`{"id":"b","sta`, `{"id":"b","status":"done"`, "garbage\n"} {
		path := filepath.Join(t.TempDir(), "manifest.jsonl")
		if err := os.WriteFile(path, []byte(`{"id":"a","status":"done","spec":{}}`+"\n"+torn), 0o644); err != nil {
			t.Fatal(err)
		}
		m, entries, err := openManifest(path)
		if err != nil {
			t.Fatalf("torn %q: %v", torn, err)
		}
		if len(entries) != 1 || entries[0].ID != "a" {
			t.Errorf("torn %q: entries %+v, want just a", torn, entries)
		}
		if err := m.append(ManifestEntry{ID: "c", Status: StatusDone}); err != nil {
			t.Fatal(err)
		}
		m.Close()
		got, err := ReadManifest(path)
		if err != nil || len(got) != 2 || got[1].ID != "c" {
			t.Errorf("torn %q: after append %+v, %v", torn, got, err)
		}
	}
}

func TestManifestBadMiddleLine(t *testing.T) {
	path := filepath.Join(t.TempDir(), "manifest.jsonl")
	os.WriteFile(path, []byte("{\"id\":\"a\"}\nnot json\n{\"id\":\"b\"}\n"), 0o644)
	_, err := ReadManifest(path)
	if err == nil || !strings.Contains(err.Error(), "manifest.jsonl:2: not a manifest entry") {
		t.Errorf("err = %v, want one naming line 2", err)
	}
}
