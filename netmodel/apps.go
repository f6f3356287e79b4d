package netmodel

import (
	"fmt"
	"sort"
	"strings"
)

// Traffic is one communication pattern of an application, with the message
// size in bytes and a weight (calls per iteration relative to the other
// entries of the same App).
type Traffic struct {
	Pattern Pattern
	Size    float64
	Weight  float64
}

// App is an application's communication profile: the fraction c of its
// runtime spent communicating on a compact placement, and its traffic mix.
type App struct {
	Name     string
	Fraction float64 // c in [0,1]
	Traffic  []Traffic
	Note     string // source or rationale
}

// Apps are default profiles for the benchmarks in drsim's power data (NPB,
// LULESH, miniFE, XSBench, RSBench; miniMD). The power data are single-node
// OpenMP runs, so c was not measured: each c is a stated estimate, the
// patterns follow the codes' documented communication structure, and the
// sizes are typical per-message sizes for class C / default inputs on tens
// of nodes. Replace them with measured values when available.
var Apps = map[string]App{
	"lulesh":  {"lulesh", 0.10, []Traffic{{Halo3D, 64 << 10, 1}, {Allreduce, 8, 1}}, "ghost-node exchange on a 3-D block decomposition plus a dt allreduce per step; compute-bound (estimate)"},
	"minife":  {"minife", 0.20, []Traffic{{Halo3D, 16 << 10, 1}, {Allreduce, 8, 2}}, "CG: one halo exchange (matvec) and two dot-product allreduces per iteration (estimate)"},
	"minimd":  {"minimd", 0.10, []Traffic{{Halo3D, 32 << 10, 1}, {Allreduce, 8, 1}}, "ghost-atom exchange with six neighbours, small reductions for thermo output (estimate)"},
	"xsbench": {"xsbench", 0, nil, "cross-section lookups are independent; MPI only reduces the result at the end"},
	"rsbench": {"rsbench", 0, nil, "as xsbench: independent lookups, no communication in the timed loop"},
	"ep":      {"ep", 0, nil, "NPB EP: embarrassingly parallel, three tiny reductions at the end (~0 communication)"},
	"bt":      {"bt", 0.15, []Traffic{{Halo3D, 128 << 10, 1}}, "NPB BT: multipartition face exchanges in the three ADI sweeps (estimate)"},
	"sp":      {"sp", 0.20, []Traffic{{Halo3D, 96 << 10, 1}}, "NPB SP: as BT with more, smaller exchanges (estimate)"},
	"lu":      {"lu", 0.20, []Traffic{{PointToPoint, 4 << 10, 8}, {Allreduce, 40, 1}}, "NPB LU: SSOR wavefront pipelines many small neighbour messages; residual allreduce (estimate)"},
	"mg":      {"mg", 0.25, []Traffic{{Halo3D, 32 << 10, 1}, {Allreduce, 8, 1}}, "NPB MG: halo exchanges on every multigrid level, norm allreduce (estimate)"},
	"cg":      {"cg", 0.35, []Traffic{{PointToPoint, 64 << 10, 2}, {Allreduce, 8, 2}}, "NPB CG: row/transpose exchanges of the sparse matvec plus dot-product allreduces (estimate)"},
	"ft":      {"ft", 0.50, []Traffic{{AllToAll, 256 << 10, 1}}, "NPB FT: global transposes of the 3-D FFT, all-to-all heavy (estimate)"},
	"is":      {"is", 0.60, []Traffic{{AllToAll, 128 << 10, 1}, {Allreduce, 4 << 10, 1}}, "NPB IS: bucket key exchange (all-to-all) dominates (estimate)"},
	"ua":      {"ua", 0.15, []Traffic{{PointToPoint, 8 << 10, 4}, {Allreduce, 8, 1}}, "NPB UA: irregular neighbour exchanges on an adaptive mesh (estimate)"},
}

// AppNames lists the keys of Apps, sorted.
func AppNames() []string {
	names := make([]string, 0, len(Apps))
	for k := range Apps {
		names = append(names, k)
	}
	sort.Strings(names)
	return names
}

// LookupApp returns the profile of a case-insensitive application name.
func LookupApp(name string) (App, error) {
	a, ok := Apps[strings.ToLower(name)]
	if !ok {
		return App{}, fmt.Errorf("netmodel: unknown application %q (known: %s)", name, strings.Join(AppNames(), ", "))
	}
	return a, nil
}

// AppRatio is the weighted CommRatio of an application's traffic mix:
// Σ w·T(nodes, share) / Σ w·T(compact, 1). It is 1 for an app without traffic.
func (m *Model) AppRatio(nodes []int32, app App, share float64) float64 {
	var num, den float64
	c := m.compact(len(nodes))
	for _, tr := range app.Traffic {
		num += tr.Weight * m.CommTime(nodes, tr.Pattern, tr.Size, share)
		den += tr.Weight * m.CommTime(c, tr.Pattern, tr.Size, 1)
	}
	if den <= 0 || num <= 0 {
		return 1
	}
	return num / den
}

// RuntimeFactor is the multiplier on a job's recorded runtime:
// (1 − c)·computeScale + c·commRatio, where computeScale is t(f or P)/t(max)
// from the power model and commRatio comes from CommRatio or AppRatio.
// Communication does not scale with CPU frequency.
func RuntimeFactor(c, computeScale, commRatio float64) float64 {
	return (1-c)*computeScale + c*commRatio
}
