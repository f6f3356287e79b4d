package rapl

import (
	"context"
	"fmt"
	"os"
)

// Example_measure sweeps three caps on a fake machine (a sysfs tree in a
// temporary directory, a fake clock, and a program that idles at 40 W for
// 5 s and then does 1500 J of work at up to 150 W) and prints the
// calibration CSV. On a real machine: FindZone("", "package-0") and leave
// Runner and Clock nil. The 100.07 W cap reads back as 100 W.
func Example_measure() {
	dir, err := os.MkdirTemp("", "rapl-example")
	must(err)
	defer os.RemoveAll(dir)
	root := newTree(dir, defaultZone)
	tree := Tree{Root: root, FS: &fakeFS{}}

	zone, err := tree.Find("package-0")
	must(err)
	clk := newFakeClock()
	cfg := Config{
		Zone:    zone,
		Caps:    []float64{100.07, 150, 200},
		Command: []string{"./my_app"},
		Runner:  &fakeApp{zone: zone, clk: clk},
		Clock:   clk,
	}
	ms, err := Measure(context.Background(), cfg)
	must(err)
	must(WriteCSV(os.Stdout, Rows("my_app", ms)))
	limit, _ := zone.PowerLimit()
	fmt.Println("cap restored to", limit, "µW")
	// Output:
	// app,x,power_w,runtime_s,nodes,energy_j
	// my_app,100,85,20,1,1700
	// my_app,150,113.33333333333333,15,1,1700
	// my_app,200,113.33333333333333,15,1,1700
	// cap restored to 150000000 µW
}
