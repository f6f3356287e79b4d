package sweep

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"sync"

	"drsim/results"
	"drsim/scheduler/sim"
	"drsim/workloads"
)

// MetaFile is the name of the sweep description in an output directory:
// the baseline, the output options and the sorted IDs of all cells (not just
// one shard's). Every shard of a sweep writes the same bytes.
const MetaFile = "sweep.json"

// Meta is the content of MetaFile.
type Meta struct {
	Format   string    `json:"format"` // "drsim-sweep/1"
	Dims     []string  `json:"dims"`   // keys given as lists of several values, and baseline keys, in sim.Spec order
	Baseline []Setting `json:"baseline"`
	Output   Output    `json:"output"`
	Cells    []string  `json:"cells"`
}

const metaFormat = "drsim-sweep/1"

// Options control Run. The zero value runs every cell with one worker per
// CPU and reports no progress; Out is required.
type Options struct {
	Out      string         // output directory; created if missing, resumed if it holds the same sweep
	Workers  int            // concurrent cells; 0 = runtime.GOMAXPROCS(0)
	Shard    Shard          // zero: all cells
	Progress func(Progress) // called after each cell (and once at the start), from one goroutine
}

// Progress reports how far a Run is.
type Progress struct {
	Done    int  // cells of this shard that are finished, including Skipped
	Failed  int  // cells that failed in this run
	Total   int  // cells of this shard
	Skipped int  // cells found finished at the start
	Cell    Cell // the cell just finished; zero in the first report
	Err     error
}

// Report is what a Run did.
type Report struct {
	Cells   int // cells in the sweep
	Shard   int // cells in this shard
	Skipped int // found finished
	Ran     int // finished by this run
	Failed  int
}

// Run runs the cells of cfg (those of opt.Shard) that opt.Out does not hold
// yet. A failing cell is recorded in the manifest and the others go on; Run
// then returns an error naming the first failure. When ctx is cancelled,
// cells in flight are abandoned (their temporary directories removed) and
// Run returns ctx's error; finished cells stay.
func Run(ctx context.Context, cfg *Config, opt Options) (*Report, error) {
	if opt.Out == "" {
		return nil, errors.New("sweep: no output directory")
	}
	cells, err := cfg.Cells()
	if err != nil {
		return nil, err
	}
	if err := writeMeta(opt.Out, cfg, cells); err != nil {
		return nil, err
	}
	mine := opt.Shard.Select(cells)
	rep := &Report{Cells: len(cells), Shard: len(mine)}
	cellsDir := filepath.Join(opt.Out, "cells")
	if err := os.MkdirAll(cellsDir, 0o755); err != nil {
		return nil, err
	}
	man, logged, err := openManifest(filepath.Join(opt.Out, manifestName(opt.Shard)))
	if err != nil {
		return nil, err
	}
	defer man.Close()
	todo, err := pending(cellsDir, mine, logged, man, rep)
	if err != nil {
		return nil, err
	}
	p := Progress{Done: rep.Skipped, Total: rep.Shard, Skipped: rep.Skipped}
	if opt.Progress != nil {
		opt.Progress(p)
	}
	var first error
	for r := range runPool(ctx, cellsDir, todo, cfg.Output, opt.Workers) {
		e := ManifestEntry{ID: r.cell.ID, Status: StatusDone, Spec: r.cell.Spec}
		if r.err != nil {
			if ctx.Err() != nil {
				continue // abandoned, not failed
			}
			e.Status, e.Error = StatusFailed, r.err.Error()
			rep.Failed++
			p.Failed++
			if first == nil {
				first = fmt.Errorf("sweep: cell %s: %w", r.cell.ID, r.err)
			}
		} else {
			rep.Ran++
			p.Done++
		}
		if err := man.append(e); err != nil && first == nil {
			first = err
		}
		if opt.Progress != nil {
			p.Cell, p.Err = r.cell, r.err
			opt.Progress(p)
		}
	}
	if err := ctx.Err(); err != nil {
		return rep, fmt.Errorf("sweep: stopped after %d of %d cells: %w", rep.Skipped+rep.Ran, rep.Shard, context.Cause(ctx))
	}
	if first != nil && rep.Failed > 1 {
		first = fmt.Errorf("%w (and %d more failed cells, see the manifest)", first, rep.Failed-1)
	}
	return rep, first
}

