package slurmconf

import (
	"os"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	in := `# a centre's slurm.conf
ClusterName=x
PriorityType=priority/multifactor
PriorityFlags=NO_FAIR_TREE,SMALL_RELATIVE_TO_TIME
PriorityWeightAge=1000
PriorityWeightFairshare=10000 # trailing comment
priorityweightjobsize=100
PriorityWeightPartition=500
PriorityWeightQOS=2000
PriorityMaxAge=1-0
PriorityDecayHalfLife=0-12:30
PriorityCalcPeriod=1:30
PriorityFavorSmall=YES
SchedulerType=sched/backfill
SchedulerParameters=bf_interval=5,bf_max_job_test=100,bf_window=60,bf_resolution=1,bf_job_part_count_reserve=1,default_queue_depth=50
NodeName=c[1-4] CPUs=4
PartitionName=cpu Nodes=c[1-2] Default=YES PriorityJobFactor=10
PartitionName=big Nodes=c[3-4] PriorityJobFactor=20
ClusterName=y
`
	c, err := Parse(strings.NewReader(in), "s.conf")
	if err != nil {
		t.Fatal(err)
	}
	if c.PriorityType != "priority/multifactor" || c.FairTree || !c.FavorSmall {
		t.Errorf("type %q fairtree %v favor %v", c.PriorityType, c.FairTree, c.FavorSmall)
	}
	if c.WeightAge != 1000 || c.WeightFairshare != 10000 || c.WeightJobSize != 100 || c.WeightPartition != 500 || c.WeightQOS != 2000 {
		t.Errorf("weights %+v", c)
	}
	// 1-0 is one day; 0-12:30 is 12 h 30 min; 1:30 is 1 min 30 s, rounded up to 2 min.
	if c.MaxAge != 86400 || c.DecayHalfLife != 12*3600+30*60 || c.CalcPeriod != 120 {
		t.Errorf("max age %v half-life %v calc %v", c.MaxAge, c.DecayHalfLife, c.CalcPeriod)
	}
	want := Sched{Interval: 60, BfInterval: 5, BfMaxJobTest: 100, BfWindow: 3600, BfResolution: 1, BfPartCountResv: 1, BatchDelay: 3}
	if c.Sched != want {
		t.Errorf("sched %+v, want %+v", c.Sched, want)
	}
	if len(c.Partitions) != 2 || c.Partitions[0].Name != "cpu" || !c.Partitions[0].Default || c.Partitions[1].PriorityJobFactor != 20 {
		t.Errorf("partitions %+v", c.Partitions)
	}
	if got := strings.Join(c.Unknown, " "); got != "ClusterName NodeName" {
		t.Errorf("unknown %q", got)
	}
}

func TestParseDefaults(t *testing.T) {
	c, err := Parse(strings.NewReader(""), "empty")
	if err != nil {
		t.Fatal(err)
	}
	d := Default()
	if c.MaxAge != 7*86400 || c.CalcPeriod != 300 || c.Sched.BfInterval != 30 || c.Sched.BfResolution != 60 || !c.FairTree || c.PriorityType != d.PriorityType {
		t.Errorf("%+v", c)
	}
}

func TestParseErrors(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"PriorityWeightAge=-1", "f.conf:1: PriorityWeightAge=\"-1\": want an integer"},
		{"\n\nPriorityMaxAge=1-x", "f.conf:3: PriorityMaxAge=\"1-x\": want minutes"},
		{"PriorityCalcPeriod=0", "f.conf:1: PriorityCalcPeriod=\"0\": want at least 1 minute"},
		{"SchedulerParameters=bf_interval=0", "f.conf:1: SchedulerParameters=\"bf_interval=0\": bf_interval=0: want an integer 1-10800"},
		{"PriorityFavorSmall=maybe", "want YES or NO"},
		{"PartitionName=a PriorityJobFactor=x", "f.conf:1: PartitionName=a PriorityJobFactor=\"x\""},
		{"JustAWord", "f.conf:1: \"JustAWord\": want Key=Value"},
		{"PriorityType=priority/fancy", "want priority/basic or priority/multifactor"},
	} {
		_, err := Parse(strings.NewReader(tc.in), "f.conf")
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: error %v, want %q", tc.in, err, tc.want)
		}
	}
}

