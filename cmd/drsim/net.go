package main

import (
	"encoding/json"
	"math/rand/v2"
	"os"

	"github.com/urfave/cli/v2"

	"drsim/netmodel"
)

// netCommand prices communication on interconnect topologies.
var netCommand = &cli.Command{
	Name:  "net",
	Usage: "interconnect model: topology summaries and communication predictions",
	Subcommands: []*cli.Command{
		{
			Name:   "info",
			Usage:  "node/switch/link counts, diameter, bisection bandwidth and latency range of a topology",
			Flags:  append(netTopologyFlags(), &cli.BoolFlag{Name: "json", Usage: "write JSON"}),
			Action: netInfo,
		},
		{
			Name:  "predict",
			Usage: "time of one communication pattern for a job placed on the empty machine",
			Flags: append(netTopologyFlags(),
				&cli.IntFlag{Name: "nodes", Usage: "job size in nodes", Required: true},
				&cli.StringFlag{Name: "pattern", Value: "allreduce", Usage: "none, p2p, allreduce, broadcast, alltoall or halo3d"},
				&cli.StringFlag{Name: "size", Value: "1MiB", Usage: "message size, e.g. 8B, 64KiB, 1MiB, 1MB"},
				&cli.StringFlag{Name: "placement", Value: "contiguous", Usage: "contiguous, scattered or topology"},
				&cli.Uint64Flag{Name: "seed", Value: 1, Usage: "random seed for scattered/topology placement"},
				&cli.BoolFlag{Name: "json", Usage: "write JSON"},
			),
			Action: netPredict,
		},
	},
}

func netTopologyFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "preset", Usage: "hopper, mira, edison or stampede"},
		&cli.StringFlag{Name: "topology", Usage: "topology description `FILE` (.toml or .json)"},
	}
}

// netTopology builds the topology named by --preset or --topology.
func netTopology(c *cli.Context) (*netmodel.Topology, error) {
	preset, file := c.String("preset"), c.String("topology")
	switch {
	case (preset == "") == (file == ""):
		return nil, usagef("net %s: give exactly one of --preset or --topology", c.Command.Name)
	case preset != "":
		t, err := netmodel.Preset(preset)
		return t, usageErr(err)
	}
	f, err := os.Open(file)
	if err != nil {
		return nil, usageErr(err)
	}
	defer f.Close()
	t, err := netmodel.LoadTopology(f, file)
	return t, usageErr(err)
}

func netInfo(c *cli.Context) error {
	if err := noArgs(c); err != nil {
		return err
	}
	t, err := netTopology(c)
	if err != nil {
		return err
	}
	if c.Bool("json") {
		enc := json.NewEncoder(c.App.Writer)
		enc.SetIndent("", "  ")
		return enc.Encode(t.Info())
	}
	return t.Info().WriteText(c.App.Writer)
}

func netPredict(c *cli.Context) error {
	if err := noArgs(c); err != nil {
		return err
	}
	t, err := netTopology(c)
	if err != nil {
		return err
	}
	pat, err := netmodel.ParsePattern(c.String("pattern"))
	if err != nil {
		return usageErr(err)
	}
	size, err := netmodel.ParseSize(c.String("size"))
	if err != nil {
		return usageErr(err)
	}
	nodes, err := netmodel.Place(t, c.Int("nodes"), c.String("placement"), rand.New(rand.NewPCG(c.Uint64("seed"), 0)))
	if err != nil {
		return usageErr(err)
	}
	m, err := netmodel.NewModel(t, netmodel.Config{})
	if err != nil {
		return err
	}
	p, err := m.Predict(nodes, pat, size)
	if err != nil {
		return err
	}
	if c.Bool("json") {
		return json.NewEncoder(c.App.Writer).Encode(p)
	}
	return p.WriteText(c.App.Writer)
}
