package scheduler

import "testing"

// TestConservativeReuseCertificate checks stands on hand-made
// certificates: a job of estimate est placed at 50, whose search met a
// too-full part [10, 20) 2 processors short and [30, 40) 5 short, after
// a finish that frees procs processors from now (0) to 25.
func TestConservativeReuseCertificate(t *testing.T) {
	cases := []struct {
		procs    int32
		est      float64
		stands   bool
		def0, d1 int // deficits after a stand
	}{
		{1, 15, true, 1, 5},  // D lifts no part to the job's size
		{3, 15, false, 0, 0}, // [10, 20) may fit: starts in [0, 15] touch no blocking part
		{3, 25, false, 0, 0}, // starts in [0, 5] still do not reach [30, 40)
		{3, 31, true, -1, 5}, // every start before 20 reaches [30, 40), which D cannot lift
		{3, 30, false, 0, 0}, // a start at 0 ends at 30: its window stops before [30, 40)
		{8, 31, false, 0, 0}, // D lifts both parts
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
			if d0, d1 := c.bp.cert[0].def, c.bp.cert[1].def; d0 != tc.def0 || d1 != tc.d1 {
				t.Fatalf("case %d: deficits %d, %d after standing, want %d, %d", k, d0, d1, tc.def0, tc.d1)
			}
		} else if c.bp.cert[0].def != 2 || c.bp.cert[1].def != 5 {
			t.Fatalf("case %d: deficits changed without standing: %v", k, c.bp.cert)
		}
	}
}
