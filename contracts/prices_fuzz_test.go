package contracts

import (
	"bytes"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"drsim/internal/sharedtest"
)

// Fuzz targets for the price importers, one per format plus detection
// (scripts/fuzz.sh runs them), and the price cases of the bad-input corpus.

const fuzzPriceFile = "p.csv"

// priceSeeds are small inline files of every format; the shared price files
// (first 16 KiB) and the bad corpus are added when present.
var priceSeeds = map[string][]string{
	"csv": {
		"time,price\n0,31.5\n1,30.1\n2,-4\n",
		"time,price\n2024-01-01T00:00:00Z,31.5\n2024-01-01T02:00:00+01:00,30.1\n2024-01-01T03:00:00Z,29\n",
		"time,price\n2024-01-01T00:00:00Z,31.5\n2024-01-01T00:00:00Z,1\n",
		"time,price\n 2024-01-01 01:00Z, 7\n",
	},
	"pjm": {
		"datetime_beginning_utc,pnode_id,pnode_name,total_lmp_da,row_is_current\n1/1/2024 5:00:00 AM,1,PJM-RTO,21.3,True\n1/1/2024 6:00:00 AM,1,PJM-RTO,20.9,False\n1/1/2024 6:00:00 AM,1,PJM-RTO,20.8,True\n",
		"datetime_beginning_utc,pnode_id,pnode_name,total_lmp_rt,row_is_current\n1/1/2024 5:00:00 AM,1,A,1,True\n1/1/2024 5:00:00 AM,2,B,2,True\n",
	},
	"epf": {
		",Price,Load\n2016-01-09 00:00:00,25.5,1\n2016-01-09 01:00:00,24.1,2\n",
		"Date,COMED price\n2016-01-09 00:00:00,25.5\n2016-01-09 02:00:00,24.1\n",
	},
	"elspot": {
		"HourUTC;HourDK;PriceArea;SpotPriceDKK;SpotPriceEUR\n2024-01-01 01:00;2024-01-01 02:00;DK1;300,5;40,3\n2024-01-01 00:00;2024-01-01 01:00;DK1;290,1;38,9\n",
		"HourUTC;PriceArea;SpotPriceEUR\n2024-01-01 01:00;DK1;40,3\n2024-01-01 01:00;DK2;-1,5\n",
	},
}

func addPriceSeeds(f *testing.F, format string) {
	formats := []string{format}
	if format == "" {
		formats = []string{"csv", "pjm", "epf", "elspot"}
	}
	for _, ft := range formats {
		for _, s := range priceSeeds[ft] {
			f.Add([]byte(s), false)
		}
	}
	bad, _ := filepath.Glob("../testdata/bad/prices-*/*.csv")
	if dir := os.Getenv(sharedtest.Env); dir != "" {
		shared, _ := filepath.Glob(filepath.Join(dir, "prices", "*.csv"))
		bad = append(bad, shared...)
	}
	for _, p := range bad {
		b := readHead(p, 16<<10)
		if ft, err := Detect(b); b != nil && (format == "" || err == nil && ft == format) {
			f.Add(b, true)
		}
	}
}

// readHead returns the first n bytes of path cut at a line end.
func readHead(path string, n int64) []byte {
	fh, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer fh.Close()
	b, _ := io.ReadAll(io.LimitReader(fh, n))
	if i := bytes.LastIndexByte(b, '\n'); int64(len(b)) == n && i > 0 {
		b = b[:i+1]
	}
	return b
}

