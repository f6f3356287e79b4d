package slurmconf

import (
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"

	"drsim/internal/slurmlex"
)

// Conf is the scheduling subset of a slurm.conf. Zero weights mean the
// factor is off, as in Slurm.
type Conf struct {
	File string

	PriorityType    string // priority/basic (Slurm's default) or priority/multifactor
	FairTree        bool   // false with PriorityFlags=NO_FAIR_TREE (the classic formula drsim implements)
	WeightAge       float64
	WeightFairshare float64
	WeightJobSize   float64
	WeightPartition float64
	WeightQOS       float64
	MaxAge          float64 // s (PriorityMaxAge; default 7 days)
	DecayHalfLife   float64 // s (PriorityDecayHalfLife; default 7 days; 0 = no decay)
	CalcPeriod      float64 // s (PriorityCalcPeriod; default 5 minutes)
	FavorSmall      bool
	// EnforceLimits is AccountingStorageEnforce with limits (or 2, safe,
	// all): only then does Slurm 22.05 add a finished job's last stretch of
	// usage at its end (priority_p_job_end, called from the limits code);
	// otherwise usage accrues only at recompute instants, for the jobs
	// running then.
	EnforceLimits bool

	SchedulerType string // sched/backfill (default) or sched/builtin
	Sched         Sched

	Partitions []Partition

	// Unknown lists the keys the file sets that drsim ignores, each once,
	// in order of first appearance.
	Unknown []string
}

// Sched are the SchedulerParameters the main and backfill schedulers use,
// with Slurm 22.05's defaults.
type Sched struct {
	Interval        float64 // s between main scheduler passes (sched_interval; default 60)
	BfInterval      float64 // s between backfill passes (bf_interval; default 30)
	BfMaxJobTest    int     // jobs a backfill pass tests (bf_max_job_test; default 500)
	BfWindow        float64 // s a backfill pass plans ahead (bf_window, given in minutes; default 1 day)
	BfResolution    float64 // s of the plan's time steps (bf_resolution; default 60)
	BfPartCountResv int     // reservations per partition and pass (bf_job_part_count_reserve; 0 = every tested job)
	BatchDelay      float64 // s: submits run the main scheduler at most once per this (batch_sched_delay; default 3)
}

// Partition is one PartitionName line.
type Partition struct {
	Name              string
	PriorityJobFactor float64
	Default           bool
	Line              int
}

// Default returns the configuration Slurm 22.05 uses for unset keys.
func Default() Conf {
	return Conf{
		PriorityType: "priority/basic", FairTree: true,
		MaxAge: 7 * 86400, DecayHalfLife: 7 * 86400, CalcPeriod: 300,
		SchedulerType: "sched/backfill",
		Sched:         Sched{Interval: 60, BfInterval: 30, BfMaxJobTest: 500, BfWindow: 1440 * 60, BfResolution: 60, BatchDelay: 3},
	}
}

// Load reads the slurm.conf at path.
func Load(path string) (*Conf, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return Parse(f, path)
}

// known lists the keys Parse uses (lower case).
var known = map[string]bool{
	"prioritytype": true, "priorityflags": true, "priorityweightage": true, "priorityweightfairshare": true,
	"priorityweightjobsize": true, "priorityweightpartition": true, "priorityweightqos": true,
	"prioritymaxage": true, "prioritydecayhalflife": true, "prioritycalcperiod": true, "priorityfavorsmall": true,
	"schedulertype": true, "schedulerparameters": true, "partitionname": true, "accountingstorageenforce": true,
}

// Parse reads a slurm.conf from r; file names it in errors.
func Parse(r io.Reader, file string) (*Conf, error) {
	c := Default()
	c.File = file
	if err := c.parse(r, file); err != nil {
		return nil, err
	}
	return &c, nil
}

// Set applies "Key=Value" settings separated by semicolons (a flag's
// value, e.g. "PriorityWeightAge=1000;SchedulerParameters=bf_interval=5")
// over c, with the same keys and checks as a slurm.conf; what names the
// setting in errors (e.g. "--slurm-set"), with the setting's 1-based
// position as its line.
func (c *Conf) Set(spec, what string) error {
	if strings.TrimSpace(spec) == "" {
		return nil
	}
	file, unknown := c.File, len(c.Unknown)
	err := c.parse(strings.NewReader(strings.ReplaceAll(spec, ";", "\n")), what)
	c.File = file
	if err == nil && len(c.Unknown) > unknown {
		err = fmt.Errorf("%s: unknown key %s (known: the Priority* keys, PartitionName, SchedulerType, SchedulerParameters, AccountingStorageEnforce)", what, c.Unknown[unknown])
	}
	c.Unknown = c.Unknown[:unknown]
	return err
}

