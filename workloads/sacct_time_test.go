package workloads

import (
	"errors"
	"testing"
	"time"
)

// Known-value tables for the sacct value parsers. Unix times are
// hand-computed from the calendar (2024-03-01T00:00Z = 1709251200,
// 2024-07-01T00:00Z = 1719792000, 2024-01-15T00:00Z = 1705276800,
// 2024-03-31T00:00Z = 1711843200, 2024-10-27T00:00Z = 1729987200) and the
// Paris offsets (CET +1, CEST +2; clocks go forward at 02:00 on 31 March
// 2024 and back at 03:00 on 27 October 2024); exact.

func TestParseSacctTime(t *testing.T) {
	for _, c := range []struct {
		in    string
		want  int64
		known bool
		err   error
	}{
		{"2024-03-01T10:00:00", 1709251200 + 36000, true, nil},
		{"2024-03-01 10:00:00", 1709251200 + 36000, true, nil}, // SLURM_TIME_FORMAT with a space
		{"1970-01-01T00:00:00", 0, true, nil},
		{"2000-02-29T23:59:59", 951868799, true, nil}, // leap day of a year divisible by 400
		{"Unknown", 0, false, nil},
		{"None", 0, false, nil},
		{"", 0, false, nil},
		{"2023-02-29T00:00:00", 0, false, ErrRange},
		{"2024-13-01T00:00:00", 0, false, ErrRange},
		{"2024-03-01T24:00:00", 0, false, ErrRange},
		{"2024-03-01T10:60:00", 0, false, ErrRange},
		{"1800-03-01T10:00:00", 0, false, ErrRange},
		{"2024-03-01T10:00", 0, false, ErrSyntax},
		{"2024-03-01X10:00:00", 0, false, ErrSyntax},
		{"2024-0a-01T10:00:00", 0, false, ErrSyntax},
		{"unknown", 0, false, ErrSyntax},
	} {
		t.Run(c.in, func(t *testing.T) {
			got, known, err := parseSacctTime([]byte(c.in))
			if got != c.want || known != c.known || !errors.Is(err, c.err) || (err == nil) != (c.err == nil) {
				t.Errorf("parseSacctTime(%q) = %d, %v, %v; want %d, %v, %v", c.in, got, known, err, c.want, c.known, c.err)
			}
		})
	}
}

func TestZoneDST(t *testing.T) {
	paris, err := time.LoadLocation("Europe/Paris") // from the embedded time/tzdata if the machine has none
	if err != nil {
		t.Fatal(err)
	}
	rows := []struct {
		in   string
		want int64 // 0: the DST gap error
	}{
		{"2024-07-01T12:00:00", 1719792000 + 10*3600}, // CEST
		{"2024-01-15T12:00:00", 1705276800 + 11*3600}, // CET
		{"2024-03-31T01:59:59", 1711843200 + 3599},    // last second of CET
		{"2024-03-31T02:00:00", 0},                    // skipped
		{"2024-03-31T02:30:00", 0},                    // skipped
		{"2024-03-31T03:00:00", 1711843200 + 3600},    // first second of CEST
		{"2024-10-27T01:59:59", 1729987200 - 1},       // CEST
		{"2024-10-27T02:00:00", 1729987200},           // twice: first occurrence (CEST)
		{"2024-10-27T02:30:00", 1729987200 + 1800},    // twice: first occurrence, not +5400
		{"2024-10-27T02:59:59", 1729987200 + 3599},    // twice: first occurrence
		{"2024-10-27T03:00:00", 1729987200 + 2*3600},  // CET
		{"2024-10-27T12:00:00", 1729987200 + 11*3600}, // CET
		{"2024-07-01T12:00:00", 1719792000 + 10*3600}, // back again (the cache moves)
		{"2024-03-01T10:00:00", 1709251200 + 9*3600},  // CET
	}
	shared := newZoneCache(paris) // one cache for the whole table, as in a reader
	for _, c := range rows {
		local, _, err := parseSacctTime([]byte(c.in))
		if err != nil {
			t.Fatal(err)
		}
		fresh := newZoneCache(paris)
		for _, z := range []*zoneCache{&shared, &fresh} {
			name := map[bool]string{true: "shared", false: "fresh"}[z == &shared]
			got, err := z.unix(local)
			switch {
			case c.want == 0 && err != errDSTGap:
				t.Errorf("%s cache: unix(%s) = %d, %v; want the DST gap error", name, c.in, got, err)
			case c.want != 0 && (err != nil || got != c.want):
				t.Errorf("%s cache: unix(%s) = %d, %v; want %d", name, c.in, got, err, c.want)
			}
		}
	}
	utc := newZoneCache(nil)
	if got, err := utc.unix(12345); got != 12345 || err != nil || utc.name() != "UTC" {
		t.Errorf("UTC: unix(12345) = %d, %v (%s)", got, err, utc.name())
	}
}

