package results

import (
	"bytes"
	"math/rand/v2"
	"strconv"
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

// The bounded slowdown column copies the stretch column's text when the
// two are the same number: on random records (short runs, where they
// differ, and long ones with fractional times, where they are equal) the
// two columns read as each number formatted on its own (appendNum).
func TestJobsCSVSlowdownColumns(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 0))
	var buf bytes.Buffer
	w, err := NewJobsCSV(&buf)
	if err != nil {
		t.Fatal(err)
	}
	var recs []Record
	for i := range 2000 {
		rec := Record{ID: int64(i), Workload: "w", Submit: float64(r.IntN(1e6)), Procs: 1, State: StateCompleted, Alloc: []cluster.Range{{Lo: 0, Hi: 1}}}
		rec.Start = rec.Submit + float64(r.IntN(1000))
		if i%2 == 0 {
			rec.Start += r.Float64()
		}
		rec.End = rec.Start + r.ExpFloat64()*float64([]int{1, 10, 1000}[i%3])
		recs = append(recs, rec)
		if err := w.Record(&rec); err != nil {
			t.Fatal(err)
		}
	}
	w.Flush()
	same := 0
	for i, row := range strings.Split(strings.TrimSuffix(strings.TrimPrefix(buf.String(), JobsHeader), "\n"), "\n") {
		f := strings.Split(row, ",")
		st, bs := string(appendNum(nil, recs[i].Stretch())), string(appendNum(nil, recs[i].BoundedSlowdown()))
		if f[12] != st || f[15] != bs {
			t.Fatalf("record %+v: stretch %q, bounded slowdown %q; want %q, %q", recs[i], f[12], f[15], st, bs)
		}
		if _, err := strconv.ParseFloat(f[15], 64); err != nil {
			t.Fatal(err)
		}
		if st == bs && st != "1" {
			same++
		}
	}
	if same == 0 || same == len(recs) {
		t.Errorf("%d of %d rows with the same stretch and bounded slowdown (not 1): the records do not exercise both cases", same, len(recs))
	}
}
