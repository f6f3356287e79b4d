package oneline

import (
	"strconv"
	"strings"
	"unicode"
)

// Escape returns s with every control character (newline, carriage
// return, tab, NUL, ...) written as its Go escape, e.g. `\r`; s is
// returned unchanged when it has none.
func Escape(s string) string {
	if !strings.ContainsFunc(s, unicode.IsControl) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if unicode.IsControl(r) {
			q := strconv.QuoteRune(r)
			b.WriteString(q[1 : len(q)-1])
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}