// checkSeries fails unless err is one line starting with the file name, or
// s is a usable hourly series.
func checkSeries(t *testing.T, s *Series, err error, gaps bool) {
	t.Helper()
	if err != nil {
		msg := err.Error()
		if strings.ContainsAny(msg, "\n\r") || !strings.HasPrefix(msg, fuzzPriceFile+":") {
			t.Fatalf("error is not one line starting with %s: %q", fuzzPriceFile, msg)
		}
		return
	}
	if len(s.Price) == 0 || s.Step != time.Hour || s.Source != fuzzPriceFile {
		t.Fatalf("series: %d prices, step %v, source %q", len(s.Price), s.Step, s.Source)
	}
	nan := 0
	for _, p := range s.Price {
		switch {
		case math.IsNaN(p):
			nan++
		case math.IsInf(p, 0):
			t.Fatalf("infinite price in %v", s.Price)
		}
	}
	if nan > 0 && !gaps || math.IsNaN(s.Price[0]) || math.IsNaN(s.Price[len(s.Price)-1]) {
		t.Fatalf("missing hours (%d NaN, gaps allowed: %v) in %v", nan, gaps, s.Price)
	}
	if p, err := s.At(s.Start); err != nil || p != s.Price[0] {
		t.Fatalf("At(Start) = %v, %v; want %v", p, err, s.Price[0])
	}
	if _, err := s.At(s.End()); err == nil {
		t.Fatalf("At(End) succeeded on a non-cyclic series")
	}
}

func fuzzFormat(f *testing.F, format string) {
	addPriceSeeds(f, format)
	f.Fuzz(func(t *testing.T, data []byte, gaps bool) {
		s, err := ReadPrices(bytes.NewReader(data), fuzzPriceFile, ReadOptions{Format: format, AllowGaps: gaps})
		checkSeries(t, s, err, gaps)
	})
}

func FuzzPricesCSV(f *testing.F)    { fuzzFormat(f, "csv") }
func FuzzPricesPJM(f *testing.F)    { fuzzFormat(f, "pjm") }
func FuzzPricesEPF(f *testing.F)    { fuzzFormat(f, "epf") }
func FuzzPricesElspot(f *testing.F) { fuzzFormat(f, "elspot") }
func FuzzPricesDetect(f *testing.F) { fuzzFormat(f, "") }

// TestBadPriceFiles checks the library-level price cases of testdata/bad
// (args "lib prices FILE [FORMAT]"; want: "exit 0|2", "err TEXT" for the
// exact error, "stdout TEXT" for a substring of the series' notes).
func TestBadPriceFiles(t *testing.T) {
	dirs, _ := filepath.Glob("../testdata/bad/prices-*")
	if len(dirs) < 10 {
		t.Fatalf("%d price cases in testdata/bad, want at least 10", len(dirs))
	}
	for _, dir := range dirs {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			sub := strings.NewReplacer("$DIR", dir)
			args := strings.Fields(sub.Replace(string(mustRead(t, filepath.Join(dir, "args")))))
			if len(args) < 3 || args[0] != "lib" || args[1] != "prices" {
				t.Skipf("not a library price case: %v", args)
			}
			opt := ReadOptions{}
			if len(args) > 3 {
				opt.Format = args[3]
			}
			fh, err := os.Open(args[2])
			if err != nil {
				t.Fatal(err)
			}
			defer fh.Close()
			s, err := ReadPrices(fh, args[2], opt)
			exit := 0
			if err != nil {
				exit = 2
			}
			for _, l := range strings.Split(sub.Replace(string(mustRead(t, filepath.Join(dir, "want")))), "\n") {
				key, val, _ := strings.Cut(strings.TrimSpace(l), " ")
				switch key {
				case "exit":
					if w, _ := strconv.Atoi(val); w != exit {
						t.Errorf("ReadPrices(%s): error %v, want exit %s", args[2], err, val)
					}
				case "err":
					if err == nil || err.Error() != val {
						t.Errorf("ReadPrices(%s) error\n\t%v\nwant\n\t%s", args[2], err, val)
					}
				case "stdout":
					if err != nil || !strings.Contains(strings.Join(s.Notes, "; "), val) {
						t.Errorf("ReadPrices(%s): notes %v, error %v; want a note containing %q", args[2], notes(s), err, val)
					}
				}
			}
		})
	}
}

func notes(s *Series) []string {
	if s == nil {
		return nil
	}
	return s.Notes
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
