package rapl

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// DefaultRoot is where Linux exposes the powercap class.
const DefaultRoot = "/sys/class/powercap"

// zonePrefix starts the directory name of every RAPL zone and sub-zone.
const zonePrefix = "intel-rapl:"

// The files of a zone directory that this package uses.
const (
	fileName      = "name"
	fileEnergy    = "energy_uj"
	fileMaxEnergy = "max_energy_range_uj"
	fileLimit     = "constraint_0_power_limit_uw"
	fileWindow    = "constraint_0_time_window_us"
	fileEnabled   = "enabled"
)

// FS is the file access this package needs. A nil FS means the real file
// system; tests substitute one that quantises or refuses writes.
type FS interface {
	ReadDir(name string) ([]fs.DirEntry, error)
	ReadFile(name string) ([]byte, error)
	// WriteFile replaces the contents of an existing file; it never creates one.
	WriteFile(name string, data []byte) error
}

// OSFS is the real file system.
type OSFS struct{}

func (OSFS) ReadDir(name string) ([]fs.DirEntry, error) { return os.ReadDir(name) }
func (OSFS) ReadFile(name string) ([]byte, error)       { return os.ReadFile(name) }

// WriteFile opens name write-only without creating it, as sysfs requires.
func (OSFS) WriteFile(name string, data []byte) error {
	f, err := os.OpenFile(name, os.O_WRONLY|os.O_TRUNC, 0)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

func orOS(f FS) FS {
	if f == nil {
		return OSFS{}
	}
	return f
}

// NoZonesError says that root holds no RAPL zone at all.
type NoZonesError struct{ Root string }

func (e *NoZonesError) Error() string {
	return fmt.Sprintf("rapl: no RAPL zones under %s (this machine has no Intel RAPL powercap interface)", e.Root)
}

// Tree is a powercap class directory. Its zero value is the real
// /sys/class/powercap.
type Tree struct {
	Root string // "" means DefaultRoot
	FS   FS     // nil means the real file system
}

func (t Tree) root() string {
	if t.Root == "" {
		return DefaultRoot
	}
	return t.Root
}

// Zones lists the RAPL zones and sub-zones under root ("" means
// DefaultRoot), sorted by their numeric ids: intel-rapl:0, intel-rapl:0:0,
// intel-rapl:0:1, intel-rapl:1, …
func Zones(root string) ([]Zone, error) { return Tree{Root: root}.Zones() }

// FindZone returns the zone under root whose name (e.g. "package-0") or
// directory (e.g. "intel-rapl:0") is name.
func FindZone(root, name string) (Zone, error) { return Tree{Root: root}.Find(name) }

// Zones lists the tree's RAPL zones; see the function Zones.
func (t Tree) Zones() ([]Zone, error) {
	root, fsys := t.root(), orOS(t.FS)
	ents, err := fsys.ReadDir(root)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, &NoZonesError{Root: root}
	}
	if err != nil {
		return nil, fmt.Errorf("rapl: %w", err)
	}
	var zs []Zone
	for _, e := range ents {
		// On sysfs the entries are symlinks, so IsDir is false: select by name.
		if _, ok := zoneID(e.Name()); !ok {
			continue
		}
		z := Zone{Path: filepath.Join(root, e.Name()), FS: t.FS}
		b, err := fsys.ReadFile(filepath.Join(z.Path, fileName))
		if err != nil {
			return nil, fileErr("read", filepath.Join(z.Path, fileName), err)
		}
		z.Name = strings.TrimSpace(string(b))
		zs = append(zs, z)
	}
	if len(zs) == 0 {
		return nil, &NoZonesError{Root: root}
	}
	slices.SortFunc(zs, func(a, b Zone) int {
		ia, _ := zoneID(a.ID())
		ib, _ := zoneID(b.ID())
		return slices.Compare(ia, ib)
	})
	return zs, nil
}

// Find returns the zone called name; see FindZone. An unknown name lists the
// known ones; a name shared by several sub-zones ("core" on a two-socket
// machine) asks for the directory name instead.
func (t Tree) Find(name string) (Zone, error) {
	zs, err := t.Zones()
	if err != nil {
		return Zone{}, err
	}
	var hits []Zone
	for _, z := range zs {
		if z.Name == name || z.ID() == name {
			hits = append(hits, z)
		}
	}
	switch len(hits) {
	case 1:
		return hits[0], nil
	case 0:
		known := make([]string, len(zs))
		for i, z := range zs {
			known[i] = z.Name + " (" + z.ID() + ")"
		}
		return Zone{}, fmt.Errorf("rapl: no zone %q under %s (known: %s)", name, t.root(), strings.Join(known, ", "))
	}
	ids := make([]string, len(hits))
	for i, z := range hits {
		ids[i] = z.ID()
	}
	return Zone{}, fmt.Errorf("rapl: zone name %q is ambiguous under %s (%s): give the directory name", name, t.root(), strings.Join(ids, ", "))
}

