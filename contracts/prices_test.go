package contracts

import (
	"errors"
	"math"
	"os"
	"strings"
	"testing"
	"time"

	"drsim/internal/sharedtest"
)

func TestIllustrativeDay(t *testing.T) {
	s := IllustrativeDay()
	st := s.Stats(time.Time{}, time.Time{})
	// hand-summed from illustrative_day.csv: 1038 / 24
	if st.Hours != 24 || math.Abs(st.Mean-43.25) > 1e-12 || st.Min != 22 || st.Max != 92 || st.Negative != 0 {
		t.Errorf("stats %+v", st)
	}
	if !strings.Contains(strings.Join(s.Notes, ";"), "ILLUSTRATIVE") {
		t.Errorf("notes %q do not say illustrative", s.Notes)
	}
	for _, tc := range []struct {
		d    time.Duration
		want float64
	}{{0, 28}, {18*time.Hour + 30*time.Minute, 92}, {23 * time.Hour, 32}, {24 * time.Hour, 28}, {-time.Minute, 32}, {72*time.Hour + 7*time.Hour, 55}} {
		if got, err := s.AtOffset(tc.d); err != nil || got != tc.want {
			t.Errorf("AtOffset(%v) = %v, %v; want %v", tc.d, got, err, tc.want)
		}
	}
}

func read(t *testing.T, format, text string, opt ReadOptions) (*Series, error) {
	t.Helper()
	opt.Format = format
	return ReadPrices(strings.NewReader(text), "p.csv", opt)
}

func TestReadCSV(t *testing.T) {
	s, err := read(t, "", "time,price\n2024-03-10T06:00:00Z,10\n2024-03-10T02:00:00-05:00,-5.5\n2024-03-10T08:00:00+00:00,30\n", ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if want := time.Date(2024, 3, 10, 6, 0, 0, 0, time.UTC); !s.Start.Equal(want) || len(s.Price) != 3 {
		t.Fatalf("start %v len %d", s.Start, len(s.Price))
	}
	// 02:00−05:00 = 07:00Z sorts between the others
	if s.Price[1] != -5.5 || !strings.Contains(strings.Join(s.Notes, ";"), "1 hour(s) with a negative price") {
		t.Errorf("prices %v notes %q", s.Price, s.Notes)
	}
	if _, err := s.At(time.Date(2024, 3, 10, 9, 0, 0, 0, time.UTC)); err == nil {
		t.Error("At past the end succeeded")
	}
	s, err = read(t, "csv", "time,price\n0,1\n1,2\n", ReadOptions{})
	if err != nil || s.Price[1] != 2 {
		t.Fatalf("hour index: %v %v", s, err)
	}
	if p, err := s.AtOffset(90 * time.Minute); p != 2 || err != nil {
		t.Errorf("AtOffset(90m) = %v, %v", p, err)
	}
}

func TestReadErrors(t *testing.T) {
	tests := []struct {
		name, format, text string
		opt                ReadOptions
		want               string
		is                 error
	}{
		{"no zone", "csv", "time,price\n2024-01-01T00:00:00Z,1\n2024-01-01 01:00,2\n", ReadOptions{}, "p.csv:3:1: time=\"2024-01-01 01:00\": timestamp has no time zone", ErrZone},
		{"bad time", "csv", "time,price\nnoon,1\n", ReadOptions{}, "p.csv:2:1: time=\"noon\"", ErrTime},
		{"bad zone", "csv", "time,price\n2024-01-01T00:00:00+25:00,1\n", ReadOptions{}, "p.csv:2:1:", ErrTime},
		{"mixed", "csv", "time,price\n0,1\n2024-01-01T01:00:00Z,2\n", ReadOptions{}, "p.csv:3:1:", ErrTime},
		{"bad price", "csv", "time,price\n0,1\n1,abc\n", ReadOptions{}, "p.csv:3:2: price=\"abc\": bad price", ErrPrice},
		{"duplicate", "csv", "time,price\n0,1\n1,2\n1,3\n", ReadOptions{}, "p.csv:4: duplicate hour 1970-01-01 01:00 (also at line 3)", ErrDuplicate},
		{"gap", "csv", "time,price\n0,1\n1,2\n4,3\n6,1\n", ReadOptions{}, "p.csv: missing hours: 3 missing hour(s); first gap: 1970-01-01 01:00 (line 3) is followed by 1970-01-01 04:00 (line 4)", ErrGap},
		{"off grid", "csv", "time,price\n2024-01-01T00:00:00Z,1\n2024-01-01T00:30:00Z,1\n", ReadOptions{}, "p.csv:3: timestamp is not on the hourly grid", ErrGrid},
		{"missing column", "csv", "time,cost\n0,1\n", ReadOptions{}, `p.csv:1: no column "price"`, nil},
		{"unknown header", "", "when,what\n", ReadOptions{}, "p.csv:1: contracts: unrecognised price file header", nil},
		{"unknown format", "xls", "", ReadOptions{}, `unknown price format "xls" (known: csv, elspot, epf, pjm)`, nil},
		{"pjm bad time", "", pjmHead + "13/1/2024 5:00:00 AM,x,1,PJM-RTO,,,ZONE,,1,2,0,0,True,1\r\n", ReadOptions{}, "p.csv:2:1: datetime_beginning_utc=\"13/1/2024 5:00:00 AM\"", ErrTime},
		{"pjm two nodes", "", pjmHead + pjmRow("1", "PJM-RTO", "5:00:00 AM", "True") + pjmRow("51288", "WESTERN HUB", "5:00:00 AM", "True"), ReadOptions{},
			"p.csv: 2 pnodes present; choose one with --price-node: 1 PJM-RTO, 51288 WESTERN HUB", nil},
		{"pjm node name with CR", "", pjmHead + pjmRow("1", "PJM-RTO", "5:00:00 AM", "True") + pjmRow("2", "A\rB", "5:00:00 AM", "True"), ReadOptions{},
			`p.csv: 2 pnodes present; choose one with --price-node: 1 PJM-RTO, 2 A\rB`, nil},
		{"pjm bad flag", "", pjmHead + pjmRow("1", "PJM-RTO", "5:00:00 AM", "yes"), ReadOptions{}, "p.csv:2:13: row_is_current=\"yes\"", nil},
		{"elspot bad price", "", "HourUTC;HourDK;PriceArea;SpotPriceDKK;SpotPriceEUR\n2022-10-19 21:00;2022-10-19 23:00;DK2;978,75;\n", ReadOptions{}, "p.csv:2:5: SpotPriceEUR=\"\": bad price", ErrPrice},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := read(t, tc.format, tc.text, tc.opt)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one containing %q", err, tc.want)
			}
			if tc.is != nil && !errors.Is(err, tc.is) {
				t.Errorf("error %v is not %v", err, tc.is)
			}
		})
	}
}

