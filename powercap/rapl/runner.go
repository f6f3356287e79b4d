package rapl

import (
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"time"
)

// A Runner runs the measured command once and returns when it has finished.
// It must stop the command and return promptly when ctx is cancelled.
type Runner interface {
	Run(ctx context.Context, argv []string) error
}

// ExecRunner runs argv as a child process. The zero value passes nothing on
// stdin and discards the child's output.
type ExecRunner struct {
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	// Grace is how long a cancelled child has, after SIGINT, before it is
	// killed; 0 means 5 s.
	Grace time.Duration
}

// Run starts argv[0] (looked up in PATH) with the remaining arguments and
// waits for it. On cancellation the child gets SIGINT, then SIGKILL after
// Grace.
func (r ExecRunner) Run(ctx context.Context, argv []string) error {
	if len(argv) == 0 {
		return errors.New("rapl: no command to run")
	}
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = r.Stdin, r.Stdout, r.Stderr
	cmd.Cancel = func() error { return cmd.Process.Signal(os.Interrupt) }
	cmd.WaitDelay = r.Grace
	if cmd.WaitDelay == 0 {
		cmd.WaitDelay = 5 * time.Second
	}
	err := cmd.Run()
	if err != nil && ctx.Err() != nil {
		return context.Cause(ctx)
	}
	return err
}
