package main

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"runtime/pprof"

	"github.com/urfave/cli/v2"
)

// cpuProfileFlag writes a Go CPU profile of the whole command, for
// `go tool pprof`; it is how drsim's speed figures were investigated.
var cpuProfileFlag = &cli.StringFlag{Name: "cpuprofile", Usage: "write a CPU profile of the command to `FILE` (go tool pprof)"}

// memProfileFlag writes the Go allocation profile when the command ends:
// `go tool pprof -sample_index=alloc_space` shows where memory was
// allocated, inuse_space what was still live at the end.
var memProfileFlag = &cli.StringFlag{Name: "memprofile", Usage: "write an allocation profile of the command to `FILE` when it ends (go tool pprof)"}

// startProfile starts the profiles the flags ask for and returns the
// function that stops them (and writes the allocation profile). Both files
// are created before the command runs, so a bad path fails at once.
func startProfile(c *cli.Context) (stop func() error, err error) {
	var cpu, mem *os.File
	closeAll := func() {
		for _, f := range []*os.File{cpu, mem} {
			if f != nil {
				f.Close()
			}
		}
	}
	if path := c.String(cpuProfileFlag.Name); path != "" {
		if cpu, err = createNew(path, "--cpuprofile"); err != nil {
			return nil, err
		}
		if err := pprof.StartCPUProfile(cpu); err != nil {
			closeAll()
			return nil, fmt.Errorf("--cpuprofile %s: %w", path, err)
		}
	}
	if path := c.String(memProfileFlag.Name); path != "" {
		if mem, err = createNew(path, "--memprofile"); err != nil {
			if cpu != nil {
				pprof.StopCPUProfile()
			}
			closeAll()
			return nil, err
		}
	}
	return func() error {
		var errs []error
		if cpu != nil {
			pprof.StopCPUProfile()
			errs = append(errs, cpu.Close())
		}
		if mem != nil {
			if err := pprof.Lookup("allocs").WriteTo(mem, 0); err != nil {
				errs = append(errs, fmt.Errorf("--memprofile %s: %w", mem.Name(), err))
			}
			errs = append(errs, mem.Close())
		}
		return errors.Join(errs...)
	}, nil
}

// createNew creates path for a profile; an existing file is the user's and
// is not overwritten (a usage error, exit 2).
func createNew(path, flag string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if errors.Is(err, fs.ErrExist) {
		return nil, usagef("%s: %s already exists; remove it or choose another name", flag, path)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", flag, err)
	}
	return f, nil
}
