package sweep

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"

	"drsim/scheduler/sim"
)

// Cell statuses in the manifest.
const (
	StatusDone   = "done"
	StatusFailed = "failed"
)

// A ManifestEntry is one line of a manifest: a cell that finished (its
// directory is complete) or failed (it has no directory and is retried by
// the next run).
type ManifestEntry struct {
	ID     string   `json:"id"`
	Status string   `json:"status"`
	Error  string   `json:"error,omitempty"`
	Spec   sim.Spec `json:"spec"`
}

// manifest is an append-only JSON-lines log, fsynced after every line.
type manifest struct {
	f *os.File
}

// openManifest opens (creating) the manifest at path and returns its
// entries. A last line without its newline, or that is not valid JSON, is
// what a crash mid-write leaves: it is ignored and cut off, so the next
// append starts on a fresh line. An invalid line elsewhere is an error.
func openManifest(path string) (*manifest, []ManifestEntry, error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return nil, nil, err
	}
	data, err := os.ReadFile(path)
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	entries, good, err := parseManifest(path, data)
	if err == nil && good < len(data) {
		if err = f.Truncate(int64(good)); err == nil {
			err = f.Sync()
		}
	}
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	return &manifest{f}, entries, nil
}

// ReadManifest returns the entries of the manifest at path, ignoring a torn
// last line.
func ReadManifest(path string) ([]ManifestEntry, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	e, _, err := parseManifest(path, data)
	return e, err
}

// parseManifest returns the entries and the length of the valid prefix.
func parseManifest(path string, data []byte) ([]ManifestEntry, int, error) {
	var entries []ManifestEntry
	off := 0
	for line := 1; off < len(data); line++ {
		n := bytes.IndexByte(data[off:], '\n')
		if n < 0 {
			return entries, off, nil // torn: no newline yet
		}
		var e ManifestEntry
		if err := json.Unmarshal(data[off:off+n], &e); err != nil || e.ID == "" {
			if off+n+1 == len(data) {
				return entries, off, nil // torn last line
			}
			return nil, 0, fmt.Errorf("%s:%d: not a manifest entry: %q", path, line, data[off:off+n])
		}
		entries = append(entries, e)
		off += n + 1
	}
	return entries, off, nil
}

// append writes one entry as a single write and fsyncs it.
func (m *manifest) append(e ManifestEntry) error {
	b, err := json.Marshal(e)
	if err != nil {
		return err
	}
	if _, err := m.f.Write(append(b, '\n')); err != nil {
		return err
	}
	return m.f.Sync()
}

func (m *manifest) Close() error { return m.f.Close() }
