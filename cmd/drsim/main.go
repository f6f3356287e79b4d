// Command drsim replays HPC workload logs through batch schedulers and
// evaluates energy demand-response events on them. Run "drsim help".
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	// Ctrl-C or SIGTERM cancels the context: simulations stop at their next
	// check, and every output still under a temporary name is removed, so
	// no partial file is left under its final name.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := newApp(os.Stdout, os.Stderr).RunContext(ctx, os.Args)
	stop()
	if err != nil {
		fmt.Fprintf(os.Stderr, "drsim: %v\n", err)
		os.Exit(exitCode(err))
	}
}
