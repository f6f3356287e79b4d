package rapl

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func TestZonesSortedAndNamed(t *testing.T) {
	root := newTree(t.TempDir(), defaultZone)
	// intel-rapl:10 sorts after intel-rapl:2 numerically, before it as text.
	writeZone(root, "intel-rapl:10", zoneFiles{Name: "package-10"})
	writeZone(root, "intel-rapl:2", zoneFiles{Name: "package-2"})
	zs, err := Zones(root)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, z := range zs {
		got = append(got, z.String())
		if z.Path != filepath.Join(root, z.ID()) {
			t.Errorf("%v: Path %q", z, z.Path)
		}
	}
	want := "package-0 (intel-rapl:0), core (intel-rapl:0:0), uncore (intel-rapl:0:1), package-1 (intel-rapl:1), core (intel-rapl:1:0), package-2 (intel-rapl:2), package-10 (intel-rapl:10)"
	if s := strings.Join(got, ", "); s != want {
		t.Errorf("Zones =\n%s\nwant\n%s", s, want)
	}
}

func TestFindZone(t *testing.T) {
	root := newTree(t.TempDir(), defaultZone)
	tests := []struct{ name, wantID, wantErr string }{
		{"package-0", "intel-rapl:0", ""},
		{"package-1", "intel-rapl:1", ""},
		{"uncore", "intel-rapl:0:1", ""},
		{"intel-rapl:1:0", "intel-rapl:1:0", ""}, // by directory
		{"core", "", `rapl: zone name "core" is ambiguous under ` + root + ` (intel-rapl:0:0, intel-rapl:1:0): give the directory name`},
		{"dram", "", `rapl: no zone "dram" under ` + root + ` (known: package-0 (intel-rapl:0), core (intel-rapl:0:0), uncore (intel-rapl:0:1), package-1 (intel-rapl:1), core (intel-rapl:1:0))`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			z, err := FindZone(root, tt.name)
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Fatalf("FindZone(%q) error = %v\nwant %s", tt.name, err, tt.wantErr)
				}
				return
			}
			if err != nil || z.ID() != tt.wantID {
				t.Fatalf("FindZone(%q) = %v, %v; want %s", tt.name, z, err, tt.wantID)
			}
		})
	}
}

func TestNoZones(t *testing.T) {
	empty := t.TempDir()
	must(os.Mkdir(filepath.Join(empty, "intel-rapl"), 0o755)) // control type, no zones
	for _, root := range []string{empty, filepath.Join(empty, "absent")} {
		_, err := FindZone(root, "package-0")
		want := "rapl: no RAPL zones under " + root + " (this machine has no Intel RAPL powercap interface)"
		if err == nil || err.Error() != want {
			t.Errorf("FindZone(%s) error = %v, want %s", root, err, want)
		}
		if _, ok := errors.AsType[*NoZonesError](err); !ok {
			t.Errorf("error %T is not a *NoZonesError", err)
		}
	}
}

func TestZoneReadWrite(t *testing.T) {
	root := newTree(t.TempDir(), defaultZone)
	z := Zone{Path: filepath.Join(root, "intel-rapl:0"), Name: "package-0"}
	for _, c := range []struct {
		get  func() (uint64, error)
		want uint64
	}{{z.Energy, 5_000_000}, {z.MaxEnergyRange, 262_143_328_850}, {z.PowerLimit, 150_000_000}, {z.TimeWindow, 1_000_000}} {
		if v, err := c.get(); err != nil || v != c.want {
			t.Errorf("read = %d, %v; want %d", v, err, c.want)
		}
	}
	if err := z.SetPowerLimit(95_500_000); err != nil {
		t.Fatal(err)
	}
	if err := z.SetTimeWindow(10_000); err != nil {
		t.Fatal(err)
	}
	if v, _ := z.PowerLimit(); v != 95_500_000 { // the real FS stores what is written
		t.Errorf("PowerLimit after set = %d", v)
	}
	if v, _ := z.TimeWindow(); v != 10_000 {
		t.Errorf("TimeWindow after set = %d", v)
	}
	if on, err := z.Enabled(); !on || err != nil {
		t.Errorf("Enabled = %v, %v", on, err)
	}

	// The kernel's quantisation, as the fake FS models it.
	q := Zone{Path: z.Path, FS: &fakeFS{}}
	must(q.SetTimeWindow(10_000))
	must(q.SetPowerLimit(95_550_000))
	if v, _ := q.TimeWindow(); v != 9765 {
		t.Errorf("quantised TimeWindow = %d, want 9765", v)
	}
	if v, _ := q.PowerLimit(); v != 95_500_000 {
		t.Errorf("quantised PowerLimit = %d, want 95500000", v)
	}
}

func TestZoneErrors(t *testing.T) {
	root := newTree(t.TempDir(), defaultZone)
	path := filepath.Join(root, "intel-rapl:0")
	must(os.Remove(filepath.Join(path, fileEnergy)))
	must(os.WriteFile(filepath.Join(path, fileMaxEnergy), []byte("12x\n"), 0o644))
	must(os.Remove(filepath.Join(path, fileEnabled)))
	ffs := &fakeFS{}
	ffs.setDeny(fileLimit, syscall.EACCES)
	ffs.setDeny(fileWindow, syscall.EIO)
	z := Zone{Path: path, FS: ffs}
	_, errE := z.Energy()
	_, errM := z.MaxEnergyRange()
	errL := z.SetPowerLimit(1)
	errW := z.SetTimeWindow(1)
	tests := []struct {
		err    error
		want   string
		target error
	}{
		{errE, "rapl: " + path + "/energy_uj is absent (no RAPL zone or constraint there): no such file or directory", fs.ErrNotExist},
		{errM, "rapl: " + path + `/max_energy_range_uj: bad value "12x": invalid syntax`, nil},
		{errL, "rapl: " + path + "/constraint_0_power_limit_uw is not writable (run as root, or the platform locks RAPL): permission denied", fs.ErrPermission},
		{errW, "rapl: write " + path + "/constraint_0_time_window_us: input/output error", syscall.EIO},
	}
	for i, tt := range tests {
		if tt.err == nil || tt.err.Error() != tt.want {
			t.Errorf("%d: error = %v\nwant %s", i, tt.err, tt.want)
		}
		if tt.target != nil && !errors.Is(tt.err, tt.target) {
			t.Errorf("%d: error %v is not %v", i, tt.err, tt.target)
		}
	}
	if on, err := z.Enabled(); !on || err != nil {
		t.Errorf("Enabled without the file = %v, %v; want true", on, err)
	}
}

func TestOSFSWriteDoesNotCreate(t *testing.T) {
	err := OSFS{}.WriteFile(filepath.Join(t.TempDir(), "x"), []byte("1"))
	if !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("WriteFile on a missing file = %v, want ErrNotExist", err)
	}
}
