package sim

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"drsim/cluster/machine"
	"drsim/scheduler"
	"drsim/scheduler/slurmconf"
	"drsim/workloads"
)

// UnknownKeysOut receives the one line listing a slurm.conf's ignored keys
// (os.Stderr; tests may silence it).
var UnknownKeysOut io.Writer = os.Stderr

// usePriority sets up Slurm's multifactor priority (Spec.Priority
// "multifactor") from Spec.SlurmConf and Spec.Assoc; it leaves cfg alone
// for the default "submit".
func usePriority(cfg *scheduler.Config, d Spec, tr *workloads.Trace, mach *machine.Machine) error {
	switch d.Priority {
	case "", "submit":
		if d.Assoc != "" || (d.SlurmConf != "" || d.SlurmSet != "") && d.Policy != "slurm-backfill" {
			return fmt.Errorf("slurm-conf/slurm-set/assoc: given without --priority multifactor (or --policy slurm-backfill for --slurm-conf, --slurm-set)")
		}
		if d.SlurmConf == "" && d.SlurmSet == "" {
			return nil
		}
		conf, err := loadConf(d.SlurmConf, d.SlurmSet, d.Machine)
		if err != nil {
			return err
		}
		useSched(cfg, d, conf)
		return nil
	case "multifactor":
	default:
		return oneOf("priority", d.Priority, "submit", "multifactor")
	}
	if d.Order != "submit" {
		return fmt.Errorf("order: %q with --priority multifactor, which orders the queue by priority", d.Order)
	}
	c, err := loadConf(d.SlurmConf, d.SlurmSet, d.Machine)
	if err != nil {
		return err
	}
	conf := *c
	if !c.FairTree && c.PriorityType != "priority/multifactor" {
		return fmt.Errorf("%s: PriorityType is %s; --priority multifactor replays priority/multifactor", c.File, c.PriorityType)
	}
	useSched(cfg, d, &conf)
	p := &scheduler.Priority{EndUsage: conf.EnforceLimits,
		WeightAge: conf.WeightAge, WeightFairshare: conf.WeightFairshare, WeightJobSize: conf.WeightJobSize,
		WeightPartition: conf.WeightPartition, WeightQOS: conf.WeightQOS,
		MaxAge: conf.MaxAge, HalfLife: conf.DecayHalfLife, CalcPeriod: conf.CalcPeriod, FavorSmall: conf.FavorSmall,
	}
	p.PartFactor = partFactors(&conf, cfg, mach)
	if mach != nil {
		p.Nodes = len(mach.Nodes)
	}
	var assoc *slurmconf.Assocs
	if d.Assoc != "" {
		a, err := slurmconf.LoadAssoc(d.Assoc)
		if err != nil {
			return err
		}
		assoc = a
	}
	res := newAssocResolver(assoc, tr)
	p.Tree, p.AssocOf = res.tree, res.of
	if assoc != nil && len(assoc.QOS) > 0 {
		top := 0.0
		for _, v := range assoc.QOS {
			top = max(top, v)
		}
		if top > 0 {
			names := tr.Names.QOS
			p.QOSFactor = func(w *workloads.Job) float64 { return assoc.QOS[workloads.Name(names, w.Queue)] / top }
		}
	}
	cfg.Order, cfg.Priority = "multifactor", p
	return nil
}

// loadConf reads a slurm.conf (Slurm's defaults without one), lists its
// ignored keys once (without those the machine was read from when it is
// also --machine), and applies the --slurm-set settings over it.
func loadConf(path, set, machinePath string) (*slurmconf.Conf, error) {
	d := slurmconf.Default()
	c := &d
	if path != "" {
		var err error
		if c, err = slurmconf.Load(path); err != nil {
			return nil, err
		}
		unknown := c.Unknown
		if machinePath != "" && filepath.Clean(machinePath) == filepath.Clean(path) {
			unknown = slices.DeleteFunc(slices.Clone(unknown), func(k string) bool {
				return slices.ContainsFunc(machine.SlurmKeys, func(m string) bool { return strings.EqualFold(k, m) })
			})
		}
		if len(unknown) > 0 && UnknownKeysOut != nil {
			fmt.Fprintf(UnknownKeysOut, "drsim: %s: ignored keys: %s\n", c.File, strings.Join(unknown, " "))
		}
	}
	if err := c.Set(set, "--slurm-set"); err != nil {
		return nil, err
	}
	return c, nil
}

