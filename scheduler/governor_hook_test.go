package scheduler_test

import (
	"drsim/scheduler"
	"drsim/scheduler/governor"
)

// The engine tests of package scheduler that run under the dr governor
// build it through scheduler.NewDR (export_test.go).
func init() { scheduler.NewDR = func() scheduler.Governor { return &governor.DR{} } }
