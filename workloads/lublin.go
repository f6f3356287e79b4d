package workloads

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"

	"gonum.org/v1/gonum/mathext"
)

// LublinConfig configures the Lublin–Feitelson rigid batch-job model
// (U. Lublin, D. G. Feitelson, "The workload on parallel supercomputers:
// modeling the characteristics of rigid jobs", JPDC 63(11), 2003).
// The zero value generates 10,000 jobs on 256 processors with seed 1.
type LublinConfig struct {
	Jobs  int    // number of jobs; 0: 10,000
	Procs int64  // machine size in processors; 0: 256
	Seed  uint64 // PCG seed; 0: 1

	// RateFactor multiplies the arrival rate (divides every inter-arrival
	// time), to raise or lower the offered load; 0: 1 (the published model,
	// about 25 jobs a day and 42% offered load on 256 processors).
	RateFactor float64
}

// The published batch-job parameters (the paper's Table of fitted values,
// as also used by the authors' reference generator lublin99).
const (
	lubSerialProb = 0.2927 // P(job is serial)
	lubPow2Prob   = 0.6686 // P(job is parallel with a power-of-two size)
	lubULow       = 1.2    // log2 of the smallest parallel size (+0.2 favours 2)
	lubUMedOffset = 2.0    // UMed = UHi - 2 (5 for the published UHi = 7)
	lubUProb      = 0.875  // weight of the [ULow, UMed] stage

	// log(runtime) is hyper-gamma: Gamma(a1, b1) with probability p, else
	// Gamma(a2, b2); p = pa*nodes + pb clamped to [0, 1], so bigger jobs run
	// longer. Shapes a, scales b.
	lubA1, lubB1 = 6.57, 0.823
	lubA2, lubB2 = 639.1, 0.0156
	lubPA, lubPB = -0.003, 0.6986
	lubMaxLogRun = 12.0 // log(runtime) above this is redrawn (exp(12) s = 1.9 days)

	// log(inter-arrival at rush hour) is Gamma(aarr*arar, barr); the share of
	// arrivals in half-hour bucket i is the mass of Gamma(anum, bnum) on
	// [i-0.5, i+0.5], with the day starting at bucket lubDayStart.
	lubAArr, lubBArr, lubARAR = 6.0415, 0.8531, 1.0519
	lubANum, lubBNum          = 6.1271, 5.2740
	lubMaxLogArr              = 13.0 // log(inter-arrival) above this is redrawn
	lubDayStart               = 11
	lubBuckets                = 48
	lubBucketSec              = 86400 / lubBuckets
)

// lubLimits are the "round" requested times users pick (seconds), ending
// above exp(lubMaxLogRun) so every job fits.
var lubLimits = [...]float64{300, 600, 900, 1200, 1800, 2700, 3600, 5400, 7200, 10800, 14400,
	21600, 28800, 36000, 43200, 57600, 64800, 86400, 129600, 172800}

// Lublin generates a synthetic batch workload: job sizes, runtimes and
// arrivals follow the Lublin–Feitelson model with its published batch
// parameters; the machine size sets UHi = log2(Procs).
//
// Requested time (the model has none) is Tsafrir-style: the user
// over-estimates by a factor 2^(3u), u uniform in [0, 1), and rounds up to
// the next "round" limit (5 min … 48 h, see lubLimits). So every job has
// run <= requested, and requests cluster on a few values, as in real logs.
func Lublin(cfg LublinConfig) (*Trace, error) {
	n, procs, seed := cfg.Jobs, cfg.Procs, cfg.Seed
	if n == 0 {
		n = 10000
	}
	if procs == 0 {
		procs = 256
	}
	if seed == 0 {
		seed = 1
	}
	switch {
	case n < 0 || n > 100_000_000:
		return nil, fmt.Errorf("workloads: lublin: Jobs %d is outside [1, 100000000]", cfg.Jobs)
	case cfg.RateFactor < 0 || math.IsNaN(cfg.RateFactor) || math.IsInf(cfg.RateFactor, 0):
		return nil, fmt.Errorf("workloads: lublin: RateFactor %v is not a positive number", cfg.RateFactor)
	case procs < 0 || procs > 1<<40:
		return nil, fmt.Errorf("workloads: lublin: Procs %d is outside [1, 2^40]", cfg.Procs)
	}
	g := newLublinGen(procs, seed)
	if cfg.RateFactor > 0 {
		g.rate = cfg.RateFactor
	}
	t := &Trace{Jobs: make([]Job, n), MachineProcs: procs, MachineSource: "MaxProcs", File: "lublin"}
	t.Report.File, t.Report.MachineProcs, t.Report.MachineSource = t.File, procs, "MaxProcs"
	for i := range t.Jobs {
		j := &t.Jobs[i]
		nodes := g.size()
		run := g.runtime(nodes)
		req := g.request(run)
		*j = Job{ID: int64(i + 1), Submit: math.Round(g.arrive()), Wait: -1, Run: run, AllocProcs: nodes,
			AvgCPU: -1, UsedMem: -1, ReqProcs: nodes, ReqTime: req, ReqMem: -1, Status: 1,
			User: -1, Group: -1, Exe: -1, Queue: 1, Partition: -1, Preceding: -1, Think: -1,
			Procs: nodes, Estimate: req}
		t.Report.Records++
		t.Report.observe(j)
	}
	t.Header = lublinHeader(n, procs, seed, g.rate)
	return t, nil
}

// Default is the built-in workload: Lublin with its zero configuration.
func Default() (*Trace, error) { return Lublin(LublinConfig{RateFactor: DefaultRate}) }

