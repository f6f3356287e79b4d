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