// zoneID parses "intel-rapl:0:1" into [0 1].
func zoneID(dir string) ([]int, bool) {
	rest, ok := strings.CutPrefix(dir, zonePrefix)
	if !ok {
		return nil, false
	}
	var id []int
	for _, p := range strings.Split(rest, ":") {
		n, err := strconv.Atoi(p)
		if err != nil || n < 0 {
			return nil, false
		}
		id = append(id, n)
	}
	return id, true
}

// A Zone is one RAPL domain: a package or one of its sub-zones. Energies are
// in µJ, powers in µW and times in µs, as in sysfs. Limits are those of
// constraint 0, the long-term limit (PL1).
type Zone struct {
	Path string // e.g. /sys/class/powercap/intel-rapl:0
	Name string // e.g. package-0, core, dram
	FS   FS     // nil means the real file system
}

// ID is the zone's directory name, e.g. intel-rapl:0.
func (z Zone) ID() string { return filepath.Base(z.Path) }

// String is "package-0 (intel-rapl:0)".
func (z Zone) String() string { return z.Name + " (" + z.ID() + ")" }

// Energy reads the energy counter (µJ), which wraps at MaxEnergyRange.
func (z Zone) Energy() (uint64, error) { return z.read(fileEnergy) }

// MaxEnergyRange reads the largest value of the energy counter (µJ).
func (z Zone) MaxEnergyRange() (uint64, error) { return z.read(fileMaxEnergy) }

// PowerLimit reads the long-term power cap (µW).
func (z Zone) PowerLimit() (uint64, error) { return z.read(fileLimit) }

// SetPowerLimit writes the long-term power cap (µW). The hardware may round
// it: read PowerLimit back for the value applied.
func (z Zone) SetPowerLimit(uw uint64) error { return z.write(fileLimit, uw) }

// TimeWindow reads the long-term limit's averaging window (µs).
func (z Zone) TimeWindow() (uint64, error) { return z.read(fileWindow) }

// SetTimeWindow writes the averaging window (µs); it reads back quantised.
func (z Zone) SetTimeWindow(us uint64) error { return z.write(fileWindow, us) }

// Enabled reports whether the zone's limits are enforced. A zone without an
// enabled file counts as enabled.
func (z Zone) Enabled() (bool, error) {
	v, err := z.read(fileEnabled)
	if errors.Is(err, fs.ErrNotExist) {
		return true, nil
	}
	return v != 0, err
}

func (z Zone) read(file string) (uint64, error) {
	path := filepath.Join(z.Path, file)
	b, err := orOS(z.FS).ReadFile(path)
	if err != nil {
		return 0, fileErr("read", path, err)
	}
	s := strings.TrimSpace(string(b))
	v, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		return 0, fmt.Errorf("rapl: %s: bad value %q: %w", path, s, errors.Unwrap(err))
	}
	return v, nil
}

func (z Zone) write(file string, v uint64) error {
	path := filepath.Join(z.Path, file)
	if err := orOS(z.FS).WriteFile(path, []byte(strconv.FormatUint(v, 10))); err != nil {
		return fileErr("write", path, err)
	}
	return nil
}

// fileErr turns a file error into one line that says what to do about it.
// The cause stays reachable with errors.Is (fs.ErrPermission, fs.ErrNotExist).
func fileErr(op, path string, err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err // the path is already in the message
	}
	switch {
	case errors.Is(err, fs.ErrPermission) && op == "write":
		return fmt.Errorf("rapl: %s is not writable (run as root, or the platform locks RAPL): %w", path, err)
	case errors.Is(err, fs.ErrPermission):
		return fmt.Errorf("rapl: %s is not readable (energy counters are root-only since Linux 5.10; run as root): %w", path, err)
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("rapl: %s is absent (no RAPL zone or constraint there): %w", path, err)
	}
	return fmt.Errorf("rapl: %s %s: %w", op, path, err)
}
