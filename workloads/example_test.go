package workloads_test

import (
	"fmt"
	"io"
	"strings"

	"drsim/workloads"
)

func Example() {
	const swf = `; Version: 2.2
; MaxNodes: 338 (batch partition; 512 total)
    1        0 588530    937  306 142.00    -1   -1  35100    -1  1  97  -1 307  3 -1 -1 -1
    2   164472 356587      0   17   2.00    -1   -1    300    -1  1  81  -1 195  3 -1 -1 -1
    3   197154 459987  35268  306  32792    -1   -1  35100    -1  0  97  -1 307  3 -1 -1 -1
`
	r, err := workloads.NewReader(strings.NewReader(swf), workloads.Options{File: "ctc.swf"})
	if err != nil {
		fmt.Println(err)
		return
	}
	for {
		j, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("job %d: submit %v, %d procs, run %v, estimate %v\n", j.ID, j.Submit, j.Procs, j.Run, j.Estimate)
	}
	procs, source := r.Machine()
	fmt.Printf("machine %d procs from %s\n", procs, source)
	for _, a := range r.Report().Anomalies {
		if a.Count > 0 {
			fmt.Printf("%s: %d (first %s)\n", a.Reason, a.Count, a.First)
		}
	}
	// Output:
	// job 1: submit 0, 306 procs, run 937, estimate 35100
	// job 3: submit 197154, 306 procs, run 35268, estimate 35100
	// machine 338 procs from MaxNodes
	// run_time=0: 1 (first ctc.swf:4)
	// run_time>requested_time: 1 (first ctc.swf:5)
}

func ExampleLublin() {
	tr, err := workloads.Lublin(workloads.LublinConfig{Jobs: 3, Procs: 64, Seed: 1})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, j := range tr.Jobs {
		fmt.Printf("job %d: submit %v, %d procs, run %v s, requested %v s\n", j.ID, j.Submit, j.Procs, j.Run, j.ReqTime)
	}
	// Output:
	// job 1: submit 148, 1 procs, run 65 s, requested 600 s
	// job 2: submit 359, 1 procs, run 15928 s, requested 57600 s
	// job 3: submit 424, 8 procs, run 334 s, requested 600 s
}
