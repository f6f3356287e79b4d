package contracts

import (
	_ "embed"
	"strings"
)

// illustrativeDay is 24 made-up hourly prices in $/MWh with a typical shape
// (night trough, morning ramp, solar dip at midday, evening peak). It is NOT
// real market data: it only gives drsim a default that needs no file.
//
//go:embed illustrative_day.csv
var illustrativeDay string

// IllustrativeDay returns the default price series: one ILLUSTRATIVE day of
// hourly prices (not real data; mean 43.25, min 22, max 92 $/MWh), cyclic,
// hour 0 at the Unix epoch so that AtOffset(d) is the price d after
// midnight of any day.
func IllustrativeDay() *Series {
	s, err := ReadCSV(strings.NewReader(illustrativeDay), "illustrative_day.csv", ReadOptions{})
	if err != nil {
		panic("contracts: embedded illustrative day: " + err.Error()) // a build defect, covered by tests
	}
	s.Cyclic = true
	s.Source = "illustrative"
	s.Notes = append(s.Notes, "ILLUSTRATIVE prices, not real market data")
	return s
}
