// Command drsim replays HPC workload logs through batch schedulers and
// evaluates energy demand-response events on them. Run "drsim help".
package main

import (
	"fmt"
	"os"
)

func main() {
	if err := newApp(os.Stdout, os.Stderr).Run(os.Args); err != nil {
		fmt.Fprintf(os.Stderr, "drsim: %v\n", err)
		os.Exit(exitCode(err))
	}
}