// DefaultRate is the arrival-rate factor of drsim's embedded default
// workload. The published batch parameters give about 25 jobs a day, a 42%
// load on 256 processors under EASY; 1.75 raises that to about 73%, typical
// of the Parallel Workloads Archive's production logs, so that demand
// response has queued work to act on.
const DefaultRate = 1.75

func lublinHeader(n int, procs int64, seed uint64, rate float64) Header {
	var h Header
	ns, ps := strconv.Itoa(n), strconv.FormatInt(procs, 10)
	for _, kv := range []KV{
		{"Version", "2.2"},
		{"Computer", "synthetic (Lublin-Feitelson 2003 batch model)"},
		{"Acknowledge", "Uri Lublin and Dror Feitelson, JPDC 63(11):1105-1122, 2003"},
		{"MaxJobs", ns}, {"MaxRecords", ns},
		{"MaxNodes", ps}, {"MaxProcs", ps},
		{"MaxRuntime", strconv.FormatInt(int64(math.Exp(lubMaxLogRun)), 10)},
		{"Note", fmt.Sprintf("generated by drsim lublin --jobs %d --procs %d --seed %d --rate %v", n, procs, seed, rate)},
	} {
		h.Add(kv.Key, kv.Value, "lublin")
	}
	return h
}

// lublinGen holds the generator state: the RNG and the arrival clock.
type lublinGen struct {
	rng          *rand.Rand
	rate         float64 // arrival-rate factor
	procs        int64
	uLow, uMed   float64
	uHi          float64
	weight       [lubBuckets]float64 // arrival weight of each half hour, mean 1
	bucket       int                 // current half hour of the day
	frac         float64             // fraction of the current bucket elapsed
	bucketOrigin float64             // time at which the current bucket started
}

func newLublinGen(procs int64, seed uint64) *lublinGen {
	g := &lublinGen{rng: rand.New(rand.NewPCG(seed, 0)), procs: procs, rate: 1}
	g.uHi = math.Log2(float64(procs))
	g.uLow = min(lubULow, g.uHi)
	g.uMed = max(g.uLow, g.uHi-lubUMedOffset)
	cdf := func(x float64) float64 { return mathext.GammaIncReg(lubANum, x/lubBNum) }
	var sum float64
	for i := lubDayStart; i < lubDayStart+lubBuckets; i++ {
		w := cdf(float64(i)+0.5) - cdf(float64(i)-0.5)
		g.weight[(i-1)%lubBuckets] = w
		sum += w
	}
	for i := range g.weight {
		g.weight[i] *= lubBuckets / sum
	}
	return g
}

// size draws a job size: serial, power of two, or any size, with log2 of
// parallel sizes from the two-stage uniform on [ULow, UMed], [UMed, UHi].
func (g *lublinGen) size() int64 {
	u := g.rng.Float64()
	if u < lubSerialProb || g.procs == 1 {
		return 1
	}
	lo, hi := g.uLow, g.uMed
	if g.rng.Float64() >= lubUProb {
		lo, hi = g.uMed, g.uHi
	}
	e := lo + g.rng.Float64()*(hi-lo)
	if u < lubSerialProb+lubPow2Prob {
		e = math.Round(e)
	}
	return min(max(int64(math.Round(math.Exp2(e))), 1), g.procs)
}

// runtime draws a run time in whole seconds (at least 1).
func (g *lublinGen) runtime(nodes int64) float64 {
	p := min(max(lubPA*float64(nodes)+lubPB, 0), 1)
	a, b := lubA2, lubB2
	if g.rng.Float64() < p {
		a, b = lubA1, lubB1
	}
	x := g.gamma(a, b)
	for x > lubMaxLogRun {
		x = g.gamma(a, b)
	}
	return max(math.Round(math.Exp(x)), 1)
}

// request draws the requested time for a job that runs run seconds.
func (g *lublinGen) request(run float64) float64 {
	want := run * math.Exp2(3*g.rng.Float64())
	for _, l := range lubLimits {
		if l >= want {
			return l
		}
	}
	return max(lubLimits[len(lubLimits)-1], run)
}

// arrive advances the arrival clock by one inter-arrival time and returns
// the new time. The rush-hour gap, in seconds, is converted to "points"
// (1 point = one bucket at mean weight); the clock then walks through the
// day paying each bucket's weight per bucket, so heavy (day) buckets
// consume points slowly in wall time and receive more arrivals.
func (g *lublinGen) arrive() float64 {
	x := g.gamma(lubAArr*lubARAR, lubBArr)
	for x > lubMaxLogArr {
		x = g.gamma(lubAArr*lubARAR, lubBArr)
	}
	points := math.Exp(x) / g.rate / lubBucketSec
	for {
		w := g.weight[g.bucket]
		if room := (1 - g.frac) * w; points < room {
			g.frac += points / w
			break
		} else {
			points -= room
		}
		g.frac, g.bucket, g.bucketOrigin = 0, (g.bucket+1)%lubBuckets, g.bucketOrigin+lubBucketSec
	}
	return g.bucketOrigin + g.frac*lubBucketSec
}

// gamma draws from Gamma(shape a >= 1, scale b) by Marsaglia and Tsang's
// method (ACM TOMS 26(3), 2000).
func (g *lublinGen) gamma(a, b float64) float64 {
	d := a - 1.0/3
	c := 1 / math.Sqrt(9*d)
	for {
		x := g.rng.NormFloat64()
		v := 1 + c*x
		if v <= 0 {
			continue
		}
		v = v * v * v
		u := g.rng.Float64()
		if u < 1-0.0331*x*x*x*x || math.Log(u) < 0.5*x*x+d*(1-v+math.Log(v)) {
			return d * v * b
		}
	}
}
