package main

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"drsim/powercap"
	"drsim/scheduler/sim"
)

var predictCommand = &cli.Command{
	Name:  "predict",
	Usage: "print one model value: runtime (s), power (W) or energy (J) of an app at a frequency or cap",
	Description: "power and energy are per processor, times --nodes; runtime is the model's own t(x).\n" +
		"Under --cap the power never exceeds the cap; outside the measured range models hold their end value.\n" +
		"GPU profiles (drsim apps lists them): --gpufreq GHz or --gpucap W alone give per-GPU power; --cap with\n" +
		"--gpucap evaluates the joint model, power per node = CPU + --gpus GPUs (times --nodes).\n" +
		"--hpl N --grid PxQ predicts an HPL run (powercap/hpl, docs/variability.md).",
	Flags: append([]cli.Flag{
		&cli.StringFlag{Name: "models", Usage: "builtin or a directory of model files from drsim calibrate", Value: "builtin"},
		&cli.StringFlag{Name: "app", Usage: "application name (drsim apps lists them)"},
		&cli.Float64Flag{Name: "freq", Usage: "CPU frequency in GHz"},
		&cli.Float64Flag{Name: "cap", Usage: "package power cap in W"},
		&cli.StringFlag{Name: "quantity", Usage: "power, runtime or energy"},
		&cli.IntFlag{Name: "nodes", Usage: "processors the job uses (multiplies power and energy)", Value: 1},
		&cli.Float64Flag{Name: "gpufreq", Usage: "GPU core clock in GHz"},
		&cli.Float64Flag{Name: "gpucap", Usage: "GPU power cap in W (with --cap: the joint model)"},
		&cli.IntFlag{Name: "gpus", Usage: "GPUs per node for joint power and energy", Value: 1},
	}, hplFlags()...), // predict_hpl.go
	Action: func(c *cli.Context) error {
		if err := noArgs(c); err != nil {
			return err
		}
		if c.IsSet("hpl") {
			return predictHPL(c) // predict_hpl.go
		}
		if !c.IsSet("app") || !c.IsSet("quantity") {
			return usagef("predict: give --app and --quantity (or --hpl N)")
		}
		if c.IsSet("gpucap") && c.IsSet("cap") {
			return predictJoint(c) // gpu_predict.go
		}
		if n := countSet(c, "freq", "cap", "gpufreq", "gpucap"); n != 1 {
			return usagef("predict: give exactly one of --freq GHz, --cap W, --gpufreq GHz and --gpucap W (or --cap with --gpucap)")
		}
		knob, x := powercap.Freq, c.Float64("freq")
		for _, k := range []powercap.Knob{powercap.Cap, powercap.GPUFreq, powercap.GPUCap} {
			if c.IsSet(k.String()) {
				knob, x = k, c.Float64(k.String())
			}
		}
		if !(x > 0) || c.Int("nodes") < 1 {
			return usagef("predict: --%s %v and --nodes %d must be positive", knob, x, c.Int("nodes"))
		}
		profiles, err := powercap.LoadProfiles(c.String("models"))
		if err != nil {
			return usageErr(err)
		}
		p, err := powercap.Lookup(profiles, c.String("app"))
		if err != nil {
			return usageErr(err)
		}
		if e, ok := sim.ExtrapolationAt(&p, knob, x); ok {
			noteModels(c.App.ErrWriter, []sim.Extrapolation{e}) // notes.go
		}
		v, err := powercap.Predict(&p, knob, x, c.String("quantity"), c.Int("nodes"))
		if err != nil {
			return usageErr(err)
		}
		_, err = fmt.Fprintf(c.App.Writer, "%.6g\n", v)
		return err
	},
}
