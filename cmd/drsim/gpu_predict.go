package main

import (
	"fmt"

	"github.com/urfave/cli/v2"

	"drsim/powercap"
)

// countSet returns how many of the named flags were given.
func countSet(c *cli.Context, names ...string) int {
	n := 0
	for _, name := range names {
		if c.IsSet(name) {
			n++
		}
	}
	return n
}

// checkGPUFlags rejects a --gpufreq or --gpucap outside the plausible
// range of its unit (a clock in MHz would otherwise be held silently at the
// model's top clock) and a --gpus below 1.
func checkGPUFlags(c *cli.Context) error {
	for _, f := range []struct {
		name, unit, hint string
		lo, hi           float64
	}{{"gpufreq", "GHz", "MHz", 0.1, 10}, {"gpucap", "W", "mW", 1, 5000}} {
		if v := c.Float64(f.name); c.IsSet(f.name) && !(v >= f.lo && v <= f.hi) {
			hint := ""
			if v > f.hi {
				hint = " (" + f.hint + " given?)"
			}
			return usagef("predict: --%s %v is out of range %v–%v %s%s", f.name, v, f.lo, f.hi, f.unit, hint)
		}
	}
	if c.Int("gpus") < 1 {
		return usagef("predict: --gpus %d must be at least 1", c.Int("gpus"))
	}
	return nil
}

// predictJoint is drsim predict --cap W --gpucap W: the joint model of a
// GPU profile (the measured grid, or the separable fallback).
func predictJoint(c *cli.Context) error {
	if countSet(c, "freq", "gpufreq") > 0 {
		return usagef("predict: --cap with --gpucap is a joint prediction: drop --freq and --gpufreq")
	}
	cpu, gpu := c.Float64("cap"), c.Float64("gpucap")
	if !(cpu > 0) || !(gpu > 0) || c.Int("nodes") < 1 || c.Int("gpus") < 1 {
		return usagef("predict: --cap %v, --gpucap %v, --nodes %d and --gpus %d must be positive", cpu, gpu, c.Int("nodes"), c.Int("gpus"))
	}
	profiles, err := powercap.LoadProfiles(c.String("models"))
	if err != nil {
		return usageErr(err)
	}
	p, err := powercap.Lookup(profiles, c.String("app"))
	if err != nil {
		return usageErr(err)
	}
	v, err := powercap.PredictJoint(&p, cpu, gpu, c.String("quantity"), c.Int("nodes"), c.Int("gpus"))
	if err != nil {
		return usageErr(err)
	}
	_, err = fmt.Fprintf(c.App.Writer, "%.6g\n", v)
	return err
}
