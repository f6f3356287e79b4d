package powercap

import (
	"context"
	"fmt"
	"io/fs"
	"path"
	"sort"
	"strings"
)

// Provenance of the built-in profiles (see /work/shared/power/SOURCES.md).
const (
	PCMBigDir        = "zzheng33__power/GPGPU/data/cpu_performance/big"
	PCMCommit        = "fe39402d2c704f6d10b59a452f12762f7d9a717d"
	IconoclastFile   = "csrhau__Iconoclast/Tools/Power/data_old/run1/camelot/data.csv"
	IconoclastCommit = "a77cf2604ea7687415e12ccae6ee79f57f7c4a57"
)

// builtinNames maps the PCM app directories to built-in profile names.
var builtinNames = map[string]string{
	"LULESH": "lulesh", "RSBench_omp": "rsbench", "XSBench_omp": "xsbench", "miniFE": "minife",
	"bt": "bt", "cg": "cg", "ep": "ep", "ft": "ft", "is": "is", "lu": "lu", "mg": "mg", "sp": "sp", "ua": "ua",
}

// FitBuiltins fits the built-in profiles from the shared power data (fsys
// rooted at the directory that holds SOURCES.md): a cap model and a
// frequency model (x = mean CFREQ) for each of the 13 PCM big-input apps,
// and a frequency model for miniMD. Builtin returns the same profiles with
// their coefficients embedded; a test keeps the two equal.
func FitBuiltins(ctx context.Context, fsys fs.FS) ([]Profile, error) {
	ds, err := ReadPCMSweep(fsys, PCMBigDir)
	if err != nil {
		return nil, err
	}
	byName := map[string]Profile{}
	for _, k := range []Knob{Cap, Freq} {
		cs, err := Calibrate(ctx, ds, k)
		if err != nil {
			return nil, err
		}
		for _, c := range cs {
			name, ok := builtinNames[c.Profile.Name]
			if !ok {
				return nil, fmt.Errorf("powercap: unexpected PCM app %q", c.Profile.Name)
			}
			p := c.Profile
			p.Name = name
			p.Source = fmt.Sprintf("zzheng33/power@%s %s: Intel PCM, %d runs at caps %g–%g W; cap model x = cap, freq model x = mean CFREQ",
				PCMCommit, inRepo(path.Join(PCMBigDir, c.Profile.Name)), len(c.Points), p.Model(k).XMin, p.Model(k).XMax)
			if k == Freq {
				p.Source = byName[name].Source
			}
			byName[name] = Merge(byName[name], p)
		}
	}
	ic, err := ReadIconoclast(fsys, IconoclastFile)
	if err != nil {
		return nil, err
	}
	cs, err := Calibrate(ctx, ic, Freq)
	if err != nil {
		return nil, err
	}
	for _, c := range cs {
		p := c.Profile
		p.Name = strings.ToLower(p.Name)
		p.Source = fmt.Sprintf("csrhau/Iconoclast@%s %s: RAPL package, %d runs at %g–%g GHz; idle from the sleep runs; desktop package (~6–15 W), kept as measured",
			IconoclastCommit, inRepo(IconoclastFile), len(c.Points), p.Freq.XMin, p.Freq.XMax)
		byName[p.Name] = p
	}
	out := make([]Profile, 0, len(byName))
	for _, p := range byName {
		out = append(out, p)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// inRepo strips the <owner>__<repo>/ directory of a shared-data path.
func inRepo(p string) string {
	_, rest, _ := strings.Cut(p, "/")
	return rest
}

// Lookup returns the profile called name (case-insensitive; an exact match
// wins) or an error listing the known names.
func Lookup(profiles []Profile, name string) (Profile, error) {
	for _, p := range profiles {
		if p.Name == name {
			return p, nil
		}
	}
	i, err := index(profiles, name)
	if err != nil {
		return Profile{}, err
	}
	return profiles[i], nil
}

func index(profiles []Profile, name string) (int, error) {
	found := -1
	for i, p := range profiles {
		if p.Name == name {
			return i, nil
		}
		if strings.EqualFold(p.Name, name) && found < 0 {
			found = i
		}
	}
	if found >= 0 {
		return found, nil
	}
	names := make([]string, len(profiles))
	for i, p := range profiles {
		names[i] = p.Name
	}
	sort.Strings(names)
	return -1, fmt.Errorf("powercap: unknown app %q (known: %s)", name, strings.Join(names, ", "))
}
