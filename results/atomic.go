package results

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// AtomicFile is a file written under a temporary name in its final
// directory and renamed into place by Commit, so that readers, crashes and
// Ctrl-C never see a partial file under the final name.
type AtomicFile struct {
	*os.File
	final string
	done  bool
}

// CreateAtomic starts writing path. Unless overwrite is set, it fails when
// path already exists.
func CreateAtomic(path string, overwrite bool) (*AtomicFile, error) {
	if !overwrite {
		if _, err := os.Lstat(path); err == nil {
			return nil, fmt.Errorf("%s already exists (use --force to overwrite)", path)
		}
	}
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return nil, err
	}
	return &AtomicFile{File: f, final: path}, nil
}

// Commit flushes the file to disk and renames it to its final name.
func (a *AtomicFile) Commit() error {
	if a.done {
		return errors.New("results: commit of a closed file")
	}
	a.done = true
	// os.CreateTemp makes the file 0600; a result file is an ordinary one.
	if err := a.File.Chmod(0o644); err != nil {
		a.File.Close()
		os.Remove(a.File.Name())
		return err
	}
	if err := a.File.Sync(); err != nil {
		a.File.Close()
		os.Remove(a.File.Name())
		return err
	}
	if err := a.File.Close(); err != nil {
		os.Remove(a.File.Name())
		return err
	}
	return os.Rename(a.File.Name(), a.final)
}

// Rewind empties the file and moves back to its start, for a writer that
// starts over.
func (a *AtomicFile) Rewind() error {
	if a.done {
		return errors.New("results: rewind of a closed file")
	}
	if _, err := a.File.Seek(0, io.SeekStart); err != nil {
		return err
	}
	return a.File.Truncate(0)
}

// Abort removes the temporary file. It is a no-op after Commit, so it can
// be deferred.
func (a *AtomicFile) Abort() {
	if a.done {
		return
	}
	a.done = true
	a.File.Close()
	os.Remove(a.File.Name())
}

// WriteFileAtomic writes data to path atomically.
func WriteFileAtomic(path string, data []byte, overwrite bool) error {
	f, err := CreateAtomic(path, overwrite)
	if err != nil {
		return err
	}
	defer f.Abort()
	if _, err := f.Write(data); err != nil {
		return err
	}
	return f.Commit()
}

// PrepareOutDir creates dir for a run's outputs. An existing non-empty
// directory is refused unless force is set, so that a run never overwrites
// results without being asked.
func PrepareOutDir(dir string, force bool) error {
	ents, err := os.ReadDir(dir)
	switch {
	case err == nil && len(ents) > 0 && !force:
		return fmt.Errorf("output directory %s already exists and is not empty (use --force to overwrite)", dir)
	case err == nil:
		return nil
	case errors.Is(err, os.ErrNotExist):
		return os.MkdirAll(dir, 0o755)
	default:
		return err
	}
}
