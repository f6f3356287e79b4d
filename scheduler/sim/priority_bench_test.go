package sim

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"drsim/internal/sharedtest"
	"drsim/scheduler"
)

// BenchmarkPriority is the speed bound: multifactor priority with
// fair share on HPC2N under EASY against plain EASY (≤ 2×), engine only.
//
//	DRSIM_SHARED=../shared go test -run ^$ -bench Priority -count 3 ./scheduler/sim
func BenchmarkPriority(b *testing.B) {
	defer scheduler.WithoutTestChecks()()
	conf := filepath.Join(b.TempDir(), "slurm.conf")
	if err := os.WriteFile(conf, []byte(benchSlurmConf), 0o644); err != nil {
		b.Fatal(err)
	}
	path := sharedtest.Path(b, "traces/HPC2N-2002-2.2-cln.swf.gz")
	tr, err := Load(Spec{Trace: path})
	if err != nil {
		b.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		spec Spec
	}{
		{"easy", Spec{Trace: path, Policy: "easy"}},
		{"easy-multifactor", Spec{Trace: path, Policy: "easy", Priority: "multifactor", SlurmConf: conf}},
	} {
		b.Run("HPC2N/"+tc.name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				if _, err := Run(context.Background(), tc.spec, tr, Outputs{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// benchSlurmConf weighs fair share above age above size, recomputing every
// 5 minutes (Slurm's default period), with a one-week half-life.
const benchSlurmConf = `PriorityType=priority/multifactor
PriorityFlags=NO_FAIR_TREE
PriorityWeightAge=1000
PriorityWeightFairshare=10000
PriorityWeightJobSize=100
PriorityMaxAge=1-0
PriorityDecayHalfLife=7-0
PriorityCalcPeriod=5
`

// BenchmarkSlurmBackfill is the other bound: Slurm-style backfill
// (SchedulerParameters at Slurm's defaults) on RICC against plain EASY
// (≤ 5×), engine only.
//
//	DRSIM_SHARED=../shared go test -run ^$ -bench SlurmBackfill -count 3 ./scheduler/sim
func BenchmarkSlurmBackfill(b *testing.B) {
	defer scheduler.WithoutTestChecks()()
	path := sharedtest.Path(b, "traces/RICC-2010-2.swf.gz")
	tr, err := Load(Spec{Trace: path})
	if err != nil {
		b.Fatal(err)
	}
	for _, policy := range []string{"easy", "slurm-backfill"} {
		b.Run("RICC/"+policy, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				if _, err := Run(context.Background(), Spec{Trace: path, Policy: policy}, tr, Outputs{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
