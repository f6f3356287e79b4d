package results

import (
	"bytes"
	"strings"
	"testing"

	"drsim/cluster"
)

func TestAppendMilli(t *testing.T) {
	for _, tc := range []struct {
		in   float64
		want string
	}{
		{-1, "-1"}, {0, "0"}, {12525570.840026097, "12525570.840"}, {0.0004, "0.000"},
		{0.0005, "0.001"}, {2.5, "2.500"}, {-3.25, "-3.250"}, {1999.9996, "2000.000"},
	} {
		if got := string(appendMilli(nil, tc.in)); got != tc.want {
			t.Errorf("appendMilli(%v) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// One hand-built record gives exactly the Batsim row it should.
func TestJobsCSVRow(t *testing.T) {
	var buf bytes.Buffer
	w, err := NewJobsCSV(&buf)
	if err != nil {
		t.Fatal(err)
	}
	r := &Record{ID: 7, Workload: "w", Submit: 10, Procs: 4, ReqTime: 100, State: StateWalltime,
		Start: 15, End: 115, Alloc: []cluster.Range{{Lo: 0, Hi: 4}}, Energy: 1234.5678, Evictions: 1, Wasted: 10}
	if err := w.Record(r); err != nil {
		t.Fatal(err)
	}
	w.Flush()
	// wait 5, turnaround 105, stretch 1.05, bounded slowdown 105/100.
	want := "7,w,10,4,100,0,COMPLETED_WALLTIME_REACHED,15,100,115,5,105,1.05,0-3,1234.568,1.05,1,10\n"
	if got := strings.TrimPrefix(buf.String(), JobsHeader); got != want {
		t.Errorf("row = %q\nwant  %q", got, want)
	}
}