func manifestName(s Shard) string {
	if s.Count == 0 {
		return "manifest.jsonl"
	}
	return fmt.Sprintf("manifest-%dof%d.jsonl", s.Index, s.Count)
}

// writeMeta writes MetaFile, or checks that the existing one describes the
// same sweep.
func writeMeta(dir string, cfg *Config, cells []Cell) error {
	b, err := json.MarshalIndent(Meta{Format: metaFormat, Dims: cfg.dimKeys(), Baseline: nonNil(cfg.Baseline), Output: cfg.Output, Cells: sortedIDs(cells)}, "", " ")
	if err != nil {
		return err
	}
	b = append(b, '\n')
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	path := filepath.Join(dir, MetaFile)
	old, err := os.ReadFile(path)
	switch {
	case err == nil && !bytes.Equal(old, b):
		return fmt.Errorf("sweep: %s holds a different sweep (other cells, baseline or [output]); use another output directory", dir)
	case err == nil:
		return nil
	case errors.Is(err, os.ErrNotExist):
		if err := results.WriteFileAtomic(path, b, true); err != nil {
			return err
		}
		return syncDir(dir)
	}
	return err
}

func nonNil(s []Setting) []Setting {
	if s == nil {
		return []Setting{}
	}
	return s
}

// pending returns the cells of mine without a directory. It removes the
// temporary directories a killed run left for them and logs finished cells
// that the manifest is missing (killed between rename and append).
func pending(cellsDir string, mine []Cell, logged []ManifestEntry, man *manifest, rep *Report) ([]Cell, error) {
	done := map[string]bool{}
	for _, e := range logged {
		if e.Status == StatusDone {
			done[e.ID] = true
		}
	}
	var todo []Cell
	for _, c := range mine {
		stale, _ := filepath.Glob(filepath.Join(cellsDir, ".tmp-"+c.ID+"-*"))
		for _, s := range stale {
			if err := os.RemoveAll(s); err != nil {
				return nil, err
			}
		}
		if _, err := os.Stat(filepath.Join(cellsDir, c.ID, "summary.json")); err != nil {
			todo = append(todo, c)
			continue
		}
		rep.Skipped++
		if !done[c.ID] {
			if err := man.append(ManifestEntry{ID: c.ID, Status: StatusDone, Spec: c.Spec}); err != nil {
				return nil, err
			}
		}
	}
	return todo, nil
}

type cellResult struct {
	cell Cell
	err  error
}

// runPool runs cells on workers goroutines and closes the returned channel
// when all are done or ctx is cancelled.
func runPool(ctx context.Context, cellsDir string, cells []Cell, out Output, workers int) <-chan cellResult {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	jobs := make(chan Cell)
	res := make(chan cellResult)
	cache := newTraceCache()
	var wg sync.WaitGroup
	for range min(workers, max(len(cells), 1)) {
		wg.Go(func() {
			for c := range jobs {
				err := ctx.Err()
				if err == nil {
					err = runCell(ctx, cellsDir, c, cache, out)
				}
				res <- cellResult{c, err}
			}
		})
	}
	go func() {
		defer close(jobs)
		for _, c := range cells {
			select {
			case jobs <- c:
			case <-ctx.Done():
				return
			}
		}
	}()
	go func() { wg.Wait(); close(res) }()
	return res
}

// traceCache loads each distinct trace once per process.
type traceCache struct {
	mu sync.Mutex
	m  map[traceKey]*traceEntry
}

// traceKey is what sim.Load reads: the file and its options, or for the
// generated workload its size and seed.
type traceKey struct {
	trace, procsField, estimate string
	jobs, procs                 int
	seed                        uint64
	format, tz                  string // sacct logs
	keepUnstarted               bool
}