func TestParseDuration(t *testing.T) {
	for _, c := range []struct {
		in        string
		want      int64
		unlimited bool
		err       error
	}{
		{"00:01:00", 60, false, nil},
		{"00:01:13", 73, false, nil},
		{"04:00:00", 4 * 3600, false, nil},
		{"1-00:00:00", 86400, false, nil},
		{"2-19:58:02", 2*86400 + 19*3600 + 58*60 + 2, false, nil},
		{"05:30", 5*60 + 30, false, nil}, // MM:SS
		{"90", 90 * 60, false, nil},      // bare minutes, as sbatch --time
		{"1-12", 86400 + 12*3600, false, nil},
		{"1-12:30", 86400 + 12*3600 + 30*60, false, nil},
		{"100:00:00", 100 * 3600, false, nil},
		{"UNLIMITED", 0, true, nil},
		{"Partition_Limit", 0, true, nil},
		{"", 0, true, nil},
		{"00:60:00", 0, false, ErrRange},
		{"00:00:60", 0, false, ErrRange},
		{"1-24:00:00", 0, false, ErrRange},
		{"1:2:3:4", 0, false, ErrSyntax},
		{"abc", 0, false, ErrSyntax},
		{"-5", 0, false, ErrSyntax},
		{"1-", 0, false, ErrSyntax},
		{"12:", 0, false, ErrSyntax},
		{":12", 0, false, ErrSyntax},
		{"1.5", 0, false, ErrSyntax},
		{"unlimited", 0, false, ErrSyntax},
	} {
		t.Run(c.in, func(t *testing.T) {
			got, unl, err := parseDuration([]byte(c.in))
			if got != c.want || unl != c.unlimited || !errors.Is(err, c.err) || (err == nil) != (c.err == nil) {
				t.Errorf("parseDuration(%q) = %d, %v, %v; want %d, %v, %v", c.in, got, unl, err, c.want, c.unlimited, c.err)
			}
		})
	}
}

func TestParseTRES(t *testing.T) {
	for _, c := range []struct {
		in             string
		cpu, node, gpu int64
		bad            bool
	}{
		{"billing=1,cpu=1,gres/gpu=2,mem=1000M,node=1", 1, 1, 2, false}, // ReqTRES, Slurm 22.05 (slurm-notes.md)
		{"billing=2,cpu=2,gres/gpu=8,node=2", 2, 2, 8, false},           // AllocTRES of a 2-node exclusive job
		{"cpu=4,gres/gpu:a100=2,gres/gpu:v100=1", 4, -1, 3, false},      // typed only: summed
		{"cpu=4,gres/gpu=3,gres/gpu:a100=3", 4, -1, 3, false},           // untyped wins
		{"mem=4G,energy=9,billing=7", -1, -1, -1, false},
		{"", -1, -1, -1, false},
		{"cpu=x", 0, 0, 0, true},
		{"cpu", 0, 0, 0, true},
		{"node=-1", 0, 0, 0, true},
	} {
		t.Run(c.in, func(t *testing.T) {
			cpu, node, gpu, err := parseTRES([]byte(c.in), true)
			if (err != nil) != c.bad || !c.bad && (cpu != c.cpu || node != c.node || gpu != c.gpu) {
				t.Errorf("parseTRES(%q) = %d, %d, %d, %v; want %d, %d, %d, bad %v", c.in, cpu, node, gpu, err, c.cpu, c.node, c.gpu, c.bad)
			}
		})
	}
}

func TestParseStateIDEnergy(t *testing.T) {
	for _, c := range []struct {
		in     string
		want   State
		status int64
		done   bool
	}{
		{"COMPLETED", StateCompleted, 1, true},
		{"CANCELLED by 0", StateCancelled, 5, true},
		{"CANCELLED by 1234", StateCancelled, 5, true},
		{"CANCELLED", StateCancelled, 5, true},
		{"TIMEOUT", StateTimeout, 0, true},
		{"FAILED", StateFailed, 0, true},
		{"NODE_FAIL", StateNodeFail, 0, true},
		{"OUT_OF_MEMORY", StateOutOfMemory, 0, true},
		{"PREEMPTED", StatePreempted, 0, true},
		{"BOOT_FAIL", StateBootFail, 0, true},
		{"DEADLINE", StateDeadline, 0, true},
		{"RUNNING", StateRunning, -1, false},
		{"PENDING", StatePending, -1, false},
		{"REQUEUED", StateRequeued, -1, false},
		{"SUSPENDED", StateSuspended, -1, false},
		{"CD", StateCompleted, 1, true},
		{"bogus", StateOther, -1, true},
		{"", StateOther, -1, true},
	} {
		s := parseState([]byte(c.in))
		if s != c.want || stateInfo[s].status != c.status || stateInfo[s].done != c.done {
			t.Errorf("parseState(%q) = %v (status %d, done %v); want %v (%d, %v)", c.in, s, stateInfo[s].status, stateInfo[s].done, c.want, c.status, c.done)
		}
	}
	for _, c := range []struct {
		in   string
		want int64
		bad  bool
	}{{"123", 123, false}, {"5_0", 5, false}, {"123+0", 123, false}, {"123_[1-5]", 123, false},
		{"", 0, true}, {"abc", 0, true}, {"12x", 0, true}, {"1234567890123456789", 0, true}} {
		got, err := parseJobID([]byte(c.in), true)
		if (err != nil) != c.bad || got != c.want {
			t.Errorf("parseJobID(%q) = %d, %v; want %d, bad %v", c.in, got, err, c.want, c.bad)
		}
	}
	for _, c := range []struct {
		in   string
		want float64
		bad  bool
	}{{"", 0, false}, {"0", 0, false}, {"12345", 12345, false}, {"1.5K", 1500, false}, {"2M", 2e6, false},
		{"x", 0, true}, {"-3", 0, true}, {"K", 0, true}} {
		got, err := parseEnergy([]byte(c.in))
		if (err != nil) != c.bad || got != c.want {
			t.Errorf("parseEnergy(%q) = %v, %v; want %v, bad %v", c.in, got, err, c.want, c.bad)
		}
	}
}
