package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/urfave/cli/v2"

	"drsim/contracts"
	"drsim/contracts/replay"
	"drsim/results"
	"drsim/scheduler/sim"
)

// contractRunFlags are the flags of "drsim contract" (the simulation): the
// simulation flags plus the economics and the prices.
func contractRunFlags() []cli.Flag {
	return append(simFlags(),
		&cli.StringFlag{Name: "types", Usage: "type flexibilities θ_1 < θ_2 < …, comma-separated", Value: "0.3,0.4,0.5,0.6,0.7,0.8"},
		&cli.StringFlag{Name: "type-rule", Usage: "job→type rule: dist (seeded hash of the job number) or user (of SWF field 12)", Value: "dist"},
		&cli.StringFlag{Name: "type-probs", Usage: "type probabilities for the rule, comma-separated (default uniform)"},
		&cli.StringFlag{Name: "count", Usage: "jobs weighing a slot's menu: arrivals, or active (arrivals plus jobs running in the baseline)", Value: "arrivals"},
		// not Required: a required parent flag would break "contract verify"; Costs.New rejects c0 ≤ 0
		&cli.Float64Flag{Name: "c0", Usage: "inconvenience scale: c(Δt) = c0·Δt² (required, > 0)"},
		&cli.StringFlag{Name: "cost", Usage: "inconvenience shape (quadratic, cubic)", Value: "quadratic"},
		&cli.Float64Flag{Name: "pue", Usage: "power usage effectiveness γ ≥ 1", Value: 1},
		&cli.DurationFlag{Name: "slot", Usage: "contract slot length", Value: time.Hour},
		&cli.StringFlag{Name: "prices", Usage: "price file: time,price CSV, PJM Data Miner 2, epftoolbox or Elspot (default: an ILLUSTRATIVE day)"},
		&cli.StringFlag{Name: "price-format", Usage: "price file format (csv, pjm, epf, elspot; default: detected)"},
		&cli.StringFlag{Name: "price-node", Usage: "PJM pnode id or name, or Elspot price area, for multi-node files"},
		&cli.BoolFlag{Name: "allow-gaps", Usage: "accept price files with missing hours (a slot on a missing hour fails)"},
		&cli.StringFlag{Name: "price-start", Usage: "align the first slot with this price time (RFC 3339 or YYYY-MM-DD, UTC), keeping the hour of the week"},
		&cli.DurationFlag{Name: "price-offset", Usage: "shift price time by this much (after --price-start)"},
		&cli.StringFlag{Name: "price-zone", Usage: "read the trace's wall clock as this zone's (e.g. America/New_York for PJM)"},
		&cli.BoolFlag{Name: "sensitivity", Usage: "rerun at 20%, 40%, …, 100% of the prices and report the cost saving"},
		&cli.StringFlag{Name: "out", Usage: "directory for slots.csv, slots.txt, menus.csv, summary.json (and sensitivity.csv)"},
		&cli.BoolFlag{Name: "force", Usage: "overwrite an existing --out directory"},
		&cli.BoolFlag{Name: "table", Usage: "also print the per-slot table"},
	)
}

// contractRunAction is "drsim contract": the contract simulation over a trace.
func contractRunAction(c *cli.Context) error {
	if err := noArgs(c); err != nil {
		return err
	}
	cfg, err := contractConfig(c)
	if err != nil {
		return usageErr(err)
	}
	if dir := c.String("out"); dir != "" {
		if err := results.PrepareOutDir(dir, c.Bool("force")); err != nil {
			return usageErr(err)
		}
	}
	tr, err := sim.Load(cfg.Spec)
	if err != nil {
		return usageErr(err)
	}
	noteMachine(c.App.ErrWriter, cfg.Spec, tr) // notes.go
	noteModels(c.App.ErrWriter, specExtrapolations(cfg.Spec))
	res, err := replay.Run(c.Context, cfg, tr)
	if err != nil {
		return inputOr(err)
	}
	if err := writeContractOut(c.String("out"), c.Bool("force"), res); err != nil {
		return err
	}
	if err := res.WriteText(c.App.Writer); err != nil {
		return err
	}
	if c.Bool("table") {
		return res.WriteSlotsText(c.App.Writer)
	}
	return nil
}

// contractConfig reads the flags into a replay.Config.
func contractConfig(c *cli.Context) (replay.Config, error) {
	cfg := replay.Config{Spec: specFromFlags(c), Rule: c.String("type-rule"), Count: c.String("count"),
		Slot: c.Duration("slot"), PUE: c.Float64("pue"), Offset: c.Duration("price-offset")}
	var err error
	if cfg.Theta, err = parseFloatList("--types", c.String("types")); err != nil {
		return cfg, err
	}
	if p := c.String("type-probs"); p != "" {
		if cfg.Probs, err = parseFloatList("--type-probs", p); err != nil {
			return cfg, err
		}
	}
	if cfg.Cost, err = contracts.Costs.New(c.String("cost"), contracts.CostConfig{C0: c.Float64("c0")}); err != nil {
		return cfg, err
	}
	if c.Bool("sensitivity") {
		cfg.Sensitivity = replay.SensitivityScales
	}
	if s := c.String("price-start"); s != "" {
		if cfg.PriceStart, err = time.Parse(time.RFC3339, s); err != nil {
			if cfg.PriceStart, err = time.Parse(time.DateOnly, s); err != nil {
				return cfg, fmt.Errorf("--price-start %q: want RFC 3339 (2024-01-01T00:00:00Z) or YYYY-MM-DD", s)
			}
		}
	}
	if z := c.String("price-zone"); z != "" {
		if cfg.PriceZone, err = time.LoadLocation(z); err != nil {
			return cfg, fmt.Errorf("--price-zone %q: %v", z, err)
		}
	}
	if path := c.String("prices"); path != "" {
		f, err := os.Open(path)
		if err != nil {
			return cfg, err
		}
		defer f.Close()
		opt := contracts.ReadOptions{Format: c.String("price-format"), Node: c.String("price-node"), AllowGaps: c.Bool("allow-gaps")}
		if cfg.Prices, err = contracts.ReadPrices(f, path, opt); err != nil {
			return cfg, err
		}
	}
	return cfg, nil
}

// writeContractOut writes the run's files atomically into dir ("" = none).
func writeContractOut(dir string, force bool, res *replay.Result) error {
	if dir == "" {
		return nil
	}
	files := []struct {
		name  string
		write func(io.Writer) error
	}{
		{"slots.csv", res.WriteSlotsCSV}, {"slots.txt", res.WriteSlotsText},
		{"menus.csv", res.WriteMenusCSV}, {"summary.json", res.WriteJSON}, {"summary.txt", res.WriteText},
	}
	if len(res.Sensitivity) > 0 {
		files = append(files, struct {
			name  string
			write func(io.Writer) error
		}{"sensitivity.csv", res.WriteSensitivityCSV})
	}
	for _, f := range files {
		var b bytes.Buffer
		if err := f.write(&b); err != nil {
			return err
		}
		if err := results.WriteFileAtomic(filepath.Join(dir, f.name), b.Bytes(), force); err != nil {
			return err
		}
	}
	return nil
}
