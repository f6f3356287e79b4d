package scheduler

import (
	"slices"
	"testing"
)

// TestConservativeReuseCertificate checks stands on hand-made
// certificates: a job of estimate est placed at 50, whose search met a
// too-full part [10, 20) 2 processors short and [30, 40) 5 short, after
// a finish that frees procs processors from now (0) to 25 (to 45 in the
// last case). A part D lifts to the job's size is dropped once the
// placement stands.
func TestConservativeReuseCertificate(t *testing.T) {
	cases := []struct {
		procs  int32
		est    float64
		stands bool
		after  []certIv // the certificate after a stand
	}{
		{1, 15, true, []certIv{{10, 20, 1}, {30, 40, 5}}}, // D lifts no part to the job's size
		{3, 15, false, nil},                  // [10, 20) may fit: starts in [0, 15] touch no blocking part
		{3, 25, false, nil},                  // starts in [0, 5] still do not reach [30, 40)
		{3, 31, true, []certIv{{30, 40, 5}}}, // every start before 20 reaches [30, 40), which D cannot lift
		{3, 30, false, nil},                  // a start at 0 ends at 30: its window stops before [30, 40)
		{8, 31, false, nil},                  // D lifts both parts
	}
	for k, tc := range cases {
		c := &Conservative{}
		c.bp.cert = []certIv{{x: 10, y: 20, def: 2}, {x: 30, y: 40, def: 5}}
		c.rs.d = []runEntry{{estEnd: 25, procs: tc.procs}}
		c.rs.dEnd = 25
		if tc.procs == 8 {
			c.rs.d[0].estEnd, c.rs.dEnd = 45, 45
		}
		gr := &resGroup{procs: 4, n: 1, certFrom: 0, certTo: 2, est: tc.est, at: 50}
		if got := c.stands(gr, 0); got != tc.stands {
			t.Fatalf("case %d: stands %v, want %v", k, got, tc.stands)
		}
		if tc.stands {
			if got := c.bp.cert[gr.certFrom:gr.certTo]; !slices.Equal(got, tc.after) {
				t.Fatalf("case %d: certificate %v after standing, want %v", k, got, tc.after)
			}
		} else if gr.certTo != 2 || c.bp.cert[0].def != 2 || c.bp.cert[1].def != 5 {
			t.Fatalf("case %d: deficits changed without standing: %v", k, c.bp.cert)
		}
	}
}