func (c *Conf) parse(r io.Reader, file string) error {
	seen := map[string]bool{}
	for _, k := range c.Unknown {
		seen[strings.ToLower(k)] = true
	}
	return slurmlex.Scan(r, file, func(l slurmlex.Line) error {
		line := l.Num
		if len(l.Pairs) == 0 {
			if l.Include != "" {
				return nil
			}
			word, _, _ := strings.Cut(l.Rest, " ")
			return fmt.Errorf("%s:%d: %q: want Key=Value", file, line, word)
		}
		key, val := l.Pairs[0].Key, l.Pairs[0].Value
		lk := strings.ToLower(key)
		if !known[lk] {
			if !seen[lk] {
				seen[lk] = true
				c.Unknown = append(c.Unknown, key)
			}
			return nil
		}
		bad := func(why string) error {
			return fmt.Errorf("%s:%d: %s=%q: %s", file, line, key, val, why)
		}
		var err error
		switch lk {
		case "prioritytype":
			switch strings.ToLower(val) {
			case "priority/basic", "priority/multifactor":
				c.PriorityType = strings.ToLower(val)
			default:
				return bad("want priority/basic or priority/multifactor")
			}
		case "priorityflags":
			c.FairTree = true
			for _, f := range strings.Split(val, ",") {
				if strings.EqualFold(strings.TrimSpace(f), "NO_FAIR_TREE") {
					c.FairTree = false
				}
			}
		case "priorityweightage":
			c.WeightAge, err = weight(val)
		case "priorityweightfairshare":
			c.WeightFairshare, err = weight(val)
		case "priorityweightjobsize":
			c.WeightJobSize, err = weight(val)
		case "priorityweightpartition":
			c.WeightPartition, err = weight(val)
		case "priorityweightqos":
			c.WeightQOS, err = weight(val)
		case "prioritymaxage":
			c.MaxAge, err = minutes(val)
		case "prioritydecayhalflife":
			c.DecayHalfLife, err = minutes(val)
		case "prioritycalcperiod":
			c.CalcPeriod, err = minutes(val)
			if err == nil && c.CalcPeriod <= 0 {
				err = fmt.Errorf("want at least 1 minute")
			}
		case "priorityfavorsmall":
			c.FavorSmall, err = yesNo(val)
		case "accountingstorageenforce":
			c.EnforceLimits = false
			for _, f := range strings.Split(val, ",") {
				switch strings.ToLower(strings.TrimSpace(f)) {
				case "limits", "2", "safe", "all":
					c.EnforceLimits = true
				}
			}
		case "schedulertype":
			switch strings.ToLower(val) {
			case "sched/backfill", "sched/builtin":
				c.SchedulerType = strings.ToLower(val)
			default:
				return bad("want sched/backfill or sched/builtin")
			}
		case "schedulerparameters":
			err = c.Sched.parse(val)
		case "partitionname":
			p := Partition{Name: val, Line: line}
			for _, kv := range l.Pairs[1:] {
				k, v := kv.Key, kv.Value
				switch strings.ToLower(k) {
				case "priorityjobfactor", "priority":
					n, e := strconv.ParseUint(v, 10, 16)
					if e != nil {
						return fmt.Errorf("%s:%d: PartitionName=%s %s=%q: want an integer 0-65533", file, line, val, k, v)
					}
					p.PriorityJobFactor = float64(n)
				case "default":
					d, e := yesNo(v)
					if e != nil {
						return fmt.Errorf("%s:%d: PartitionName=%s Default=%q: %v", file, line, val, v, e)
					}
					p.Default = d
				}
			}
			if !strings.EqualFold(val, "DEFAULT") {
				c.Partitions = append(c.Partitions, p)
			}
		}
		if err != nil {
			return bad(err.Error())
		}
		return nil
	})
}

func weight(s string) (float64, error) {
	n, err := strconv.ParseUint(s, 10, 32)
	if err != nil {
		return 0, fmt.Errorf("want an integer 0-%d", uint32(math.MaxUint32))
	}
	return float64(n), nil
}

func yesNo(s string) (bool, error) {
	switch strings.ToLower(s) {
	case "yes", "true", "1":
		return true, nil
	case "no", "false", "0":
		return false, nil
	}
	return false, fmt.Errorf("want YES or NO")
}

// minutes parses Slurm's time_str2mins formats (slurmlex.Minutes):
// seconds round up to a minute; it returns seconds.
func minutes(s string) (float64, error) { return slurmlex.Minutes(s) }

// parse reads a SchedulerParameters value; options drsim does not model
// are ignored.
func (s *Sched) parse(v string) error {
	for _, opt := range strings.Split(v, ",") {
		k, val, ok := strings.Cut(strings.TrimSpace(opt), "=")
		if !ok {
			continue
		}
		n, err := strconv.Atoi(val)
		bad := func(lo, hi int) error {
			return fmt.Errorf("%s=%s: want an integer %d-%d", k, val, lo, hi)
		}
		switch strings.ToLower(k) {
		case "sched_interval":
			if err != nil || n < 0 || n > 1e6 {
				return bad(0, 1e6)
			}
			s.Interval = float64(n)
		case "bf_interval":
			if err != nil || n < 1 || n > 10800 {
				return bad(1, 10800)
			}
			s.BfInterval = float64(n)
		case "bf_max_job_test":
			if err != nil || n < 1 || n > 1e6 {
				return bad(1, 1e6)
			}
			s.BfMaxJobTest = n
		case "bf_window":
			if err != nil || n < 1 || n > 43200 {
				return bad(1, 43200)
			}
			s.BfWindow = float64(n) * 60
		case "bf_resolution":
			if err != nil || n < 1 || n > 3600 {
				return bad(1, 3600)
			}
			s.BfResolution = float64(n)
		case "batch_sched_delay":
			if err != nil || n < 0 || n > 3600 {
				return bad(0, 3600)
			}
			s.BatchDelay = float64(n)
		case "bf_job_part_count_reserve":
			if err != nil || n < 0 || n > 1e6 {
				return bad(0, 1e6)
			}
			s.BfPartCountResv = n
		}
	}
	return nil
}
