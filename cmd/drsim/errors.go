package main

import (
	"errors"
	"fmt"

	"github.com/urfave/cli/v2"
)

// Exit codes, documented in README.md.
const (
	exitOK      = 0
	exitRuntime = 1 // the simulation or an output failed
	exitInput   = 2 // bad usage or bad input file
)

// inputError marks an error caused by the user's arguments or input files.
type inputError struct{ err error }

func (e inputError) Error() string { return e.err.Error() }
func (e inputError) Unwrap() error { return e.err }

// usageErr wraps err so that main exits with code 2.
func usageErr(err error) error {
	if err == nil {
		return nil
	}
	return inputError{err}
}

// usagef is fmt.Errorf for usage errors.
func usagef(format string, a ...any) error { return inputError{fmt.Errorf(format, a...)} }

func exitCode(err error) int {
	if err == nil {
		return exitOK
	}
	var ie inputError
	if errors.As(err, &ie) {
		return exitInput
	}
	return exitRuntime
}

// noArgs rejects positional arguments: urfave/cli v2 silently ignores flags
// written after the first positional argument, so drsim takes files as flags
// and refuses anything it would otherwise drop.
func noArgs(c *cli.Context) error {
	if c.Args().Len() > 0 {
		return usagef("%s: unexpected argument %q (files are given as flags, e.g. --trace FILE; flags go before any argument)", c.Command.FullName(), c.Args().First())
	}
	return nil
}
