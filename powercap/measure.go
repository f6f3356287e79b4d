package powercap

import (
	"fmt"
	"math"
	"strconv"
)

// Point is one measured run of an application. Cap and Freq are the
// settings the run was measured at (0 when the data set does not record one:
// a PCM cap sweep records both the cap and the mean core frequency); Power is
// the mean power per processor (NaN when the data has neither power nor
// energy) and Runtime the wall time.
type Point struct {
	App     string
	Cap     float64 // W
	Freq    float64 // GHz
	Power   float64 // W per processor, NaN if unknown
	Runtime float64 // s

	// GPU settings and the mean power of one GPU (W, NaN if unknown), set by
	// the GPU importers (gpu.go) and by ReadGeneric (x and power_w).
	GPUCap, GPUFreq, GPUPower float64

	File    string // where the point came from, for error messages
	Line    int
	XColumn int // 1-based column of the setting in File, 0 if not a column
}

// X returns the point's setting for knob k.
func (p *Point) X(k Knob) float64 {
	switch k {
	case Cap:
		return p.Cap
	case GPUCap:
		return p.GPUCap
	case GPUFreq:
		return p.GPUFreq
	}
	return p.Freq
}

// PowerOf returns the measured power the knob's model fits: the GPU's for
// GPU knobs, the processor's otherwise.
func (p *Point) PowerOf(k Knob) float64 {
	if k.IsGPU() {
		return p.GPUPower
	}
	return p.Power
}

// Dataset is what an importer returns: points of one or more applications
// and, when the data has idle runs, the idle power per processor by app.
type Dataset struct {
	Points []Point
	IdleW  map[string]float64

	// Devices names, by app, the GPU the measurements were taken on (GPU
	// importers only; copied into Profile.Device).
	Devices map[string]string
	Source  string // free text copied into each Profile.Source

	// Warnings name values an importer dropped, as file:line:column: text
	// (e.g. a negative RAPL energy from a counter wrap).
	Warnings []string
}

// FileError is an input error at a place in a file. Column is 1-based (0
// when the error concerns a whole line or file) and Field names it.
type FileError struct {
	File         string
	Line, Column int
	Field        string
	Err          error
}

func (e *FileError) Error() string {
	pos := e.File
	if e.Line > 0 {
		pos += ":" + strconv.Itoa(e.Line)
		if e.Column > 0 {
			pos += ":" + strconv.Itoa(e.Column)
		}
	}
	if e.Field != "" {
		return fmt.Sprintf("%s: %s: %v", pos, e.Field, e.Err)
	}
	return fmt.Sprintf("%s: %v", pos, e.Err)
}

func (e *FileError) Unwrap() error { return e.Err }

// parseNum parses a finite float, naming the place on error.
func parseNum(s, file string, line, col int, field string) (float64, error) {
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0, &FileError{file, line, col, field, fmt.Errorf("%q is not a number", s)}
	}
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, &FileError{file, line, col, field, fmt.Errorf("%q: %w", s, ErrNotFinite)}
	}
	return v, nil
}