const pjmHead = "datetime_beginning_utc,datetime_beginning_ept,pnode_id,pnode_name,voltage,equipment,type,zone,system_energy_price_rt,total_lmp_rt,congestion_price_rt,marginal_loss_price_rt,row_is_current,version_nbr\r\n"

func pjmRow(id, name, hour, current string) string {
	return "1/1/2024 " + hour + ",x," + id + "," + name + ",,,ZONE,,1,2.5,0,0," + current + ",1\r\n"
}

func TestReadPJMNodeAndVersions(t *testing.T) {
	text := pjmHead + pjmRow("1", "PJM-RTO", "5:00:00 AM", "False") + pjmRow("1", "PJM-RTO", "5:00:00 AM", "True") +
		pjmRow("51288", "WESTERN HUB", "5:00:00 AM", "True") + pjmRow("1", "PJM-RTO", "6:00:00 AM", "True")
	s, err := read(t, "", text, ReadOptions{Node: "pjm-rto"})
	if err != nil {
		t.Fatal(err)
	}
	if len(s.Price) != 2 || !s.Start.Equal(time.Date(2024, 1, 1, 5, 0, 0, 0, time.UTC)) {
		t.Errorf("series %v from %v", s.Price, s.Start)
	}
	if !strings.Contains(strings.Join(s.Notes, ";"), "1 superseded row(s)") {
		t.Errorf("notes %q", s.Notes)
	}
	if _, err := read(t, "", text, ReadOptions{Node: "51217"}); err == nil || !strings.Contains(err.Error(), `no pnode "51217" (present: 1 PJM-RTO, 51288 WESTERN HUB)`) {
		t.Errorf("unknown node error %v", err)
	}
}

