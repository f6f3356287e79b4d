package powercap

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"drsim/workloads"
)

// An AppMapper assigns each SWF job an application: an index into the
// profile slice it was built with. It is a pure function of the spec, the
// job's fields and the seed, so a run is reproducible and independent of the
// order in which jobs are asked about.
type AppMapper interface {
	App(j *workloads.Job) int
}

// AppMapFunc builds a mapper from the text after "name:" in a spec (empty
// when there is none).
type AppMapFunc func(arg string, apps []Profile, seed uint64) (AppMapper, error)

// AppMaps is the registry of job-to-application rules (`--app-map`):
//
//	exe        executable number (SWF field 14) mod len(apps); -1 → job number mod len(apps)
//	user       user ID (SWF field 12) mod len(apps); -1 → job number mod len(apps)
//	mix[:w]    weighted random draw, seeded, from a hash of (seed, job number, line);
//	           weights "lulesh=2,cg=1" (apps not named get 0), default all equal
//	one:NAME   every job runs NAME
var AppMaps = map[string]AppMapFunc{
	"exe":  newFieldMap(func(j *workloads.Job) int64 { return j.Exe }),
	"user": newFieldMap(func(j *workloads.Job) int64 { return j.User }),
	"mix":  newMixMap,
	"one":  newOneMap,
}

// NewAppMap parses spec ("exe", "user", "mix", "mix:lulesh=2,cg=1",
// "one:lulesh") and builds the mapper over apps.
func NewAppMap(spec string, apps []Profile, seed uint64) (AppMapper, error) {
	name, arg, _ := strings.Cut(spec, ":")
	f, ok := AppMaps[name]
	if !ok {
		keys := make([]string, 0, len(AppMaps))
		for k := range AppMaps {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		return nil, fmt.Errorf("powercap: unknown app map %q (known: %s)", name, strings.Join(keys, ", "))
	}
	if len(apps) == 0 {
		return nil, fmt.Errorf("powercap: app map %q: no application profiles", spec)
	}
	return f(arg, apps, seed)
}

// fieldMap maps a non-negative SWF field value v to v mod n, and -1 (or any
// negative value: unknown) to the job number mod n.
type fieldMap struct {
	field func(*workloads.Job) int64
	n     int64
}

func newFieldMap(field func(*workloads.Job) int64) AppMapFunc {
	return func(arg string, apps []Profile, _ uint64) (AppMapper, error) {
		if arg != "" {
			return nil, fmt.Errorf("powercap: app map takes no argument, got %q", arg)
		}
		return fieldMap{field, int64(len(apps))}, nil
	}
}

func (m fieldMap) App(j *workloads.Job) int {
	v := m.field(j)
	if v < 0 {
		v = j.ID
	}
	return int(((v % m.n) + m.n) % m.n)
}

type oneMap int

func newOneMap(arg string, apps []Profile, _ uint64) (AppMapper, error) {
	i, err := index(apps, arg)
	if err != nil {
		return nil, err
	}
	return oneMap(i), nil
}

func (m oneMap) App(*workloads.Job) int { return int(m) }

// mixMap draws each job's app with probability weight/Σweights, using a
// uniform number derived from splitmix64(seed, job number, line).
type mixMap struct {
	seed uint64
	cum  []float64 // cumulative weights, normalised to end at 1
}

func newMixMap(arg string, apps []Profile, seed uint64) (AppMapper, error) {
	w := make([]float64, len(apps))
	if arg == "" {
		for i := range w {
			w[i] = 1
		}
	}
	for _, kv := range strings.Split(arg, ",") {
		if arg == "" {
			break
		}
		name, val, ok := strings.Cut(kv, "=")
		x, err := strconv.ParseFloat(val, 64)
		if !ok || err != nil || !(x >= 0) || math.IsInf(x, 0) {
			return nil, fmt.Errorf("powercap: app map mix: %q is not name=weight with a weight >= 0", kv)
		}
		i, err := index(apps, strings.TrimSpace(name))
		if err != nil {
			return nil, err
		}
		w[i] += x
	}
	m := mixMap{seed: seed, cum: make([]float64, len(w))}
	var s float64
	for i, x := range w {
		s += x
		m.cum[i] = s
	}
	if !(s > 0) {
		return nil, fmt.Errorf("powercap: app map mix:%s: weights sum to 0", arg)
	}
	for i := range m.cum {
		m.cum[i] /= s
	}
	return m, nil
}

func (m mixMap) App(j *workloads.Job) int {
	h := splitmix(splitmix(splitmix(m.seed)^uint64(j.ID)) ^ uint64(j.Line))
	u := float64(h>>11) / (1 << 53)
	i := sort.SearchFloat64s(m.cum, u)
	// Move past boundaries equal to u, so that cum[i-1] <= u < cum[i]: app
	// i then has a positive weight (cum ends at exactly 1 > u).
	for i < len(m.cum)-1 && m.cum[i] <= u {
		i++
	}
	return i
}

// splitmix is the SplitMix64 finaliser (Steele, Lea, Flood 2014).
func splitmix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9
	x = (x ^ (x >> 27)) * 0x94d049bb133111eb
	return x ^ (x >> 31)
}
