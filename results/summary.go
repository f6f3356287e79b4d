package results

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"math/bits"
	"runtime/debug"
	"slices"
)

// Summary accumulates a run's metrics from its Records. Energy and power
// fields are filled in by the caller (the engine owns the power meter).
type Summary struct {
	// Provenance: the build that made the summary (Build) and how the run
	// was set up: where the machine size came from ("MaxProcs header",
	// "largest job (no MaxProcs/MaxNodes header)", "--procs") and the power
	// models asked outside their fitted range. scripts/ident.sh ignores
	// these keys when it compares two builds; they come first, so that the
	// other lines are the same with and without them.
	DrsimVersion       string   `json:"drsim_version"`
	VCSRevision        string   `json:"vcs_revision"`
	VCSModified        bool     `json:"vcs_modified"`
	MachineSource      string   `json:"machine_size_source,omitempty"`
	ModelExtrapolation []string `json:"model_extrapolation,omitempty"`

	Policy    string  `json:"policy"`
	Procs     int     `json:"processors"`
	Jobs      int     `json:"jobs_simulated"`
	Dropped   int     `json:"jobs_dropped"`
	DropWhy   string  `json:"dropped_by_reason,omitempty"` // e.g. "run_time=0: 8, no processors: 1"
	Killed    int     `json:"jobs_walltime_reached"`
	FirstSub  float64 `json:"first_submit_s"`
	LastEnd   float64 `json:"last_end_s"`
	Makespan  float64 `json:"makespan_s"`
	Util      float64 `json:"utilisation"`
	MeanWait  float64 `json:"mean_wait_s"`
	MedWait   float64 `json:"median_wait_s"`
	P95Wait   float64 `json:"p95_wait_s"`
	MeanBSld  float64 `json:"mean_bounded_slowdown"`
	MeanTurn  float64 `json:"mean_turnaround_s"`
	EnergyKWh float64 `json:"energy_kwh"`
	JobKWh    float64 `json:"job_energy_kwh"`
	IdleKWh   float64 `json:"idle_energy_kwh"`
	PeakW     float64 `json:"peak_power_w"`
	MeanW     float64 `json:"mean_power_w"`
	StdW      float64 `json:"power_std_w"`
	Evictions int     `json:"evictions"`
	WastedKWh float64 `json:"wasted_energy_kwh"`

	// DR figures; zero when the run had no DR events.
	DRHours    float64 `json:"dr_hours"`
	DRStdW     float64 `json:"dr_power_std_w"`
	MaxExcessW float64 `json:"max_excess_over_limit_w"`
	ExcessJ    float64 `json:"energy_above_limit_j"`
	InDR       Split   `json:"started_in_dr"`
	OutDR      Split   `json:"started_outside_dr"`

	// Network model figures, over job starts (a restarted job counts
	// again); zero and omitted when the run had no network model.
	NetStarts    int     `json:"net_starts,omitempty"`
	MeanSwitches float64 `json:"mean_switches_spanned,omitempty"`
	MeanGroups   float64 `json:"mean_groups_spanned,omitempty"`
	NonContig    float64 `json:"noncontiguous_fraction,omitempty"` // starts whose nodes are not one run of the node order

	// Node power states: energy of off and of booting nodes (part of
	// EnergyKWh) and node boots; zero and omitted without power saving.
	OffKWh        float64 `json:"off_energy_kwh,omitempty"`
	TransitionKWh float64 `json:"transition_energy_kwh,omitempty"`
	Boots         int     `json:"boots,omitempty"`

	// Per device, on machines with GPUs (Devices set): the job energy
	// (JobKWh) drawn by busy GPUs, and the rest of it (CPU packages and the
	// nodes' other draw); omitted without GPUs.
	CPUKWh *float64 `json:"cpu_energy_kwh,omitempty"`
	GPUKWh *float64 `json:"gpu_energy_kwh,omitempty"`

	// Level problems (dr and DR-Scale governors) solved in full, and those
	// whose search hit powercap.MCKP's budget: their answer is feasible,
	// within MaxGapPct of optimal (from the LP bound), not proven optimal.
	LevelSolves  int     `json:"level_problems,omitempty"`
	ApproxSolves int     `json:"level_problems_over_budget,omitempty"`
	MaxGapPct    float64 `json:"level_problem_max_gap_pct,omitempty"`

	waits   waitSet // waits.go: exact quantiles in bounded memory
	sumWait float64
	sumBSld float64
	sumTurn float64
	work    float64
	hasPow  bool
}

