package workloads

import (
	"errors"
	"fmt"
)

// Sentinel errors carried by ParseError.Err (possibly wrapped with detail);
// test with errors.Is.
var (
	ErrSyntax       = errors.New("invalid syntax")
	ErrRange        = errors.New("out of range")
	ErrFieldCount   = errors.New("wrong number of fields")
	ErrInconsistent = errors.New("inconsistent")
)

// ParseError reports a bad or (in strict mode) anomalous value in an SWF
// file: the file, the 1-based line, the 1-based SWF field and its name.
type ParseError struct {
	File, Name, Value string // Name is the SWF field name, e.g. "run_time" (sacct: the column name)
	Line, Field       int    // Field is the 1-based SWF field number (sacct: the 1-based column)
	Err               error  // ErrSyntax, ErrRange, ErrFieldCount, ErrInconsistent

	// Column is the 1-based byte column of Value in its line, set for sacct
	// input only; the message then reads file:line:column (Name)="value".
	Column int
}

func (e *ParseError) Error() string {
	if e.Column > 0 {
		return fmt.Sprintf("%s:%d:%d (%s)=%q: %v", e.File, e.Line, e.Column, e.Name, e.Value, e.Err)
	}
	return fmt.Sprintf("%s:%d: field %d (%s)=%q: %v", e.File, e.Line, e.Field, e.Name, e.Value, e.Err)
}

// Unwrap returns the sentinel (or the wrapped sentinel) so errors.Is works.
func (e *ParseError) Unwrap() error { return e.Err }

// fieldName returns the SWF name of 1-based field f ("extra" past 18).
func fieldName(f int) string {
	if f >= 1 && f < len(FieldNames) {
		return FieldNames[f]
	}
	return "extra"
}

// wrapf wraps a sentinel with detail: errors.Is(wrapf(ErrRange, ...), ErrRange).
func wrapf(sentinel error, format string, a ...any) error {
	return fmt.Errorf("%w: %s", sentinel, fmt.Sprintf(format, a...))
}
