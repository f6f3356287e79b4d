package main

import (
	"fmt"
	"io"

	"github.com/urfave/cli/v2"

	"drsim/results"
)

var versionFlag = &cli.BoolFlag{Name: "version", Usage: "print the version and the VCS revision this binary was built from"}

// printVersion prints the build's identity (Go's build information), as
// summary.json records it: drsim_version, vcs_revision, vcs_modified. A
// binary built by go run or go test has no VCS information: "unknown".
func printVersion(w io.Writer) error {
	b := results.Build()
	mod := ""
	if b.Modified {
		mod = " (modified: uncommitted changes)"
	}
	_, err := fmt.Fprintf(w, "drsim %s\nvcs revision %s%s\nbuilt with %s\n", b.Version, b.Revision, mod, b.GoVersion)
	return err
}