type traceEntry struct {
	once sync.Once
	tr   *workloads.Trace
	err  error
}

func newTraceCache() *traceCache { return &traceCache{m: map[traceKey]*traceEntry{}} }

func (c *traceCache) load(s sim.Spec) (*workloads.Trace, error) {
	k := traceKey{s.Trace, s.ProcsField, s.Estimate, s.Jobs, s.Procs, 0, s.TraceFormat, s.TraceTZ, s.KeepUnstarted}
	if s.Trace == "" {
		k.seed = s.Seed
	}
	c.mu.Lock()
	e := c.m[k]
	if e == nil {
		e = &traceEntry{}
		c.m[k] = e
	}
	c.mu.Unlock()
	e.once.Do(func() { e.tr, e.err = sim.Load(s) })
	return e.tr, e.err
}

// runCell simulates c into a temporary directory and renames it to
// cellsDir/<id>.
func runCell(ctx context.Context, cellsDir string, c Cell, cache *traceCache, out Output) error {
	tr, err := cache.load(c.Spec)
	if err != nil {
		return err
	}
	tmp, err := os.MkdirTemp(cellsDir, ".tmp-"+c.ID+"-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp) // a no-op after the rename
	if err := simulate(ctx, tmp, c, tr, out); err != nil {
		return err
	}
	if err := syncDir(tmp); err != nil {
		return err
	}
	final := filepath.Join(cellsDir, c.ID)
	if err := os.Rename(tmp, final); err != nil {
		if _, serr := os.Stat(filepath.Join(final, "summary.json")); serr == nil {
			return nil // another process sharing the directory finished it first
		}
		return err
	}
	return syncDir(cellsDir)
}

// simulate runs c and writes its files into dir.
func simulate(ctx context.Context, dir string, c Cell, tr *workloads.Trace, out Output) error {
	var jobs io.Writer
	var jobsFile *os.File
	var gz *gzip.Writer
	if out.Jobs != "off" {
		name := "jobs.csv"
		if out.Jobs == "gz" {
			name += ".gz"
		}
		f, err := os.Create(filepath.Join(dir, name))
		if err != nil {
			return err
		}
		defer f.Close()
		jobsFile, jobs = f, f
		if out.Jobs == "gz" {
			gz = gzip.NewWriter(f) // zero header: no name, no time, so identical bytes every run
			jobs = gz
		}
	}
	var power *bytes.Buffer
	o := sim.Outputs{Jobs: jobs, PowerStep: out.PowerStep}
	if out.Power {
		power = &bytes.Buffer{}
		o.Power = power
	}
	res, err := sim.Run(ctx, c.Spec, tr, o)
	if err != nil {
		return err
	}
	if c.Spec.Check && res.Stats.NViolations > 0 {
		return fmt.Errorf("%d invariant violations, first: %s", res.Stats.NViolations, res.Stats.Violations[0])
	}
	if gz != nil {
		if err := gz.Close(); err != nil {
			return err
		}
	}
	if jobsFile != nil {
		if err := jobsFile.Sync(); err != nil {
			return err
		}
	}
	var sum bytes.Buffer
	if err := res.Summary.WriteJSON(&sum); err != nil {
		return err
	}
	cj, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		return err
	}
	files := []namedFile{{"summary.json", sum.Bytes()}, {"cell.json", append(cj, '\n')}}
	if power != nil {
		var e bytes.Buffer
		if err := results.BatsimEnergyFromPowerCSV(&e, power.Bytes()); err != nil {
			return err
		}
		files = append(files, namedFile{"power.csv", power.Bytes()}, namedFile{"consumed_energy.csv", e.Bytes()})
	}
	for _, f := range files {
		if err := writeSynced(filepath.Join(dir, f.name), f.data); err != nil {
			return err
		}
	}
	return nil
}

type namedFile struct {
	name string
	data []byte
}

func writeSynced(path string, data []byte) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// syncDir makes a directory's entries (a rename into it) durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}