// useSched hands the SchedulerParameters to the slurm-backfill policy.
func useSched(cfg *scheduler.Config, d Spec, c *slurmconf.Conf) {
	if d.Policy != "slurm-backfill" {
		return
	}
	s := c.Sched
	cfg.SlurmSched = &scheduler.SlurmSched{BfInterval: s.BfInterval, BfMaxJobTest: s.BfMaxJobTest, BfWindow: s.BfWindow,
		BfResolution: s.BfResolution, BfPartCountResv: s.BfPartCountResv, BatchDelay: s.BatchDelay, SchedInterval: s.Interval}
}

// partFactors returns each partition's PriorityJobFactor over the largest,
// in the engine's partition order (one entry without a machine file: the
// slurm.conf's default partition, or its first).
func partFactors(conf *slurmconf.Conf, cfg *scheduler.Config, mach *machine.Machine) []float64 {
	top := 0.0
	for _, p := range conf.Partitions {
		top = max(top, p.PriorityJobFactor)
	}
	if top == 0 {
		return nil
	}
	factor := func(name string) float64 {
		for _, p := range conf.Partitions {
			if p.Name == name {
				return p.PriorityJobFactor / top
			}
		}
		return 0
	}
	if mach == nil {
		def := conf.Partitions[0]
		for _, p := range conf.Partitions {
			if p.Default {
				def = p
				break
			}
		}
		return []float64{def.PriorityJobFactor / top}
	}
	out := make([]float64, len(cfg.Parts))
	for i, p := range cfg.Parts {
		out[i] = factor(p.Name)
	}
	return out
}

// assocResolver maps a job's user and account to a user association,
// growing the tree for users the associations file does not list (one
// share each, in their own account or, without an account, the first).
// Without a file every user gets one share in one account: equal shares
// per user.
type assocResolver struct {
	tree   *scheduler.ShareTree
	names  workloads.Names
	acct   map[string]int32
	user   map[[2]string]int
	byName map[string]int // a user's first association (its default account)
	flat   bool           // no associations file
}

func newAssocResolver(a *slurmconf.Assocs, tr *workloads.Trace) *assocResolver {
	r := &assocResolver{tree: &scheduler.ShareTree{}, names: tr.Names,
		acct: map[string]int32{}, user: map[[2]string]int{}, byName: map[string]int{}}
	if a == nil {
		r.flat = true
		r.addAcct("", 1)
		return r
	}
	r.tree.RootUsers = a.RootUsers
	for _, x := range a.Accounts {
		if _, ok := r.acct[x.Name]; !ok {
			r.addAcct(x.Name, x.Shares)
		}
	}
	for _, u := range a.Users {
		ai, ok := r.acct[u.Account]
		if !ok {
			ai = r.addAcct(u.Account, 1)
		}
		r.addUser(u.Account, ai, u.Name, u.Shares)
	}
	return r
}

func (r *assocResolver) addAcct(name string, shares float64) int32 {
	r.acct[name] = int32(len(r.tree.AcctShares))
	r.tree.AcctShares = append(r.tree.AcctShares, shares)
	return r.acct[name]
}

func (r *assocResolver) addUser(acct string, ai int32, name string, shares float64) int {
	k := len(r.tree.UserShares)
	r.user[[2]string{acct, name}] = k
	if _, ok := r.byName[name]; !ok {
		r.byName[name] = k
	}
	r.tree.UserAcct = append(r.tree.UserAcct, ai)
	r.tree.UserShares = append(r.tree.UserShares, shares)
	return k
}

// name returns the trace's name for a 1-based index (sacct) or the SWF
// number itself.
func name(table []string, v int64) string {
	if len(table) > 0 {
		return workloads.Name(table, v)
	}
	if v < 0 {
		return ""
	}
	return strconv.FormatInt(v, 10)
}

func (r *assocResolver) of(w *workloads.Job) int {
	user, acct := name(r.names.Users, w.User), ""
	if !r.flat {
		acct = strings.ToLower(name(r.names.Accounts, w.Group))
	}
	if k, ok := r.user[[2]string{acct, user}]; ok {
		return k
	}
	if _, known := r.acct[acct]; !known {
		if k, ok := r.byName[user]; ok {
			return k // the user's default account
		}
	}
	ai, ok := r.acct[acct]
	if !ok {
		ai = r.addAcct(acct, 1)
	}
	return r.addUser(acct, ai, user, 1)
}