// Split holds the metrics of one group of jobs.
type Split struct {
	Jobs      int     `json:"jobs"`
	MeanWait  float64 `json:"mean_wait_s"`
	MeanTurn  float64 `json:"mean_turnaround_s"`
	MeanBSld  float64 `json:"mean_bounded_slowdown"`
	EnergyKWh float64 `json:"energy_kwh"`
}

// NewSummary starts an empty summary.
func NewSummary(policy string, procs int) *Summary {
	b := Build()
	return &Summary{Policy: policy, Procs: procs, FirstSub: math.Inf(1),
		DrsimVersion: b.Version, VCSRevision: b.Revision, VCSModified: b.Modified}
}

// BuildInfo identifies the binary: its module version ("(devel)" for a
// build from a checkout) and the VCS revision it was built from.
type BuildInfo struct {
	Version   string // module version, "(devel)", or "unknown" without build info
	Revision  string // vcs.revision; "unknown" when the build recorded none (go run, go test)
	Modified  bool   // vcs.modified: the work tree had uncommitted changes
	GoVersion string
}

// Build reads the running binary's build information (runtime/debug).
func Build() BuildInfo {
	b := BuildInfo{Version: "unknown", Revision: "unknown"}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return b
	}
	b.GoVersion = bi.GoVersion
	if bi.Main.Version != "" {
		b.Version = bi.Main.Version
	}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			b.Revision = s.Value
		case "vcs.modified":
			b.Modified = s.Value == "true"
		}
	}
	return b
}

// Record adds one finished job.
func (s *Summary) Record(r *Record) error {
	s.Jobs++
	if r.State == StateWalltime {
		s.Killed++
	}
	w := r.Wait()
	if err := s.waits.add(w); err != nil {
		return err
	}
	s.sumWait += w
	s.sumBSld += r.BoundedSlowdown()
	s.sumTurn += r.Turnaround()
	s.work += float64(r.Procs) * r.Runtime()
	s.FirstSub = min(s.FirstSub, r.Submit)
	s.LastEnd = max(s.LastEnd, r.End)
	s.Evictions += r.Evictions
	if r.Energy >= 0 {
		s.hasPow = true
		s.WastedKWh += r.Wasted / 3.6e6
	}
	g := &s.OutDR
	if r.StartedInDR {
		g = &s.InDR
	}
	g.Jobs++
	g.MeanWait += w
	g.MeanTurn += r.Turnaround()
	g.MeanBSld += r.BoundedSlowdown()
	if r.Energy > 0 {
		g.EnergyKWh += r.Energy / 3.6e6
	}
	return nil
}

// Finish computes the derived figures. Call it once, after the last Record.
func (s *Summary) Finish() error {
	if s.Jobs == 0 {
		s.FirstSub = 0
		return nil
	}
	n := float64(s.Jobs)
	s.MeanWait, s.MeanBSld, s.MeanTurn = s.sumWait/n, s.sumBSld/n, s.sumTurn/n
	s.Makespan = s.LastEnd - s.FirstSub
	if s.Makespan > 0 && s.Procs > 0 {
		s.Util = s.work / (float64(s.Procs) * s.Makespan)
	}
	// Selection, not a full sort: the two quantiles need four order
	// statistics, found in expected linear time.
	q, err := s.waits.quantiles(0.5, 0.95)
	if err != nil {
		return err
	}
	s.MedWait, s.P95Wait = q[0], q[1]
	for _, g := range []*Split{&s.InDR, &s.OutDR} {
		if g.Jobs > 0 {
			k := float64(g.Jobs)
			g.MeanWait, g.MeanTurn, g.MeanBSld = g.MeanWait/k, g.MeanTurn/k, g.MeanBSld/k
		}
	}
	return nil
}

// quantile is the linear-interpolation quantile (numpy's default) of x,
// which it reorders: the order statistics it reads are selected in place
// (nthElement), so later calls with larger q select from the tail only.
func quantile(x []float64, q float64) float64 {
	if len(x) == 0 {
		return 0
	}
	h := q * float64(len(x)-1)
	lo := math.Floor(h)
	i := int(lo)
	v := nthElement(x, i)
	if i+1 >= len(x) {
		return v
	}
	// Everything after position i is ≥ x[i]: the next order statistic is
	// their minimum.
	return v + (h-lo)*(slices.Min(x[i+1:])-v)
}

