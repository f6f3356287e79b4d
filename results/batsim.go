package results

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"math"
	"strconv"
)

// BatsimEnergyHeader is the header of Batsim's consumed_energy.csv.
const BatsimEnergyHeader = "time,energy,event_type,wattmin,epower\n"

// BatsimEnergyCSV writes the energy time series in Batsim's
// consumed_energy.csv layout, one row per power change: time (s), energy
// consumed since the start (J), event_type ('s' when more jobs run than at
// the previous row, 'e' when fewer, 'p' for a power change alone, as Batsim
// marks job starts, job ends and power-state changes), wattmin (the
// platform's power with every processor idle, W) and epower (the mean power
// since the previous row, W: Batsim's past-oriented definition, "NA" on the
// first row and between rows at the same time). It is a
// scheduler.PowerObserver.
type BatsimEnergyCSV struct {
	w       *bufio.Writer
	buf     []byte
	wattMin float64

	started bool
	t, watt float64 // last row's time and the power drawn since then
	energy  float64
	running int
}

// NewBatsimEnergyCSV writes the header; wattMin is the idle platform power.
func NewBatsimEnergyCSV(w io.Writer, wattMin float64) (*BatsimEnergyCSV, error) {
	bw := bufio.NewWriterSize(w, 1<<16)
	if _, err := bw.WriteString(BatsimEnergyHeader); err != nil {
		return nil, err
	}
	return &BatsimEnergyCSV{w: bw, wattMin: wattMin}, nil
}

// Power records that from time t on the platform draws watts.
func (b *BatsimEnergyCSV) Power(t, watts, limit float64, busy, running int) error {
	ev, epower := byte('p'), math.NaN()
	if b.started {
		if dt := t - b.t; dt > 0 {
			b.energy += b.watt * dt
			epower = b.watt
		}
		switch {
		case running > b.running:
			ev = 's'
		case running < b.running:
			ev = 'e'
		}
	} else if running > 0 {
		ev = 's'
	}
	b.started, b.t, b.watt, b.running = true, t, watts, running
	r := b.buf[:0]
	r = appendNum(r, t)
	r = append(r, ',')
	r = strconv.AppendFloat(r, b.energy, 'f', 3, 64)
	r = append(r, ',', ev, ',')
	r = strconv.AppendFloat(r, b.wattMin, 'f', 3, 64)
	r = append(r, ',')
	if math.IsNaN(epower) {
		r = append(r, "NA"...)
	} else {
		r = strconv.AppendFloat(r, epower, 'f', 3, 64)
	}
	r = append(r, '\n')
	b.buf = r
	_, err := b.w.Write(r)
	return err
}

// Flush writes buffered rows.
func (b *BatsimEnergyCSV) Flush() error { return b.w.Flush() }

// BatsimEnergyFromPowerCSV converts a power.csv (PowerCSV's layout) to
// consumed_energy.csv. wattmin is the lowest power of the rows with no busy
// processor (the idle platform; every run ends with such a row), or the
// lowest power of all rows when there is none. Energy is integrated from
// power.csv's values (W to 3 decimals), so it agrees with the run's exact
// energy to about 1 mW times the span.
func BatsimEnergyFromPowerCSV(dst io.Writer, powerCSV []byte) error {
	type row struct {
		t, w          float64
		busy, running int
	}
	var rows []row
	lines := bytes.Split(bytes.TrimSuffix(powerCSV, []byte("\n")), []byte("\n"))
	for i, l := range lines {
		if i == 0 {
			continue // header
		}
		f := bytes.Split(l, []byte(","))
		if len(f) != 5 {
			return fmt.Errorf("power.csv:%d: want 5 fields, got %d", i+1, len(f))
		}
		t, e1 := strconv.ParseFloat(string(f[0]), 64)
		w, e2 := strconv.ParseFloat(string(f[1]), 64)
		busy, e3 := strconv.Atoi(string(f[3]))
		run, e4 := strconv.Atoi(string(f[4]))
		if e1 != nil || e2 != nil || e3 != nil || e4 != nil {
			return fmt.Errorf("power.csv:%d: bad row %q", i+1, l)
		}
		rows = append(rows, row{t, w, busy, run})
	}
	idle, any := math.Inf(1), math.Inf(1)
	for _, r := range rows {
		any = math.Min(any, r.w)
		if r.busy == 0 {
			idle = math.Min(idle, r.w)
		}
	}
	if math.IsInf(idle, 1) {
		idle = any
	}
	if math.IsInf(idle, 1) {
		idle = 0
	}
	b, err := NewBatsimEnergyCSV(dst, idle)
	if err != nil {
		return err
	}
	for _, r := range rows {
		if err := b.Power(r.t, r.w, 0, r.busy, r.running); err != nil {
			return err
		}
	}
	return b.Flush()
}
