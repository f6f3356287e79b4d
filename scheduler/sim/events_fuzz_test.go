package sim

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"drsim/workloads"
)

// FuzzDecodeEvents: a DR events file never panics the reader, fails with one
// line naming the file, and otherwise gives sorted, disjoint events with
// positive finite limits inside the span, whose Steps are increasing in
// time. zoned selects a trace with UnixStartTime and a TimeZoneString, so
// that ISO timestamps resolve through a zone. Seeds: inline files and the
// dr-* cases of testdata/bad (scripts/fuzz.sh runs it).
func FuzzDecodeEvents(f *testing.F) {
	for _, s := range []string{
		"start,end,limit_w\n300,900,500\n1200,1800,400\n",
		"start,end,limit_frac\n2002-07-28T14:00:00Z,2002-07-28 15:30,0.5\n",
		"end,start,limit_frac\n900,300,0.5\n",
		"start,end,limit_w\n0,100,1\n100,200,2\n",
	} {
		f.Add([]byte(s), false)
		f.Add([]byte(s), true)
	}
	files, _ := filepath.Glob("../../testdata/bad/dr-*/events.csv")
	for _, p := range files {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b, false)
		}
	}
	const swf = "; MaxProcs: 8\n1 0 0 1000 2 -1 -1 2 2000 -1 1 1 1 1 1 1 -1 -1\n2 100 0 500 4 -1 -1 4 1000 -1 1 1 1 1 1 1 -1 -1\n"
	plain, err := workloads.Load(strings.NewReader(swf), workloads.Options{File: "t.swf"})
	if err != nil {
		f.Fatal(err)
	}
	zoned, err := workloads.Load(strings.NewReader("; UnixStartTime: 1027864800\n; TimeZoneString: Europe/Stockholm\n"+swf), workloads.Options{File: "t.swf"})
	if err != nil {
		f.Fatal(err)
	}
	const peakW = 1000.0
	f.Fuzz(func(t *testing.T, data []byte, z bool) {
		tr := plain
		if z {
			tr = zoned
		}
		ev, err := DecodeEvents(bytes.NewReader(data), "e.csv", tr, peakW, Spec{})
		if err != nil {
			if msg := err.Error(); strings.ContainsAny(msg, "\n\r") || !strings.HasPrefix(msg, "e.csv:") {
				t.Fatalf("error is not one line starting with e.csv: %q", msg)
			}
			return
		}
		t0, t1 := Span(Spec{}, tr)
		for i, e := range ev {
			if !(e.Start < e.End) || !(e.LimitW > 0) || math.IsInf(e.LimitW, 0) || e.Start < t0 || e.Start >= t1 || math.IsInf(e.End, 0) {
				t.Fatalf("event %d %+v: want start < end, a finite limit > 0, and a start in the span [%v, %v)", i, e, t0, t1)
			}
			if i > 0 && e.Start < ev[i-1].End {
				t.Fatalf("events %d %+v and %d %+v overlap or are unsorted", i-1, ev[i-1], i, e)
			}
		}
		steps := Steps(ev, 0, t0)
		for i := 1; i < len(steps); i++ {
			if !(steps[i].T > steps[i-1].T) {
				t.Fatalf("limit steps not increasing in time: %+v", steps)
			}
		}
	})
}
