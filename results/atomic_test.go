package results

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestAtomicFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "a.csv")
	f, err := CreateAtomic(path, false)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("x\n")
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Fatalf("final name exists before Commit: %v", err)
	}
	if err := f.Commit(); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil || fi.Mode().Perm() != 0o644 {
		t.Fatalf("committed file: %v, mode %v", err, fi.Mode())
	}
	if _, err := CreateAtomic(path, false); err == nil || !strings.Contains(err.Error(), "--force") {
		t.Fatalf("second create without overwrite: %v", err)
	}
	g, _ := CreateAtomic(path, true)
	g.WriteString("partial")
	g.Abort()
	if b, _ := os.ReadFile(path); string(b) != "x\n" {
		t.Fatalf("abort changed the committed file: %q", b)
	}
	ents, _ := os.ReadDir(dir)
	if len(ents) != 1 {
		t.Fatalf("temporary files left: %v", ents)
	}
}