// nthElement reorders x so that x[k] is the value a sort would put there,
// no element before it larger and none after it smaller, and returns it.
// It is quickselect with a median-of-three pivot and a three-way
// partition (long runs of equal waits are common), falling back to a
// sort of the remaining range when the ranges shrink too slowly.
func nthElement(x []float64, k int) float64 {
	lo, hi := 0, len(x) // x[lo:hi] holds position k
	for budget := 2 * bits.Len(uint(len(x))); hi-lo > 16; budget-- {
		if budget == 0 {
			break
		}
		a, b, c := x[lo], x[lo+(hi-lo)/2], x[hi-1]
		p := max(min(a, b), min(max(a, b), c)) // median of three
		// Dutch national flag: x[lo:lt] < p, x[lt:i] == p, x[gt:hi] > p.
		lt, i, gt := lo, lo, hi
		for i < gt {
			switch v := x[i]; {
			case v < p:
				x[lt], x[i] = v, x[lt]
				lt++
				i++
			case v > p:
				gt--
				x[gt], x[i] = v, x[gt]
			default:
				i++
			}
		}
		switch {
		case k < lt:
			hi = lt
		case k >= gt:
			lo = gt
		default:
			return p
		}
	}
	slices.Sort(x[lo:hi])
	return x[k]
}

// HasPower reports whether the run had a power model.
func (s *Summary) HasPower() bool { return s.hasPow }

// WriteJSON writes the summary as indented JSON.
func (s *Summary) WriteJSON(w io.Writer) error {
	b, err := json.MarshalIndent(s, "", "  ")
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// WriteTable writes the human summary table.
func (s *Summary) WriteTable(w io.Writer) error {
	t := &Table{Header: []string{"metric", "value"}}
	t.Add("policy", s.Policy)
	t.Add("processors", fmt.Sprint(s.Procs))
	t.Add("jobs simulated", fmt.Sprint(s.Jobs))
	if s.DropWhy != "" {
		t.Add("jobs dropped", fmt.Sprintf("%d (%s)", s.Dropped, s.DropWhy))
	} else {
		t.Add("jobs dropped", fmt.Sprint(s.Dropped))
	}
	t.Add("walltime reached", fmt.Sprint(s.Killed))
	t.Add("makespan", fmt.Sprintf("%.0f s (%.2f d)", s.Makespan, s.Makespan/86400))
	t.Add("utilisation", fmt.Sprintf("%.2f %%", 100*s.Util))
	t.Add("wait mean / median / p95", fmt.Sprintf("%.0f / %.0f / %.0f s", s.MeanWait, s.MedWait, s.P95Wait))
	t.Add("mean bounded slowdown", fmt.Sprintf("%.2f", s.MeanBSld))
	t.Add("mean turnaround", fmt.Sprintf("%.0f s", s.MeanTurn))
	if s.hasPow {
		t.Add("energy (jobs + idle)", fmt.Sprintf("%.1f kWh (%.1f + %.1f)", s.EnergyKWh, s.JobKWh, s.IdleKWh))
		if s.CPUKWh != nil && s.GPUKWh != nil {
			t.Add("job energy CPU / GPU", fmt.Sprintf("%.1f / %.1f kWh", *s.CPUKWh, *s.GPUKWh))
		}
		if s.OffKWh > 0 || s.TransitionKWh > 0 || s.Boots > 0 {
			t.Add("node energy off / booting", fmt.Sprintf("%.1f / %.1f kWh (%d boots)", s.OffKWh, s.TransitionKWh, s.Boots))
		}
		t.Add("power peak / mean / std", fmt.Sprintf("%.1f / %.1f / %.1f kW", s.PeakW/1e3, s.MeanW/1e3, s.StdW/1e3))
	}
	if s.DRHours > 0 {
		t.Add("DR time", fmt.Sprintf("%.1f h", s.DRHours))
		t.Add("power std inside DR", fmt.Sprintf("%.1f kW", s.DRStdW/1e3))
		t.Add("worst excess over limit", fmt.Sprintf("%.1f W (%.0f J above)", s.MaxExcessW, s.ExcessJ))
		t.Add("evictions (wasted)", fmt.Sprintf("%d (%.2f kWh)", s.Evictions, s.WastedKWh))
	}
	if s.ApproxSolves > 0 {
		t.Add("level problems over budget", fmt.Sprintf("%d of %d (within %.3g %% of optimal)", s.ApproxSolves, s.LevelSolves, s.MaxGapPct))
	}
	if s.NetStarts > 0 {
		t.Add("placement spread", fmt.Sprintf("%.2f switches, %.2f groups per job; %.1f %% non-contiguous", s.MeanSwitches, s.MeanGroups, 100*s.NonContig))
	}
	return t.WriteText(w)
}
