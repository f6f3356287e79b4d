package contracts

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"
)

// WriteText writes the report for people: the menu, the utility matrix with
// each type's choice, every violation, and the minimal rewards with slack.
// Money is rounded to cents.
func (r *Report) WriteText(w io.Writer) error {
	ew := &errWriter{w: w}
	ew.printf("types θ: %s; cost: %s\n", floats(r.Theta), r.Cost)
	ew.printf("utility r_j − θ_i·c(Δt_j) (row: type, column: bundle):\n")
	tw := tabwriter.NewWriter(ew, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprint(tw, "type\tθ\t")
	for j, b := range r.Bundles {
		fmt.Fprintf(tw, "%d (%s, %g%%)\t", j+1, money(b.Reward), b.Dt)
	}
	fmt.Fprint(tw, "\n")
	for i, row := range r.Utility {
		fmt.Fprintf(tw, "%d\t%g\t", i+1, r.Theta[i])
		for _, u := range row {
			fmt.Fprintf(tw, "%s\t", money(u))
		}
		fmt.Fprint(tw, "\n")
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for i := range r.Choice {
		ew.printf("type %d chooses %s\n", i+1, r.choiceText(i))
	}
	if r.OK() {
		ew.printf("violations: none (the menu is IR, IC and monotone)\n")
	} else {
		ew.printf("violations: %d\n", len(r.Violations))
		for _, v := range r.Violations {
			ew.printf("  %s\n", v)
		}
	}
	if r.MinReward == nil {
		ew.printf("minimal rewards: none (Δt is not monotone, so no rewards make this menu IC)\n")
		return ew.err
	}
	ew.printf("minimal IR/IC rewards for the same Δt (top type's IR and adjacent downward ICs bind):\n")
	tw = tabwriter.NewWriter(ew, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprint(tw, "bundle\tΔt %\treward\tminimal\tslack\t\n")
	for j, b := range r.Bundles {
		fmt.Fprintf(tw, "%d\t%g\t%s\t%s\t%s\t\n", j+1, b.Dt, money(b.Reward), money(r.MinReward[j]), money(r.Slack[j]))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	return ew.err
}

// choiceText is "bundle 1", "bundle 1 (tie with 2 at 750.00; ties go to
// the own bundle)" or "no bundle (every utility is negative)".
func (r *Report) choiceText(i int) string {
	c := r.Choice[i]
	if c < 0 {
		return "no bundle (every utility is negative)"
	}
	var ties []string
	for j, u := range r.Utility[i] {
		if j != c && u >= r.Utility[i][c]-Tol {
			ties = append(ties, strconv.Itoa(j+1))
		}
	}
	if len(ties) == 0 {
		return "bundle " + strconv.Itoa(c+1)
	}
	why := "the lowest index"
	if c == i {
		why = "the own bundle"
	}
	return fmt.Sprintf("bundle %d (tie with %s at %s; ties go to %s)", c+1, strings.Join(ties, ","), money(r.Utility[i][c]), why)
}

// reportJSON is the machine-readable report: money as decimal strings in
// cents, indices 1-based, choice 0 when the type declines every bundle.
type reportJSON struct {
	Theta      []float64       `json:"theta"`
	Cost       string          `json:"cost"`
	Menu       []bundleJSON    `json:"menu"`
	Utility    [][]string      `json:"utility"`
	Choice     []int           `json:"choice"`
	OK         bool            `json:"ok"`
	Violations []violationJSON `json:"violations"`
	MinReward  []string        `json:"min_reward"`
	Slack      []string        `json:"slack"`
}

type bundleJSON struct {
	Reward string  `json:"reward"`
	Dt     float64 `json:"dt_percent"`
}

type violationJSON struct {
	Kind   string `json:"kind"`
	Type   int    `json:"type"`
	Bundle int    `json:"bundle"`
	Amount string `json:"amount"` // currency for IR/IC, percent points for monotonicity
	Text   string `json:"text"`
}

// WriteJSON writes the report as one indented JSON object.
func (r *Report) WriteJSON(w io.Writer) error {
	out := reportJSON{Theta: r.Theta, Cost: r.Cost, OK: r.OK(), Choice: make([]int, len(r.Choice)),
		Violations: []violationJSON{}, MinReward: moneys(r.MinReward), Slack: moneys(r.Slack)}
	for _, b := range r.Bundles {
		out.Menu = append(out.Menu, bundleJSON{money(b.Reward), b.Dt})
	}
	for i, row := range r.Utility {
		out.Utility = append(out.Utility, moneys(row))
		out.Choice[i] = r.Choice[i] + 1
	}
	for _, v := range r.Violations {
		amt := money(v.Amount)
		if v.Kind == Monotone {
			amt = strconv.FormatFloat(v.Amount, 'g', -1, 64)
		}
		out.Violations = append(out.Violations, violationJSON{v.Kind.String(), v.Type + 1, v.Bundle + 1, amt, v.String()})
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

func moneys(x []float64) []string {
	if x == nil {
		return nil
	}
	s := make([]string, len(x))
	for i, v := range x {
		s[i] = money(v)
	}
	return s
}

func floats(x []float64) string {
	s := make([]string, len(x))
	for i, v := range x {
		s[i] = strconv.FormatFloat(v, 'g', -1, 64)
	}
	return strings.Join(s, ", ")
}

// errWriter keeps the first write error so the text report reads straight.
type errWriter struct {
	w   io.Writer
	err error
}

func (e *errWriter) Write(p []byte) (int, error) {
	if e.err != nil {
		return 0, e.err
	}
	n, err := e.w.Write(p)
	e.err = err
	return n, err
}

func (e *errWriter) printf(format string, a ...any) { fmt.Fprintf(e, format, a...) }