// testdata/sacct/assoc.txt is real `sacctmgr show assoc -P` output.
func TestAssocSacctmgr(t *testing.T) {
	a, err := LoadAssoc("../../testdata/sacct/assoc.txt")
	if err != nil {
		t.Fatal(err)
	}
	if a.RootUsers != 1 {
		t.Errorf("root users %v, want 1 (root/root)", a.RootUsers)
	}
	if len(a.Accounts) != 2 || a.Accounts[0] != (Account{"astro", 2}) || a.Accounts[1] != (Account{"bio", 1}) {
		t.Errorf("accounts %+v", a.Accounts)
	}
	want := []User{{"astro", "root", 1}, {"astro", "u1", 3}, {"astro", "u2", 1}, {"bio", "u2", 1}, {"bio", "u3", 1}}
	if len(a.Users) != len(want) {
		t.Fatalf("users %+v", a.Users)
	}
	for i, u := range want {
		if a.Users[i] != u {
			t.Errorf("user %d: %+v, want %+v", i, a.Users[i], u)
		}
	}
}

func TestAssocTOML(t *testing.T) {
	in := "[accounts]\nastro = 2\nbio = 1\n[users]\n\"astro/u1\" = 3\n\"bio/u3\" = 1\n[qos]\nhigh = 100\n"
	a, err := ParseAssoc(strings.NewReader(in), "a.toml")
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Accounts) != 2 || a.Accounts[0].Name != "astro" || len(a.Users) != 2 || a.Users[0] != (User{"astro", "u1", 3}) || a.QOS["high"] != 100 {
		t.Errorf("%+v", a)
	}
	for _, tc := range []struct{ in, want string }{
		{"[users]\nu1 = 3\n", "want \"account/user\""},
		{"[accounts]\nastro = -1\n", "want ≥ 0 shares"},
		{"[acounts]\nastro = 1\n", "unknown key acounts"},
		{"[accounts]\nastro = \n", "a.toml:2:"},
	} {
		if _, err := ParseAssoc(strings.NewReader(tc.in), "a.toml"); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: %v, want %q", tc.in, err, tc.want)
		}
	}
	if _, err := ParseAssoc(strings.NewReader("Cluster|Account|User|Partition|Share\nc|a|u||x\n"), "s.txt"); err == nil || !strings.Contains(err.Error(), "s.txt:2: Share \"x\"") {
		t.Errorf("bad share: %v", err)
	}
}

func TestLoadMissing(t *testing.T) {
	if _, err := Load("/nonexistent/slurm.conf"); !os.IsNotExist(err) {
		t.Errorf("%v", err)
	}
}

func TestSet(t *testing.T) {
	c := Default()
	if err := c.Set("PriorityWeightAge=1000;PriorityMaxAge=1-0;SchedulerParameters=bf_interval=5,bf_window=60", "--slurm-set"); err != nil {
		t.Fatal(err)
	}
	if c.WeightAge != 1000 || c.MaxAge != 86400 || c.Sched.BfInterval != 5 || c.Sched.BfWindow != 3600 || c.Sched.BfMaxJobTest != 500 {
		t.Errorf("%+v", c)
	}
	for _, tc := range []struct{ in, want string }{
		{"PriorityWeightAge=1;PriorityWeightQOS=x", "--slurm-set:2: PriorityWeightQOS=\"x\": want an integer"},
		{"PriorityWieghtAge=1", "--slurm-set: unknown key PriorityWieghtAge"},
	} {
		c := Default()
		if err := c.Set(tc.in, "--slurm-set"); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: %v, want %q", tc.in, err, tc.want)
		}
	}
}

// AccountingStorageEnforce: limits, 2, safe and all turn on the limits code
// (and with it Slurm's job-end usage); associations, qos or nothing do not.
func TestEnforceLimits(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want bool
	}{
		{"", false},
		{"AccountingStorageEnforce=associations", false},
		{"AccountingStorageEnforce=associations,qos", false},
		{"AccountingStorageEnforce=associations,limits", true},
		{"AccountingStorageEnforce=2", true},
		{"AccountingStorageEnforce=Safe", true},
		{"AccountingStorageEnforce=all", true},
	} {
		c, err := Parse(strings.NewReader(tc.in+"\n"), "s.conf")
		if err != nil {
			t.Fatal(err)
		}
		if c.EnforceLimits != tc.want || len(c.Unknown) != 0 {
			t.Errorf("Parse(%q): EnforceLimits %v (unknown %q), want %v", tc.in, c.EnforceLimits, c.Unknown, tc.want)
		}
	}
}