// Figures from /work/shared/prices/SOURCES.md (two decimals, as published).
func TestPriceFilesAcceptance(t *testing.T) {
	utc := func(y int, m time.Month, d int) time.Time { return time.Date(y, m, d, 0, 0, 0, 0, time.UTC) }
	tests := []struct {
		file, node             string
		rows, negative, missed int
		from, to               time.Time
		mean, min, max         float64
		unit                   string
	}{
		{"andiehal__AREC-444-ECP__rt_hrl_lmps.csv", "", 8784, 3, 0, time.Time{}, time.Time{}, 31.31, -40.31, 448.14, "$/MWh"},
		{"rroyucsd__ECE228_Proj__da_hrl_lmps.csv", "", 8737, 0, 0, time.Time{}, time.Time{}, 47.87, 11.84, 548.53, "$/MWh"},
		{"michaeltiller__OR-Masters-Dissertation__da_hrl_lmps.csv", "", 8737, -1, 0, time.Time{}, time.Time{}, 51.17, 7.18, 990.29, "$/MWh"},
		{"michaeltiller__OR-Masters-Dissertation__rt_hrl_lmps.csv", "", 8760, 33, 0, time.Time{}, time.Time{}, 50.45, -39.34, 1975.19, "$/MWh"},
		{"zhyg1212__cr-cvar-shp-experiments__da_hrl_lmps.csv", "WESTERN HUB", 2209, -1, 0, time.Time{}, time.Time{}, 48.11, 13.56, 550.23, "$/MWh"},
		{"zhyg1212__cr-cvar-shp-experiments__rt_hrl_lmps.csv", "51288", 2209, -1, 0, time.Time{}, time.Time{}, 48.95, -1.09, 1903.83, "$/MWh"},
		{"souhirbenamor__EPF__PJM.csv", "", 52416, 93, 0, time.Time{}, time.Time{}, 30.47, -6.98, 839.30, "$/MWh"},
		{"souhirbenamor__EPF__PJM.csv", "", 744, -1, 0, utc(2017, 10, 1), utc(2017, 11, 1), 25.16, 1.16, 48.12, "$/MWh"},
		{"souhirbenamor__EPF__DE.csv", "", 52416, 538, 0, time.Time{}, time.Time{}, 34.68, -221.99, 210.00, "EUR/MWh"},
		{"souhirbenamor__EPF__DE.csv", "", 744, -1, 0, utc(2017, 10, 1), utc(2017, 11, 1), 28.40, -83.04, 83.02, "EUR/MWh"},
		{"KasperGroesLudvigsen__xgboost_time_series__Elspotprices.csv", "", 50831, 308, 0, time.Time{}, time.Time{}, 70.24, -50.04, 871.00, "EUR/MWh"},
		{"KasperGroesLudvigsen__xgboost_time_series__Elspotprices.csv", "", 744, -1, 0, utc(2017, 10, 1), utc(2017, 11, 1), 31.74, -21.07, 83.02, "EUR/MWh"},
	}
	for _, tc := range tests {
		t.Run(tc.file+tc.from.Format("-2006-01"), func(t *testing.T) {
			f, err := os.Open(sharedtest.Path(t, "prices/"+tc.file))
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			s, err := ReadPrices(f, tc.file, ReadOptions{Node: tc.node})
			if err != nil {
				t.Fatal(err)
			}
			st := s.Stats(tc.from, tc.to)
			if st.Hours != tc.rows || st.Missing != tc.missed || (tc.negative >= 0 && st.Negative != tc.negative) || s.Unit != tc.unit {
				t.Errorf("hours %d missing %d negative %d unit %s; want %d, %d, %d, %s", st.Hours, st.Missing, st.Negative, s.Unit, tc.rows, tc.missed, tc.negative, tc.unit)
			}
			if math.Abs(st.Mean-tc.mean) > 0.005 || math.Abs(st.Min-tc.min) > 0.005 || math.Abs(st.Max-tc.max) > 0.005 {
				t.Errorf("mean %.4f min %.4f max %.4f; want %.2f, %.2f, %.2f", st.Mean, st.Min, st.Max, tc.mean, tc.min, tc.max)
			}
			t.Logf("%s: %s, %d h from %s, notes %q", tc.file, s.Unit, len(s.Price), s.Start.Format(time.RFC3339), s.Notes)
		})
	}
}

func TestPJMSupersededAndHubs(t *testing.T) {
	f, err := os.Open(sharedtest.Path(t, "prices/andiehal__AREC-444-ECP__rt_hrl_lmps.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	s, err := ReadPrices(f, "rt.csv", ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(strings.Join(s.Notes, ";"), "24 superseded row(s)") {
		t.Errorf("notes %q", s.Notes)
	}
	// the version-2 price replaced 28.35 at UTC 2024-03-06 03:00 (SOURCES.md, 2 decimals)
	if p, err := s.At(time.Date(2024, 3, 6, 3, 0, 0, 0, time.UTC)); err != nil || math.Abs(p-40.16) > 0.005 {
		t.Errorf("price at 2024-03-06T03:00Z = %v, %v; want 40.16", p, err)
	}
	g, err := os.Open(sharedtest.Path(t, "prices/zhyg1212__cr-cvar-shp-experiments__da_hrl_lmps.csv"))
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	if _, err := ReadPrices(g, "hubs.csv", ReadOptions{}); err == nil || !strings.Contains(err.Error(), "12 pnodes present; choose one with --price-node: 51217 EASTERN HUB,") {
		t.Errorf("hub file without --price-node: %v", err)
	}
}
